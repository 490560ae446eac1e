"""The simulated user's state with memory: rapport, hurt remembered, patience.

:func:`fold_state` replays the conversation so far, reply by reply (each read with
:func:`~empa_env.offline.user.question.read_reply` and heard against the case), with how each
landed (the judge's ``delta_E``): it is a pure function of the history, so copies of an
environment and reruns agree, and nothing is kept between calls.

* **rapport** in [-1, 1] accumulates and decays (``rapport <- DECAY * rapport + gain``): a reply
  that landed, a question about the person, a follow-up on what they just said, a true
  reflection raise it; advice before trust, a wrong summary, an empty or off-topic reply lower it;
* **hurt** remembers contempt and dismissal for several turns (decaying by ``HURT_DECAY``);
* **patience** is spent by contempt (1) and dismissal (0.4), returns slowly on decent turns and
  with an apology; at 0 the user leaves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from empa_env.cases.schema import Case, Fact
from empa_env.offline.user.hearing import Heard, hear
from empa_env.offline.user.question import read_reply
from empa_env.roles.views import Message

DECAY = 0.86
HURT_DECAY = 0.8
#: Starting rapport by the case's empathy threshold (a guarded user starts further away).
START: dict[str, float] = {"high": -0.05, "medium": 0.05, "low": 0.15}
#: Patience by empathy threshold: how much contempt and dismissal the user takes before leaving.
PATIENCE: dict[str, float] = {"high": 2.2, "medium": 2.6, "low": 3.0}
#: Rapport a plot stage needs before the user tells it (stage 0..3), raised for a guarded user.
STAGE_RAPPORT: tuple[float, ...] = (0.2, 0.32, 0.44, 0.56)
THRESHOLD_SHIFT: dict[str, float] = {"high": 0.08, "medium": 0.0, "low": -0.06}
MEMORY_RAPPORT = 0.3
#: Patience one contempt costs, and one dismissal (in a reply without contempt).
CONTEMPT_COST = 1.0
DISMISSAL_COST = 0.4


@dataclass(frozen=True)
class UserState:
    """Where the user stands after the replies so far."""

    rapport: float
    hurt: float
    patience: float
    max_patience: float
    #: How the last reply was heard (None before any reply).
    last: Heard | None
    #: Turns in a row without a question or reflection about the user.
    unasked: int

    @property
    def leaves(self) -> bool:
        return self.patience <= 0.0


def stage_rapport(case: Case, stage: int) -> float:
    """The rapport the ``stage``-th plot stage needs with this user."""
    return (
        STAGE_RAPPORT[min(stage, len(STAGE_RAPPORT) - 1)] + THRESHOLD_SHIFT[case.empathy_threshold]
    )


#: What tells cases apart in the caches below: id, persona, facts, trigger and language.
_CaseKey = tuple[str, str, int, int, str]


def _case_key(case: Case) -> _CaseKey:
    return (
        case.id, case.persona.name, len(case.facts), hash(case.scenario_trigger), case.language
    )  # fmt: skip


def gain(heard: Heard, delta_e: float, rapport: float) -> float:
    """How much one reply moves rapport (before decay)."""
    r = heard.reading
    if r.empty:
        return -0.08
    g = 0.05 * max(-3.0, min(3.0, delta_e)) * (1.0 if heard.engaged else 0.4)
    if heard.answered or heard.deflected or heard.open:
        g += 0.04
    if heard.follows_up and (r.questions or r.summary):
        g += 0.05
    if heard.summary_right:
        g += 0.06
    if heard.summary_wrong or heard.unknown:
        g -= 0.05
    if r.suggestion:
        g += 0.01 if rapport > 0.45 else -0.05
    if heard.off_topic:
        g -= 0.06
    if r.short:
        g -= 0.03
    if r.contempt:
        g -= 0.3
    if r.dismissal:
        g -= 0.2
    return g


_KNOWN: dict[_CaseKey, tuple[Fact, ...]] = {}
#: The user's own material per case (what a reply can speak about).
_WORLDS: dict[_CaseKey, tuple[str, ...]] = {}


@lru_cache(maxsize=65536)
def _heard(key: _CaseKey, reply: str, previous_user: str, code: str) -> Heard:
    """How one past reply was heard (the replay reads each reply once, not once per turn)."""
    known = _KNOWN[key]
    world = _WORLDS.get(key, ())
    return hear(read_reply(reply, code, (*world, previous_user)), known, (), previous_user)


def fold_state(
    case: Case, history: Sequence[Message], delta_e: Sequence[float], code: str = "en"
) -> UserState:
    """Replay ``history`` (user and assistant messages) with each turn's ``delta_e``."""
    rapport = START[case.empathy_threshold]
    patience = max_patience = PATIENCE[case.empathy_threshold]
    hurt = 0.0
    last: Heard | None = None
    unasked = 0
    turn = 0
    previous_user = ""
    released_by_now = {f.stage for f in case.facts if f.stage is None}
    known = tuple(f for f in case.facts if f.stage in released_by_now or f.stage is None)
    key = _case_key(case)
    _KNOWN[key] = known
    if key not in _WORLDS:
        if len(_WORLDS) > 4096:
            _WORLDS.clear()
        e = case.experience
        _WORLDS[key] = (
            e.current_situation, case.scenario_trigger, case.profile.vent,
            case.profile.opening_topic, case.persona.social_persona, *case.voice.openings,
            *case.voice.details,
            *(f.answer for f in known),
        )  # fmt: skip
    for message in history:
        if message.role == "user":
            previous_user = message.content
            continue
        d_e = delta_e[turn] if turn < len(delta_e) else 0.0
        turn += 1
        heard = _heard(key, message.content, previous_user, code)
        r = heard.reading
        rapport = max(-1.0, min(1.0, DECAY * rapport + gain(heard, d_e, rapport)))
        hurt *= HURT_DECAY
        if r.contempt:
            hurt += 1.0
            patience -= CONTEMPT_COST
        if r.dismissal and not r.contempt:
            hurt += 0.6
            patience -= DISMISSAL_COST
        if r.apology and hurt > 0.3:
            hurt *= 0.5
            patience = min(max_patience, patience + 0.4)
        if not r.hostile:
            patience = min(max_patience, patience + 0.08)
        rapport -= 0.06 * hurt
        unasked = 0 if heard.invited else unasked + 1
        last = heard
    return UserState(rapport, hurt, patience, max_patience, last, unasked)


__all__ = ["UserState", "fold_state", "gain", "stage_rapport"]
