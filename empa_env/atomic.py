"""Every output file is written atomically: to a temporary file in the same folder, then renamed.

A reader (or the next command) sees either the previous version of a file or the new one, never a
half-written one: a kill at any moment, a full disk or a write error leaves the previous version
intact (the temporary file is removed when the process can still do it). A failure to write is a
:class:`OutputError`, one line naming the file and the reason (``empa`` prints it as ``error: ...``).

The temporary file of ``NAME`` is ``.NAME.XXXXXXXX.tmp`` beside it, locked (``flock``) by its
writer until it is renamed. One a killed process left behind (no one holds its lock) is removed by
the next write of ``NAME`` (:func:`sweep_abandoned`); a write in progress, in this process or
another, is never touched.

    with atomic_open(path, "w") as fh:     # text (UTF-8) or "wb" for bytes
        fh.write(...)
    atomic_write(path, "whole content")    # the same for a str or bytes at once
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import stat
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
    sweep_abandoned(target)
    fd, tmp = _locked_temporary(target)
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
            os.replace(tmp, target)  # before the lock goes with the handle: never swept
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OutputError):
            raise
        raise OutputError(f"cannot write {target}: {_reason(exc)}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


#: What :func:`tempfile.mkstemp` puts between the prefix and the suffix of a temporary file.
_RANDOM_PART = re.compile(r"[a-z0-9_]{8}")


def _temporary_prefix(target: Path) -> str:
    return f".{target.name}."


def _locked_temporary(target: Path) -> tuple[int, str]:
    """A new temporary file beside ``target``, locked by this process (``(fd, path)``)."""
    while True:
        try:
            fd, tmp = tempfile.mkstemp(
                dir=target.parent, prefix=_temporary_prefix(target), suffix=".tmp"
            )
        except OSError as exc:
            raise OutputError(f"cannot write {target}: {_reason(exc)}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if os.fstat(fd).st_nlink:
                return fd, tmp
        except BaseException:
            os.close(fd)
            Path(tmp).unlink(missing_ok=True)
            raise
        os.close(fd)  # swept between its creation and the lock (it had no owner yet): again


def sweep_abandoned(target: str | os.PathLike[str]) -> list[Path]:
    """Remove the temporary files of ``target`` (``.NAME.XXXXXXXX.tmp`` beside it) that no
    process is writing: what a write killed before its rename left. Returns what was removed.

    A file is abandoned when its lock can be taken: its writer holds the lock from its creation
    to its rename, and the system releases it when the writer dies, however it dies. Nothing
    else in the folder is looked at; a file that cannot be examined is left where it is."""
    target = Path(target)
    prefix = _temporary_prefix(target)
    try:
        with os.scandir(target.parent) as entries:
            names = [e.name for e in entries if e.name.startswith(prefix)]
    except OSError:
        return []
    removed = []
    for name in names:
        middle = name[len(prefix) :].removesuffix(".tmp")
        if name.endswith(".tmp") and _RANDOM_PART.fullmatch(middle):
            path = target.parent / name
            if _remove_if_abandoned(path):
                removed.append(path)
    return removed


def _remove_if_abandoned(path: Path) -> bool:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held: a write in progress
        held = os.fstat(fd)
        named = os.stat(path, follow_symlinks=False)  # the name still means the file locked
        same = (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)
        if same and stat.S_ISREG(held.st_mode):
            path.unlink()
            return True
        return False
    except OSError:
        return False
    finally:
        os.close(fd)


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


__all__ = ["OutputError", "atomic_open", "atomic_write", "ensure_dir", "sweep_abandoned"]
