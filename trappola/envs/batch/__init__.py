"""Many parties at once: a second, array-based implementation of the rules
and of the ``trappola_v0`` observation, for fast self-play training
(``BatchPartie``). It is checked against ``trappola.engine`` step by
step by the tests."""
from .engine import OUTCOME_NAMES, BatchPartie, order_of, random_orders, rewards_of

__all__ = ["BatchPartie", "OUTCOME_NAMES", "order_of", "random_orders", "rewards_of"]
