"""The CPU experiment: the MICA paper's training claim (Table 1, Fig. 5) in miniature.

A :mod:`strategy <baselines.training.strategy.policy>` policy (an MLP over conversation features choosing
one of 22 reply strategies: attending ones, whose slots hold what the user told as the one reading
of the conversation gives it, and content-blind ones) is trained on the offline training pool
(:data:`empa_env.TRAINING_ID`) with each advantage estimator under the same budget (iterations x
B cases x K rollouts), from the same initialisation per seed, with the paper's loss
``-mean(A_t log pi(a_t | h_t))`` (one on-policy step per batch, so the clipped ratio is 1 and the
loss is exactly this). Each trained policy then plays the 30-case suite
(:data:`empa_env.BENCHMARK_ID`), one episode per case, sampling its strategies and greedily.
Reported: Pass (cases ending in success, of 30), Score (mean EPM-Index) and turns, mean and 95%
interval over seeds, as in Table 1; the training curves; the gradient norm over training (Fig. 5);
how the policies' share of content-blind strategies moves. The roles and reward are chosen with
the same specs as everywhere (``--judger``, ``--actor``, ``--director``, ``--reward``) and the run
records the versioned id and behaviour digest of the environment it ran on.

    python -m baselines.training.strategy --out runs/strategy
    python -m baselines.training.strategy --write-up runs/strategy   # the write-up, again

The write-up (:mod:`baselines.training.strategy.report`) is generated from the run directory.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from baselines.advantages import AdvantageConfig
from baselines.training.strategy.policy import (
    CONTENT_BLIND,
    STRATEGY_NAMES,
    EpisodeBatch,
    StrategyTurns,
    build_policy,
)
from empa_env.rollout import Step, play_lockstep
from empa_env.versions import BENCHMARK_ID, TRAINING_ID

METHODS: dict[str, str] = {
    "grpo": "GRPO",
    "reinforce_pp_traj": "REINFORCE++ (with Traj)",
    "reinforce_pp_idr_batch": "REINFORCE++ (with IDR-Batch)",
    "mica": "MICA",
    "turn": "Turn-level only",
    "group": "Group-level only",
}


@dataclass
class ExperimentConfig:
    """Budget and settings shared by every method (the comparison is at equal budget).

    ``roles`` are the environment's role and reward specs (``{"judger": "lexicon"}``, ...),
    applied to the training and the evaluation environment alike; ``train_env_kwargs`` and
    ``eval_env_kwargs`` add what only one of them gets (e.g. a shorter training episode)."""

    methods: tuple[str, ...] = tuple(METHODS)
    seeds: tuple[int, ...] = (0, 1, 2)
    iterations: int = 12
    cases_per_batch: int = 3
    rollouts: int = 4
    learning_rate: float = 0.02
    entropy_coef: float = 0.01
    alpha: float = 0.5
    gamma: float = 0.95
    hidden: int = 64
    train_env: str = TRAINING_ID
    eval_env: str = BENCHMARK_ID
    roles: dict[str, Any] = field(default_factory=dict)
    train_env_kwargs: dict[str, Any] = field(default_factory=lambda: {"max_turns": 16})
    eval_env_kwargs: dict[str, Any] = field(default_factory=dict)
    eval_seed: int = 12345
    #: Also evaluate each policy greedily (its most likely strategy every turn).
    greedy_eval: bool = False
    #: Play the training episodes on this many Ray actors (``baselines.training.ray_rollouts``;
    #: the ``ray`` extra); 0 = in this process. With workers, each episode samples from its own
    #: generator, so results are the same for any number of workers (not the same as 0's).
    rollout_workers: int = 0


def _make_env(env_id: str, kwargs: dict[str, Any]) -> Any:
    import gymnasium as gym

    import empa_env  # noqa: F401  (registers the ids)

    return gym.make(env_id, **kwargs)


class _StrategyTurns(StrategyTurns):
    """In-process play: every draw from one shared generator (in the order the rows come), the
    features kept here for :func:`play`."""

    def __init__(
        self, net: Any, n: int, rng: np.random.Generator, seed: int, greedy: bool, max_turns: int
    ) -> None:
        super().__init__(net, [seed * 7919 + i for i in range(n)], greedy, max_turns)
        self.rng = rng
        self.feats: list[list[np.ndarray]] = [[] for _ in range(n)]

    def draw(self, index: int, p: np.ndarray) -> int:
        return int(self.rng.choice(len(p), p=p))

    def record(self, index: int, action: int, x: np.ndarray, step: Step) -> None:
        self.feats[index].append(x)


def play(
    net: Any, envs: Sequence[Any], case_ids: Sequence[Any], k: int, rng: np.random.Generator,
    seed: int, greedy: bool = False, max_turns: int = 45,
) -> EpisodeBatch:  # fmt: skip
    """Play ``len(case_ids) x k`` episodes in lockstep (:func:`empa_env.rollout.play_lockstep`);
    one batched forward per turn."""
    n = len(case_ids) * k
    strategy = _StrategyTurns(net, n, rng, seed, greedy, max_turns)
    episodes = play_lockstep(
        envs,
        strategy,
        cases=[case_ids[i // k] for i in range(n)],
        seeds=[seed * 10_007 + i for i in range(n)],
        hooks=strategy,
    )
    rewards = [e.rewards for e in episodes]
    feats, actions = strategy.feats, strategy.actions
    b = len(case_ids)
    t_max = max(len(r) for r in rewards)
    dim = feats[0][0].shape[0]
    out = EpisodeBatch(
        rewards=np.zeros((b, k, t_max)), lengths=np.zeros((b, k), dtype=np.int64),
        feats=np.zeros((b, k, t_max, dim), dtype=np.float32),
        actions=np.zeros((b, k, t_max), dtype=np.int64), epm=[e.epm for e in episodes],
    )  # fmt: skip
    for i in range(n):
        bi, ki, t = i // k, i % k, len(rewards[i])
        out.lengths[bi, ki] = t
        out.rewards[bi, ki, :t] = rewards[i]
        out.feats[bi, ki, :t] = np.stack(feats[i])
        out.actions[bi, ki, :t] = actions[i]
    out.episodes = list(episodes)
    return out


def pg_loss(
    net: Any, batch: EpisodeBatch, advantages: np.ndarray, entropy_coef: float = 0.0
) -> Any:
    """``-(1/N) sum_turns A_t log pi(a_t | h_t)`` (MICA eq. 5 / Algorithm 1), minus an optional
    entropy bonus; ``N`` is the number of turns played."""
    import torch

    mask = np.arange(batch.rewards.shape[2]) < batch.lengths[..., None]
    x = torch.from_numpy(batch.feats[mask])
    a = torch.from_numpy(batch.actions[mask])
    adv = torch.from_numpy(advantages[mask].astype(np.float32))
    logp_all = torch.log_softmax(net(x), dim=-1)
    logp = logp_all.gather(1, a[:, None]).squeeze(1)
    loss = -(adv * logp).mean()
    if entropy_coef:
        loss = loss + entropy_coef * (logp_all.exp() * logp_all).sum(-1).mean()
    return loss


def _summary(batch: EpisodeBatch) -> dict[str, float]:
    mask = np.arange(batch.rewards.shape[2]) < batch.lengths[..., None]
    return {
        "return": float((batch.rewards * mask).sum(-1).mean()),
        "turns": float(batch.lengths.mean()),
        "success_rate": float(np.mean([bool(e.get("success")) for e in batch.epm])),
        "epm_index": float(np.mean([e.get("EPM_Index") or 0.0 for e in batch.epm])),
        "content_blind_share": float(CONTENT_BLIND[batch.actions[mask]].mean()),
    }


def _env_kwargs(cfg: ExperimentConfig, which: str) -> dict[str, Any]:
    extra = cfg.train_env_kwargs if which == "train" else cfg.eval_env_kwargs
    return {**cfg.roles, **extra}


def _grad_norm(net: Any) -> float:
    """The L2 norm of the whole gradient (Fig. 5's "gradient norm")."""
    import torch

    grads = [p.grad.detach().ravel() for p in net.parameters() if p.grad is not None]
    return float(torch.linalg.vector_norm(torch.cat(grads))) if grads else 0.0


def train_method(method: str, seed: int, cfg: ExperimentConfig) -> tuple[Any, pd.DataFrame]:
    """Train one policy with one estimator; returns it and its per-iteration training curve."""
    import torch

    torch.set_num_threads(1)
    net = build_policy(cfg.hidden, seed=seed)  # same initialisation for every method
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate)
    estimator = AdvantageConfig(method, alpha=cfg.alpha, gamma=cfg.gamma)
    n_envs = cfg.cases_per_batch * cfg.rollouts
    workers = None
    if cfg.rollout_workers:
        from baselines.training.ray_rollouts import RayRolloutPool

        workers = RayRolloutPool(cfg.rollout_workers, cfg.train_env, _env_kwargs(cfg, "train"))
    local_envs = 1 if workers is not None else n_envs  # with workers, one to read the pool
    envs = [_make_env(cfg.train_env, _env_kwargs(cfg, "train")) for _ in range(local_envs)]
    pool = [c.id for c in envs[0].unwrapped.cases]
    max_turns = envs[0].unwrapped.config.ending.max_turns
    rng = np.random.default_rng(seed)
    rows = []
    for it in range(cfg.iterations):
        cases = list(
            rng.choice(pool, size=cfg.cases_per_batch, replace=len(pool) < cfg.cases_per_batch)
        )
        if workers is None:
            batch = play(
                net, envs, cases, cfg.rollouts, rng, seed=seed * 100_000 + it, max_turns=max_turns
            )
        else:
            from baselines.training.strategy.rollouts import play_on_workers

            batch = play_on_workers(
                workers, net, cfg.hidden, cases, cfg.rollouts, seed * 100_000 + it,
                max_turns=max_turns,
            )  # fmt: skip
        adv = estimator(batch.rewards, batch.lengths)
        loss = pg_loss(net, batch, adv, cfg.entropy_coef)
        opt.zero_grad()
        loss.backward()
        grad_norm = _grad_norm(net)
        opt.step()
        rows.append(
            {"method": method, "seed": seed, "iteration": it + 1, "episodes": (it + 1) * n_envs,
             "loss": loss.item(), "grad_norm": grad_norm, **_summary(batch)}
        )  # fmt: skip
    for env in envs:
        env.close()
    if workers is not None:
        workers.close()
    return net, pd.DataFrame(rows)


def evaluation_envs(cfg: ExperimentConfig) -> list[Any]:
    """One environment per case of the evaluation suite (:func:`evaluate` resets each)."""
    env0 = _make_env(cfg.eval_env, _env_kwargs(cfg, "eval"))
    cases = env0.unwrapped.cases
    return [env0] + [_make_env(cfg.eval_env, _env_kwargs(cfg, "eval")) for _ in cases[1:]]


def evaluate(
    net: Any, cfg: ExperimentConfig, greedy: bool = False, envs: Sequence[Any] | None = None
) -> pd.DataFrame:
    """One episode on every case of the evaluation suite: the policy samples its strategies (as
    an LLM samples its replies) with a fixed seed, or with ``greedy`` takes the most likely one.
    ``envs`` (from :func:`evaluation_envs`, left open) saves making them for each call."""
    own = envs is None
    envs = evaluation_envs(cfg) if envs is None else envs
    cases = [c.id for c in envs[0].unwrapped.cases]
    max_turns = envs[0].unwrapped.config.ending.max_turns
    rng = np.random.default_rng(cfg.eval_seed)
    batch = play(net, envs, cases, 1, rng, cfg.eval_seed, greedy=greedy, max_turns=max_turns)
    played = batch.lengths[..., None] > np.arange(batch.actions.shape[2])
    counts = np.bincount(batch.actions[played], minlength=len(STRATEGY_NAMES))
    if own:
        for env in envs:
            env.close()
    rows = [
        {"case_id": c, "success": bool(e.get("success")),
         "EPM_Index": float(e.get("EPM_Index") or 0.0), "turns": int(batch.lengths[i, 0])}
        for i, (c, e) in enumerate(zip(cases, batch.epm, strict=True))
    ]  # fmt: skip
    df = pd.DataFrame(rows)
    df.attrs["strategy_share"] = dict(
        zip(STRATEGY_NAMES, (counts / counts.sum()).round(3).tolist(), strict=True)
    )
    df.attrs["content_blind_share"] = round(float(counts[CONTENT_BLIND].sum() / counts.sum()), 3)
    df.attrs["transcripts"] = [
        transcript(e, STRATEGY_NAMES, batch.actions[i, 0, : batch.lengths[i, 0]])
        for i, e in enumerate(batch.episodes)
    ]
    return df


def transcript(episode: Any, names: Sequence[str], actions: Any) -> dict[str, Any]:
    """One evaluation episode as the write-up prints it: the opening, then per turn the strategy
    chosen, the reply, the user's answer and the reward; the ending and the EPM-Index."""
    epm = episode.info.get("epm") or {}
    return {
        "case_id": episode.case_id,
        "opening": episode.opening,
        "turns": [
            {"strategy": names[int(a)], "reply": s.reply, "user": s.user_message,
             "reward": round(float(s.reward), 3)}
            for a, s in zip(actions, episode.steps, strict=True)
        ],
        "outcome": str(epm.get("outcome", "")),
        "success": bool(epm.get("success")),
        "EPM_Index": round(float(epm.get("EPM_Index") or 0.0), 2),
    }  # fmt: skip


#: The scripted honest policies the trained ones are measured against (their best is the bar).
SCRIPTED_REFERENCES: tuple[str, ...] = ("scripted:reflective", "scripted:attuned")


def scripted_reference(spec: str, cfg: ExperimentConfig) -> dict[str, Any]:
    """One episode per evaluation case of the scripted policy ``spec`` (same seeds as the
    trained policies' evaluation): its Pass, Score and turns."""
    from baselines.policies.scripted import scripted_policy

    policy = scripted_policy(spec.removeprefix("scripted:"))
    envs = evaluation_envs(cfg)
    cases = [c.id for c in envs[0].unwrapped.cases]
    episodes = play_lockstep(
        envs, lambda histories: [policy.reply(h) for h in histories], cases=cases,
        seeds=[cfg.eval_seed * 10_007 + i for i in range(len(cases))],
    )  # fmt: skip
    for env in envs:
        env.close()
    epm = [e.info.get("epm") or {} for e in episodes]
    return {
        "policy": spec, "pass": sum(bool(e.get("success")) for e in epm),
        "score": float(np.mean([float(e.get("EPM_Index") or 0.0) for e in epm])),
        "turns": float(np.mean([len(e.steps) for e in episodes])),
    }  # fmt: skip


def _job(args: tuple[str, int, ExperimentConfig]) -> dict[str, Any]:
    method, seed, cfg = args
    if method.startswith("scripted:"):
        return scripted_reference(method, cfg)
    t0 = time.perf_counter()
    if method == "base":
        net, curve = build_policy(cfg.hidden, seed=seed), pd.DataFrame()
    else:
        net, curve = train_method(method, seed, cfg)
    envs = evaluation_envs(cfg)  # both evaluations reset and reuse them
    out: dict[str, Any] = {}
    if cfg.greedy_eval:
        greedy = evaluate(net, cfg, greedy=True, envs=envs)
        out = {"greedy_pass": int(greedy["success"].sum()),
               "greedy_score": float(greedy["EPM_Index"].mean())}  # fmt: skip
    ev = evaluate(net, cfg, envs=envs)
    for env in envs:
        env.close()
    return {
        "method": method, "seed": seed, "pass": int(ev["success"].sum()),
        "score": float(ev["EPM_Index"].mean()), "turns": float(ev["turns"].mean()), **out,
        "content_blind_share": ev.attrs["content_blind_share"],
        "strategy_share": ev.attrs["strategy_share"], "seconds": time.perf_counter() - t0,
        "curve": curve.to_dict("records"), "transcripts": ev.attrs["transcripts"],
    }  # fmt: skip


def run(
    cfg: ExperimentConfig, workers: int = 1, include_base: bool = True,
    references: Sequence[str] = (),
) -> tuple[pd.DataFrame, pd.DataFrame]:  # fmt: skip
    """Every (method, seed); returns ``(results, curves)`` DataFrames (``results.attrs
    ["transcripts"]``: each run's evaluation episodes, keyed ``"method/seed"``;
    ``results.attrs["references"]``: a row (dict) per scripted policy of ``references``, played
    in the same pool of workers)."""
    jobs = [(spec, 0, cfg) for spec in references] + [
        (m, s, cfg)
        for m in ((("base",) if include_base else ()) + tuple(cfg.methods))
        for s in cfg.seeds
    ]
    if workers > 1:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(workers) as pool:
            outs = pool.map(_job, jobs)
    else:
        outs = [_job(j) for j in jobs]
    scripted = [o for o in outs if "policy" in o]
    outs = [o for o in outs if "policy" not in o]
    curves = pd.DataFrame([row for o in outs for row in o.pop("curve")])
    transcripts = {f"{o['method']}/{o['seed']}": o.pop("transcripts") for o in outs}
    results = pd.DataFrame(outs)
    results.attrs["transcripts"] = transcripts
    results.attrs["references"] = scripted
    return results, curves


def _mean_sd(values: pd.Series) -> str:
    """``mean ± sd`` (sample sd over seeds; 0 for a single seed)."""
    sd = values.std(ddof=1) if len(values) > 1 else 0.0
    return f"{values.mean():.1f} ± {sd:.1f}"


def interval(values: pd.Series, level: float = 0.95) -> tuple[float, float]:
    """The ``level`` t-interval of the mean over seeds (the mean twice for a single seed)."""
    from scipy import stats

    n, mean = len(values), float(values.mean())
    if n < 2:
        return mean, mean
    half = float(stats.t.ppf(0.5 + level / 2, n - 1) * values.std(ddof=1) / np.sqrt(n))
    return mean - half, mean + half


def _mean_ci(values: pd.Series) -> str:
    lo, hi = interval(values)
    return f"{values.mean():.1f} [{lo:.1f}, {hi:.1f}]"


def table(results: pd.DataFrame) -> pd.DataFrame:
    """Table 1's shape: one row per method, ``Pass`` and ``Score`` as ``mean ± sd`` over seeds."""
    rows = []
    order = ["base", *[m for m in METHODS if m in set(results["method"])]]
    for method in order:
        sub = results[results["method"] == method]
        if sub.empty:
            continue
        row = {
            "Method": "Base (untrained)" if method == "base" else METHODS.get(method, method),
            "Pass": _mean_sd(sub["pass"]),
            "Score": _mean_sd(sub["score"]),
            "Turns": f"{sub['turns'].mean():.1f}",
        }
        if "greedy_pass" in sub:
            row["Pass (greedy)"] = _mean_sd(sub["greedy_pass"])
            row["Score (greedy)"] = _mean_sd(sub["greedy_score"])
        if len(sub) > 1:
            row["Score 95% CI"] = _mean_ci(sub["score"])
        if "content_blind_share" in sub:
            row["Content-blind share"] = f"{sub['content_blind_share'].mean():.2f}"
        rows.append({**row, "Seeds": len(sub)})
    return pd.DataFrame(rows)


def markdown(df: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table (no extra dependency)."""
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines)


def _panels(
    axes: Sequence[Any], curves: pd.DataFrame, columns: Sequence[tuple[str, str]], window: int
) -> None:
    """One panel per ``(column, label)``: the column vs training episodes, one line per method
    (mean over seeds of a ``window``-iteration rolling mean, with a +- sd band)."""
    for ax, (col, label) in zip(axes, columns, strict=True):
        for method, sub in curves.groupby("method", sort=False):
            smooth = (
                sub.sort_values("iteration")
                .groupby("seed")[col]
                .transform(lambda s: s.rolling(window, min_periods=1).mean())
            )
            stats = sub.assign(v=smooth).groupby("episodes")["v"].agg(["mean", "std"]).fillna(0.0)
            x = stats.index.to_numpy()
            ax.plot(x, stats["mean"], label=METHODS.get(str(method), str(method)))
            ax.fill_between(
                x, stats["mean"] - stats["std"], stats["mean"] + stats["std"], alpha=0.2
            )
        ax.set_xlabel("training episodes")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)


def figure(curves: pd.DataFrame, metric: str = "return", window: int = 5) -> Any:
    """Learning curves: ``metric``, the training episodes' EPM-Index (or success rate) and (when
    recorded) the share of content-blind strategies vs training episodes, mean over seeds with a
    +- sd band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    columns = [(metric, "episode return (sum of IDR)")]
    # the training episodes' EPM-Index where recorded (capped episodes rarely reach success)
    columns.append(("epm_index", "EPM-Index of the training episodes") if "epm_index" in curves
                   else ("success_rate", "training success rate"))  # fmt: skip
    if "content_blind_share" in curves:
        columns.append(("content_blind_share", "share of content-blind strategies"))
    fig, axes = plt.subplots(1, len(columns), figsize=(5.5 * len(columns), 4))
    _panels(axes, curves, columns, window)
    fig.suptitle(
        f"Strategy-level policy on the offline EMPA pool (mean ± sd over seeds, window {window})"
    )
    fig.tight_layout()
    return fig


#: Fig. 5's comparison: the mixed advantage against its two halves.
FIG5_METHODS = ("mica", "group", "turn")


def gradient_figure(curves: pd.DataFrame, window: int = 3) -> Any:
    """The Fig. 5 analogue: episode return and gradient norm over training for the mixed (MICA),
    group-level and turn-level advantages."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sub = curves[curves["method"].isin(FIG5_METHODS)]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    _panels(axes, sub, [("return", "episode return (sum of IDR)"),
                        ("grad_norm", "gradient norm")], window)  # fmt: skip
    fig.suptitle(f"Mixed vs group-level vs turn-level advantage (mean ± sd, window {window})")
    fig.tight_layout()
    return fig
