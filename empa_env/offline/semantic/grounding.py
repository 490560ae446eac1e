"""Grounding: is a reply about *this* person? A learned judgement of relevance, sentence by sentence.

A reply earns cognitive credit only by engaging with what this user said (their situation, the
people in it, their feelings, their words). Lines that would fit any conversation ("That sounds
so hard, I'm here for you") are not wrong, but they show no attention to this person; sentences
that attribute to the user situations they never described ("comparing yourself all the time made
you question whether you're good enough", said to someone locked out of a bank app) miss the
point.

The model reads each reply sentence against the conversation and against a fixed reference pool of
other people's messages (shipped with the model), so that what it measures is *specificity*: how
much better the sentence fits this conversation than conversations in general. Features per
sentence (:func:`sentence_features`): the sentence's cosine with the user's recent words and with
their closest message, its mean and top-10 cosine with the pool (how generic it is), the
difference (specificity), the share and number of its content words this user used, the share of
its content words this user never used, whether it addresses the user and whether it asks. A
logistic model over these, trained by ``empa judge train-grounding`` on contrasts from the judge's
corpus (each reply in its own conversation against the same reply in another person's), gives
``p`` = the probability that the sentence belongs to this conversation: about 0.5 for a sentence
that fits anywhere, high for one anchored in what was said, low for one about something else.

The model is a shipped file (``grounding.npz``), pinned by sha256 and listed in the judge's
``describe()``; nothing is trained at run time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np

from empa_env.bounded_cache import lru_bytes, text_weight
from empa_env.languages import language
from empa_env.offline.semantic.encoder import Encoder
from empa_env.offline.semantic.heads import file_digest
from empa_env.text import is_interrogative, read, sentence_spans

GROUNDING_FILE = Path(__file__).with_name("grounding.npz")
#: The same 600 messages of other people as the grounding model's pool, encoded by MiniLM: the
#: reference pool of :func:`empa_env.reading.reply.meaning_of` (``empa judge train-grounding``
#: writes both).
MEANING_POOL_FILE = GROUNDING_FILE.with_name("meaning_pool.npz")
#: The version of the rules :class:`GroundingGuard` applies to the model's readings (in the judge's
#: identity beside the model's sha256: the same model under other rules is another judge).
GROUNDING_RULES = "v2"
FEATURES = (
    "cos_recent", "cos_closest", "pool_mean", "pool_top", "specificity", "lexical_share",
    "lexical_count", "foreign_share", "has_content", "addresses_user", "question", "length",
)  # fmt: skip
POOL_TOP = 10
#: A sentence that attributes content to the user must also fit other conversations clearly better
#: than this one (its cosine with this user's closest message this far below its top-10 cosine
#: with the reference pool) to be a C.Neg: an unfamiliar word alone (a drug's name) is not enough.
MISATTRIBUTION_SPECIFICITY = -0.35
#: Replies looked back on: an ungrounded reply earns its little A (or P) credit only when none of
#: these was ungrounded too.
GENERIC_WINDOW = 2
#: The largest share of a grounded sentence's specific content words that the user never used.
MAX_FOREIGN = 0.34
#: A sentence with none of the user's content words is grounded only by paraphrase: it must fit
#: this conversation at least this much better than the reference pool's closest messages.
PARAPHRASE_SPECIFICITY = 0.05
#: Messages of the user read for grounding (the recent ones weigh most in ``cos_recent``).
USER_WINDOW = 12

_YOU = frozenset(
    ["you", "your", "yours", "yourself", "you're", "you've", "you'd", "you'll", "ur", "u"]
)


@lru_cache(maxsize=1)
def _vocabulary() -> tuple[frozenset[str], frozenset[str]]:
    """(words that carry no content, words too generic to show grounding)."""
    from empa_env.offline.guards import load_guard_data

    d = load_guard_data()
    stop = language("en").stopwords | d.function_words
    return frozenset(stop), frozenset(d.generic_words | d.topic_free)


def _window(user_texts: Sequence[str]) -> tuple[str, ...]:
    """The user messages grounding reads: the last :data:`USER_WINDOW` non-empty ones."""
    return tuple(t for t in user_texts if t.strip())[-USER_WINDOW:]


def _stem(word: str) -> str:
    word = word.removesuffix("'s")
    for suffix in ("ing", "ed", "es", "s", "ly"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)][:6]
    return word[:6]


@lru_bytes(8 << 20, text_weight(per_char=12))
def content_stems(text: str) -> tuple[str, ...]:
    """Stems of the content words of ``text`` (its reading form; stopwords and words shorter than
    three letters left out)."""
    stop, _ = _vocabulary()
    words = language("en").words(read(text))
    return tuple(_stem(w) for w in words if len(w) >= 3 and w not in stop)


def _unit(x: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(x, axis=-1, keepdims=True)
    return np.where(n > 0, x / np.where(n > 0, n, 1), 0).astype(np.float32)


def sentence_features(
    sentences: Sequence[str],
    S: np.ndarray,
    user_texts: Sequence[str],
    U: np.ndarray,
    pool: np.ndarray,
) -> np.ndarray:
    """The feature rows (one per sentence, columns :data:`FEATURES`).

    ``S``: unit vectors of ``sentences``; ``U``: unit vectors of ``user_texts`` (oldest first);
    ``pool``: unit vectors of the reference pool of other people's messages."""
    n = len(sentences)
    X = np.zeros((n, len(FEATURES)), dtype=np.float32)
    if n == 0:
        return X
    S = _unit(np.atleast_2d(S).astype(np.float32))
    if len(user_texts):
        weights = 0.6 ** np.arange(len(user_texts))[::-1]
        u = _unit((U * weights[:, None]).sum(axis=0))
        cos_recent = S @ u
        cos_closest = (S @ U.T).max(axis=1)
    else:
        cos_recent = np.zeros(n, np.float32)
        cos_closest = np.zeros(n, np.float32)
    sims = S @ pool.T.astype(np.float32)
    pool_mean = sims.mean(axis=1)
    pool_top = np.sort(sims, axis=1)[:, -POOL_TOP:].mean(axis=1)
    _, generic_words = _vocabulary()
    generic = {_stem(w) for w in generic_words}
    said = {s for t in user_texts for s in content_stems(t)}
    for i, text in enumerate(sentences):
        stems = content_stems(text)
        specific = [s for s in stems if s not in generic]
        matched = sum(1 for s in specific if s in said)
        foreign = sum(1 for s in specific if s not in said)
        words = language("en").words(read(text))
        X[i] = (
            cos_recent[i], cos_closest[i], pool_mean[i], pool_top[i],
            cos_closest[i] - pool_top[i],
            matched / len(stems) if stems else 0.0,
            min(matched, 3) / 3,
            foreign / len(specific) if specific else 0.0,
            1.0 if specific else 0.0,
            1.0 if _YOU.intersection(words) else 0.0,
            1.0 if text.rstrip("\"')] ").endswith("?") else 0.0,
            min(len(words), 30) / 30,
        )  # fmt: skip
    return X


@dataclass(frozen=True)
class GroundingReading:
    """The grounding of one reply: ``p[i]`` for its ``i``-th sentence (``spans[i]``)."""

    spans: tuple[tuple[int, int], ...]
    p: tuple[float, ...]
    features: np.ndarray
    #: Per sentence: a question in form (:func:`empa_env.text.is_interrogative`). A question
    #: asks about what it names; it attributes nothing to the user.
    asks: tuple[bool, ...]

    @property
    def best(self) -> float:
        """The grounding of the reply's best-anchored sentence (0 without sentences)."""
        return max(self.p, default=0.0)

    def explores(self, reply: str) -> list[bool]:
        """Per sentence: a question that explores, one in form (:attr:`asks`) that is not advice
        put as a question ("have you tried ...?", "why not ...?"): it invites the person to say
        more about their own experience."""
        from empa_env.offline.guards import SUGGESTION_RE

        return [
            q and SUGGESTION_RE.search(read(reply[a:b])) is None
            for (a, b), q in zip(self.spans, self.asks, strict=True)
        ]

    def column(self, name: str) -> np.ndarray:
        return self.features[:, FEATURES.index(name)]

    def for_someone_else(self) -> bool:
        """Whether the reply reads as written for another person: every sentence with specific
        content shares none of it with this user, most of it is new to them, and at least one
        such sentence speaks to the user (a story of the writer's own is not this). Questions
        do not count: asking about something new is not saying it happened to them."""
        rows = [dict(zip(FEATURES, r, strict=True)) for r in self.features]
        specific = [r for r, q in zip(rows, self.asks, strict=True) if r["has_content"] and not q]
        return (
            bool(specific)
            and all(r["lexical_count"] == 0 and r["foreign_share"] >= 0.6 for r in specific)
            and any(r["addresses_user"] for r in specific)
        )

    def anchored(self, threshold: float) -> list[bool]:
        """Per sentence: grounded in this conversation. Its ``p`` reaches ``threshold``, its
        content is this user's (one of their content words, or, for a paraphrase or a line with
        no content words ("how are you feeling right now?"), a sentence that fits this
        conversation clearly better than others: ``specificity`` at least
        :data:`PARAPHRASE_SPECIFICITY`), and it brings no more content this user never raised
        than content of theirs (a template that happens to share one word with them, around a
        situation they never described, is not about them)."""
        foreign = self.column("foreign_share")
        matched = self.column("lexical_count") * 3
        spec = self.column("specificity")
        return [
            p >= threshold
            and (m >= 1 or s >= PARAPHRASE_SPECIFICITY)
            and (f <= MAX_FOREIGN or m >= 2)
            for p, f, m, s in zip(self.p, foreign, matched, spec, strict=True)
        ]


class GroundingModel:
    """The shipped grounding model (``grounding.npz``): a logistic model over
    :func:`sentence_features`, its feature standardisation, the reference pool and thresholds."""

    def __init__(self, encoder: Encoder, path: Path = GROUNDING_FILE) -> None:
        if not Path(path).is_file():
            raise FileNotFoundError(
                f"no grounding model at {path}; build it with 'empa judge train-grounding'"
            )
        self.path = Path(path)
        with np.load(self.path, allow_pickle=False) as z:
            self.weights = z["weights"].astype(np.float64)
            self.bias = float(z["bias"])
            self.mean = z["mean"].astype(np.float64)
            self.scale = z["scale"].astype(np.float64)
            self.pool = _unit(z["pool"].astype(np.float32))
            self.thresholds = {
                k: float(v) for k, v in zip(z["threshold_names"], z["thresholds"], strict=True)
            }
            self.encoder_sha256 = str(z["encoder_sha256"])
        if self.encoder_sha256 != encoder.sha256:
            raise ValueError(
                f"{self.path} was built with encoder {self.encoder_sha256}, not {encoder.sha256}"
            )
        self.encoder = encoder
        # the same (conversation, reply) is read again on later turns (the replies before it)
        self._read = lru_bytes(16 << 20, text_weight(per_char=2, overhead=800))(self._read_uncached)

    @classmethod
    def for_encoder(cls, encoder: Encoder, path: Path = GROUNDING_FILE) -> GroundingModel | None:
        """The model at ``path`` if it was built with ``encoder`` (its vectors are the model's
        input), else ``None``: a judge on another encoder tier runs without grounding."""
        if not Path(path).is_file():
            return None
        with np.load(path, allow_pickle=False) as z:
            built_with = str(z["encoder_sha256"])
        return cls(encoder, path) if built_with == encoder.sha256 else None

    @cached_property
    def sha256(self) -> str:
        return file_digest(self.path)

    def probability(self, X: np.ndarray) -> np.ndarray:
        z = ((X - self.mean) / self.scale) @ self.weights + self.bias
        return 1.0 / (1.0 + np.exp(-z))

    def read(self, user_texts: Sequence[str], reply: str) -> GroundingReading:
        """The grounding of each sentence of ``reply`` in the conversation ``user_texts``."""
        return self._read(_window(user_texts), reply)

    def texts(self, user_texts: Sequence[str], reply: str) -> list[str]:
        """The texts :meth:`read` encodes for this pair (so that a batch of judgements can
        encode them ahead, in one call)."""
        return [*_window(user_texts), *(reply[a:b] for a, b in sentence_spans(reply))]

    def _read_uncached(self, users: tuple[str, ...], reply: str) -> GroundingReading:
        spans = tuple(sentence_spans(reply))
        sentences = [reply[a:b] for a, b in spans]
        if not sentences:
            return GroundingReading((), (), np.zeros((0, len(FEATURES)), np.float32), ())
        rows = self.encoder.encode([*users, *sentences])
        U, S = rows[: len(users)], rows[len(users) :]
        X = sentence_features(sentences, S, users, U, self.pool)
        p = self.probability(X)
        asks = tuple(is_interrogative(s) for s in sentences)
        return GroundingReading(spans, tuple(float(x) for x in p), X, asks)


__all__ = [
    "FEATURES", "GROUNDING_FILE", "GroundingModel", "GroundingReading", "MEANING_POOL_FILE",
    "content_stems", "sentence_features",
]  # fmt: skip


class GroundingGuard:
    """The grounding rules, as a :class:`~empa_env.offline.semantic.judger.Guard` of the semantic
    judge (applied before credit, like every guard):

    * no sentence at or above the ``credit`` threshold: C progress 0 (nothing in the reply
      engages with what this user said);
    * none at or above ``attention`` and the reply reads as written for someone else (what it
      says to the user is about things they never raised): no progress on any axis;
    * otherwise none at or above ``attention``: A progress at most 1 and P progress at most 1 for a
      question that explores (:meth:`GroundingReading.explores`: not advice put as a question,
      not a statement with a question mark), 0 otherwise (kindness or encouragement that would
      fit any conversation is little attention to this person); and when the previous reply did not engage with this user
      either, A and P progress 0 (generic comfort does not add up: attention does);
    * a sentence that addresses the user with specific content they never used (no content word
      of theirs, most of its content words new) and reads as another conversation's (``p`` below
      ``misattributes``): C.Neg -1, it attributes to them what they never said. A question in
      form does not: it asks, it attributes nothing (a statement with a question mark, "so you
      lost your job?", still does).

    The whole conversation's user messages are read (what they said earlier still counts)."""

    def __init__(self, model: GroundingModel) -> None:
        self.model = model

    def describe(self) -> dict[str, str]:
        return {"grounding_sha256": self.model.sha256, "grounding_rules": GROUNDING_RULES}

    def reads(self, history, reply: str) -> list[str]:  # noqa: ANN001 - Sequence[Message]
        """The texts this guard encodes for ``reply`` after ``history`` (batched ahead)."""
        return self.model.texts([m.content for m in history if m.role == "user"], reply)

    def _generic_before(self, history, threshold: float) -> bool:  # noqa: ANN001
        """Whether one of the last :data:`GENERIC_WINDOW` replies was not grounded either (each
        read against the user messages before it)."""
        seen = 0
        for i in range(len(history) - 1, -1, -1):
            if history[i].role != "assistant":
                continue
            users = [m.content for m in history[:i] if m.role == "user"]
            if not any(self.model.read(users, history[i].content).anchored(threshold)):
                return True
            seen += 1
            if seen >= GENERIC_WINDOW:
                break
        return False

    def __call__(self, reading, context):  # noqa: ANN001, ANN204 - the judger's Guard protocol
        from empa_env.offline.semantic.judger import GuardVerdict, Penalty

        users = [m.content for m in context.history if m.role == "user"] or list(reading.user_texts)
        g = self.model.read(users, reading.reply)
        if not g.p:
            return GuardVerdict()
        t = self.model.thresholds
        caps: dict[str, int] = {}
        anchored = g.anchored(t["credit"])
        notes = [f"grounding {g.best:.2f}"]
        if not any(anchored):
            caps["C"] = 0
            notes.append("no sentence engages with what this user said: no C credit")
        if not any(g.anchored(t["attention"])) and g.for_someone_else():
            caps = {"C": 0, "A": 0, "P": 0}
            notes.append(
                "written for another conversation: what it says to the user is about "
                "things this user never raised; no credit"
            )
        elif not any(g.anchored(t["attention"])):
            asks = any(g.explores(reading.reply))
            caps["A"] = 1
            caps["P"] = 1 if asks else 0
            notes.append(
                "fits any conversation: A at most 1, P at most 1 for a question that explores"
            )
            if self._generic_before(context.history, t["attention"]):
                caps["A"] = 0
                caps["P"] = 0
                notes.append(
                    "another reply that fits any conversation: generic comfort adds up "
                    f"to nothing (one in {GENERIC_WINDOW + 1} replies at most)"
                )
        penalties = {}
        for (a, b), p, row, asks in zip(g.spans, g.p, g.features, g.asks, strict=True):
            f = dict(zip(FEATURES, row, strict=True))
            if (
                not asks
                and p < t["misattributes"]
                and f["specificity"] < MISATTRIBUTION_SPECIFICITY
                and f["addresses_user"]
                and f["has_content"]
                and f["lexical_count"] == 0
                and f["foreign_share"] >= 0.6
            ):
                quote = reading.reply[a:b]
                penalties["C"] = Penalty(
                    -1, quote, f"attributes to the user what they never said (grounding {p:.2f})"
                )
                caps["C"] = 0
                notes.append("misattributes")
                break
        return GuardVerdict(caps=caps, penalties=penalties, note="; ".join(notes))
