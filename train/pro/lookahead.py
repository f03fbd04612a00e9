"""The ``lookahead`` method (shipped): the win rates ``LookaheadPro`` uses.

``trappola.agents.pro_learned.LookaheadPro`` compares declaring Pro now with waiting
one partie and declaring against the next challenger; what it learns is
the model's chance to win a decided partie as dealer against each opponent
kind. ``measure_win_rates`` measures it by play; ``learn_lookahead`` does
so against the kinds at a ``SessionBench``'s table. The paired-rollout
analysis (``trappola.train.pro.analysis``) and the held-out comparison
(``python -m trappola.train.pro``) check the rule against whole sessions.
"""

from __future__ import annotations

import random

from trappola.agents.evaluation.seeding import derive_seed
from trappola.agents.pro_learned import LookaheadPro, opponent_kind
from trappola.train.pro.bench import FOCAL, SessionBench
from trappola_env.engine.deal import random_deal
from trappola_env.referee import play_partie


def measure_win_rates(card_player, opponents: dict, parties: int = 2000, seed: int = 0) -> dict:
    """Share of decided parties ``card_player`` (an ``agents`` player) wins
    as dealer against each of ``opponents`` (kind -> player), over
    ``parties`` fresh deals each; undecided parties (Alifer) are left
    out, as a session replays them."""
    if parties < 1:
        raise ValueError(f"parties must be positive, got {parties}")
    rng = random.Random(derive_seed(seed, "deals"))
    out = {}
    for k, (kind, opp) in enumerate(sorted(opponents.items())):
        card_player.reset(derive_seed(seed, "player", k, 0))
        opp.reset(derive_seed(seed, "player", k, 1))
        won = decided = 0
        for _ in range(parties):
            winner = play_partie((opp, card_player), random_deal(rng)).result.winner  # card_player deals
            if winner is not None:
                decided += 1
                won += winner == 1
        out[kind] = won / decided if decided else 0.5
    return out


def learn_lookahead(bench: SessionBench, parties: int, seed: int = 0) -> tuple[LookaheadPro, dict]:
    """``LookaheadPro`` on the focal player's win rates against each
    opponent kind at ``bench``'s table (``parties`` per kind); an unknown
    kind gets their mean. Returns (policy, training record)."""
    kinds = {opponent_kind(name): bench.players[name] for name in bench.names if name != FOCAL}
    rates = measure_win_rates(bench.players[FOCAL], kinds, parties=parties, seed=seed)
    return LookaheadPro(rates, default=sum(rates.values()) / len(rates)), {
        "win_rates": rates,
        "parties_per_kind": parties,
    }
