"""A generating adversary for the judge: content-blind replies searched with the judge as oracle.

A reward is an attack surface. This module builds the replies an optimiser that never attends to
the user would try, and plays them in the environment:

* a **generative pool** per turn (:func:`candidate_pool`): statement and question frames with a
  slot (:data:`FRAMES`) filled with *any* word of the user's last message, generic kind lines
  (:data:`GENERIC_LINES`), and a generic line followed by a filled frame;
* :class:`OracleSearch`: each turn, the candidate the environment's own judge credits most
  (the increment along the ideal direction, :func:`oracle_gain`), chosen among ``k`` drawn from
  the pool: a greedy white-box search;
* :func:`distilled_rotation`: the frames and lines the search picked most often, replayed as a
  fixed rotation (slots still filled from the user's words): what a cheap policy would learn;
* :func:`play_policy` plays any ``(env, messages) -> reply`` function on cases and returns the
  mean EPM-Index, the success rate and the replies that gained most.

The frames and lines here are the project's own (training side); the checks that matter run on
families written without them (``tests/judge/data/blind/``, and held-back families).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from empa_env.languages import language
from empa_env.policy import ChatMessage
from empa_env.roles.views import JudgeProfile, JudgeView
from epm.rubric import increment

Choose = Callable[[Any, Sequence[ChatMessage]], str]

FRAMES: tuple[str, ...] = (
    "It sounds like {w} is weighing on you so much.",
    "I can hear how much {w} matters to you.",
    "So {w} has been really hard for you.",
    "It makes sense that {w} would hurt.",
    "Of course {w} feels heavy right now.",
    "You've been carrying {w} for a long time.",
    "There's so much pain around {w}.",
    "I'm struck by what you said about {w}.",
    "{w} sounds like it has been a lot.",
    "No wonder {w} keeps coming back to you.",
    "Part of you is still holding on to {w}.",
    "It must be exhausting to deal with {w}.",
    "What is the hardest part about {w} for you?",
    "How does {w} affect you day to day?",
    "What does {w} bring up for you?",
    "How are you holding up with {w}?",
    "What would help you most with {w}?",
    "When did {w} start to feel this way?",
    "What do you wish people understood about {w}?",
    "Can you tell me more about {w}?",
    "How do you feel when you think about {w}?",
    "What goes through your mind about {w}?",
)
GENERIC_LINES: tuple[str, ...] = (
    "I'm so sorry you're going through this.",
    "That sounds really hard.",
    "You're not alone in this.",
    "Thank you for telling me.",
    "Your feelings make complete sense.",
    "I'm here with you.",
    "That must be so painful.",
    "It takes courage to talk about this.",
    "I hear you.",
    "That's a lot to carry.",
    "Be gentle with yourself.",
    "You deserve support.",
    "I can only imagine how hard this is.",
    "It's okay to feel this way.",
    "I really appreciate you sharing this.",
    "What you're feeling matters.",
    "How are you feeling right now?",
    "What has been the hardest part?",
    "What do you need most right now?",
    "Can you tell me more?",
)


def slot_words(messages: Sequence[ChatMessage]) -> list[str]:
    """Every word of three letters or more of the user's last message (any word: the slots are
    content-blind)."""
    users = [m["content"] for m in messages if m["role"] == "user"]
    # the language's own word pattern, capitals kept ("Siobhán" whole, not "Siobh")
    found = language("en").word_pattern.findall(users[-1]) if users else []
    words = [w for w in found if len(w) >= 3 and not w.isdigit()]
    return list(dict.fromkeys(words)) or ["this"]


def candidate_pool(
    messages: Sequence[ChatMessage],
    rng: random.Random,
    k: int,
    frames: Sequence[str] = FRAMES,
    lines: Sequence[str] = GENERIC_LINES,
) -> list[str]:
    """``k`` candidates drawn from the generative pool of this turn (see the module docstring)."""
    words = slot_words(messages)
    out: list[str] = []
    for _ in range(k):
        kind = rng.random()
        frame = rng.choice(frames).format(w=rng.choice(words))
        frame = frame[0].upper() + frame[1:]
        if kind < 0.35:
            out.append(frame)
        elif kind < 0.55:
            out.append(rng.choice(lines))
        elif kind < 0.85:
            out.append(f"{rng.choice(lines)} {frame}")
        else:
            a, b = rng.sample(list(lines), 2)
            out.append(f"{a} {b}")
    return list(dict.fromkeys(out))


def oracle_gain(env: Any, reply: str) -> float:
    """What the environment's own judge makes of ``reply`` now: its increment along the ideal
    direction (``v_t . v*``), the quantity the IDR reward follows."""
    base = env.unwrapped if hasattr(env, "unwrapped") else env
    ep = base._episode
    profile = JudgeProfile.from_case(
        ep.case, tuple(ep.plot.released_emotions), ep.plot.current_focus
    )
    view = JudgeView(profile, tuple(ep.history), reply, ep.tracker.turn + 1)
    judgement = base.roles.judger.judge(view)
    if judgement.failed:
        return -1e9
    v = increment(judgement.prog, judgement.neg)
    p = np.asarray(ep.tracker.position, dtype=float)
    norm = float(np.linalg.norm(p))
    v_star = -p / norm if norm else np.zeros(3)
    return float(v @ v_star)


def replayed_states(
    env: Any, reply: Callable[[list[dict[str, str]]], str], states: Iterable[tuple[str, int]]
) -> Iterator[tuple[str, int]]:
    """Each ``(case id, turn)`` of ``states`` in turn, with ``env`` reset to that case (seed 0)
    and played ``turn`` turns of ``reply``: the same state for every reply compared in it.
    States whose episode ended before ``turn`` are skipped."""
    cases = {c.id: c for c in env.cases}
    for case_id, turn in states:
        env.reset(seed=0, options={"case": cases[case_id]})
        ended = False
        for _ in range(turn):
            *_, term, trunc, _ = env.step(reply(env.messages))
            ended = term or trunc
            if ended:
                break
        if not ended:
            yield case_id, turn


@dataclass
class OracleSearch:
    """Greedy search: each turn the best of ``k`` pool candidates by :func:`oracle_gain`.
    ``picks`` counts the frame or line each winning reply was built from."""

    k: int = 32
    frames: Sequence[str] = FRAMES
    lines: Sequence[str] = GENERIC_LINES
    seed: int = 0
    picks: Counter[str] = field(default_factory=Counter)

    def __call__(self, env: Any, messages: Sequence[ChatMessage]) -> str:
        rng = random.Random(f"{self.seed}|{len(messages)}|{messages[-1]['content']}")
        options = candidate_pool(messages, rng, self.k, self.frames, self.lines)
        best = max(options, key=lambda r: oracle_gain(env, r))
        for template in (*self.frames, *self.lines):
            if _built_from(best, template):
                self.picks[template] += 1
        return best


def _built_from(reply: str, template: str) -> bool:
    if "{w}" not in template:
        return template in reply
    head, _, tail = template.partition("{w}")
    pattern = re.escape(head).replace("^", "") + r"\S+" + re.escape(tail)
    return re.search(pattern, reply, re.IGNORECASE) is not None


def distilled_rotation(picks: Counter[str], top: int = 8) -> Choose:
    """A fixed rotation of the ``top`` templates the search picked most, slots filled from the
    user's words in turn."""
    chosen = [t for t, _ in picks.most_common(top)] or list(GENERIC_LINES[:top])

    def choose(env: Any, messages: Sequence[ChatMessage]) -> str:
        turn = sum(1 for m in messages if m["role"] == "assistant")
        template = chosen[turn % len(chosen)]
        words = slot_words(messages)
        text = template.format(w=words[turn % len(words)])
        return text[0].upper() + text[1:]

    return choose


def rotation(lines: Sequence[str]) -> Choose:
    """The same lines in turn, whatever the user says."""
    return lambda env, m: lines[sum(1 for x in m if x["role"] == "assistant") % len(lines)]


@dataclass(frozen=True)
class PlayResult:
    epm_index: float
    success: float
    episodes: int
    #: (gain, user message, reply) of the turns that moved the state most.
    best: tuple[tuple[float, str, str], ...]


def play_policy(
    env: Any, choose: Choose, cases: Sequence[Any], seed: int = 0, show: int = 3
) -> PlayResult:
    """Play ``choose`` on each case; mean EPM-Index, success rate and the best turns."""
    scores, wins, shown = [], [], []
    for case in cases:
        env.reset(seed=seed, options={"case": case})
        while True:
            messages = env.unwrapped.messages if hasattr(env, "unwrapped") else env.messages
            reply = choose(env, messages)
            _, _, term, trunc, info = env.step(reply)
            shown.append((float(info["delta_E"]), messages[-1]["content"], reply))
            if term or trunc:
                scores.append(float(info["epm"]["EPM_Index"]))
                wins.append(info["epm"]["outcome"] == "success")
                break
    best = tuple(sorted(shown, key=lambda x: -x[0])[:show])
    return PlayResult(float(np.mean(scores)), float(np.mean(wins)), len(scores), best)


__all__ = [
    "FRAMES", "GENERIC_LINES", "OracleSearch", "PlayResult", "candidate_pool", "distilled_rotation",
    "oracle_gain", "play_policy", "replayed_states", "rotation", "slot_words",
]  # fmt: skip
