"""What the heads read: the user's recent words and the reply, together.

For a user vector ``u``, a reply vector ``r`` and the vectors ``s_i`` of the reply's sentences
(unit rows from one encoder, each sentence encoded on its own) the feature row is
``[r, u * r, |u - r|, cos(u, r), max_i s_i, mean_i s_i]``: what the reply says, what it shares
with the user's words element by element, where it departs from them, how close the two are
overall, and (response-only) the strongest and the average sentence, so that one warm sentence in a
long reply of advice is not averaged away. The user vector is a recency-weighted mean of the
user's last messages (the latest counts most), renormalised.

The relevance gate reads ``[u * r, |u - r|, cos(u, r), max_i cos(u, s_i), mean_i cos(u, s_i)]``
(:func:`gate_features`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from empa_env.bounded_cache import lru_bytes, text_weight

Span = tuple[int, int]

#: Weights of the user's messages, latest first (older ones are ignored).
USER_WEIGHTS: tuple[float, ...] = (1.0, 0.5, 0.25)


def user_vector(rows: np.ndarray) -> np.ndarray:
    """Combine the embeddings of the user's messages (oldest first) into one unit vector."""
    if rows.shape[0] == 0:
        return np.zeros(rows.shape[1], dtype=np.float32)
    recent = rows[::-1][: len(USER_WEIGHTS)]
    w = np.asarray(USER_WEIGHTS[: recent.shape[0]], dtype=np.float32)[:, None]
    v = (recent * w).sum(axis=0)
    n = float(np.linalg.norm(v))
    return (v / n).astype(np.float32) if n > 0 else v.astype(np.float32)


def pair_features(user: np.ndarray, reply: np.ndarray) -> np.ndarray:
    """Feature rows for paired unit vectors ``user`` and ``reply`` (both ``(n, d)`` or ``(d,)``)."""
    u = np.atleast_2d(user).astype(np.float32)
    r = np.atleast_2d(reply).astype(np.float32)
    cos = (u * r).sum(axis=1, keepdims=True)
    return np.hstack([r, u * r, np.abs(u - r), cos]).astype(np.float32)


#: The heads' own sentence cut: part of the shipped heads' feature definition (they were trained
#: on it; ``tests/judge/test_semantic_train.py`` retrains them byte for byte). Moving the heads to
#: the one splitter (:func:`empa_env.text.sentence_spans`) means retraining them, and recording
#: their agreement again.
_HEADS_SENTENCE = re.compile(r"[^.!?。！？…\n]+(?:[.!?。！？…]+|$)")


def sentence_spans(text: str) -> list[Span]:
    """Character spans of the sentences of ``text`` as the heads cut them (stripped, never
    empty; see :data:`_HEADS_SENTENCE`)."""
    spans = []
    for m in _HEADS_SENTENCE.finditer(text):
        a, b = m.span()
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a and any(ch.isalnum() for ch in text[a:b]):
            spans.append((a, b))
    return spans


def sentences_of(text: str) -> list[str]:
    """The sentences of ``text`` as the heads cut them (the stripped text itself when it has
    none)."""
    return [text[a:b] for a, b in sentence_spans(text)] or [text.strip() or text]


def sentence_pools(sentences: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``(max, mean)`` over the sentence vectors of each reply (a list of ``(k_i, d)`` arrays)."""
    smax = np.stack([s.max(axis=0) for s in sentences]).astype(np.float32)
    smean = np.stack([s.mean(axis=0) for s in sentences]).astype(np.float32)
    return smax, smean


def reply_features(
    user: np.ndarray, reply: np.ndarray, smax: np.ndarray, smean: np.ndarray
) -> np.ndarray:
    """Full head rows: :func:`pair_features` plus the sentence max and mean pools."""
    return np.hstack([pair_features(user, reply), np.atleast_2d(smax), np.atleast_2d(smean)])


def gate_features(
    user: np.ndarray, reply: np.ndarray, sentences: Sequence[np.ndarray]
) -> np.ndarray:
    """Relevance-gate rows: how the reply and its sentences relate to the user's words."""
    u = np.atleast_2d(user).astype(np.float32)
    r = np.atleast_2d(reply).astype(np.float32)
    cos = (u * r).sum(axis=1, keepdims=True)
    sc = [s @ u[i] for i, s in enumerate(sentences)]
    smax = np.array([[float(c.max())] for c in sc], dtype=np.float32)
    smean = np.array([[float(c.mean())] for c in sc], dtype=np.float32)
    return np.hstack([u * r, np.abs(u - r), cos, smax, smean]).astype(np.float32)


def recent_user_texts(texts: Sequence[str], limit: int = len(USER_WEIGHTS)) -> list[str]:
    """The user's last ``limit`` non-empty messages, oldest first."""
    kept = [t for t in texts if t.strip()]
    return kept[-limit:]


# --- surface features ---------------------------------------------------------------------------
_SECOND_PERSON = re.compile(r"\b(you|your|yours|yourself|you're|youre|you've|youve|u|ur)\b", re.I)
_FIRST_PERSON = re.compile(r"\b(i|me|my|mine|myself|i'm|im|i've|ive|i'd|i was)\b", re.I)
_WORDS = re.compile(r"[a-z][a-z']*")
_FUNCTION_WORDS = frozenset({
    "about", "after", "again", "also", "been", "being", "before", "both", "could", "didn't",
    "does", "doesn't", "doing", "don't", "down", "each", "even", "ever", "from", "have", "having",
    "here", "into", "it's", "just", "like", "more", "most", "much", "only", "other", "over",
    "really", "same", "should", "some", "such", "than", "that", "that's", "their", "them", "then",
    "there", "these", "they", "thing", "things", "this", "those", "through", "very", "want",
    "what", "when", "where", "which", "while", "will", "with", "would", "your", "you're", "yours",
})  # fmt: skip
#: Names of :func:`surface_features`' columns, in order.
SURFACE_FEATURES: tuple[str, ...] = (
    "asks_a_question",
    "question_share",
    "question_to_the_user",
    "first_person_share",
    "log_words",
    "log_sentences",
    "user_word_share",
    "mentions_user_words",
)


@lru_bytes(4 << 20, text_weight(per_char=8))
def content_words(text: str) -> frozenset[str]:
    """Lower-case words of four or more letters that are not function words (read once per text:
    the user's message is compared with every sentence of a reply)."""
    return frozenset(
        w for w in _WORDS.findall(text.lower()) if len(w) > 3 and w not in _FUNCTION_WORDS
    )


def surface_features(user_text: str, reply: str) -> np.ndarray:
    """Cheap construct-valid signals of one reply (:data:`SURFACE_FEATURES`), as float32.

    Questions (any, their share of the sentences, one addressed to the user) are how a reply
    invites the person to say more; first-person sentences carry a shared experience of one's
    own; length in words and sentences; and how much of the reply's content vocabulary comes
    from the user's own words (relevance). They are inputs to the heads, which learn their
    weights from the corpus; the guards' diminishing returns keep a question-only reply from
    earning credit turn after turn.
    """
    sents = sentences_of(reply)
    questions = ["?" in s for s in sents]
    to_user = [q and bool(_SECOND_PERSON.search(s)) for q, s in zip(questions, sents, strict=True)]
    first = [bool(_FIRST_PERSON.search(s)) for s in sents]
    n = max(len(sents), 1)
    mine = content_words(reply)
    shared = mine & content_words(user_text)
    return np.array(
        [
            float(any(questions)),
            sum(questions) / n,
            float(any(to_user)),
            sum(first) / n,
            float(np.log1p(len(_WORDS.findall(reply.lower())))),
            float(np.log1p(len(sents))),
            len(shared) / max(len(mine), 1),
            float(bool(shared)),
        ],
        dtype=np.float32,
    )


# --- who a sentence is about (the "addressed" feature set) -------------------------------------
#: Names of the three shares at the end of :func:`address_features`.
ADDRESS_SHARES: tuple[str, ...] = (
    "addressed_share",
    "own_share",
    "addressed_statement_share",
)


def address_features(sentences: Sequence[str], vectors: np.ndarray) -> np.ndarray:
    """What the reply says *to* the person and what it says about the writer, kept apart.

    ``vectors`` are the sentences' unit vectors (``(k, d)``). Returns ``[mean of the sentences
    addressed to the person (second person), mean of the writer's own sentences (first person,
    not addressed), the three shares of :data:`ADDRESS_SHARES`]``; a pool with no sentence is zero.

    A mean-pooled reply vector cannot tell "I felt so lost that year" from "I'm so sorry you feel
    lost": the same feeling words, one a story of the writer's own (cognitive: a shared
    experience), the other warmth toward the person (affective). Pooling the two kinds of
    sentence apart lets a linear head weigh the same meaning differently by whom it is about.
    """
    k = len(sentences)
    d = vectors.shape[1]
    to_them = np.array([bool(_SECOND_PERSON.search(s)) for s in sentences], dtype=bool)
    own = np.array([bool(_FIRST_PERSON.search(s)) for s in sentences], dtype=bool) & ~to_them
    statement = to_them & np.array(["?" not in s for s in sentences], dtype=bool)
    pools = [
        vectors[m].mean(axis=0) if m.any() else np.zeros(d, np.float32) for m in (to_them, own)
    ]
    n = max(k, 1)
    shares = np.array([to_them.sum() / n, own.sum() / n, statement.sum() / n], dtype=np.float32)
    return np.hstack([*pools, shares]).astype(np.float32)


def addressed_row(
    user: np.ndarray,
    reply_vector: np.ndarray,
    user_text: str,
    reply: str,
    sentences: Sequence[str],
    sentence_vectors: np.ndarray,
) -> np.ndarray:
    """One head row of the ``"addressed"`` feature set.

    ``[r, u*r, |u-r|, cos(u,r), surface(user, reply), addressed pool, own pool, shares]``
    (:func:`pair_features`, :func:`surface_features`, :func:`address_features`). A single
    sentence is rated with the same row, its own text and vector standing for the reply.
    """
    return np.hstack(
        [
            pair_features(user, reply_vector)[0],
            surface_features(user_text, reply),
            address_features(sentences, np.atleast_2d(sentence_vectors)),
        ]
    ).astype(np.float32)


def sentence_rows(
    user: np.ndarray, user_text: str, sentences: Sequence[str], vectors: np.ndarray
) -> np.ndarray:
    """:func:`addressed_row` of each sentence on its own (``(k, f)``)."""
    return np.stack(
        [
            addressed_row(user, vectors[i], user_text, s, [s], vectors[i : i + 1])
            for i, s in enumerate(sentences)
        ]
    )


def combine_scores(reply_score: float, sentence_scores: np.ndarray) -> float:
    """A reply's progress score from its own expected level and its sentences' ("addressed").

    The mean of the whole reply's expected level and the strongest sentence's: one warm sentence
    in a reply of advice still counts (EPITOME's raters mark a span, not the whole), and the whole
    tempers it. Only the progress heads are scored this way: a negative level such as "misses the
    point" is a property of the whole reply (a generic closing question alone would look like
    one), and the guards catch single harmful sentences.
    """
    if sentence_scores.size == 0:
        return float(reply_score)
    return 0.5 * (float(reply_score) + float(sentence_scores.max()))
