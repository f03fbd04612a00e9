"""Bounds on what a zip archive (a checkpoint ``.zip``, a belief ``.npz``)
may make a reader decompress.

A few megabytes on disk can hold members of gigabytes (a zip bomb, or a
damaged size field), and every evaluation worker loads the file. The sizes
are checked from the archive's directory before any member is read, and a
reader then reads only the members it needs.
"""

from __future__ import annotations

import zipfile

#: The largest member a reader decompresses. The shipped checkpoint's
#: largest member is under 1 MiB; a [4096, 4096] network's weights are about 140 MiB.
MAX_MEMBER_BYTES = 256 * 2**20


def check_member_sizes(zf: zipfile.ZipFile, path, limit: int | None = None) -> None:
    """Raise ``ValueError`` naming the first member of ``zf`` (read from
    ``path``) whose uncompressed size exceeds ``limit`` bytes (default
    ``MAX_MEMBER_BYTES``); reads no member."""
    limit = MAX_MEMBER_BYTES if limit is None else limit
    for info in zf.infolist():
        if info.file_size > limit:
            raise ValueError(
                f"{path}: member {info.filename!r} would take {info.file_size:,} bytes "
                f"uncompressed, over the limit of {limit:,}; refused as corrupt or hostile"
            )
