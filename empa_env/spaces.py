"""A text space that accepts any Unicode text.

Gymnasium's :class:`~gymnasium.spaces.Text` only contains strings over its ``charset``
(alphanumeric by default). Conversations need every character, so :class:`UnicodeText` accepts any
``str`` up to ``max_length`` characters. It subclasses ``Text`` so that Gymnasium's vector
utilities (batching into ``Tuple`` spaces, sync and async vector envs) handle it as text.
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np
from gymnasium.spaces import Text
from gymnasium.vector.utils.shared_memory import (
    create_shared_memory,
    read_from_shared_memory,
    write_to_shared_memory,
)

#: Characters ``sample()`` draws from: ASCII letters, digits, punctuation, spaces, accented and
#: non-Latin letters and emoji, so random probing exercises real Unicode handling.
SAMPLE_CHARSET = (
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    "     .,;:!?'\"-()\n"
    "àéîõüçñßøåÆŒ"
    "αβγδλπΣΩ"
    "абвгдеж"
    "你好谢谢"
    "こんにちは"
    "안녕"
    "مرحبا"
    "😀💬❤️"
)


class UnicodeText(Text):
    """Any Python ``str`` of length ``min_length..max_length``."""

    def __init__(self, max_length: int = 16_384, *, min_length: int = 0, seed: Any = None) -> None:
        super().__init__(
            max_length=max_length, min_length=min_length, charset=SAMPLE_CHARSET, seed=seed
        )

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        if mask is not None or probability is not None:
            return super().sample(mask=mask, probability=probability)
        length = int(self.np_random.integers(self.min_length, min(self.max_length, 200) + 1))
        idx = self.np_random.integers(0, len(self.character_list), size=length)
        return "".join(self.character_list[i] for i in np.asarray(idx))

    def __repr__(self) -> str:
        return f"UnicodeText({self.min_length}, {self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, UnicodeText)
            and self.min_length == other.min_length
            and self.max_length == other.max_length
        )


# --- Gymnasium's shared memory (async vector envs) ---------------------------------------------
# Gymnasium stores a Text space in shared memory as indices into the space's sample character set,
# so any character outside it (every real conversation has some) raised KeyError. UnicodeText
# stores code points instead: ``code point + 1`` per character, 0 as padding.


@create_shared_memory.register(UnicodeText)
def _create_unicode_shared_memory(space: UnicodeText, n: int = 1, ctx: ModuleType = mp) -> Any:
    return ctx.Array(np.dtype(np.int32).char, n * space.max_length)


class SharedTexts(Sequence[str]):
    """A live, read-only view of the texts in shared memory (one per sub-environment).

    Gymnasium reads shared memory once, at construction, and relies on numpy views to see later
    writes; a tuple of ``str`` would be frozen at the first (empty) reading. This view decodes on
    access, and ``deepcopy`` (what the vector env returns with ``copy=True``) gives a plain tuple.
    """

    def __init__(self, codes: np.ndarray) -> None:
        self._codes = codes  # (n, max_length) int32 view into the shared buffer

    def __len__(self) -> int:
        return int(self._codes.shape[0])

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return tuple(self)[index]
        row = self._codes[index]
        return "".join(chr(int(c) - 1) for c in row[row > 0])

    def __deepcopy__(self, memo: dict[int, Any]) -> tuple[str, ...]:
        return tuple(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"SharedTexts({tuple(self)!r})"


@read_from_shared_memory.register(UnicodeText)
def _read_unicode_from_shared_memory(
    space: UnicodeText, shared_memory: Any, n: int = 1
) -> SharedTexts:
    data = np.frombuffer(shared_memory.get_obj(), dtype=np.int32).reshape((n, space.max_length))
    return SharedTexts(data)


@write_to_shared_memory.register(UnicodeText)
def _write_unicode_to_shared_memory(
    space: UnicodeText, index: int, value: str, shared_memory: Any
) -> None:
    size = space.max_length
    codes = np.fromiter(
        (ord(ch) + 1 for ch in value[:size]), dtype=np.int32, count=min(len(value), size)
    )
    destination = np.frombuffer(shared_memory.get_obj(), dtype=np.int32)
    row = destination[index * size : (index + 1) * size]
    row[: len(codes)] = codes
    row[len(codes) :] = 0
