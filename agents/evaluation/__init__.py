"""Evaluation of players: duplicate head-to-head matches (``duplicate``),
Bulka-session tournaments (``tournament``), ratings over a pool
(``ratings``), with 95% intervals (``stats``), reports as a table, JSON and
CSV (``report``) and parallel backends (``backend``: processes;
``ray_backend``: Ray tasks on one machine or a cluster).

Every number is a function of the seed and the item index only
(``seeding.derive_seed``): any number of workers gives the same result.
"""

from trappola.agents.evaluation.backend import Backend, ProcessBackend, SerialBackend, default_workers
from trappola.agents.evaluation.backend_choice import BACKENDS, make_backend
from trappola.agents.evaluation.duplicate import HeadToHeadResult, head_to_head
from trappola.agents.evaluation.ratings import RatingsResult, rate_pool
from trappola.agents.evaluation.ray_backend import RayBackend
from trappola.agents.evaluation.seeding import derive_seed
from trappola.agents.evaluation.tournament import TournamentResult, session_tournament

__all__ = [
    "BACKENDS",
    "Backend",
    "RayBackend",
    "ProcessBackend",
    "SerialBackend",
    "default_workers",
    "make_backend",
    "HeadToHeadResult",
    "head_to_head",
    "derive_seed",
    "TournamentResult",
    "session_tournament",
    "RatingsResult",
    "rate_pool",
]
