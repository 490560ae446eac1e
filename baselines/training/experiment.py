"""The CPU experiment: MICA vs GRPO vs REINFORCE++ on a strategy-level policy (a student's check
of the MICA paper's Table 1 claim, at toy scale).

A :mod:`strategy <baselines.training.strategy>` policy (an MLP over conversation features choosing
one of ten reply strategies) is trained on the offline training pool (``EMPA-v0``) with each
advantage estimator under the same budget (iterations x B cases x K rollouts), from the same
initialisation per seed, with the paper's loss ``-mean(A_t log pi(a_t | h_t))`` (one on-policy
step per batch, so the clipped ratio is 1 and the loss is exactly this). Each trained policy then
plays the 30-case suite (``EMPA-Bench-v0``) greedily, one episode per case. Reported: Pass (cases
ending in success, of 30) and Score (mean EPM-Index), mean +- sd over seeds, as in Table 1, and
the training curves.

    python -m baselines.training.experiment --iterations 40 --seeds 0 1 2 --out runs/strategy
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from baselines.advantages import AdvantageConfig
from baselines.training.strategy import (
    STRATEGY_NAMES,
    EpisodeBatch,
    StrategyTurns,
    build_policy,
)
from empa_env.atomic import atomic_open, atomic_write
from empa_env.rollout import Step, play_lockstep

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
    """Budget and settings shared by every method (the comparison is at equal budget)."""

    methods: tuple[str, ...] = ("grpo", "reinforce_pp_traj", "reinforce_pp_idr_batch", "mica")
    seeds: tuple[int, ...] = (0, 1, 2)
    iterations: int = 40
    cases_per_batch: int = 8
    rollouts: int = 4
    learning_rate: float = 0.01
    entropy_coef: float = 0.0
    alpha: float = 0.5
    gamma: float = 0.95
    hidden: int = 64
    train_env: str = "EMPA-v0"
    eval_env: str = "EMPA-Bench-v0"
    train_env_kwargs: dict[str, Any] = field(default_factory=dict)
    eval_env_kwargs: dict[str, Any] = field(default_factory=dict)
    eval_seed: int = 12345
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
    }


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

        workers = RayRolloutPool(cfg.rollout_workers, cfg.train_env, cfg.train_env_kwargs)
    local_envs = 1 if workers is not None else n_envs  # with workers, one to read the pool
    envs = [_make_env(cfg.train_env, cfg.train_env_kwargs) for _ in range(local_envs)]
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
            from baselines.training.strategy_rollouts import play_on_workers

            batch = play_on_workers(
                workers, net, cfg.hidden, cases, cfg.rollouts, seed * 100_000 + it,
                max_turns=max_turns,
            )  # fmt: skip
        adv = estimator(batch.rewards, batch.lengths)
        loss = pg_loss(net, batch, adv, cfg.entropy_coef)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rows.append(
            {"method": method, "seed": seed, "iteration": it + 1, "episodes": (it + 1) * n_envs,
             "loss": loss.item(), **_summary(batch)}
        )  # fmt: skip
    for env in envs:
        env.close()
    if workers is not None:
        workers.close()
    return net, pd.DataFrame(rows)


def evaluation_envs(cfg: ExperimentConfig) -> list[Any]:
    """One environment per case of the evaluation suite (:func:`evaluate` resets each)."""
    env0 = _make_env(cfg.eval_env, cfg.eval_env_kwargs)
    cases = env0.unwrapped.cases
    return [env0] + [_make_env(cfg.eval_env, cfg.eval_env_kwargs) for _ in cases[1:]]


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
    return df


def _job(args: tuple[str, int, ExperimentConfig]) -> dict[str, Any]:
    method, seed, cfg = args
    t0 = time.perf_counter()
    if method == "base":
        net, curve = build_policy(cfg.hidden, seed=seed), pd.DataFrame()
    else:
        net, curve = train_method(method, seed, cfg)
    envs = evaluation_envs(cfg)  # both evaluations reset and reuse them
    ev = evaluate(net, cfg, envs=envs)
    greedy = evaluate(net, cfg, greedy=True, envs=envs)
    for env in envs:
        env.close()
    return {
        "method": method, "seed": seed, "pass": int(ev["success"].sum()),
        "score": float(ev["EPM_Index"].mean()), "turns": float(ev["turns"].mean()),
        "greedy_pass": int(greedy["success"].sum()),
        "greedy_score": float(greedy["EPM_Index"].mean()),
        "strategy_share": ev.attrs["strategy_share"], "seconds": time.perf_counter() - t0,
        "curve": curve.to_dict("records"),
    }  # fmt: skip


def run(
    cfg: ExperimentConfig, workers: int = 1, include_base: bool = True
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every (method, seed); returns ``(results, curves)`` DataFrames."""
    jobs = [
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
    curves = pd.DataFrame([row for o in outs for row in o.pop("curve")])
    return pd.DataFrame(outs), curves


def _mean_sd(values: pd.Series) -> str:
    """``mean ± sd`` (sample sd over seeds; 0 for a single seed)."""
    sd = values.std(ddof=1) if len(values) > 1 else 0.0
    return f"{values.mean():.1f} ± {sd:.1f}"


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
        rows.append({**row, "Seeds": len(sub)})
    return pd.DataFrame(rows)


def markdown(df: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table (no extra dependency)."""
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines)


def figure(curves: pd.DataFrame, metric: str = "return", window: int = 5) -> Any:
    """Learning curves: ``metric`` vs training episodes, mean over seeds with a +- sd band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, col, label in ((axes[0], metric, "episode return (sum of IDR)"),
                           (axes[1], "success_rate", "training success rate")):  # fmt: skip
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
    fig.suptitle(
        f"Strategy-level policy on the offline EMPA pool (mean ± sd over seeds, window {window})"
    )
    fig.tight_layout()
    return fig


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--methods", nargs="+", default=list(ExperimentConfig.methods), choices=list(METHODS)
    )
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--iterations", type=int, default=40)
    parser.add_argument("--cases-per-batch", type=int, default=8)
    parser.add_argument("--rollouts", type=int, default=4)
    parser.add_argument("--learning-rate", type=float, default=0.01)
    parser.add_argument("--entropy-coef", type=float, default=0.0)
    parser.add_argument("--max-turns", type=int, default=None, help="training episodes' cap")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument(
        "--rollout-workers",
        type=int,
        default=0,
        help="play training episodes on N Ray actors (the ray extra; RAY_ADDRESS picks a "
        "cluster); use with --workers 1",
    )
    parser.add_argument("--no-base", action="store_true")
    parser.add_argument("--out", default="runs/strategy_experiment")
    a = parser.parse_args(argv)
    cfg = ExperimentConfig(
        methods=tuple(a.methods), seeds=tuple(a.seeds), iterations=a.iterations,
        cases_per_batch=a.cases_per_batch, rollouts=a.rollouts, learning_rate=a.learning_rate,
        entropy_coef=a.entropy_coef, rollout_workers=a.rollout_workers,
        train_env_kwargs={"max_turns": a.max_turns} if a.max_turns else {},
    )  # fmt: skip
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    results, curves = run(cfg, workers=a.workers, include_base=not a.no_base)
    tab = table(results)
    for name, frame in (("results.csv", results), ("curves.csv", curves)):
        with atomic_open(out / name) as fh:
            frame.to_csv(fh, index=False)
    atomic_write(out / "table.md", markdown(tab) + "\n")
    probe = _make_env(cfg.eval_env, cfg.eval_env_kwargs)
    meta = {
        **asdict(cfg),
        "env": probe.unwrapped.describe()["roles"],
        "seconds": time.perf_counter() - t0,
    }
    probe.close()
    atomic_write(out / "config.json", json.dumps(meta, indent=2, default=str))
    if not curves.empty:
        with atomic_open(out / "learning_curves.png", "wb") as fh:
            figure(curves).savefig(fh, format="png", dpi=120)
    print(tab.to_string(index=False))
    print(f"\n{len(results)} runs in {time.perf_counter() - t0:.0f} s; outputs in {out}/")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    raise SystemExit(main())
