"""The strategy-level policy of the CPU experiment and the experiment's table/figure helpers."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from baselines.training.strategy.policy import (
    CONTENT_BLIND,
    FEATURE_DIM,
    N_STRATEGIES,
    STRATEGIES,
    STRATEGY_NAMES,
    family,
    features,
    last_feeling,
    user_words,
)

CONV = [
    {"role": "user", "content": "I'm so exhausted. My manager ignored the report again."},
    {"role": "assistant", "content": "That sounds hard."},
    {"role": "user", "content": "Whatever. I don't know why I keep trying at this job?"},
]


def test_user_words_and_feeling_come_from_the_user():
    a, b = user_words(CONV)
    assert (a, b) == ("trying", "report")  # latest first; short and filler words skipped
    assert last_feeling(CONV) == "exhausted"
    assert user_words([]) == ("this", "everything")
    assert last_feeling([{"role": "user", "content": "hello"}]) == "worn down"


def test_every_strategy_fills_its_phrasings():
    for s in STRATEGIES:
        replies = {s.reply(CONV, random.Random(i)) for i in range(60)}
        if s.parts:
            assert len(replies) > max(len(p.phrasings) for p in s.parts)
            assert all(r.count(". ") + r.count("? ") + r.count("! ") >= 1 for r in replies)
        else:
            assert len(replies) == len(s.phrasings) >= 4
        assert all("{" not in r and r.strip() and r[0].isupper() for r in replies)
    assert len({s.name for s in STRATEGIES}) == len(STRATEGIES) == 22


def test_attending_strategies_say_back_what_the_user_told_and_blind_ones_do_not():
    """The same phrasing, filled from the reading (the manager and the report, the named
    feeling) or with two arbitrary words; generic lines hold nothing of the user's."""
    validate = STRATEGIES[STRATEGY_NAMES.index("validate")]
    blind = STRATEGIES[STRATEGY_NAMES.index("validate~words")]
    assert family("validate") == "attending" and family("validate+clarify") == "attending"
    assert family("validate~words") == family("generic comfort") == "content-blind"
    assert family("platitude~words") == "content-blind"
    conv = [{"role": "user", "content": "My brother Karim sold our late father's watch. "
             "I feel so betrayed and angry, and my mother just said nothing."}]  # fmt: skip
    said = validate.reply(conv, random.Random(0)).lower()
    assert "karim" in said or "your brother" in said or "the watch" in said, said
    assert "angry" in said, said
    phrasing = next(p for p in validate.phrasings if p.startswith("Of course"))
    assert STRATEGIES[0].phrasings == blind.phrasings and phrasing in blind.phrasings
    blind_said = blind.reply(CONV, random.Random(0))
    a, b = user_words(CONV)
    assert a in blind_said and b in blind_said
    assert CONTENT_BLIND.sum() == 9 and not CONTENT_BLIND[STRATEGY_NAMES.index("validate")]


def test_a_phrasing_does_not_come_back_within_a_dozen_replies():
    clarify = STRATEGIES[STRATEGY_NAMES.index("clarify")]
    conv = list(CONV[:1])
    seen = []
    for turn in range(len(clarify.phrasings)):
        reply = clarify.reply(conv, random.Random(turn))
        seen.append(next(p for p in clarify.phrasings if p.split("{")[0] in reply))
        conv += [{"role": "assistant", "content": reply}, CONV[2]]
    assert len(set(seen)) == len(clarify.phrasings), seen


def test_features_describe_the_conversation():
    x0 = features(CONV[:1], [])
    x = features(CONV, [1])
    assert x.shape == (FEATURE_DIM,) and x.dtype == np.float32
    assert np.all(np.isfinite(x)) and np.all(x >= 0)
    assert x[2 + 1] == 1.0 and x0[2 + 1] == 0.0  # previous action one-hot
    assert not np.array_equal(x, x0)
    guarded = 2 + 2 * N_STRATEGIES + 1 + 3
    assert x[guarded] == 1.0 and x0[guarded] == 0.0


@pytest.mark.train
def test_policy_and_loss():
    torch = pytest.importorskip("torch")
    from baselines.training.strategy.experiment import EpisodeBatch, pg_loss
    from baselines.training.strategy.policy import build_policy

    net = build_policy(seed=0)
    x = torch.from_numpy(np.stack([features(CONV, [0]), features(CONV[:1], [])]))
    probs = torch.softmax(net(x), -1)
    assert probs.shape == (2, N_STRATEGIES)
    assert torch.allclose(
        probs, torch.full_like(probs, 1 / N_STRATEGIES), atol=0.02
    )  # ~uniform start
    rng = np.random.default_rng(0)
    batch = EpisodeBatch(
        rewards=rng.normal(size=(2, 2, 3)), lengths=np.array([[3, 2], [1, 3]]),
        feats=rng.random((2, 2, 3, FEATURE_DIM)).astype(np.float32),
        actions=rng.integers(0, N_STRATEGIES, size=(2, 2, 3)), epm=[{}] * 4,
    )  # fmt: skip
    net.zero_grad()
    pg_loss(net, batch, np.zeros((2, 2, 3))).backward()
    assert all(torch.count_nonzero(p.grad) == 0 for p in net.parameters())
    net.zero_grad()
    adv = np.zeros((2, 2, 3))
    adv[0, 0, 0] = 1.0
    loss = pg_loss(net, batch, adv)
    loss.backward()
    assert any(torch.count_nonzero(p.grad) > 0 for p in net.parameters())
    # padded turns never count: advantages beyond the lengths change nothing
    adv2 = adv.copy()
    adv2[0, 1, 2] = 50.0
    assert pg_loss(net, batch, adv2).item() == pytest.approx(loss.item())


def test_table_and_markdown_shape():
    from baselines.training.strategy.experiment import markdown, table

    results = pd.DataFrame(
        [{"method": m, "seed": s, "pass": p, "score": sc, "turns": 20.0}
         for m, s, p, sc in [("base", 0, 0, 10.0), ("base", 1, 0, 12.0),
                             ("mica", 0, 3, 40.0), ("mica", 1, 5, 44.0),
                             ("grpo", 0, 1, 30.0), ("grpo", 1, 1, 30.0)]]
    )  # fmt: skip
    tab = table(results)
    assert list(tab["Method"]) == ["Base (untrained)", "GRPO", "MICA"]
    assert tab.loc[tab["Method"] == "MICA", "Pass"].item() == "4.0 ± 1.4"
    assert tab.loc[tab["Method"] == "GRPO", "Score"].item() == "30.0 ± 0.0"
    md = markdown(tab)
    assert md.splitlines()[0].startswith("| Method | Pass | Score")
    assert len(md.splitlines()) == 2 + len(tab)


def test_figure_from_curves():
    pytest.importorskip("matplotlib")
    from baselines.training.strategy.experiment import figure

    curves = pd.DataFrame(
        [{"method": m, "seed": s, "iteration": i, "episodes": 8 * i, "return": i * (s + 1.0),
          "success_rate": 0.1 * i} for m in ("mica", "grpo") for s in (0, 1) for i in range(1, 6)]
    )  # fmt: skip
    fig = figure(curves)
    assert len(fig.axes) == 2 and len(fig.axes[0].lines) == 2
    from baselines.training.strategy.experiment import gradient_figure

    curves = pd.DataFrame(
        [{"method": m, "seed": s, "iteration": i, "episodes": 8 * i, "return": float(i),
          "success_rate": 0.0, "content_blind_share": 0.5 - 0.05 * i, "grad_norm": 0.1 * i}
         for m in ("mica", "group", "turn", "grpo") for s in (0, 1) for i in range(1, 6)]
    )  # fmt: skip
    assert len(figure(curves).axes) == 3
    fig5 = gradient_figure(curves)  # the mixed advantage and its two halves only
    assert len(fig5.axes) == 2 and len(fig5.axes[1].lines) == 3


def _reference_play(net, envs, case_ids, k, rng, seed, greedy=False, max_turns=45):
    """The experiment's own lockstep loop before it moved onto empa_env.rollout.play_lockstep
    (kept here as the reference the shared loop must reproduce bit for bit)."""
    import torch

    n = len(case_ids) * k
    actions = [[] for _ in range(n)]
    feats = [[] for _ in range(n)]
    rewards = [[] for _ in range(n)]
    phrasing = [random.Random(seed * 7919 + i) for i in range(n)]
    epm = [{} for _ in range(n)]
    for i in range(n):
        envs[i].reset(seed=seed * 10_007 + i, options={"case": case_ids[i // k]})
    alive = list(range(n))
    while alive:
        x = np.stack([features(envs[i].unwrapped.messages, actions[i], max_turns) for i in alive])
        with torch.no_grad():
            logits = net(torch.from_numpy(x)).numpy()
        if greedy:
            chosen = logits.argmax(-1)
        else:
            p = np.exp(logits - logits.max(-1, keepdims=True))
            p /= p.sum(-1, keepdims=True)
            chosen = np.array([rng.choice(len(row), p=row) for row in p])
        still = []
        for j, i in enumerate(alive):
            a = int(chosen[j])
            reply = STRATEGIES[a].reply(envs[i].unwrapped.messages, phrasing[i])
            _, r, terminated, truncated, info = envs[i].step(reply)
            actions[i].append(a)
            feats[i].append(x[j])
            rewards[i].append(float(r))
            if terminated or truncated:
                epm[i] = dict(info.get("epm") or {})
            else:
                still.append(i)
        alive = still
    return actions, feats, rewards, epm


@pytest.mark.train
@pytest.mark.parametrize("greedy", [False, True])
def test_play_reproduces_the_experiments_own_loop_bit_for_bit(greedy):
    pytest.importorskip("torch")
    import gymnasium as gym

    import empa_env  # noqa: F401
    from baselines.training.strategy.experiment import play
    from baselines.training.strategy.policy import build_policy

    net = build_policy(seed=1)
    envs = [gym.make("EMPA-v14", max_turns=14) for _ in range(4)]
    cases = [c.id for c in envs[0].unwrapped.cases][:2]
    rng_a, rng_b = np.random.default_rng(9), np.random.default_rng(9)
    actions, feats, rewards, epm = _reference_play(net, envs, cases, 2, rng_a, 4, greedy, 14)
    batch = play(net, envs, cases, 2, rng_b, 4, greedy=greedy, max_turns=14)
    assert rng_a.random() == rng_b.random()  # the same draws from the shared generator
    assert batch.epm == epm
    for i in range(4):
        t = len(rewards[i])
        assert batch.lengths[i // 2, i % 2] == t
        assert batch.rewards[i // 2, i % 2, :t].tolist() == rewards[i]
        assert batch.actions[i // 2, i % 2, :t].tolist() == actions[i]
        assert np.array_equal(batch.feats[i // 2, i % 2, :t], np.stack(feats[i]))
