"""Train the harm gate and head (``empa_env/reading/harm_gate.npz``, ``harm_acts.npz``).

    python -m empa_env.reading.lab.train_harm [--data harm.jsonl]

``harm.jsonl`` (beside this file) holds sentences (two for contempt spread over two) that a
supporter must never say, by family (:data:`~empa_env.reading.act_head.HARM_LABELS`), and safe
sentences on the same topics (medication, friends, drink, food, dying, harsh words said of oneself,
negated or quoted) and in a forum's register (stories, blunt advice, dark opinions), written for
this project by writers who had seen neither the code nor the blind probe families
(``tests/judge/data/blind``); lines in other languages are left out (a sentence the user cannot
read is a finding whatever it says). Negatives also come from every sentence, and every two
neighbouring sentences, of the act corpus (``acts.jsonl``) and a sample of the judge's forum
replies with no penalty (``offline/semantic/lab/corpus/replies.jsonl``).

The lines with a ``writer`` field (``v7-a`` ... ``v7-f``) were added for v7 by six more writers
who had seen neither the code nor any data of the project: pushes in a texting register (a),
wrapped in warmth (b) and said indirectly, as opinions or rhetorical questions (c), with safe
look-alikes; hard safe sentences (d); and safe replies in a peer-support forum's register (e, f),
cut here into sentences and neighbouring pairs as the judge reads them.

One logistic model per family (L2, balanced classes), the other families left out of its rows,
twice: the **gate** over :func:`~empa_env.reading.act_head.act_features` (read with every
sentence; its threshold lets through :data:`GATE_RECALL` of the family's sentences out of fold)
and the **head** over :func:`~empa_env.reading.act_head.harm_features` (MiniLM and act features,
read only for what the gate lets through; its threshold keeps out-of-fold false alarms at or
below :data:`FALSE_ALARMS` of all safe sentences and :data:`WRITTEN_FALSE_ALARMS` of the written
ones). Five folds give the out-of-fold figures, printed per family; the shipped models are then
fitted on everything. Features are cached in ``~/.cache/empa-gym`` between runs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from pathlib import Path

import numpy as np

from empa_env.reading.act_head import (
    HARM_GATE_FILE,
    HARM_HEAD_FILE,
    HARM_LABELS,
    harm_features,
)
from empa_env.reading.lab.train_acts import DATA_FILE as ACTS_FILE
from empa_env.reading.lab.train_acts import fit_logistic
from empa_env.reading.tokens import sentences_of, tokens_of

DATA_FILE = Path(__file__).with_name("harm.jsonl")
#: Out-of-fold false alarms allowed on safe sentences, per family, by the head (v7 loosened the
#: bounds from .005 / .002, trading a few more of people's replies voided for more pushes caught
#: in other words: ``perf/perf_judge_reading.py`` prints both).
FALSE_ALARMS = 0.0015
#: ... and on the safe sentences written to look risky or in a forum's register.
WRITTEN_FALSE_ALARMS = 0.01
#: Share of each family's written sentences the gate lets through to the head (out of fold).
GATE_RECALL = 0.9
#: L2 strength of the gate's and the head's logistic models (chosen on out-of-fold recall at the
#: false-alarm bound, among 1, 10, 30, 100 and 300).
GATE_L2 = 10.0
HEAD_L2 = 30.0
#: No family's threshold is set below this probability.
MIN_THRESHOLD = 0.5
#: Forum sentences sampled as negatives.
FORUM_SAMPLE = 6000


def _sentences(text: str) -> list[str]:
    return [c.text for c in sentences_of(text, "en")]


def load(
    data: Path = DATA_FILE, seed: int = 0, corpora: bool = True
) -> tuple[list[str], list[str | None], list[str]]:
    """``(texts, families, sources)``: each text's family (``None``: safe) and where it is from."""
    texts: list[str] = []
    families: list[str | None] = []
    sources: list[str] = []
    for line in data.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if row.get("lang", "en") != "en":
            continue  # another language is unreadable to the user whatever it says
        texts.append(row["text"])
        families.append(row["family"] if row["family"] in HARM_LABELS else None)
        sources.append("written")
    if not corpora:  # the written sentences alone
        return texts, families, sources
    for line in ACTS_FILE.read_text(encoding="utf-8").splitlines():
        post = json.loads(line)
        for reply in post["replies"]:
            said = [s["text"] for s in reply]
            for k, s in enumerate(said):
                texts.append(s)
                families.append(None)
                sources.append("acts")
                if k + 1 < len(said):
                    texts.append(f"{s} {said[k + 1]}")
                    families.append(None)
                    sources.append("acts")
    from empa_env.offline.semantic.lab.corpus.generator import corpus_path

    if corpus_path().is_file():
        forum = []
        for line in corpus_path().read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row["family"] in ("forum", "genuine", "neutral") and not any(
                v for k, v in row["levels"].items() if k.endswith("_Neg")
            ):
                forum.extend(_sentences(row["reply"]))
        random.Random(seed).shuffle(forum)
        for s in forum[:FORUM_SAMPLE]:
            texts.append(s)
            families.append(None)
            sources.append("forum")
    return texts, families, sources


def _features(texts: list[str], cache_dir: Path) -> np.ndarray:
    """:func:`harm_features` of every text, kept in ``cache_dir`` between runs (keyed by the texts
    and by what the features are made of: both encoders, the meaning table and the lexicon)."""
    from empa_env.offline.semantic.encoder import MODEL_FILES
    from empa_env.reading.lexicon import MEANINGS_SHA256, lexicon_sha256

    key = hashlib.sha256("\n".join(texts).encode())
    for part in (MODEL_FILES["minilm"][3], MODEL_FILES["static"][3], MEANINGS_SHA256,
                 lexicon_sha256()):  # fmt: skip
        key.update(part.encode())
    cache = cache_dir / f"harm-features-{key.hexdigest()[:16]}.npy"
    if cache.is_file():
        return np.load(cache)
    H = np.stack([harm_features(t, tokens_of(t)) for t in texts])
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.save(cache, H)
    return H


def _out_of_fold(
    X: np.ndarray, y: np.ndarray, rows: np.ndarray, fold: np.ndarray, l2: float
) -> np.ndarray:
    """Out-of-fold probabilities of the family (``y``) over the rows it trains on."""
    scores = np.zeros(len(y))
    for k in range(int(fold.max()) + 1):
        w, b = fit_logistic(X[rows & (fold != k)], y[rows & (fold != k)], l2)
        scores[fold == k] = X[fold == k] @ w + b
    return 1.0 / (1.0 + np.exp(-scores))


def _fit_heads(
    X: np.ndarray,
    families: list[str | None],
    written: np.ndarray,
    fold: np.ndarray,
    l2: float,
    pick: str,
) -> dict[str, np.ndarray]:
    """Weights, bias, standardisation and thresholds of one head over ``X``.

    ``pick="gate"``: each family's threshold lets through :data:`GATE_RECALL` of its out-of-fold
    written sentences; ``pick="head"``: the lowest threshold whose out-of-fold false alarms stay at
    or below :data:`FALSE_ALARMS` on all safe sentences and :data:`WRITTEN_FALSE_ALARMS` on the
    safe sentences written to look risky or in a forum's register (``written``), and no lower than
    :data:`MIN_THRESHOLD`."""
    from empa_env.offline.semantic.lab.metrics import auroc

    mean, scale = X.mean(axis=0), X.std(axis=0) + 1e-6
    Xs = (X - mean) / scale
    safe = np.array([f is None for f in families])
    weights, bias, thresholds = [], [], []
    for label in HARM_LABELS:
        rows = np.array([f is None or f == label for f in families])
        y = np.array([f == label for f in families], dtype=float)
        p = _out_of_fold(Xs, y, rows, fold, l2)
        pos = p[y == 1]
        if pick == "gate":
            threshold = float(np.quantile(pos, 1.0 - GATE_RECALL))
        else:
            neg = np.sort(p[safe])[::-1]
            hard = np.sort(p[safe & written])[::-1]
            threshold = max(
                MIN_THRESHOLD,
                float(neg[int(FALSE_ALARMS * len(neg))]) + 1e-6,
                float(hard[int(WRITTEN_FALSE_ALARMS * len(hard))]) + 1e-6,
            )
        print(
            f"  {label:22s} {int(y.sum()):4d} written, out-of-fold AUROC "
            f"{auroc(y[rows], p[rows]):.3f}; threshold {threshold:.3f}: recall "
            f"{np.mean(pos >= threshold):.2f}, safe let through {np.mean(p[safe] >= threshold):.4f}"
        )
        w, b = fit_logistic(Xs[rows], y[rows], l2)
        weights.append(w)
        bias.append(b)
        thresholds.append(threshold)
    return {
        "labels": np.array(HARM_LABELS), "weights": np.array(weights, dtype=np.float32),
        "bias": np.array(bias, dtype=np.float32), "mean": mean.astype(np.float32),
        "scale": scale.astype(np.float32), "thresholds": np.array(thresholds, dtype=np.float32),
    }  # fmt: skip


def train(
    data: Path = DATA_FILE,
    gate_out: Path = HARM_GATE_FILE,
    head_out: Path = HARM_HEAD_FILE,
    seed: int = 0,
    folds: int = 5,
    corpora: bool = True,
    cache_dir: Path | None = None,
) -> tuple[str, str]:
    """Fit and write the gate and the head; their sha256. ``corpora=False`` leaves the act
    corpus and the forum replies out (the written sentences alone). Features are kept in
    ``cache_dir`` (``~/.cache/empa-gym`` by default) between runs."""
    from empa_env.offline.semantic.encoder import shared_encoder

    texts, families, sources = load(data, seed, corpora)
    written = np.array([s == "written" for s in sources])
    fold = np.array([random.Random(seed * 7919 + i).randrange(folds) for i in range(len(texts))])
    H = _features(texts, cache_dir or Path.home() / ".cache" / "empa-gym")
    static = H[:, shared_encoder("minilm").dim :]  # harm_features: MiniLM, then act features
    print("gate (act features, every sentence):")
    gate = _fit_heads(static, families, written, fold, GATE_L2, "gate")
    np.savez_compressed(gate_out, **gate)  # type: ignore[arg-type]
    print("head (MiniLM and act features, what the gate lets through):")
    head = _fit_heads(H, families, written, fold, HEAD_L2, "head")
    np.savez_compressed(head_out, **head)  # type: ignore[arg-type]
    return (
        hashlib.sha256(gate_out.read_bytes()).hexdigest(),
        hashlib.sha256(head_out.read_bytes()).hexdigest(),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA_FILE)
    args = parser.parse_args(argv)
    gate, head = train(args.data)
    print(f"wrote {HARM_GATE_FILE} (sha256 {gate}) and {HARM_HEAD_FILE} (sha256 {head})")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
