"""Seeds derived from (root seed, path) only.

Every deal, session and player reset in an evaluation takes its seed from
``derive_seed(seed, "what", index, ...)``: a hash of the root seed and the
item's own coordinates, never from a shared generator or worker state, so
the numbers are the same whichever process plays which item.
"""

from __future__ import annotations

import hashlib


def derive_seed(root: int, *path) -> int:
    """A 63-bit seed from ``root`` and a path of ints/strings (stable across
    Python versions and platforms: BLAKE2b of the ``repr``)."""
    if isinstance(root, bool) or not isinstance(root, int):
        raise ValueError(f"seed must be an int, got {root!r}")
    for p in path:
        if not isinstance(p, (int, str)) or isinstance(p, bool):
            raise ValueError(f"seed path items must be ints or strings, got {p!r}")
    digest = hashlib.blake2b(repr((root,) + tuple(path)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1
