"""Keep numba's on-disk cache of the solver honest
(``trappola_env.numba_cache``): ``search.py`` inlines code from
``rules_kernel.py`` and ``last_tricks.py`` and reads constants from the
engine's ``cards.py``, ``bonuses.py`` and ``declarations.py``, so the
solver's cached code is dropped whenever any of those files changes.
"""

from __future__ import annotations

import inspect
from pathlib import Path

from trappola_env import numba_cache

_HERE = Path(__file__).resolve().parent


def numba_sources() -> list[Path]:
    """The files whose contents the compiled solver depends on."""
    from trappola_env.engine import bonuses, cards, declarations

    return sorted(_HERE.glob("*.py")) + [Path(inspect.getfile(m)).resolve() for m in (cards, bonuses, declarations)]


def drop_stale_cache() -> None:
    """Drop the solver's cached kernels if any of ``numba_sources()`` changed."""
    numba_cache.drop_stale_cache(_HERE / "search.py", numba_sources())
