"""A strategy-level policy for the CPU experiment: a small torch network picks a reply strategy.

The action space is a fixed menu of reply strategies written for this experiment (not tuned
against the Judger's rules, which the policy never sees). A strategy is a *way* of replying
(validating, clarifying, reframing, affirming, handing agency back, advising; or a platitude, a
lecture, templated cheer) and a *way of filling its slots*:

* ``reading``: the slots hold what the user told, read with the environment's one reading of a
  conversation (:func:`baselines.policies.reflective.topics`: the most salient people and things
  of their last message, as noun phrases, and the feeling they named): the attending strategies;
* ``words``: the slots hold two arbitrary content words of their last messages (the feeling from
  a fixed list): slot-filling that looks attentive and is content-blind;
* ``none``: a generic line with no slot at all.

The same phrasings serve the ``reading`` and ``words`` kinds, so what separates them is only what
goes in the slots; :func:`family` says which of the two families (attending, content-blind) a
strategy is in, and the experiment reports how the trained policies' share of each moves.

The policy sees only the conversation, through :func:`features`: the turn index, which
strategies it used and how recently, and surface cues of the user's last message (length,
question, a feeling named, guardedness, thanks, a small hashed bag of words).
"""

from __future__ import annotations

import random
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from empa_env.policy import ChatMessage
from empa_env.rollout import RolloutHooks, Step

if TYPE_CHECKING:
    from torch import nn


_WORD = re.compile(r"[a-z][a-z']+")
#: The first letter of a sentence (of the text, or after a full stop).
_SENTENCE_START = re.compile(r"(?:^|(?<=[.!?] ))[a-z]")
_STOP = frozenset(
    ("about", "after", "again", "also", "always", "anything", "because", "been", "being",
     "cannot", "could", "didn't", "does", "doesn't", "don't", "even", "every", "everyone",
     "from", "going", "have", "having", "here", "i'm", "into", "it's", "just", "know", "like",
     "maybe", "more", "much", "never", "nothing", "only", "other", "really", "said", "same",
     "should", "since", "some", "someone", "something", "still", "than", "that", "that's",
     "their", "them", "then", "there", "these", "they", "thing", "things", "think", "this",
     "those", "time", "told", "very", "want", "wanted", "well", "were", "what", "when", "where",
     "which", "while", "with", "would", "yeah", "your", "you're", "okay", "whatever", "guess",
     "sure", "kind", "today", "back", "last", "first", "make", "made", "feel", "feels", "felt",
     "keep", "kept", "tell", "says", "thanks")
)  # fmt: skip
#: Feelings the policy listens for in the user's words (its own list, written for it).
FEELINGS = (
    "tired", "exhausted", "drained", "angry", "furious", "frustrated", "sad", "lonely", "alone",
    "scared", "afraid", "anxious", "worried", "stressed", "guilty", "ashamed", "hurt", "lost",
    "stuck", "overwhelmed", "embarrassed", "numb", "upset", "confused", "disappointed", "jealous",
    "nervous", "bitter", "empty", "broken", "helpless", "hopeless", "invisible", "trapped",
    "useless", "resentful", "torn", "defeated", "crushed", "rejected", "unseen", "heartbroken",
)  # fmt: skip
_FEELINGS = frozenset(FEELINGS)
_GUARDED = (
    "i don't know",
    "whatever",
    "it's fine",
    "i'm fine",
    "doesn't matter",
    "never mind",
    "not sure",
)
_THANKS = ("thank", "helps", "that's true", "you're right", "maybe you're", "i never thought")


#: How many of the policy's own latest replies a phrasing should not come back within.
FRESH_WITHIN = 12
_SLOT = re.compile(r"\{[a-z]+\}")


def _fresh(phrasings: Sequence[str], messages: Sequence[ChatMessage]) -> Sequence[str]:
    """The phrasings not used in the policy's last :data:`FRESH_WITHIN` replies (all of them
    when every one was): a phrasing is used when each of its fixed fragments of two words or
    more is in one reply."""
    recent = [m["content"].lower() for m in messages if m["role"] == "assistant"][-FRESH_WITHIN:]
    if not recent:
        return phrasings

    def used(phrasing: str) -> bool:
        parts = [p.strip(" .,;:?!").lower() for p in _SLOT.split(phrasing)]
        parts = [p for p in parts if " " in p]
        return bool(parts) and any(all(p in r for p in parts) for r in recent)

    unused = [p for p in phrasings if not used(p)]
    return unused or phrasings


#: How a strategy fills its slots (see the module docstring).
SlotFill = Literal["reading", "words", "none"]


@dataclass(frozen=True)
class Strategy:
    """A named way of replying; ``phrasings`` use ``{a}``, ``{b}`` (two things of the user's)
    and ``{feel}``, filled as ``slots`` says.

    A compound strategy has no phrasings of its own but ``parts``: its reply is one sentence of
    each part, in order (e.g. validate, then ask a clarifying question).
    """

    name: str
    phrasings: tuple[str, ...] = ()
    parts: tuple[Strategy, ...] = ()
    slots: SlotFill = "words"

    def reply(self, messages: Sequence[ChatMessage], rng: random.Random) -> str:
        if self.parts:
            return " ".join(p.reply(messages, rng) for p in self.parts)
        phrasing = rng.choice(_fresh(self.phrasings, messages))
        if self.slots == "none":
            return phrasing
        a, b, feel = (reading_slots if self.slots == "reading" else word_slots)(messages)
        text = phrasing.format(a=a, b=b, feel=feel)
        return _SENTENCE_START.sub(lambda m: m.group(0).upper(), text)

    def with_slots(self, slots: SlotFill, name: str = "") -> Strategy:
        """The same strategy filling its slots another way."""
        parts = tuple(p.with_slots(slots) for p in self.parts)
        return Strategy(name or self.name, self.phrasings, parts, slots)


SINGLE_STRATEGIES: tuple[Strategy, ...] = (
    Strategy("validate", (
        "No wonder you feel {feel}, with {a} and {b} on you.",
        "Of course you feel {feel}. Carrying {a} and {b} like this would wear anyone down.",
        "It makes sense that you feel {feel} about {a}; {b} has been a lot.",
        "That's heavy. Feeling {feel} after {a} and {b} is understandable.",
        "I can see why you feel {feel}. {a} and {b} would shake most people.",
        "Anyone in your place would feel {feel} about {a} and {b}.",
    )),
    Strategy("clarify", (
        "It sounds like the hardest part is {a}, more than {b}. Is that right?",
        "So what you're saying is that {a} matters because of {b}?",
        "If I'm hearing you right, {a} keeps pulling you back to {b}.",
        "Do you mean that {a} is what hurts, or is it more about {b}?",
        "What part of {a} weighs on you the most right now, with {b} in the picture?",
        "It seems like {a} and {b} are tangled together for you. Which comes first?",
    )),
    Strategy("resonate", (
        "I wonder if, underneath feeling {feel}, part of you feels alone with {a}.",
        "Maybe deep down {a} touches something older than {b}, something like being unseen.",
        "Part of you might be grieving {a}, not just feeling {feel} about {b}.",
        "Beneath all of {a}, I wonder if there's a fear that {b} says something about you.",
        "It might be that {a} hurts because part of you hoped {b} would go differently.",
    )),
    Strategy("reframe", (
        "What if {a} is less a sign of failing and more a sign of how much {b} matters to you?",
        "Another way to see {a}: it doesn't have to mean you got {b} wrong.",
        "Maybe it's not about {a} being your fault; {b} says more about the situation.",
        "Rather than proof that you're failing, {a} could mean you were stretched by {b}.",
        "Instead of seeing {a} as the end, it could also be read as {b} asking for a change.",
    )),
    Strategy("affirm", (
        "You've kept going through {a} and {b}, and that is not nothing.",
        "The fact that you still showed up for {a}, even with {b}, took real strength.",
        "You've been carrying {a} and still made room for {b}. That took courage.",
        "It took guts to keep facing {a} while {b} was happening.",
        "You have held {a} together for a long time, even with {b}.",
    )),
    Strategy("empower", (
        "It's your call what to do about {a}. What matters most to you in {b}?",
        "You get to decide how {a} fits with {b}. What would you want, on your own terms?",
        "You know yourself. What do you need from {a} now, and from {b}?",
        "What would you want {a} to look like, if {b} were yours to shape?",
        "You have every right to choose what {a} means. What matters most to you here?",
    )),
    Strategy("advise", (
        "One small step could be to talk to someone you trust about {a} and {b}.",
        "You could try writing down what {a} and {b} each ask of you this week.",
        "Would it help to plan one concrete thing about {a} before worrying about {b}?",
        "Maybe try setting aside an hour for {a}, and leave {b} for later.",
        "One option is to tell them plainly how {a} and {b} are affecting you.",
    )),
    Strategy("platitude", (
        "I totally understand. Everything happens for a reason, even {a}.",
        "I know exactly how you feel. Time heals, and {a} will pass.",
        "Look on the bright side: {a} could be worse, and things always work out.",
        "Life is like that sometimes. It is what it is with {a}.",
    )),
    Strategy("lecture", (
        "You need to stop worrying about {a} and just deal with {b}.",
        "Honestly, you should just move on from {a}. It's not that big a deal.",
        "You have to be more positive about {a}; dwelling on {b} won't help.",
        "You're overthinking {a}. Just focus on {b} and get on with it.",
    )),
    Strategy("cheer", (
        "You've got this! Stay strong and keep smiling through {a}!",
        "Stay positive! Every cloud has a silver lining, even {a}!",
        "Believe in yourself and {a} will be fine! You can do anything!",
        "Chin up! {a} is just a bump in the road!",
    )),
)  # fmt: skip
GENERIC_STRATEGIES: tuple[Strategy, ...] = (
    Strategy("generic comfort", (
        "That sounds really hard. I'm here and I'm listening.",
        "I'm sorry you're going through this. It sounds like a lot.",
        "That must be difficult. Thank you for telling me.",
        "It sounds like things have been heavy lately.",
        "I hear you. That's not easy to carry.",
    ), slots="none"),
    Strategy("generic question", (
        "Can you tell me more about what happened?",
        "How are you feeling about all of it right now?",
        "What has been the hardest part for you?",
        "What's on your mind most today?",
        "How long has this been going on?",
    ), slots="none"),
)  # fmt: skip
_BY_NAME = {s.name: s for s in SINGLE_STRATEGIES}


def _compound(*names: str) -> Strategy:
    return Strategy("+".join(names), parts=tuple(_BY_NAME[n] for n in names))


_COMPOUNDS = (
    _compound("validate", "clarify"),
    _compound("clarify", "affirm"),
    _compound("affirm", "empower"),
    _compound("validate", "affirm"),
    _compound("clarify", "reframe"),
    _compound("resonate", "empower"),
)
#: The honest ways of replying, each also played with arbitrary words in its slots.
_WORD_SLOTTED = ("validate", "clarify", "advise", "validate+clarify")
_POOR = ("platitude", "lecture", "cheer")
_ALL = {s.name: s for s in SINGLE_STRATEGIES + _COMPOUNDS}

#: The action space: every honest single and two-part strategy filled from the reading; four of
#: them, and the three poor ones, filled with arbitrary words ("~words"); two generic lines.
STRATEGIES: tuple[Strategy, ...] = (
    *(_ALL[n].with_slots("reading") for n in _ALL if n not in _POOR),
    *(_ALL[n].with_slots("words", f"{n}~words") for n in _WORD_SLOTTED + _POOR),
    *GENERIC_STRATEGIES,
)
STRATEGY_NAMES: tuple[str, ...] = tuple(s.name for s in STRATEGIES)


def _slot_kinds(strategy: Strategy) -> set[str]:
    if strategy.parts:
        return set().union(*(_slot_kinds(p) for p in strategy.parts))
    return {strategy.slots}


def family(name: str) -> str:
    """``"attending"`` for a strategy filled from the reading, else ``"content-blind"``."""
    strategy = STRATEGIES[STRATEGY_NAMES.index(name)]
    return "attending" if _slot_kinds(strategy) == {"reading"} else "content-blind"


#: Per action index: whether it is content-blind (for the shares the experiment reports).
CONTENT_BLIND = np.array([family(n) == "content-blind" for n in STRATEGY_NAMES])


def _user_messages(messages: Sequence[ChatMessage]) -> list[str]:
    return [m["content"] for m in messages if m["role"] == "user"]


def word_slots(messages: Sequence[ChatMessage]) -> tuple[str, str, str]:
    """Content-blind slots: two arbitrary content words and a listed feeling word."""
    a, b = user_words(messages)
    return a, b, last_feeling(messages)


def reading_slots(messages: Sequence[ChatMessage]) -> tuple[str, str, str]:
    """Attending slots: the two most salient people or things of the user's last message, as
    noun phrases ("your grandson", "the rent"), and the feeling they named, from the one reading
    of the conversation (:func:`baselines.policies.reflective.topics`)."""
    from baselines.policies.reflective import FEELING_WORDS, topics

    phrases, feeling = topics(list(messages))
    phrases = (phrases + ["what happened", "all of it"])[:2]
    return phrases[0], phrases[1], FEELING_WORDS.get(feeling or "", "worn down")


def user_words(messages: Sequence[ChatMessage]) -> tuple[str, str]:
    """Two content words from the user's latest messages (latest first), for the phrasings."""
    picked: list[str] = []
    for text in reversed(_user_messages(messages)[-2:]):
        for w in reversed(_WORD.findall(text.lower())):
            w = w.strip("'")
            if len(w) >= 4 and w not in _STOP and w not in _FEELINGS and w not in picked:
                picked.append(w)
            if len(picked) == 2:
                return picked[0], picked[1]
    picked += ["this", "everything"][len(picked) :]
    return picked[0], picked[1]


def last_feeling(messages: Sequence[ChatMessage]) -> str:
    """The feeling the user named most recently (``"worn down"`` when none was named)."""
    for text in reversed(_user_messages(messages)):
        for w in reversed(_WORD.findall(text.lower())):
            if w in _FEELINGS:
                return w
    return "worn down"


HASH_BUCKETS = 16
N_STRATEGIES = len(STRATEGIES)
FEATURE_DIM = 2 + 2 * N_STRATEGIES + 1 + 6 + HASH_BUCKETS


def features(
    messages: Sequence[ChatMessage], actions: Sequence[int], max_turns: int = 45
) -> np.ndarray:
    """The policy's view of the conversation, a vector of :data:`FEATURE_DIM` floats."""
    t = len(actions)
    x = np.zeros(FEATURE_DIM, dtype=np.float32)
    x[0] = t / max_turns
    x[1] = min(t, 12) / 12.0
    o = 2
    if actions:
        x[o + actions[-1]] = 1.0
        counts = np.bincount(np.asarray(actions), minlength=N_STRATEGIES)[:N_STRATEGIES]
        x[o + N_STRATEGIES : o + 2 * N_STRATEGIES] = counts / t
        run = 1
        while run < t and actions[-1 - run] == actions[-1]:
            run += 1
        x[o + 2 * N_STRATEGIES] = min(run, 5) / 5.0
    o += 2 * N_STRATEGIES + 1
    users = _user_messages(messages)
    last = users[-1].lower() if users else ""
    tokens = _WORD.findall(last)
    x[o + 0] = min(len(tokens), 60) / 60.0
    x[o + 1] = float("?" in last)
    x[o + 2] = float(any(w in _FEELINGS for w in tokens))
    x[o + 3] = float(any(c in last for c in _GUARDED))
    x[o + 4] = float(any(c in last for c in _THANKS))
    x[o + 5] = min(len(users), 45) / 45.0
    o += 6
    for w in tokens:
        if w not in _STOP and len(w) >= 4:
            x[o + zlib.crc32(w.encode()) % HASH_BUCKETS] += 1.0
    x[o : o + HASH_BUCKETS] = np.minimum(x[o : o + HASH_BUCKETS], 3.0) / 3.0
    return x


def build_policy(hidden: int = 64, seed: int = 0) -> nn.Sequential:
    """A two-layer MLP ``features -> logits over STRATEGIES`` (torch)."""
    import torch
    from torch import nn

    torch.manual_seed(seed)
    head = nn.Linear(hidden, N_STRATEGIES)
    net = nn.Sequential(
        nn.Linear(FEATURE_DIM, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), head,
    )  # fmt: skip
    with torch.no_grad():  # start near uniform: every strategy gets tried
        head.weight.mul_(0.01)
        head.bias.zero_()
    return net


class StrategyTurns(RolloutHooks):
    """The strategy network as ``reply_batch`` and hooks for :func:`empa_env.rollout.play_lockstep`:
    one batched forward per turn over the running episodes' features, a sampled (or greedy)
    strategy each, phrased with the episode's own random generator (``phrasing_seeds``).

    Subclasses say where a sampled strategy's random draw comes from (:meth:`draw`) and where a
    played turn's action and features go (:meth:`record`)."""

    def __init__(self, net: Any, phrasing_seeds: Sequence[int], greedy: bool, max_turns: int):
        super().__init__()
        self.net, self.greedy, self.max_turns = net, greedy, max_turns
        self.actions: list[list[int]] = [[] for _ in phrasing_seeds]
        self.phrasing = [random.Random(s) for s in phrasing_seeds]
        self._indices: list[int] = []
        self._pending: dict[int, tuple[int, np.ndarray]] = {}

    def draw(self, index: int, p: np.ndarray) -> int:
        """A strategy for episode ``index`` drawn from the probabilities ``p``."""
        raise NotImplementedError

    def record(self, index: int, action: int, x: np.ndarray, step: Step) -> None:
        """Keep a played turn's action and features (after :attr:`actions` has it)."""

    def before_turn(self, turn: int, indices: list[int]) -> None:
        self._indices = indices

    def __call__(self, histories: list[list[dict[str, str]]]) -> list[str]:
        import torch

        idx = self._indices
        x = np.stack(
            [features(h, self.actions[i], self.max_turns) for i, h in zip(idx, histories, strict=True)]
        )  # fmt: skip
        with torch.no_grad():
            logits = self.net(torch.from_numpy(x)).numpy()
        if self.greedy:
            chosen = [int(a) for a in logits.argmax(-1)]
        else:
            p = np.exp(logits - logits.max(-1, keepdims=True))
            p /= p.sum(-1, keepdims=True)
            chosen = [self.draw(i, row) for i, row in zip(idx, p, strict=True)]
        replies = []
        for j, (i, h) in enumerate(zip(idx, histories, strict=True)):
            self._pending[i] = (chosen[j], x[j])
            replies.append(STRATEGIES[chosen[j]].reply(h, self.phrasing[i]))
        return replies

    def on_step(self, index: int, step: Step) -> None:
        a, x = self._pending.pop(index)
        self.actions[index].append(a)
        self.record(index, a, x, step)


@dataclass
class EpisodeBatch:
    """``B x K`` episodes: padded rewards/lengths, and per turn the features and the action."""

    rewards: np.ndarray  # (B, K, T)
    lengths: np.ndarray  # (B, K)
    feats: np.ndarray  # (B, K, T, D)
    actions: np.ndarray  # (B, K, T)
    epm: list[dict[str, Any]]  # one per episode, row-major (b, k)
    #: the played episodes (:class:`empa_env.rollout.Episode`), row-major, where the play kept them
    episodes: list[Any] = field(default_factory=list)


__all__ = [
    "CONTENT_BLIND", "FEATURE_DIM", "FEELINGS", "GENERIC_STRATEGIES", "N_STRATEGIES",
    "SINGLE_STRATEGIES", "STRATEGIES", "STRATEGY_NAMES", "EpisodeBatch", "SlotFill", "Strategy",
    "StrategyTurns", "build_policy", "family", "features", "last_feeling", "reading_slots",
    "user_words", "word_slots",
]  # fmt: skip
