"""The strategy experiment's write-up, generated from its run directory (never typed).

:func:`write_run` stores a finished run (``results.csv``, ``curves.csv``, ``references.csv``,
``transcripts.json``, ``config.json`` with the environment's versioned ids and behaviour digests)
and calls :func:`write_up`, which reads only those files and writes ``table.md``,
``strategy_experiment.md`` and the two figures. Running :func:`write_up` again on the same
directory gives the same markdown, byte for byte (``tests/baselines/test_experiment_write_up.py``
checks the committed one in ``docs/results/strategy_experiment/``, and that the environment it
records is the one the current defaults give).

    python -m baselines.training.strategy --write-up docs/results/strategy_experiment
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pandas as pd

from baselines.training.strategy.experiment import (
    FIG5_METHODS,
    METHODS,
    ExperimentConfig,
    figure,
    gradient_figure,
    markdown,
    table,
)
from empa_env.atomic import atomic_open, atomic_write

#: The write-up's file name in a run directory.
WRITE_UP = "strategy_experiment.md"
#: Per-turn credit and trajectory-level credit, as the paper groups them.
PER_TURN = ("mica", "reinforce_pp_idr_batch")
TRAJECTORY = ("grpo", "reinforce_pp_traj")
#: How many iterations the "early" and "late" content-blind shares average over.
EDGE = 5


def environment_record(cfg: ExperimentConfig) -> dict[str, Any]:
    """The environments a run used: per side, the id it made, the id its behaviour is (with what
    it overrode) and the behaviour digest of that id with the run's roles."""
    import gymnasium as gym

    import empa_env  # noqa: F401  (registers the ids)
    from empa_env.versions import behaviour_digest, id_for

    out: dict[str, Any] = {}
    for side, env_id, extra in (("train", cfg.train_env, cfg.train_env_kwargs),
                                ("eval", cfg.eval_env, cfg.eval_env_kwargs)):  # fmt: skip
        env: Any = gym.make(env_id, **cfg.roles, **extra).unwrapped
        described = env.describe()
        env.close()
        pool = str(gym.registry[env_id].kwargs.get("case_pool", ""))
        out[side] = {
            "env_id": env_id,
            "behaves_as": id_for(described, pool),
            "digest": behaviour_digest(env_id, **cfg.roles),
            "roles": {k: v.get("name") for k, v in described["roles"].items()},
        }
    return out


def write_run(
    out: Path, cfg: ExperimentConfig, results: pd.DataFrame, curves: pd.DataFrame,
    references: pd.DataFrame, seconds: float,
) -> Path:  # fmt: skip
    """Store a finished run in ``out`` and write its write-up; returns the write-up's path."""
    from empa_env import __version__

    flat = results.drop(columns=["strategy_share"], errors="ignore")
    for name, frame in (("results.csv", flat), ("curves.csv", curves),
                        ("references.csv", references)):  # fmt: skip
        with atomic_open(out / name) as fh:
            frame.to_csv(fh, index=False, float_format="%.6g")
    shares = {f"{r.method}/{r.seed}": r.strategy_share for r in results.itertuples()}
    chosen = _best_run(results)
    episodes = results.attrs.get("transcripts", {}).get(chosen, [])
    shown = _two_episodes(episodes)
    atomic_write(
        out / "transcripts.json",
        json.dumps({"run": chosen, "strategy_share": shares, "episodes": shown}, indent=1) + "\n",
    )
    meta = {
        "config": asdict(cfg), "environment": environment_record(cfg), "seconds": round(seconds),
        "package_version": __version__,
        "command": "python -m baselines.training.strategy --out " + str(out),
    }  # fmt: skip
    atomic_write(out / "config.json", json.dumps(meta, indent=2, default=str) + "\n")
    return write_up(out)


def _best_run(results: pd.DataFrame) -> str:
    """The trained run (method/seed) with the highest score; ties by pass, then name."""
    trained = results[results["method"] != "base"]
    if trained.empty:
        return ""
    best = trained.sort_values(
        ["score", "pass", "method", "seed"], ascending=[False, False, True, True]
    ).iloc[0]
    return f"{best['method']}/{best['seed']}"


def _two_episodes(episodes: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The best and the worst evaluation episode of a run (by EPM-Index, ties by case id)."""
    if not episodes:
        return []
    ranked = sorted(episodes, key=lambda e: (-float(e["EPM_Index"]), str(e["case_id"])))
    return [ranked[0], ranked[-1]] if len(ranked) > 1 else [ranked[0]]


def _f(value: float, digits: int = 1) -> str:
    return f"{value:.{digits}f}"


def _claims(results: pd.DataFrame, curves: pd.DataFrame, references: pd.DataFrame) -> list[str]:
    """The paper's claims, each checked against this run's numbers (one sentence each)."""
    lines: list[str] = []
    by = results.groupby("method")
    have = set(results["method"])
    if set(PER_TURN) <= have and set(TRAJECTORY) <= have:
        turn = results[results["method"].isin(PER_TURN)]["score"]
        traj = results[results["method"].isin(TRAJECTORY)]["score"]
        spread = max(float(by.get_group(m)["score"].std(ddof=1) or 0.0)
                     for m in PER_TURN + TRAJECTORY)  # fmt: skip
        gap = float(turn.mean() - traj.mean())
        holds = gap > spread
        lines.append(
            f"**Per-turn credit above trajectory-level credit** (MICA and REINFORCE++ IDR-Batch "
            f"vs GRPO and REINFORCE++ Traj, score): {_f(turn.mean())} vs {_f(traj.mean())}, a gap "
            f"of {gap:+.1f} against a seed spread (largest sd) of {_f(spread)}: "
            + ("**holds** here." if holds else "**does not hold** here.")
        )
    trained = results[results["method"] != "base"]
    if not references.empty and not trained.empty:
        bar = references.sort_values(["pass", "score"], ascending=False).iloc[0]
        best = trained.groupby("method")["pass"].mean().sort_values(ascending=False)
        top, top_pass = str(best.index[0]), float(best.iloc[0])
        lines.append(
            f"**Trained policies pass at least as many cases as the best scripted honest "
            f"policy** ({bar['policy']}, {int(bar['pass'])} of 30, score {_f(bar['score'])}): the "
            f"best trained method ({METHODS.get(top, top)}) passes {_f(top_pass)} on average: "
            + ("**met**." if top_pass >= float(bar["pass"]) else "**not met**.")
        )
    if "content_blind_share" in curves and not curves.empty:
        parts = []
        fell = 0
        for method, sub in curves.groupby("method", sort=False):
            per_seed = sub.sort_values("iteration").groupby("seed")["content_blind_share"]
            early = float(per_seed.apply(lambda s: s.head(EDGE).mean()).mean())
            late = float(per_seed.apply(lambda s: s.tail(EDGE).mean()).mean())
            fell += late < early
            parts.append(f"{METHODS.get(str(method), method)} {early:.2f} -> {late:.2f}")
        lines.append(
            f"**Training moves away from content-blind strategies** (their share of the training "
            f"turns, first {EDGE} vs last {EDGE} iterations): " + "; ".join(parts) + f". It fell "
            f"for {fell} of {curves['method'].nunique()} methods."
        )
    if "grad_norm" in curves and set(FIG5_METHODS) <= set(curves["method"]):
        cv = {}
        for method in FIG5_METHODS:
            norms = curves[curves["method"] == method].groupby("seed")["grad_norm"]
            cv[method] = float(norms.apply(lambda s: s.std(ddof=1) / s.mean()).mean())
        stable = cv["mica"] < cv["group"]
        lines.append(
            "**The mixed advantage's gradient norm is steadier than the group-level one's** "
            "(Fig. 5; coefficient of variation of the gradient norm over training, mean over "
            f"seeds): mixed {cv['mica']:.2f}, group-level {cv['group']:.2f}, turn-level "
            f"{cv['turn']:.2f}: " + ("**holds** here." if stable else "**does not hold** here.")
        )
    return lines


def _transcript_md(episode: Mapping[str, Any]) -> str:
    head = (
        f"#### {episode['case_id']}: EPM-Index {episode['EPM_Index']}, "
        f"{'success' if episode['success'] else 'no success: ' + episode['outcome']}, "
        f"{len(episode['turns'])} turns"
    )
    lines = [head, "", f"> **user:** {episode['opening']}", ">"]
    for t in episode["turns"]:
        lines.append(f"> **policy** (`{t['strategy']}`, IDR {t['reward']:+.2f}): {t['reply']}")
        lines.append(">")
        if t["user"]:
            lines.append(f"> **user:** {t['user']}")
            lines.append(">")
    return "\n".join(lines[:-1])


def _stored(run_dir: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    """What :func:`write_run` stored: results, curves, references and ``config.json``."""
    frames = [pd.read_csv(run_dir / f"{name}.csv") for name in ("results", "curves", "references")]
    return frames[0], frames[1], frames[2], json.loads((run_dir / "config.json").read_text())


README_BEGIN = (
    "<!-- strategy-experiment:begin (generated; see baselines/training/strategy/report.py) -->"
)
README_END = "<!-- strategy-experiment:end -->"


def readme_block(run_dir: Path, link: str) -> str:
    """What the README quotes of a run (between :data:`README_BEGIN` and :data:`README_END`):
    the table, the scripted references and the claims, with a link to the whole write-up."""
    results, curves, references, meta = _stored(run_dir)
    env = meta["environment"]
    refs = ", ".join(
        f"{row['policy']} {int(row['pass'])} of 30 (score {float(row['score']):.1f})"
        for row in references.to_dict("records")
    )
    return "\n".join([
        README_BEGIN,
        f"On `{env['eval']['env_id']}` (behaviour digest `{env['eval']['digest']}`), trained on "
        f"`{env['train']['behaves_as']}`; the whole write-up, figures and transcripts: "
        f"[{link}]({link}).",
        "",
        markdown(table(results)),
        "",
        f"Scripted honest policies on the same cases: {refs}.",
        "",
        *[f"- {line}" for line in _claims(results, curves, references)],
        README_END,
    ])  # fmt: skip


def write_readme(readme: Path, run_dir: Path, link: str) -> None:
    """Replace the README's generated block with :func:`readme_block` of ``run_dir``."""
    text = readme.read_text()
    start, end = text.index(README_BEGIN), text.index(README_END) + len(README_END)
    atomic_write(readme, text[:start] + readme_block(run_dir, link) + text[end:])


def write_up(run_dir: Path) -> Path:
    """Write ``table.md``, the figures and ``strategy_experiment.md`` from ``run_dir``'s files;
    returns the write-up's path."""
    run_dir = Path(run_dir)
    results, curves, references, meta = _stored(run_dir)
    shown = json.loads((run_dir / "transcripts.json").read_text())
    cfg, env = meta["config"], meta["environment"]
    tab = table(results)
    atomic_write(run_dir / "table.md", markdown(tab) + "\n")
    if not curves.empty:
        for name, fig in (("learning_curves.png", figure(curves)),
                          ("gradient_norm.png", gradient_figure(curves))):  # fmt: skip
            with atomic_open(run_dir / name, "wb") as fh:
                fig.savefig(fh, format="png", dpi=110, metadata={"Software": None})
    budget = cfg["iterations"] * cfg["cases_per_batch"] * cfg["rollouts"]
    runs = len(results)
    out = [
        "# The strategy experiment: MICA vs GRPO in miniature",
        "",
        "<!-- Generated from the files beside it by `python -m baselines.training.strategy "
        "--write-up DIR` (DIR: this directory). Do not edit; rerun. -->",
        "",
        f"A strategy-level policy (an MLP choosing one of 22 reply strategies) trained on "
        f"`{env['train']['env_id']}` with each advantage estimator at the same budget "
        f"({cfg['iterations']} iterations x {cfg['cases_per_batch']} cases x {cfg['rollouts']} "
        f"rollouts = {budget} training episodes of at most "
        f"{cfg['train_env_kwargs'].get('max_turns', 45)} turns, learning rate "
        f"{cfg['learning_rate']}), seeds {', '.join(str(s) for s in cfg['seeds'])}, then played "
        f"once per case on the 30 cases of `{env['eval']['env_id']}`, sampling its strategies"
        + ("; greedy beside it." if "greedy_pass" in results else "."),
        "",
        "| | training | evaluation |",
        "|---|---|---|",
        f"| id | `{env['train']['behaves_as']}` | `{env['eval']['behaves_as']}` |",
        f"| behaviour digest | `{env['train']['digest']}` | `{env['eval']['digest']}` |",
        "| roles | "
        + ", ".join(f"{k} `{v}`" for k, v in sorted(env["train"]["roles"].items()))
        + " | "
        + ", ".join(f"{k} `{v}`" for k, v in sorted(env["eval"]["roles"].items()))
        + " |",
        "",
        f"{runs} runs (base and {len(cfg['methods'])} methods x {len(cfg['seeds'])} seeds) took "
        f"{meta['seconds']} s (`{meta['command']}`, package {meta['package_version']}).",
        "",
        "## Table 1 in miniature",
        "",
        "Pass: cases of 30 ending in success; Score: mean EPM-Index; mean ± sd over seeds, and the "
        "95% t-interval of the score's mean. Content-blind share: the share of the evaluation "
        "turns on which the policy chose a content-blind strategy.",
        "",
        markdown(tab),
        "",
        "Scripted honest policies on the same cases and seeds:",
        "",
        markdown(
            references.assign(
                score=references["score"].round(1), turns=references["turns"].round(1)
            )
        ),  # fmt: skip
        "",
        "## What holds",
        "",
        *[f"- {line}" for line in _claims(results, curves, references)],
        "",
        "## Training",
        "",
        "![learning curves](learning_curves.png)",
        "",
        "Fig. 5 in miniature: the mixed advantage (MICA) against its group-level and turn-level "
        "halves.",
        "",
        "![gradient norm](gradient_norm.png)",
        "",
    ]
    run = shown.get("run", "")
    share = shown.get("strategy_share", {}).get(run, {})
    if run:
        method, seed = run.split("/")
        top = sorted(share.items(), key=lambda kv: (-kv[1], kv[0]))[:8]
        out += [
            f"## The best trained policy: {METHODS.get(method, method)}, seed {seed}",
            "",
            "Its strategies in the evaluation (share of turns, the eight most used): "
            + ", ".join(f"`{k}` {v:.2f}" for k, v in top if v >= 0.005)
            + ".",
            "",
            "Its best and its worst evaluation episode, in full:",
            "",
        ]
        for episode in shown.get("episodes", []):
            out += [_transcript_md(episode), ""]
    text = "\n".join(out).rstrip() + "\n"
    path = run_dir / WRITE_UP
    atomic_write(path, text)
    return path


__all__ = [
    "README_BEGIN", "README_END", "WRITE_UP", "environment_record", "readme_block", "write_readme",
    "write_run", "write_up",
]  # fmt: skip
