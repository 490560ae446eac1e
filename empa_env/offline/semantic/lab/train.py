"""Train the six heads on a labelled JSONL corpus (the shipped one or any in the same format).

Format, one JSON object per line (see ``corpus/DATASHEET.md``)::

    {"context": ["user message", ...], "reply": "...", "levels": {"C_Prog": 0..2, "A_Prog": ...,
     "P_Prog": ..., "C_Neg": 0..-2, "A_Neg": ..., "P_Neg": ...}, "split": "train"|"val"|"test"}

An optional ``"weight"`` (a positive number, default 1) says how much a row counts in training.
An optional ``"parts"`` lists the reply's labelled parts, ``[{"text": "verbatim part of the
reply", "levels": {"A_Prog": 1}}, ...]`` (levels not given are 0): with ``parts=True`` each part
is also a training row of its own (the context, split and weight of its reply).
Other keys (``evidence``, ``reasons``, ``family``, ...) are carried but not needed for training.
Rows without ``split`` count as ``train``; thresholds are calibrated on ``val`` (or on ``train``
when there is no ``val``). Training is deterministic: the same file and encoder give the same
weights (L-BFGS from zeros, single-threaded encoder).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from empa_env.offline.semantic.encoder import Encoder
from empa_env.offline.semantic.features import (
    addressed_row,
    combine_scores,
    gate_features,
    pair_features,
    recent_user_texts,
    reply_features,
    sentence_pools,
    sentence_rows,
    sentence_spans,
    sentences_of,
    surface_features,
    user_vector,
)
from empa_env.offline.semantic.heads import HEAD_NAMES, Gate, Heads, classes_of
from empa_env.offline.semantic.lab.fit import calibrate_scores, fit_gate, fit_head
from empa_env.offline.semantic.lab.metrics import macro_f1

#: L2 strength of the shipped heads (on standardised features).
DEFAULT_L2 = 0.3
#: L2 of the relevance gate, and the share of on-topic replies with progress (``val``) it may cap.
GATE_L2 = 0.05
GATE_FALSE_RATE = 0.03


@dataclass(frozen=True)
class LabelledReply:
    """One training example: the user's recent messages, the reply and its six levels."""

    context: tuple[str, ...]
    reply: str
    levels: dict[str, int]
    split: str = "train"
    family: str = ""
    weight: float = 1.0
    #: ``(text, levels)`` of the reply's labelled parts (see the module docstring).
    parts: tuple[tuple[str, dict[str, int]], ...] = ()


class CorpusFormatError(ValueError):
    """A line of a training file is not in the documented format."""


def load_records(path: Path) -> list[LabelledReply]:
    """Read and validate a JSONL training file; errors name the line and the field."""
    if not path.is_file():
        from empa_env.errors import UserError

        raise UserError(
            f"{path}: no such corpus file (the judge's corpus is not installed with the package; "
            "run the lab from a checkout, or write it with `empa judge corpus --out FILE`)"
        )
    out = []
    with path.open(encoding="utf-8") as fh:
        for i, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CorpusFormatError(f"{path}:{i}: not JSON ({exc})") from None
            ctx = raw.get("context")
            if isinstance(ctx, str):
                ctx = [ctx]
            if not isinstance(ctx, list) or not all(isinstance(c, str) for c in ctx):
                raise CorpusFormatError(f"{path}:{i}: 'context' must be a list of strings")
            if not isinstance(raw.get("reply"), str):
                raise CorpusFormatError(f"{path}:{i}: 'reply' must be a string")
            levels = raw.get("levels", {})
            for name in HEAD_NAMES:
                if levels.get(name, 0) not in classes_of(name):
                    raise CorpusFormatError(
                        f"{path}:{i}: levels.{name} must be one of {classes_of(name)}"
                    )
            weight = raw.get("weight", 1.0)
            if isinstance(weight, bool) or not isinstance(weight, int | float) or weight <= 0:
                raise CorpusFormatError(f"{path}:{i}: 'weight' must be a positive number")
            out.append(
                LabelledReply(
                    tuple(ctx),
                    raw["reply"],
                    {n: int(levels.get(n, 0)) for n in HEAD_NAMES},
                    str(raw.get("split", "train")),
                    str(raw.get("family", "")),
                    float(weight),
                    _parts(raw.get("parts", []), raw["reply"], f"{path}:{i}"),
                )
            )
    if not out:
        raise CorpusFormatError(f"{path}: no records")
    return out


def _parts(raw: object, reply: str, where: str) -> tuple[tuple[str, dict[str, int]], ...]:
    """Validated ``parts`` of one line: verbatim texts of the reply with levels in range."""
    if not isinstance(raw, list):
        raise CorpusFormatError(f"{where}: 'parts' must be a list")
    out = []
    for k, part in enumerate(raw):
        text = part.get("text") if isinstance(part, dict) else None
        levels = part.get("levels", {}) if isinstance(part, dict) else None
        if not isinstance(text, str) or not text.strip() or text not in reply:
            raise CorpusFormatError(f"{where}: parts[{k}].text must be a non-empty part of 'reply'")
        if not isinstance(levels, dict) or any(
            name not in HEAD_NAMES or lv not in classes_of(name) for name, lv in levels.items()
        ):
            raise CorpusFormatError(f"{where}: parts[{k}].levels must map head names to levels")
        out.append((text, {n: int(levels.get(n, 0)) for n in HEAD_NAMES}))
    return tuple(out)


def with_parts(records: Sequence[LabelledReply]) -> list[LabelledReply]:
    """``records`` followed by one row per labelled part (family ``"<family>/part"``)."""
    extra = [LabelledReply(r.context, text, levels, r.split, f"{r.family}/part", r.weight)
             for r in records for text, levels in r.parts]  # fmt: skip
    return [*records, *extra]


#: Feature sets: ``"addressed"`` (the shipped static heads: pair and surface features plus the
#: sentences addressed to the person and the writer's own pooled apart, scored with the strongest
#: sentence; :func:`~empa_env.offline.semantic.features.addressed_row`), ``"surface"`` (the
#: shipped MiniLM heads: pair features plus
#: :func:`~empa_env.offline.semantic.features.surface_features`), ``"pair"`` and ``"pooled"``
#: (pair + sentence max/mean pools and the relevance gate; experimental, see MODEL_CARD.md).
FEATURE_SETS: dict[str, str] = {
    "addressed": "[r, u*r, |u-r|, cos(u,r), surface(user, reply), addressed(sentences)]",
    "surface": "[r, u*r, |u-r|, cos(u,r), surface(user, reply)]",
    "pair": "[r, u*r, |u-r|, cos(u,r)]",
    "pooled": "[r, u*r, |u-r|, cos(u,r), max_i s_i, mean_i s_i]",
}
#: The feature set of each tier's shipped heads (``empa judge train`` uses it unless told).
TIER_FEATURES: dict[str, str] = {"static": "addressed", "minilm": "surface", "e5": "surface"}
#: Whether each tier's shipped heads also train on the replies' labelled parts. The "addressed"
#: heads score a reply with its strongest sentence, so they learn what one part is worth; the
#: contextual encoders' heads score whole replies, and the parts would double their encoding time.
TIER_PARTS: dict[str, bool] = {"static": True, "minilm": False, "e5": False}
DEFAULT_FEATURES = "surface"
#: How the "addressed" heads score a reply (stored in the heads' meta; see combine_scores).
SCORE_RULES: dict[str, str] = {"addressed": "progress: mean(reply, strongest sentence); neg: reply"}


def subsample(records: Sequence[LabelledReply], every: int) -> list[LabelledReply]:
    """About one record in ``every``: those whose reply text hashes to 0 modulo ``every``.

    The choice depends on each reply's text only, so it is the same for any order of the file and
    keeps every split in about its share; ``every == 1`` keeps all. A quick check of a training
    setup, and what the tests reproduce for the slow MiniLM tier (tests/judge/test_semantic_train.py).
    """
    if every < 1:
        raise ValueError(f"every must be >= 1, got {every}")
    if every == 1:
        return list(records)
    return [r for r in records
            if int.from_bytes(hashlib.sha256(r.reply.encode()).digest()[:8], "big") % every == 0]  # fmt: skip


def surface_rows(records: Sequence[LabelledReply]) -> np.ndarray:
    """:func:`surface_features` of every record (the user's recent messages joined)."""
    return np.stack(
        [surface_features(" ".join(recent_user_texts(r.context)), r.reply) for r in records]
    )


def embed_records(
    records: Sequence[LabelledReply], encoder: Encoder, sentences: bool = True
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """``(user vectors, reply vectors, per-reply sentence vectors)``; each text encoded once.

    Without ``sentences`` the sentence list is empty and only users and replies are encoded.
    """
    sents = [sentences_of(r.reply) if sentences else [] for r in records]
    texts = sorted({t for r in records for t in recent_user_texts(r.context)} | {
        r.reply for r in records} | {s for ss in sents for s in ss})  # fmt: skip
    rows = encoder.encode(texts)
    index = {t: i for i, t in enumerate(texts)}
    U = np.stack([user_vector(rows[[index[t] for t in recent_user_texts(r.context)]])
                  if recent_user_texts(r.context) else np.zeros(rows.shape[1], np.float32)
                  for r in records])  # fmt: skip
    R = rows[[index[r.reply] for r in records]]
    S = [rows[[index[s] for s in ss]] for ss in sents]
    return U, R, S


@dataclass(frozen=True)
class AddressedRows:
    """Head rows of the ``"addressed"`` feature set: one per record, and per-sentence rows."""

    X: np.ndarray
    sentences: list[np.ndarray]


def addressed_records(
    records: Sequence[LabelledReply], encoder: Encoder, sentence_splits: frozenset[str]
) -> AddressedRows:
    """:func:`addressed_row` of every record; sentence rows for records in ``sentence_splits``.

    Each reply is encoded once with its sentences (``encode_segments``), as the judge reads it.
    """
    users = sorted({t for r in records for t in recent_user_texts(r.context)})
    urows = encoder.encode(users) if users else np.zeros((0, encoder.dim), np.float32)
    index = {t: i for i, t in enumerate(users)}
    X, per = [], []
    for r in records:
        recent = recent_user_texts(r.context)
        u = (user_vector(urows[[index[t] for t in recent]]) if recent
             else np.zeros(encoder.dim, np.float32))  # fmt: skip
        joined = " ".join(recent)
        spans = sentence_spans(r.reply)
        sents = [r.reply[a:b] for a, b in spans] or [r.reply.strip() or r.reply]
        whole, S = encoder.encode_segments(r.reply, spans or [(0, len(r.reply))])
        X.append(addressed_row(u, whole, joined, r.reply, sents, S))
        per.append(sentence_rows(u, joined, sents, S) if r.split in sentence_splits and spans
                   else np.zeros((0, X[-1].shape[0]), np.float32))  # fmt: skip
    return AddressedRows(np.stack(X), per)


def _fit_gate(records: Sequence[LabelledReply], G: np.ndarray, train: np.ndarray,
              val: np.ndarray) -> Gate | None:  # fmt: skip
    """The relevance gate: off-topic families against on-topic replies that earn progress."""
    off = np.array(["off_topic" in r.family for r in records])
    prog = np.array([any(r.levels[n] > 0 for n in ("C_Prog", "A_Prog", "P_Prog")) for r in records])
    use = (off | prog) & ~(off & prog)
    if not (off & train).any() or not (prog & train & ~off).any():
        return None
    mean = G[train & use].mean(axis=0)
    scale = G[train & use].std(axis=0) + 1e-6
    Z = (G - mean) / scale
    w, b = fit_gate(Z[train & use], off[train & use].astype(np.float64), GATE_L2)
    gate = Gate(w, b, mean, scale, 0.5)
    neg = val & prog & ~off
    p = gate.proba(G[neg]) if neg.any() else gate.proba(G[train & prog & ~off])
    gate.threshold = round(max(0.5, float(np.quantile(p, 1 - GATE_FALSE_RATE))), 4)
    return gate


def data_digest(records: Sequence[LabelledReply]) -> str:
    h = hashlib.sha256()
    for r in records:
        row: list[object] = [r.context, r.reply, r.levels, r.split]
        if r.weight != 1.0 or r.parts:  # rows without either hash as before
            row += [r.weight, r.parts]
        h.update(json.dumps(row, sort_keys=True).encode())
    return h.hexdigest()


def train_heads(
    records: Sequence[LabelledReply],
    encoder: Encoder,
    l2: float = DEFAULT_L2,
    tier: str = "",
    features: str = DEFAULT_FEATURES,
    embedded: tuple[np.ndarray, np.ndarray, list[np.ndarray]] | None = None,
    parts: bool = False,
) -> Heads:
    """Fit the six heads on ``split == "train"`` rows, calibrate thresholds on ``val``.

    ``embedded``: the :func:`embed_records` result for these records and this encoder, when the
    caller has it already (tests embed the corpus once per session; not used by ``"addressed"``).
    Rows count by their ``weight``; with ``parts`` each labelled part is a row too
    (:func:`with_parts`). With ``"addressed"`` the progress thresholds are calibrated on the
    judge's own progress score, the reply's expected level with its strongest sentence's
    (:func:`~empa_env.offline.semantic.features.combine_scores`).
    """
    if features not in FEATURE_SETS:
        raise ValueError(f"features must be one of {sorted(FEATURE_SETS)}, got {features!r}")
    if parts:
        if embedded is not None:
            raise ValueError("parts cannot be combined with precomputed embeddings")
        records = with_parts(records)
    digest = data_digest(records)  # of every row given, read or not
    if embedded is None:  # rows of other splits ("test") are never read: not encoded either
        records = [r for r in records if r.split in ("train", "val")]
    pooled = features == "pooled"
    splits = np.array([r.split for r in records])
    calibration_split = "val" if (splits == "val").any() else "train"
    per_sentence: list[np.ndarray] | None = None
    S: list[np.ndarray] = []
    if features == "addressed":
        rows = addressed_records(records, encoder, frozenset({calibration_split}))
        X, per_sentence = rows.X.astype(np.float64), rows.sentences
    else:
        U, R, S = embedded or embed_records(records, encoder, sentences=pooled)
        if pooled:
            smax, smean = sentence_pools(S)
            X = reply_features(U, R, smax, smean).astype(np.float64)
        elif features == "surface":
            X = np.hstack([pair_features(U, R), surface_rows(records)]).astype(np.float64)
        else:
            X = pair_features(U, R).astype(np.float64)
    train = splits == "train"
    if not train.any():
        raise CorpusFormatError("no rows with split 'train'")
    val = splits == "val" if (splits == "val").any() else train
    mean = X[train].mean(axis=0)
    scale = X[train].std(axis=0) + 1e-6
    Z = (X - mean) / scale
    weights = np.array([r.weight for r in records])
    heads = {}
    report: dict[str, dict[str, float]] = {}
    for name in HEAD_NAMES:
        y = np.array([r.levels[name] for r in records])
        head = fit_head(name, Z[train], y[train], l2=l2, sample_weight=weights[train])
        score = head.expected(head.proba(Z[val]))
        if per_sentence is not None and name.endswith("Prog"):  # the judge's progress score:
            score = np.array([  # the reply with its strongest sentence
                combine_scores(s, head.expected(head.proba((p - mean) / scale)) if len(p)
                               else np.zeros(0))
                for s, p in zip(score, (per_sentence[i] for i in np.flatnonzero(val)), strict=True)
            ])  # fmt: skip
        head.thresholds = calibrate_scores(score, y[val])
        heads[name] = head
        pred = head.level(score)
        report[name] = {
            "val_accuracy": round(float((pred == y[val]).mean()), 4),
            "val_macro_f1": round(macro_f1(np.abs(y[val]), np.abs(pred)), 4),
        }
    # The relevance gate only with pooled features: with the surface features a gate trained on
    # the corpus's off-topic pairs also caps human-rated empathic replies that share an
    # experience of one's own (measured on EPITOME: MODEL_CARD.md), so the shipped heads have none.
    G = gate_features(U, R, S).astype(np.float64) if pooled else None
    gate = _fit_gate(records, G, train, val) if G is not None else None
    if gate is not None and G is not None:
        off = np.array(["off_topic" in r.family for r in records])
        p = gate.proba(G[val]) >= gate.threshold
        report["gate"] = {
            "threshold": gate.threshold,
            "val_off_topic_caught": round(float(p[off[val]].mean()), 4) if off[val].any() else 0.0,
            "val_on_topic_capped": round(float(p[~off[val]].mean()), 4),
        }
    meta = {
        "encoder_id": encoder.id,
        "encoder_sha256": encoder.sha256,
        "encoder_tier": tier,
        "features": FEATURE_SETS[features],
        "score": SCORE_RULES.get(features, "reply"),
        "parts": parts,
        "l2": l2,
        "n_train": int(train.sum()),
        "n_val": int((splits == "val").sum()),
        "data_sha256": digest,
        "validation": report,
    }
    return Heads(heads, mean, scale, meta, gate)
