"""README's "Extend it" table, each row done: a plug-in in one file (beside this test), registered
there, then used by name where the built-ins are used."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest


def _episodes(run_dir: Path) -> dict[str, tuple]:
    """Every stored episode by key, all columns but the commit time."""
    with sqlite3.connect(run_dir / "results.sqlite") as conn:
        cols = [r[1] for r in conn.execute("PRAGMA table_info(episodes)")]
        keep = [c for c in cols if c != "finished_at"]
        rows = conn.execute(f"SELECT {', '.join(keep)} FROM episodes").fetchall()
    return {row[0]: row for row in rows}


def test_a_new_executor_is_one_file_and_a_name_for_empa_bench(tmp_path, capsys):
    from empa_env.cli import main
    from tests.extend.serial_executor import SerialExecutor

    args = ["bench", "--policy", "scripted:empty", "--limit", "2", "--max-turns", "12",
            "--no-report", "--quiet"]  # fmt: skip
    SerialExecutor.played.clear()
    assert main([*args, "--executor", "serial", "--out", str(tmp_path / "serial")]) == 0
    assert len(SerialExecutor.played) == 2  # it played both episodes, one after the other
    assert main([*args, "--executor", "local", "--out", str(tmp_path / "local")]) == 0
    serial, local = _episodes(tmp_path / "serial"), _episodes(tmp_path / "local")
    assert set(serial) == set(SerialExecutor.played) and serial == local  # same results
    # The registry's names are the CLI's choices; its own refusal is one line.
    assert (
        main([*args, "--executor", "serial", "--ray-address", "h:1", "--out", str(tmp_path / "x")])
        == 2
    )
    assert "error: the serial executor plays in this process" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    assert "--executor {local,ray,serial}" in capsys.readouterr().out


def test_a_new_advantage_estimator_is_one_file_and_a_name():
    from baselines.advantages import AdvantageConfig, estimators, is_batch_wide
    from baselines.training.mica.distributed import gathered_advantages
    from tests.extend.batch_mean_estimator import batch_mean_advantages

    rewards = np.array([[[1.0, 3.0, 0.0], [2.0, 0.0, 0.0]], [[4.0, 4.0, 4.0], [0.0, 0.0, 0.0]]])
    lengths = np.array([[2, 1], [3, 0]])
    assert "batch_mean" in estimators.names() and is_batch_wide("batch_mean")
    got = AdvantageConfig("batch_mean")(rewards, lengths)
    mean = (1 + 3 + 2 + 4 + 4 + 4) / 6
    assert got[0, 0, :2].tolist() == [1 - mean, 3 - mean] and got[1, 1].tolist() == [0.0] * 3
    # Batch-wide: two processes, each with one case, get the single-process values.
    parts = [(rewards[:1], lengths[:1]), (rewards[1:], lengths[1:])]
    for index in (0, 1):
        local = gathered_advantages(
            AdvantageConfig("batch_mean"), *parts[index], gather=lambda _items: parts,
            process_index=index,
        )  # fmt: skip
        assert np.array_equal(local, batch_mean_advantages(rewards, lengths)[index : index + 1])


@pytest.mark.train
def test_a_new_loss_type_is_one_file_and_a_name():
    pytest.importorskip("trl")
    import torch

    from baselines.training.mica.trainer import MICAConfig, loss_denominator, policy_loss
    from tests.extend import sequence_mean_loss  # noqa: F401  (registers "reply_mean")

    g = torch.Generator().manual_seed(0)
    logps, old = torch.randn(3, 5, generator=g), torch.randn(3, 5, generator=g)
    advantages = torch.tensor([0.5, -1.0, 2.0])
    mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [0, 0, 0, 0, 0]], dtype=torch.float)
    mine = policy_loss(logps, old, advantages, mask, loss_type="reply_mean")
    grpo = policy_loss(logps, old, advantages, mask, loss_type="grpo")
    assert torch.allclose(mine, grpo)  # the same aggregation, written anew
    assert loss_denominator("reply_mean", 3, 8, 48) == 3.0
    assert MICAConfig(output_dir="unused", loss_type="reply_mean").loss_type == "reply_mean"
    with pytest.raises(ValueError, match="choose one of .*reply_mean"):
        policy_loss(logps, old, advantages, mask, loss_type="nope")


def test_a_new_language_is_one_file_and_a_code():
    from empa_env import EMPAEnv
    from empa_env.cases.suites import load_suite
    from empa_env.languages import language
    from empa_env.llm.render import language_instruction
    from tests.extend import esperanto  # noqa: F401  (registers "eo")

    eo = language("eo")
    assert eo.content_words("Mi estas tre laca kaj la laboro ne finiĝas") == [
        "tre", "laca", "laboro", "finiĝas",
    ]  # fmt: skip
    assert "The conversation is in Esperanto (eo)" in language_instruction("eo", "actor")
    # The offline roles do not play it (offline_roles=False): a case in the new language is
    # refused at reset, with the LLM roles named, instead of being scored by English rules.
    case = load_suite("empa30-v1").cases[0].model_copy(update={"language": "eo"})
    env = EMPAEnv([case], max_turns=12)
    with pytest.raises(ValueError, match="in 'eo'; use an LLM actor"):
        env.reset(seed=0)


@pytest.fixture
def british_english():
    """Registers "en-GB" by importing its one file; unregistered afterwards, so that other tests
    see the built-in languages only."""
    import importlib
    import sys

    from empa_env.languages import languages, offline_languages

    module = "tests.extend.british_english"
    sys.modules.pop(module, None)
    assert "en-GB" not in offline_languages()  # asked before the plug-in registers it
    importlib.import_module(module)
    try:
        yield
    finally:
        languages.unregister("en-GB")
        sys.modules.pop(module, None)


def _played(case, policy, seed):
    """The whole episode of ``policy`` on ``case`` with the offline roles, as plain data."""
    from empa_env import EMPAEnv

    env = EMPAEnv([case], max_turns=12)
    env.reset(seed=seed)
    done = False
    while not done:
        *_, terminated, truncated, _ = env.step(policy(env.messages))
        done = terminated or truncated
    return env.trajectory.to_dict()


def test_a_new_language_the_offline_roles_play_is_one_file_and_a_code(british_english):
    from empa_env import EMPAEnv
    from empa_env.cases.suites import load_suite
    from empa_env.languages import offline_languages
    from empa_env.offline.actor import OfflineActor
    from empa_env.offline.default import offline_judger
    from empa_env.offline.director import OfflineDirector
    from empa_env.offline.playable import UnsupportedCaseLanguage
    from empa_env.roles.views import ActorPersona, ActorView
    from empa_env.testing import policies
    from tests.extend import esperanto  # noqa: F401  (registers "eo", offline_roles=False)

    # The offline roles play exactly the registered languages with offline_roles=True.
    assert offline_languages() == ("en", "en-GB")
    for role in (OfflineActor(), OfflineDirector(), offline_judger()):
        assert role.languages == ("en", "en-GB")
    # A British English case plays end to end as the same case in English does: the language's
    # words, stopwords and sentences are English's, and the offline roles read through them.
    cases = load_suite("empa30-v1").cases
    for case, policy, seed in (
        (cases[0], policies.attuned, 0),
        (cases[3], policies.advice_giver, 1),
        (cases[7], policies.parrot, 2),
    ):
        british = case.model_copy(update={"language": "en-GB"})
        played = _played(british, policy, seed)
        assert played == _played(case, policy, seed) and played["turns"]
    # A language with offline_roles=False is refused at reset, the offline languages named.
    esperanto_case = cases[0].model_copy(update={"language": "eo"})
    with pytest.raises(ValueError) as refused:
        EMPAEnv([esperanto_case]).reset(seed=0)
    assert str(refused.value).startswith(
        "the actor 'offline-actor-v1' plays cases in en, en-GB only, and case "
        f"{esperanto_case.id!r} is in 'eo'; use an LLM actor instead"
    )
    with pytest.raises(UnsupportedCaseLanguage) as refused_by_actor:
        OfflineActor().open(ActorView(ActorPersona.from_case(esperanto_case), (), None, 0, 0))
    assert str(refused_by_actor.value).startswith(
        "the offline actor plays cases in English (en), British English (en-GB) only, and case "
    )
    # Unregistered, the language is no longer played: its cases are refused like any other.
    from empa_env.languages import languages

    languages.unregister("en-GB")
    assert offline_languages() == ("en",)
    with pytest.raises(ValueError, match="plays cases in en only, and case .* is in 'en-GB'"):
        EMPAEnv([cases[0].model_copy(update={"language": "en-GB"})]).reset(seed=0)


def test_a_new_encoder_tier_is_one_file_and_a_name():
    import tests.extend.hashed_tier  # noqa: F401  (registers "hashed")
    from empa_env.offline.default import offline_judger
    from empa_env.offline.semantic.encoder import encoder_tiers, load_encoder

    assert "hashed" in encoder_tiers.names()
    encoder = load_encoder("hashed")  # cached like the built-ins
    rows = encoder.encode(["I miss my sister.", "I miss my sister.", ""])
    assert rows.shape == (3, 64) and np.allclose(np.linalg.norm(rows[:2], axis=1), 1.0)
    assert not rows[2].any() and len(encoder) == 2
    # the semantic judge needs heads trained with the tier, and says how to make them
    with pytest.raises(FileNotFoundError, match="empa judge train --tier hashed"):
        offline_judger("hashed")
