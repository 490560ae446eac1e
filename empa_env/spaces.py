"""A text space that accepts any Unicode text.

Gymnasium's :class:`~gymnasium.spaces.Text` only contains strings over its ``charset``
(alphanumeric by default). Conversations need every character, so :class:`UnicodeText` accepts any
``str`` up to ``max_length`` characters. It subclasses ``Text`` so that Gymnasium's vector
utilities (batching into ``Tuple`` spaces, sync and async vector envs) handle it as text.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.spaces import Text

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
