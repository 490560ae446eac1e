"""Training data in TRL's documented formats, built from environment trajectories or any corpus.

* SFT (conversational language modelling): ``{"messages": [{"role", "content"}, ...]}`` from
  :class:`epm.Trajectory` records, filtered by success, best-of-N per case, EPM-Index threshold.
* Preference pairs (``{"prompt", "chosen", "rejected"[, "margin"]}``) from K candidate replies at
  one context, ranked by the Judger's increment (Echo-N1 section 2.3 style pairs, MICA's Judger).
* The Echo-N1 humanlike constructions (section 2.2) over any dialogue corpus whose assistant turns
  were written by people: context-free utterances, context-based samples whose final assistant
  turn is replaced by a machine reply, and shuffled-context samples whose final user turn comes
  from another dialogue. Each is a labelled :class:`HumanlikeSample` and converts to pairs.

Everything here returns plain lists of dicts; :func:`to_dataset` makes a ``datasets.Dataset``.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from empa_env.policy import ChatMessage
from empa_env.runs import read_run_trajectories
from epm.episode import evaluate_many
from epm.trajectory import Trajectory

Conversation = list[ChatMessage]


def to_dataset(rows: Sequence[Mapping[str, Any]]) -> Any:
    """A ``datasets.Dataset`` from a list of rows (imports ``datasets`` lazily)."""
    from datasets import Dataset

    return Dataset.from_list([dict(r) for r in rows])


# --- reading trajectories ---------------------------------------------------------------
def trajectory_from_record(record: Mapping[str, Any]) -> Trajectory:
    """A :class:`Trajectory` from either a plain trajectory record (``Trajectory.to_dict``) or a
    line of ``empa export``'s ``episodes.jsonl`` (``{"episode_key", ..., "trajectory": {...}}``)."""
    if "trajectory" in record and isinstance(record["trajectory"], Mapping):
        return Trajectory.from_dict(dict(record["trajectory"]))
    return Trajectory.from_dict(dict(record))


def read_trajectories(source: str | Path) -> list[Trajectory]:
    """Trajectories from a JSONL file (plain trajectory records or ``empa export`` lines) or a run
    directory (its ``episodes.jsonl`` when exported, else its results store)."""
    path = Path(source)
    if path.is_dir():
        exported = path / "episodes.jsonl"
        if exported.exists():
            return read_trajectories(exported)
        if not (path / "results.sqlite").exists():
            raise FileNotFoundError(
                f"{path} is not a run directory (no results.sqlite); run `empa bench --out {path}`"
            )
        return read_run_trajectories(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file or run directory")
    out = []
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if line.strip():
                try:
                    out.append(trajectory_from_record(json.loads(line)))
                except (TypeError, KeyError, ValueError) as exc:
                    raise ValueError(
                        f"{path}:{number}: neither a trajectory nor an `empa export` line ({exc})"
                    ) from exc
    return out


# --- SFT -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class SFTFilter:
    """Which trajectories become SFT examples.

    ``success_only``: keep episodes that ended in success; ``best_of_n``: keep the ``n`` best
    episodes per case by EPM-Index; ``min_epm_index``: drop episodes below this EPM-Index.
    Filters compose (threshold and success first, then best-of-N among what is left).
    """

    success_only: bool = field(
        default=False, metadata={"help": "keep only episodes that ended in success"}
    )
    best_of_n: int | None = field(
        default=None, metadata={"help": "keep the N best episodes per case by EPM-Index"}
    )
    min_epm_index: float | None = field(
        default=None, metadata={"help": "drop episodes below this EPM-Index"}
    )
    preset: str = field(
        default="official", metadata={"help": "EPM preset the success and EPM-Index refer to"}
    )


def trim_to_last_reply(messages: Sequence[ChatMessage]) -> Conversation:
    """Drop trailing non-assistant messages (the user's last answer teaches nothing)."""
    out = list(messages)
    while out and out[-1]["role"] != "assistant":
        out.pop()
    return out


def sft_examples(
    trajectories: Iterable[Trajectory],
    filt: SFTFilter | None = None,
    system_prompt: str | None = None,
) -> list[dict[str, Any]]:
    """Conversational SFT rows ``{"messages", "case_id", "epm_index", "success"}``.

    Each row is one whole episode from the policy's point of view (user turns are the simulated
    user's, assistant turns the policy's); with ``assistant_only_loss`` only the latter train.
    """
    filt = filt or SFTFilter()
    trajectories = list(trajectories)
    scores = evaluate_many(trajectories, filt.preset)
    kept: list[tuple[Trajectory, dict[str, Any]]] = []
    for traj, row in zip(trajectories, scores, strict=True):
        if filt.success_only and not row["success"]:
            continue
        if filt.min_epm_index is not None and (row["EPM_Index"] or 0.0) < filt.min_epm_index:
            continue
        kept.append((traj, row))
    if filt.best_of_n is not None:
        by_case: dict[str, list[tuple[Trajectory, dict[str, Any]]]] = defaultdict(list)
        for item in kept:
            by_case[item[0].case_id].append(item)
        kept = [
            item
            for items in by_case.values()
            for item in sorted(items, key=lambda it: -(it[1]["EPM_Index"] or 0.0))[: filt.best_of_n]
        ]
    rows = []
    for traj, row in kept:
        messages = trim_to_last_reply(traj.transcript())
        if not messages:
            continue
        if system_prompt:
            messages = [{"role": "system", "content": system_prompt}, *messages]
        rows.append(
            {
                "messages": messages,
                "case_id": traj.case_id,
                "epm_index": float(row["EPM_Index"] or 0.0),
                "success": bool(row["success"]),
            }
        )
    return rows


# --- preference pairs from K candidates ----------------------------------------------------
PairMode = Literal["best_vs_worst", "best_vs_rest", "all"]


def preference_pairs(
    context: Sequence[ChatMessage],
    candidates: Sequence[str],
    scores: Sequence[float],
    mode: PairMode = "best_vs_rest",
    min_margin: float = 0.0,
    with_margin: bool = False,
) -> list[dict[str, Any]]:
    """Pairs ``{"prompt", "chosen", "rejected"}`` from candidate replies at one context.

    ``scores[i]`` is the Judger's increment for ``candidates[i]`` (e.g. ``delta_E`` or the IDR).
    Pairs whose score difference is ``<= min_margin`` are ties and are skipped. ``with_margin``
    adds the score difference as ``margin`` (TRL's RewardTrainer then uses it in the loss).
    """
    if len(candidates) != len(scores):
        raise ValueError("one score per candidate")
    order = sorted(range(len(candidates)), key=lambda i: -scores[i])
    if mode == "best_vs_worst":
        index_pairs = [(order[0], order[-1])] if len(order) > 1 else []
    elif mode == "best_vs_rest":
        index_pairs = [(order[0], j) for j in order[1:]]
    elif mode == "all":
        index_pairs = [(i, j) for a, i in enumerate(order) for j in order[a + 1 :]]
    else:
        raise ValueError(f"unknown mode {mode!r}")
    rows = []
    prompt = [dict(m) for m in context]
    for i, j in index_pairs:
        margin = float(scores[i]) - float(scores[j])
        if margin <= min_margin:
            continue
        row: dict[str, Any] = {
            "prompt": prompt,
            "chosen": [{"role": "assistant", "content": candidates[i]}],
            "rejected": [{"role": "assistant", "content": candidates[j]}],
        }
        if with_margin:
            row["margin"] = margin
        rows.append(row)
    return rows


def run_preference_pairs(
    trajectories: Iterable[Trajectory],
    key: str = "delta_E",
    mode: PairMode = "best_vs_rest",
    min_margin: float = 0.0,
    with_margin: bool = False,
) -> list[dict[str, Any]]:
    """Preference pairs from recorded episodes: wherever two or more episodes reached the same
    context (the same messages so far, e.g. a case's opening, played by several policies or
    seeds), their distinct replies there are ranked by the Judger's recorded increment ``key``
    (``delta_E``, ``projection``, ...) of that turn. Identical replies count once (their mean)."""
    at_context: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    contexts: dict[str, Conversation] = {}
    for traj in trajectories:
        messages = traj.transcript()
        assistant = [i for i, m in enumerate(messages) if m["role"] == "assistant"]
        for turn, i in zip(traj.turns, assistant, strict=False):
            context = messages[:i]
            ident = json.dumps([traj.case_id, context], ensure_ascii=False)
            contexts[ident] = context
            at_context[ident][messages[i]["content"]].append(float(getattr(turn, key)))
    rows = []
    for ident, replies in at_context.items():
        if len(replies) < 2:
            continue
        candidates = list(replies)
        scores = [sum(v) / len(v) for v in replies.values()]
        rows += preference_pairs(contexts[ident], candidates, scores, mode, min_margin, with_margin)
    return rows


# --- Echo-N1 humanlike constructions -------------------------------------------------------
Construction = Literal["context_free", "context_based", "shuffled_context"]
HUMAN, MACHINE = 1, 0


@dataclass
class HumanlikeSample:
    """A labelled sample for the humanlike judge: the conversation ends with the judged reply.

    ``label`` is 1 for human, 0 for machine (or incoherent); ``origin`` names the source dialogue.
    """

    messages: Conversation
    label: int
    construction: Construction
    origin: str = ""
    meta: dict[str, Any] = field(default_factory=dict)


def _assistant_positions(dialogue: Sequence[ChatMessage]) -> list[int]:
    """Indices of assistant turns that follow at least one user turn."""
    return [
        i
        for i, m in enumerate(dialogue)
        if m["role"] == "assistant" and any(x["role"] == "user" for x in dialogue[:i])
    ]


def context_free_samples(
    human_dialogues: Sequence[Sequence[ChatMessage]], machine_utterances: Sequence[str]
) -> list[HumanlikeSample]:
    """Isolated utterances: every human-written assistant turn (label 1) and every machine
    utterance (label 0), with no context at all."""
    out = [
        HumanlikeSample(
            [{"role": "assistant", "content": m["content"]}], HUMAN, "context_free", f"d{d}"
        )
        for d, dialogue in enumerate(human_dialogues)
        for m in dialogue
        if m["role"] == "assistant"
    ]
    out += [
        HumanlikeSample([{"role": "assistant", "content": u}], MACHINE, "context_free", f"m{i}")
        for i, u in enumerate(machine_utterances)
    ]
    return out


def context_based_samples(
    human_dialogues: Sequence[Sequence[ChatMessage]],
    machine_reply: Callable[[Conversation], str],
    rng: random.Random | None = None,
) -> list[HumanlikeSample]:
    """For each dialogue, cut at a random assistant turn: the original turn gives a human sample
    and the same context with that turn replaced by ``machine_reply(context)`` a machine one."""
    rng = rng or random.Random(0)
    out = []
    for d, dialogue in enumerate(human_dialogues):
        positions = _assistant_positions(dialogue)
        if not positions:
            continue
        cut = rng.choice(positions)
        context = [dict(m) for m in dialogue[:cut]]
        human = {"role": "assistant", "content": dialogue[cut]["content"]}
        machine = {"role": "assistant", "content": machine_reply(context)}
        meta = {"cut": cut}
        out.append(HumanlikeSample([*context, human], HUMAN, "context_based", f"d{d}", meta))
        out.append(HumanlikeSample([*context, machine], MACHINE, "context_based", f"d{d}", meta))
    return out


def shuffled_context_samples(
    human_dialogues: Sequence[Sequence[ChatMessage]], rng: random.Random | None = None
) -> list[HumanlikeSample]:
    """Dialogue A's final user turn swapped with dialogue B's, both assistant replies kept.

    For each dialogue the prefix ending at its last assistant reply is the coherent (label 1)
    sample; the same prefix whose final user turn comes from another dialogue is the shuffled
    (label 0) one: its reply no longer answers what was said, so only coherence can tell.
    """
    rng = rng or random.Random(0)
    prefixes = []
    for d, dialogue in enumerate(human_dialogues):
        positions = _assistant_positions(dialogue)
        if not positions:
            continue
        last = positions[-1]
        user_idx = max(i for i in range(last) if dialogue[i]["role"] == "user")
        prefixes.append((d, [dict(m) for m in dialogue[: last + 1]], user_idx))
    if len(prefixes) < 2:
        return []
    order = list(range(len(prefixes)))
    rng.shuffle(order)
    # A derangement by rotation: partner of order[i] is order[i + 1].
    partner = {order[i]: order[(i + 1) % len(order)] for i in range(len(order))}
    out = []
    for a, (d, messages, user_idx) in enumerate(prefixes):
        _, other, other_user_idx = prefixes[partner[a]]
        shuffled = [dict(m) for m in messages]
        shuffled[user_idx] = dict(other[other_user_idx])
        out.append(HumanlikeSample(messages, HUMAN, "shuffled_context", f"d{d}"))
        meta = {"user_turn_from": f"d{prefixes[partner[a]][0]}"}
        out.append(HumanlikeSample(shuffled, MACHINE, "shuffled_context", f"d{d}", meta))
    return out


def humanlike_pairs(
    samples: Sequence[HumanlikeSample], rng: random.Random | None = None
) -> list[dict[str, Any]]:
    """Pairwise rows for TRL's RewardTrainer (implicit-prompt format: ``chosen``/``rejected`` are
    whole conversations): each human sample against a machine sample of the same construction,
    the one from the same source dialogue when there is one."""
    rng = rng or random.Random(0)
    rows = []
    by_construction: dict[str, tuple[list[HumanlikeSample], list[HumanlikeSample]]] = defaultdict(
        lambda: ([], [])
    )
    for s in samples:
        by_construction[s.construction][0 if s.label == HUMAN else 1].append(s)
    for construction, (humans, machines) in by_construction.items():
        if not machines:
            continue
        same_origin = {m.origin: m for m in machines}
        for h in humans:
            m = same_origin.get(h.origin) if construction != "context_free" else None
            m = m or rng.choice(machines)
            rows.append(
                {"chosen": h.messages, "rejected": m.messages, "construction": construction}
            )
    return rows


__all__ = [
    "HUMAN", "MACHINE", "HumanlikeSample", "SFTFilter", "context_based_samples",
    "context_free_samples", "humanlike_pairs", "preference_pairs", "read_trajectories",
    "run_preference_pairs", "sft_examples", "shuffled_context_samples", "to_dataset",
    "trajectory_from_record", "trim_to_last_reply",
]  # fmt: skip
