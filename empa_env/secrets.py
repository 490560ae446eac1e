"""Keeping credentials off disk: every text that empa-gym writes passes :func:`scrub`.

LiteLLM reads provider keys from many environment variables (``OPENAI_API_KEY``,
``ANTHROPIC_API_KEY``, ``AZURE_API_KEY``, ``HF_TOKEN``, ...). A misbehaving server can echo the key
back, in an error or in the content, and from there it would reach results, exports, reports and
the response cache. :func:`scrub` replaces the value of every key-like environment variable (and
any key passed explicitly) with ``[REDACTED]`` wherever text is written.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence

REDACTED = "[REDACTED]"
#: Names of environment variables whose values are treated as secrets.
KEY_LIKE_NAME = re.compile(r"(API_?KEY|_KEY$|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)", re.I)
#: Shorter values are not treated as secrets (they would redact ordinary words).
MIN_SECRET_LENGTH = 8
_EXTRA: set[str] = set()


def is_secret_option(name: str) -> bool:
    """Whether an option or argument *name* holds a credential (never put in a fingerprint)."""
    lowered = name.lower()
    return any(word in lowered for word in ("key", "token", "secret", "password"))


def remember_secret(value: str | None) -> None:
    """Also redact ``value`` (an API key passed in options rather than the environment)."""
    if value and len(value) >= MIN_SECRET_LENGTH:
        _EXTRA.add(value)


#: Whether each environment variable's name is key-like (names are few and fixed; values are
#: read afresh every time, so a key set or changed later is redacted too).
_KEY_LIKE: dict[str, bool] = {}


def _key_like(name: str) -> bool:
    found = _KEY_LIKE.get(name)
    if found is None:
        found = _KEY_LIKE[name] = bool(KEY_LIKE_NAME.search(name))
    return found


def secret_values(extra: Iterable[str | None] = ()) -> list[str]:
    """Every value to redact now: key-like environment variables, remembered keys, ``extra``."""
    env = os.environ  # the names, then only the key-like ones' values (a few of dozens)
    names = [name for name in list(env) if _key_like(name)]
    found = {value for name in names if len(value := env.get(name, "")) >= MIN_SECRET_LENGTH}
    found |= _EXTRA
    found |= {v for v in extra if v and len(v) >= MIN_SECRET_LENGTH}
    return sorted(found, key=len, reverse=True)  # longest first: no partial leftovers


def scrub(
    text: str, extra: Iterable[str | None] = (), *, known: Sequence[str] | None = None
) -> str:
    """``text`` with every secret value replaced by ``[REDACTED]``; ``known``: the secrets as
    :func:`secret_values` just listed them (several texts scrubbed at once read them once)."""
    if not text:
        return text
    if known is None:
        secrets: Sequence[str] = secret_values(extra)
    elif extra:
        given = {v for v in extra if v and len(v) >= MIN_SECRET_LENGTH}
        secrets = sorted({*known, *given}, key=len, reverse=True)
    else:
        secrets = known
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


__all__ = ["REDACTED", "is_secret_option", "remember_secret", "scrub", "secret_values"]
