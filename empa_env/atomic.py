"""Every output file is written atomically: to a temporary file in the same folder, then renamed.

A reader (or the next command) sees either the previous version of a file or the new one, never a
half-written one: a kill at any moment, a full disk or a write error leaves the previous version
intact (the temporary file is removed when the process can still do it). A failure to write is a
:class:`OutputError`, one line naming the file and the reason (``empa`` prints it as ``error: ...``).

    with atomic_open(path, "w") as fh:     # text (UTF-8) or "wb" for bytes
        fh.write(...)
    atomic_write(path, "whole content")    # the same for a str or bytes at once
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from empa_env.errors import UserError


class OutputError(UserError, OSError):
    """An output file could not be written (disk full, no permission, ...); the previous version of
    the file, if any, is left as it was."""


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc) or type(exc).__name__


def _read_umask() -> int:
    mask = os.umask(0o022)  # the only way to read it; put back at once (read once, at import)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


@contextlib.contextmanager
def atomic_open(
    path: str | os.PathLike[str], mode: str = "w", *, encoding: str = "utf-8"
) -> Iterator[IO[Any]]:
    """A file handle whose content replaces ``path`` only when the ``with`` block ends normally.

    ``mode`` is ``"w"`` (text, ``encoding``) or ``"wb"``. The content is flushed to disk before the
    rename. An ``OSError`` while writing or renaming becomes :class:`OutputError`; any exception
    leaves ``path`` as it was and removes the temporary file.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open writes whole files: mode 'w' or 'wb', got {mode!r}")
    target = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {_reason(exc)}") from None
    try:
        os.fchmod(fd, 0o666 & ~_UMASK)  # mkstemp's 0600 would make outputs private
        handle = os.fdopen(fd, "wb") if mode == "wb" else os.fdopen(fd, "w", encoding=encoding)
    except BaseException:
        os.close(fd)
        Path(tmp).unlink(missing_ok=True)
        raise
    try:
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OutputError):
            raise
        raise OutputError(f"cannot write {target}: {_reason(exc)}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write(
    path: str | os.PathLike[str], content: str | bytes, *, encoding: str = "utf-8"
) -> Path:
    """Write ``content`` (text or bytes) to ``path`` atomically; returns the path."""
    mode = "wb" if isinstance(content, bytes) else "w"
    with atomic_open(path, mode, encoding=encoding) as fh:
        fh.write(content)
    return Path(path)


def ensure_dir(path: str | os.PathLike[str]) -> Path:
    """``mkdir -p`` with one clear :class:`OutputError` when it cannot be created."""
    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create {folder}: {_reason(exc)}") from None
    return folder


__all__ = ["OutputError", "atomic_open", "atomic_write", "ensure_dir"]
