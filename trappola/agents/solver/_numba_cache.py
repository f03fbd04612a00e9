"""Keep numba's on-disk cache of the solver honest.

numba (``cache=True``) decides whether a cached function is stale by looking
at that function's *own* source file only.  ``search.py`` inlines code from
``rules_kernel.py`` and ``last_tricks.py`` (and constants from the engine's
``cards.py``, ``bonuses.py`` and ``declarations.py``), so after an edit to one of those, the cached search would
silently keep running the old rules.  Before the solver modules are
imported, this drops the solver's cache files whenever any of those sources
changed since the cache was written.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from numba import config
from numba.core.caching import UserProvidedCacheLocator

_HERE = Path(__file__).resolve().parent
_STAMP = "solver_sources.sha1"


def _sources() -> list[Path]:
    """The files whose contents the compiled solver depends on."""
    from trappola.engine import bonuses, cards, declarations

    return sorted(_HERE.glob("*.py")) + [Path(m.__file__).resolve() for m in (cards, bonuses, declarations)]


def _cache_dir() -> Path:
    if config.CACHE_DIR:
        return Path(config.CACHE_DIR) / UserProvidedCacheLocator.get_suitable_cache_subpath(str(_HERE / "search.py"))
    return _HERE / "__pycache__"


def drop_stale_cache() -> None:
    digest = hashlib.sha1(b"".join(p.read_bytes() for p in _sources())).hexdigest()
    cache = _cache_dir()
    stamp = cache / _STAMP
    try:
        if stamp.exists() and stamp.read_text() == digest:
            return
        for f in cache.glob("*.nb[ic]"):
            f.unlink(missing_ok=True)
        cache.mkdir(parents=True, exist_ok=True)
        tmp = cache / f"{_STAMP}.{os.getpid()}"
        tmp.write_text(digest)
        tmp.replace(stamp)
    except OSError:
        pass  # read-only install: numba falls back to its own cache rules
