"""Keep numba's on-disk cache of a folder of kernels honest.

numba (``cache=True``) decides whether a cached function is stale by looking
at that function's *own* source file only, and it freezes the module
globals a kernel reads (the rules constants taken from the engine) into the
cached code. After an edit to another file the kernels depend on (the
engine's tables of points and bonuses, a module whose code they inline),
the cached code would silently keep running the old rules.
``drop_stale_cache``, called before the numba modules are imported, removes
the folder's cache files whenever any of those sources changed since the
cache was written. The batched engine (``trappola_env.batch``) and the
double-dummy solver (``trappola.agents.search.solver``) both use it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from trappola_env.atomic_file import write_text

STAMP = "numba_sources.sha1"


def cache_dir(module_file: Path) -> Path:
    """The folder where numba caches the kernels of ``module_file`` (and of
    every module beside it)."""
    from numba import config
    from numba.core.caching import UserProvidedCacheLocator

    configured: str = config.CACHE_DIR  # numba is untyped to the checker (pyproject.toml)
    if configured:
        subpath: str = UserProvidedCacheLocator.get_suitable_cache_subpath(str(module_file))
        return Path(configured) / subpath
    return Path(module_file).parent / "__pycache__"


def drop_stale_cache(module_file: Path, sources: list[Path]) -> None:
    """Remove the cached kernels of ``module_file``'s folder unless
    ``sources`` (every file the kernels depend on) are byte for byte those
    the cache was built from; then record the sources' digest."""
    digest = hashlib.sha1(b"".join(Path(p).read_bytes() for p in sources)).hexdigest()
    cache = cache_dir(module_file)
    stamp = cache / STAMP
    try:
        if stamp.exists() and stamp.read_text() == digest:
            return
        for f in cache.glob("*.nb[ic]"):
            f.unlink(missing_ok=True)
        cache.mkdir(parents=True, exist_ok=True)
        write_text(stamp, digest)
    except OSError:
        pass  # read-only install: numba falls back to its own cache rules
