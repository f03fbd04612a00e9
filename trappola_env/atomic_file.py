"""Files written whole or not at all.

Every file the project writes (checkpoints, belief models, run summaries,
``--json``/``--csv``/``--save-games`` outputs) goes through
``atomic_write``: the content is written to a temporary file beside the
target, flushed and fsynced, then renamed over the target with
``os.replace`` and the directory entry fsynced. A reader, a crash, a
``SIGKILL`` or a full disk therefore sees either the old complete file or
the new complete one, never a truncated mix. On any error the temporary
file is removed and the target is left as it was.

It lives in the lowest layer that every writer (players, evaluation,
training, the CLI) may import; it imports nothing of the project.
"""

from __future__ import annotations

import errno
import os
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

TEMP_SUFFIX = ".tmp"
#: Free space under which ``check_can_write`` calls a disk full (a result file, a checkpoint, a log line).
MIN_FREE_BYTES = 1 << 20


def temp_name(path: str | Path) -> Path:
    """A fresh temporary name beside ``path`` (hidden, ending in ``.tmp``), so
    that the final rename stays within one file system."""
    path = Path(path)
    return path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}")


def remove_stale_temps(path: str | Path) -> list[Path]:
    """Remove the temporary files of ``path`` left by writers that were
    killed mid-write (their process is gone); a live writer's is kept.
    Returns the removed paths. Called by every ``atomic_write``, so a
    killed trainer's half-written checkpoints do not pile up."""
    path = Path(path)
    prefix = f".{path.name}."
    removed: list[Path] = []
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return removed
    for entry in entries:
        if entry.name.startswith(prefix) and _writer_gone(entry.name):
            try:
                os.unlink(entry.path)
                removed.append(Path(entry.path))
            except OSError:
                pass
    return removed


def remove_stale_temps_under(folder: str | Path) -> list[Path]:
    """``remove_stale_temps`` for every target in ``folder`` and its
    subfolders at once (a run folder at the start of a run: the temporary
    files of targets that are not written again would stay forever).
    Returns the removed paths."""
    removed = []
    for root, _, files in os.walk(folder):
        for name in files:
            if _writer_gone(name):
                try:
                    os.unlink(os.path.join(root, name))
                    removed.append(Path(root, name))
                except OSError:
                    pass
    return removed


def _writer_gone(name: str) -> bool:
    """Whether ``name`` is a temporary file (``temp_name``) of a writer
    whose process is gone."""
    if not is_temp_name(name):
        return False
    parts = name[: -len(TEMP_SUFFIX)].split(".")
    # ".<target>.<pid>.<hex>": the pid is the second part from the end
    return len(parts) >= 4 and parts[-2].isdigit() and not pid_running(int(parts[-2]))


def pid_running(pid: int) -> bool:
    """Whether process ``pid`` exists (True when the platform cannot tell)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists (owned by someone else), or the platform cannot tell: keep its file
        return True
    return True


def is_temp_name(name: str) -> bool:
    """Whether ``name`` looks like a temporary file of ``atomic_write`` (left
    behind only by a process killed mid-write)."""
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


@contextmanager
def atomic_write(
    path: str | Path, mode: str = "w", encoding: str | None = "utf-8", newline: str | None = None
) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path`` for writing; when the block ends
    without an exception, make it ``path`` atomically.

    Parameters: ``path`` the target (its folder must exist); ``mode`` ``"w"``
    (text) or ``"wb"`` (bytes); ``encoding`` and ``newline`` as for ``open``
    in text mode. Yields the open file object. Raises ``ValueError`` for
    another mode and whatever ``OSError`` the file system gives, naming
    ``path`` (a full disk, a read-only folder...): the temporary file is
    removed and ``path`` left as it was.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write mode must be 'w' or 'wb', got {mode!r}")
    path = Path(path)
    remove_stale_temps(path)
    tmp = temp_name(path)
    try:
        # os.open honours the umask like a plain open() (mkstemp would force 0600).
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as exc:
        raise _naming(exc, path, tmp) from exc
    try:
        f: IO[Any] = os.fdopen(fd, "wb") if mode == "wb" else os.fdopen(fd, "w", encoding=encoding, newline=newline)
        with f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        with suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise _naming(exc, path, tmp) from exc
        raise
    fsync_dir(path.parent)


def _naming(exc: OSError, path: Path, tmp: Path) -> OSError:
    """``exc`` naming the target instead of the temporary file (or of no
    file: a failed write or flush names none)."""
    if exc.errno is None or exc.filename not in (None, str(tmp)):
        return exc
    return OSError(exc.errno, exc.strerror, str(path))


def describe_os_error(exc: OSError) -> str:
    """One line for a user: the path and the cause (``runs/a/final.zip: No
    space left on device``); the message itself for an ``OSError`` raised
    with a text only."""
    if exc.strerror and exc.filename is not None:
        other = f" -> {exc.filename2}" if exc.filename2 is not None else ""
        return f"{exc.filename}{other}: {exc.strerror}"
    return str(exc) or type(exc).__name__


def fsync_dir(directory: str | Path) -> None:
    """Make a rename in ``directory`` durable (a no-op where the platform
    cannot open a folder for fsync)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some file systems refuse fsync on a folder; the rename itself is still atomic
        pass
    finally:
        os.close(fd)


def check_can_write(path: str | Path, folder: bool = False) -> None:
    """Raise an ``OSError`` naming the path and the cause unless a file can
    be written at ``path`` (its folder must exist) or, with ``folder``,
    inside the folder ``path`` (created later if missing): checked before a
    long run rather than after it. The folder is probed by creating and
    removing a file, which catches what permission bits do not (a read-only
    file system, a user who may write anywhere)."""
    path = Path(path)
    if folder:
        existing = path
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
    else:
        if path.is_dir():
            raise IsADirectoryError(errno.EISDIR, "it is a directory", str(path))
        existing = path.parent
        if not existing.exists():
            raise FileNotFoundError(errno.ENOENT, "no such directory", str(existing))
    if not existing.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "not a directory", str(existing))
    probe = temp_name(existing / "write-check")
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(existing)) from exc
    os.unlink(probe)
    if shutil.disk_usage(existing).free < MIN_FREE_BYTES:  # a full disk still lets an empty file be created
        raise OSError(errno.ENOSPC, "no space left on device", str(existing))


def write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically; returns ``Path(path)``."""
    with atomic_write(path, "wb") as f:
        f.write(data)
    return Path(path)


def write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; returns ``Path(path)``."""
    with atomic_write(path, "w") as f:
        f.write(text)
    return Path(path)
