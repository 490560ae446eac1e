"""Transcripts of stored episodes: ``empa show`` in the terminal and the report's HTML section.

Everything reads in conversation order: the user's opening message, then for each turn the reply,
the judge's non-zero levels with the quoted evidence, ``v_t`` and the position ``P_t`` after the
turn, then the user's answer to that reply (a stored turn keeps the reply and the answer that
*followed* it, ``TurnRecord.user_message``; the message a reply answers is the previous turn's, or
the opening for turn 1). In the HTML table each row puts the message a reply answers on its left. The evidence is highlighted where it
occurs in the reply: ANSI bold in a terminal, ``<mark>`` in HTML (everything else HTML-escaped),
and plain text otherwise (a quote is always listed under the turn as well).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from empa_env.safe_text import terminal_safe
from epm.rubric import AXES
from epm.trajectory import Judgement, Trajectory, TurnRecord

BOLD, RESET = "\x1b[1m", "\x1b[0m"
_QUOTES = "\"'“”‘’「」『』«»"


@dataclass(frozen=True)
class StoredEpisode:
    key: str
    model: str
    case_id: str
    seed: int
    metrics: dict[str, Any]
    trajectory: Trajectory


def select_episodes(
    store: Any, *, model: str | None = None, case: str | None = None, seed: int | None = None
) -> list[StoredEpisode]:
    """Finished episodes of a :class:`benchmarks.store.RunStore` matching the filters."""
    out = []
    for key, m, c, s, metrics, _meta, trajectory in store.iter_rows():
        wanted = (model is None or m == model) and (case is None or c == case)
        if wanted and (seed is None or int(s) == seed):
            traj = store.trajectory(key, trajectory)
            out.append(StoredEpisode(key, m, c, int(s), metrics, traj))
    return out


def _quote(text: str) -> str:
    return text.strip().strip(_QUOTES).strip()


def evidence_items(judgement: Judgement) -> list[tuple[str, int, str]]:
    """``(label, level, quote)`` for every non-zero level, e.g. ``("C_Prog", 2, "what part")``."""
    items = []
    for part, levels in (("Prog", judgement.prog), ("Neg", judgement.neg)):
        for axis in AXES:
            level = int(levels.get(axis, 0))
            label = f"{axis}_{part}"
            quote = _quote(str(judgement.evidence.get(label, "") or ""))
            if level or quote:
                items.append((label, level, quote))
    return items


def spans(text: str, quotes: Iterable[str]) -> list[tuple[int, int]]:
    """Non-overlapping ``(start, end)`` of every quote found in ``text`` (case-insensitive)."""
    found: list[tuple[int, int]] = []
    lower = text.lower()
    for quote in quotes:
        q = quote.lower()
        if len(q) < 2:
            continue
        for m in re.finditer(re.escape(q), lower):
            found.append((m.start(), m.end()))
    found.sort()
    merged: list[tuple[int, int]] = []
    for start, end in found:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def highlight(text: str, quotes: Sequence[str], *, style: str) -> str:
    """``text`` with the quoted evidence marked: ``style`` is ``ansi``, ``html`` or ``plain``.

    Every piece of ``text`` is escaped for where it goes: HTML-escaped, or for a terminal with
    its control characters shown as visible escapes (a reply cannot clear the screen)."""
    safe = html.escape if style == "html" else terminal_safe
    pieces: list[str] = []
    pos = 0
    for start, end in spans(text, quotes) if style != "plain" else []:
        if style == "html":
            pieces += [safe(text[pos:start]), f"<mark>{safe(text[start:end])}</mark>"]
        else:
            pieces += [safe(text[pos:start]), f"{BOLD}{safe(text[start:end])}{RESET}"]
        pos = end
    pieces.append(safe(text[pos:]))
    return "".join(pieces)


def reasons(judgement: Judgement) -> list[tuple[str, str]]:
    """``(what, reason)`` the judge gave: per level label (``C_Prog``, ...: also for a level it
    kept at 0, e.g. a vetoed progress) in the levels' order, then its other notes (``guards``,
    ``note``, ...) as stored."""
    order = [f"{axis}_{part}" for part in ("Prog", "Neg") for axis in AXES]
    keyed = {str(k): " ".join(str(v).split()) for k, v in judgement.reasoning.items() if v}
    labels = [k for k in order if k in keyed] + [k for k in keyed if k not in order]
    return [(label, keyed[label]) for label in labels if keyed[label]]


def _vec(values: Sequence[float]) -> str:
    return "(" + ", ".join(f"{x:+.2f}" for x in values) + ")"


def _levels(items: Sequence[tuple[str, int, str]]) -> str:
    return ", ".join(f"{label} {level:+d}" for label, level, _ in items if level) or "all 0"


def _ending(traj: Trajectory) -> str:
    detail = traj.victory_type or traj.failure_reason
    return f"{traj.outcome}" + (f" ({detail})" if detail else "")


def format_turn(turn: TurnRecord, *, bold: bool) -> str:
    """One turn in conversation order: the reply, its judgement and physics, then the answer."""
    items = evidence_items(turn.judgement)
    quotes = [q for _, _, q in items if q]
    lines = [f"  reply:  {highlight(turn.reply, quotes, style='ansi' if bold else 'plain')}"]
    if turn.judgement.failed:
        lines.append(f"  judge:  FAILED ({terminal_safe(turn.judgement.error)})")
    else:
        lines.append(f"  levels: {_levels(items)}")
        for label, level, quote in items:
            if quote:
                quote = terminal_safe(quote)
                shown = f"{BOLD}{quote}{RESET}" if bold else quote
                lines.append(f"          {label} {level:+d}: \u201c{shown}\u201d")
        for i, (what, why) in enumerate(reasons(turn.judgement)):
            head = "  why:    " if i == 0 else " " * 10
            lines.append(f"{head}{terminal_safe(what, single_line=True)}: {terminal_safe(why)}")
    lines.append(
        f"  v_t {_vec(turn.v)}   P_t {_vec(turn.position)}   distance {turn.distance:.2f}"
        + (
            f"   [{terminal_safe(turn.status, single_line=True)}]"
            if turn.status and turn.status != "ongoing"
            else ""
        )
    )
    if turn.user_message:
        lines.append(f"  user:   {terminal_safe(turn.user_message)}")
    return "\n".join([f"turn {turn.turn}", *lines])


def format_episode(episode: StoredEpisode, *, bold: bool = False) -> str:
    """The whole transcript as text in conversation order (ANSI bold for the evidence if ``bold``).

    The user's opening message comes first; each turn then shows the reply, the judgement and the
    user's answer to the reply.
    """
    traj = episode.trajectory
    index = episode.metrics.get("EPM_Index")
    t = terminal_safe
    head = [
        f"== {t(episode.model, single_line=True)} | {t(episode.case_id, single_line=True)} | "
        f"seed {episode.seed} ==",
        f"ending: {t(_ending(traj), single_line=True)}, {traj.num_turns} turns, EPM-Index "
        + ("–" if index is None else f"{float(index):.1f}"),
        f"P_0 {_vec(traj.p0)}  (C, A, P deficits; the goal is the origin)",
    ]
    opening = [f"opening\n  user:   {t(traj.opening)}"] if traj.opening else []
    body = [format_turn(t, bold=bold) for t in traj.turns]
    return "\n".join(head) + "\n\n" + "\n\n".join(opening + body)


def show_command(run_dir: str, model: str, case_id: str, seed: int) -> str:
    """The ``empa show`` command that prints one episode in a terminal, every name shell-quoted."""
    import shlex

    return (
        f"empa show {shlex.quote(run_dir)} --model {shlex.quote(model)} "
        f"--case {shlex.quote(case_id)} --seed {seed}"
    )


def _html_reasons(judgement: Judgement) -> str:
    given = reasons(judgement)
    if not given:
        return ""
    items = "".join(f"<li>{html.escape(what)}: {html.escape(why)}</li>" for what, why in given)
    return f"<ul class='why'>{items}</ul>"


def html_episode(
    episode: StoredEpisode, *, max_turns: int | None = None, pick: str = "", command: str = ""
) -> str:
    """One episode as an HTML fragment (``<details>``), every text escaped, evidence marked, the
    judge's reasons under its levels; ``pick`` labels it (``best``, ...), ``command`` is the
    ``empa show`` command that prints it whole (:func:`show_command`)."""
    traj = episode.trajectory
    e = html.escape
    index = episode.metrics.get("EPM_Index")
    summary = (
        (f"<span class='pick'>{e(pick)}</span> " if pick else "")
        + f"{e(episode.model)} | {e(episode.case_id)} | seed {episode.seed}: {e(_ending(traj))}, "
        f"{traj.num_turns} turns, EPM-Index {'–' if index is None else f'{float(index):.1f}'}"
    )
    rows = []
    turns = traj.turns if max_turns is None else traj.turns[:max_turns]
    # Each row: the user's message that the reply answers (the opening for turn 1), then the reply.
    answered = [traj.opening] + [t.user_message for t in traj.turns]
    for i, t in enumerate(turns):
        items = evidence_items(t.judgement)
        quotes = [q for _, _, q in items if q]
        judged = (
            f"<span class='fail'>judge failed: {e(str(t.judgement.error))}</span>"
            if t.judgement.failed
            else e(_levels(items)) + _html_reasons(t.judgement)
        )
        rows.append(
            "<tr>"
            f"<td class='num'>{t.turn}</td><td>{e(answered[i])}</td>"
            f"<td>{highlight(t.reply, quotes, style='html')}</td>"
            f"<td>{judged}</td><td class='vec'>{e(_vec(t.v))}</td>"
            f"<td class='vec'>{e(_vec(t.position))}</td>"
            "</tr>"
        )
    if len(turns) == len(traj.turns) and answered[-1]:
        # The user's answer to the last reply (an episode that stopped at its turn limit).
        rows.append(f"<tr><td></td><td>{e(answered[-1])}</td><td colspan='4'></td></tr>")
    cut = len(traj.turns) - len(turns)
    code = f"<code>{e(command)}</code>"
    if cut:
        foot = f"{cut} more turns" + (f": {code} prints them all" if command else "")
    else:
        foot = f"In a terminal: {code}" if command else ""
    shown = f"<p class='show'>{foot}</p>" if foot else ""
    return (
        f"<details class='transcript'><summary>{summary}</summary>"
        "<table><thead><tr><th>turn</th><th>user (the reply answers this)</th>"
        "<th>reply (evidence marked)</th>"
        "<th>levels</th><th>v_t</th><th>P_t</th></tr></thead><tbody>"
        + "".join(rows)
        + f"</tbody></table>{shown}</details>"
    )


#: The examples :func:`pick_examples` takes per model, in order.
PICKS: tuple[str, ...] = ("best", "median", "worst")


@dataclass(frozen=True)
class Example:
    """One picked episode and what it is for its model (``best``, ``median``, ``worst``; an
    episode that is several of them, e.g. a model's only one, says so: ``median / worst``)."""

    pick: str
    episode: StoredEpisode


def pick_examples(episodes: Sequence[StoredEpisode], per_model: int = 3) -> list[Example]:
    """A few episodes per model, in this order: its best, its median and its worst by EPM-Index."""
    by_model: dict[str, list[StoredEpisode]] = {}
    for ep in episodes:
        by_model.setdefault(ep.model, []).append(ep)
    chosen: list[Example] = []
    for model in by_model:
        eps = sorted(
            by_model[model], key=lambda x: float(x.metrics.get("EPM_Index") or 0.0), reverse=True
        )
        picks: dict[str, tuple[list[str], StoredEpisode]] = {}
        for label, ep in list(zip(PICKS, (eps[0], eps[len(eps) // 2], eps[-1]), strict=True))[
            :per_model
        ]:
            picks.setdefault(ep.key, ([], ep))[0].append(label)
        chosen.extend(Example(" / ".join(labels), ep) for labels, ep in picks.values())
    return chosen
