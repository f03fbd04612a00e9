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

import os
import secrets
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator

TEMP_SUFFIX = ".tmp"


def temp_name(path: str | Path) -> Path:
    """A fresh temporary name beside ``path`` (hidden, ending in ``.tmp``), so
    that the final rename stays within one file system."""
    path = Path(path)
    return path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}")


def is_temp_name(name: str) -> bool:
    """Whether ``name`` looks like a temporary file of ``atomic_write`` (left
    behind only by a process killed mid-write)."""
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


@contextmanager
def atomic_write(path: str | Path, mode: str = "w", encoding: str | None = "utf-8",
                 newline: str | None = None) -> Iterator[IO]:
    """Open a temporary file beside ``path`` for writing; when the block ends
    without an exception, make it ``path`` atomically.

    Parameters: ``path`` the target (its folder must exist); ``mode`` ``"w"``
    (text) or ``"wb"`` (bytes); ``encoding`` and ``newline`` as for ``open``
    in text mode. Yields the open file object. Raises ``ValueError`` for
    another mode and whatever ``OSError`` the file system gives (the
    temporary file removed, ``path`` untouched).
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write mode must be 'w' or 'wb', got {mode!r}")
    path = Path(path)
    tmp = temp_name(path)
    # os.open honours the umask like a plain open() (mkstemp would force 0600).
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        kwargs = {} if mode == "wb" else {"encoding": encoding, "newline": newline}
        with os.fdopen(fd, mode, **kwargs) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    fsync_dir(path.parent)


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
