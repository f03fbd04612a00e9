"""Many parties at once: a second, array-based implementation of the rules
and of the ``trappola_v0`` observation, for fast self-play training
(``BatchPartie``). It is checked against ``trappola_env.engine`` step by
step by the tests."""

import inspect
from pathlib import Path

from trappola_env.numba_cache import drop_stale_cache


def numba_sources() -> list[Path]:
    """The files whose contents the compiled kernels depend on: this folder,
    and the engine and observation modules ``kernels.py`` reads constants from."""
    from trappola_env.engine import actions, bonuses, cards, declarations, scoring

    from .. import full_deal, observation

    here = Path(__file__).resolve().parent
    return sorted(here.glob("*.py")) + [
        Path(inspect.getfile(m)).resolve()
        for m in (actions, bonuses, cards, declarations, scoring, full_deal, observation)
    ]


drop_stale_cache(Path(__file__).resolve().parent / "kernels.py", numba_sources())  # before kernels load cached code

from trappola_env.batch.engine import OUTCOME_NAMES, BatchPartie, order_of, random_orders, rewards_of  # noqa: E402

__all__ = ["BatchPartie", "OUTCOME_NAMES", "order_of", "random_orders", "rewards_of"]
