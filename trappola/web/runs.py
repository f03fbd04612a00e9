"""Which saved games belong to which evaluation run, so the Leaderboard
links a pair only to games of the run its summary describes.

Names alone do not tell runs apart: two runs of the same players differ by
their seed. Deal ``i`` of a head-to-head run is ``random_deal(Random(
derive_seed(seed, "deal", i)))`` (``duplicate``), and a ratings run plays
pair ``(i, j)`` of its players with the seed ``derive_seed(seed, "pair", i,
j)`` (``ratings``). So the summary fixes the cards of each pair's first
deal, and a saved game shows its cards: ``deal_key`` is a short digest of
a deal, ``run_of_pair`` what a summary's pair expects of its games.
"""

from __future__ import annotations

import hashlib
import json
import random

from trappola.agents.evaluation.seeding import derive_seed
from trappola_env.engine import random_deal


def deal_key(deal) -> str:
    """A short digest of a ``Deal``'s cards."""
    text = json.dumps(deal.to_names(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def run_of_pair(evaluation: str, seed: int, deals: int) -> dict:
    """What the saved games of one pair of a run have: ``{"evaluation",
    "deals", "deal0"}`` (the kind of run, how many deals, the key of deal 0);
    ``seed``: the pair's seed."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not isinstance(deals, int):
        raise ValueError(f"settings: seed and deals must be integers, got {seed!r} and {deals!r}")
    first = random_deal(random.Random(derive_seed(seed, "deal", 0)))
    return {"evaluation": evaluation, "deals": deals, "deal0": deal_key(first)}
