"""LiteLLM, imported once and lazily, its logs kept to one line per distinct message.

A run served entirely from the response cache never pays LiteLLM's import; the first call that
needs it (:class:`~empa_env.llm.client.LLMClient`, or the direct transport's price table) imports
it here and sets it up once.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import warnings
from typing import Any

_LITELLM: list[Any] = []  # the module, once imported and set up


def import_litellm() -> Any:
    """Import LiteLLM lazily: a run served entirely from the cache never pays its import. The
    set-up runs once; its loggers are checked on every call (LiteLLM adds handlers late)."""
    if _LITELLM:
        _quiet_litellm_logs()
        return _LITELLM[0]
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    # LiteLLM's TypedDicts make pydantic warn when their schemas are built; nothing to act on.
    warnings.filterwarnings(
        "ignore", message=r"Items? .* `ReadOnly` qualifier", category=UserWarning
    )
    litellm.suppress_debug_info = True
    litellm.telemetry = False
    _quiet_litellm_logs()
    _LITELLM.append(litellm)
    return litellm


class _OnceWithoutTraceback(logging.Filter):
    """LiteLLM's own log records, each distinct message once, on one line, without traceback.

    Every provider error is already classified, retried and recorded by :class:`LLMClient` (the
    ledger, the roles' failures); LiteLLM also logs its internal troubles, with a traceback per
    call: under a low open-file limit, 200 concurrent episodes printed thousands of lines."""

    def __init__(self) -> None:
        super().__init__()
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "_empa_once", False):  # passed by this filter already (the logger's)
            return True
        try:
            text = record.getMessage()
        except Exception:  # noqa: BLE001 - a malformed record is shown as its template
            text = str(record.msg)
        first = (text.strip().splitlines() or [""])[0][:300]
        key = re.sub(r"\d+", "#", first)
        with self._lock:
            if key in self._seen:
                return False
            self._seen.add(key)
        record.msg = f"{first} (LiteLLM; shown once)"
        setattr(record, "_empa_once", True)  # noqa: B010
        record.args = ()
        record.exc_info = record.exc_text = record.stack_info = None
        return True


_LITELLM_FILTER = _OnceWithoutTraceback()


def _quiet_litellm_logs() -> None:
    """Install :class:`_OnceWithoutTraceback` on LiteLLM's loggers and their handlers (once)."""
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm"):
        logger = logging.getLogger(name)
        for target in (logger, *logger.handlers):
            if _LITELLM_FILTER not in target.filters:
                target.addFilter(_LITELLM_FILTER)


__all__ = ["import_litellm"]
