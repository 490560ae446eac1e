"""Build the shipped word-meaning table (``meanings.npz``): one vector per common English word.

Run once by a maintainer (``python -m empa_env.reading.build_meanings``); the reading loads the
result and never runs this (nothing is computed or downloaded at run time).

How it is made, from models and data that ship inside installed wheels:

1. **Vocabulary**: every lower-case alphabetic word of LemmInflect's English lexicon (lemmas and
   their inflections) that MiniLM's WordPiece vocabulary holds in at most two pieces (a common
   word), plus every whole lower-case word of that WordPiece vocabulary (names, informal words,
   loans). About 44,000 words.
2. **Vectors**: each word encoded alone by the int8 all-MiniLM-L6-v2 encoder (the ``minilm``
   tier of :mod:`empa_env.offline.semantic.encoder`, sha256-pinned).
3. **Compression**: the vectors centred (a word's similarity to the average word removed, which
   otherwise gives every pair about 0.3), projected on their first :data:`DIMENSIONS` principal
   axes, scaled to unit length and stored as int8.

Cosine similarity of two words in the table then reads as closeness of meaning: ``mum/mother``
0.83, ``lock/locked`` 0.78, ``scared/afraid`` 0.87, ``girlfriend/socks`` 0.12.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
from pathlib import Path

import numpy as np

MEANINGS_FILE = Path(__file__).with_name("meanings.npz")
#: Principal axes kept (96 keep the similarities of the full 384 within about 0.05).
DIMENSIONS = 96


def lexicon_words() -> set[str]:
    """Lower-case alphabetic words of LemmInflect's lexicon (lemmas and inflections)."""
    import lemminflect

    base = Path(lemminflect.__file__).parent / "resources"
    words: set[str] = set()
    with gzip.open(base / "lemma_lu.csv.gz", "rt", encoding="utf-8") as f:
        for line in f:
            w = line.split(",")[0]
            if w.isalpha() and w.islower():
                words.add(w)
    with gzip.open(base / "infl_lu.csv.gz", "rt", encoding="utf-8") as f:
        for line in f:
            parts = line.strip().split(",")
            for w in [parts[0], *parts[2].split("/")]:
                if w.isalpha() and w.islower():
                    words.add(w)
    return words


def vocabulary() -> list[str]:
    """The table's words, sorted (see the module docstring)."""
    from tokenizers import Tokenizer

    from empa_env.offline.semantic.encoder import locate_model_file

    tok = Tokenizer.from_file(str(locate_model_file("minilm-tokenizer")))
    tok.no_padding()
    common = {w for w in lexicon_words() if len(tok.encode(w, add_special_tokens=False).ids) <= 2}
    pieces = {
        w for w in tok.get_vocab() if w.isalpha() and w.isascii() and w.islower() and len(w) >= 2
    }
    return sorted(common | pieces)


def build(out: Path = MEANINGS_FILE, dimensions: int = DIMENSIONS) -> str:
    """Encode the vocabulary, compress it and write ``out``; returns the file's sha256."""
    from empa_env.offline.semantic.encoder import MiniLMEncoder

    words = vocabulary()
    encoder = MiniLMEncoder(threads=1)
    X = np.vstack([encoder.encode(words[i : i + 256]) for i in range(0, len(words), 256)])
    X = X - X.mean(axis=0)
    _, _, vt = np.linalg.svd(X, full_matrices=False)
    P = X @ vt[:dimensions].T
    P /= np.maximum(np.linalg.norm(P, axis=1, keepdims=True), 1e-9)
    vectors = np.round(P * 127).astype(np.int8)
    blob = np.frombuffer("\n".join(words).encode("utf-8"), dtype=np.uint8)
    np.savez_compressed(out, words=blob, vectors=vectors)
    return hashlib.sha256(out.read_bytes()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=MEANINGS_FILE)
    parser.add_argument("--dimensions", type=int, default=DIMENSIONS)
    args = parser.parse_args(argv)
    digest = build(args.out, args.dimensions)
    print(f"wrote {args.out} (sha256 {digest})")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
