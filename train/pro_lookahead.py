"""The learned Pro decision shipped with the model: a one-partie lookahead
on learned win rates.

Declaring Pro now is compared with waiting one partie and declaring
against the next challenger (RULES.md section 8: the loser of a partie goes
to the end of the queue, so if the dealer wins without Pro its next
opponent is the head of the queue). In units of the extra stake ``c``
(every stake at a Pro offer is ``c``, since ``m = 1`` there), with Bulka
``B``, ``p`` the player's chance to win a decided partie as dealer against
the challenger and ``q`` against the next challenger:

* declare now: it pays its stake and the extra stake, the challenger its
  stake; a win takes all of it: ``p * (B + 3) - 2``;
* wait: it pays its stake; after a win (``p``) it declares against the
  next challenger with two more stakes in the Bulka:
  ``-1 + p * (q * (B + 5) - 2)``.

It declares unless waiting is worth more, and always when no partie would
follow (``parties_left <= 1``). Waiting therefore pays only when the next
challenger is clearly easier than this one and the Bulka is small: with
``p = 0.60`` and ``q = 0.90`` (the shipped model as dealer against `rule`
and `random`) below 11.7 extra stakes. What the lookahead leaves out
(the Bulka a lost partie leaves behind, the parties a Pro winner sits out)
is the same for both choices to first order; the paired-rollout analysis
(``train.pro_analysis``) and the held-out comparison (``python -m
train.pro``) check it against whole sessions.

The learned part is the table of win rates by opponent kind (the player
spec's name before any ``:`` and ``#``: ``rule``, ``random``, ``pimc``,
``policy``), measured by playing the model as dealer against each kind
(``measure_win_rates``); an unknown kind gets ``default`` (the mean), so
that ``p = q`` and the rule declares.
"""
from __future__ import annotations

import random

from trappola_env.engine.deal import random_deal
from trappola_env.engine.partie import Partie
from trappola_env.referee import play_out, seat_policy


def measure_win_rates(card_player, opponents: dict, parties: int = 2000, seed: int = 0) -> dict:
    """Share of decided parties ``card_player`` (an ``agents`` player) wins
    as dealer against each of ``opponents`` (kind -> player), over
    ``parties`` fresh deals each; undecided parties (Alifer) are left
    out, as a session replays them."""
    if parties < 1:
        raise ValueError(f"parties must be positive, got {parties}")
    rng = random.Random(seed)
    me = seat_policy(card_player)
    out = {}
    for k, (kind, opp) in enumerate(sorted(opponents.items())):
        card_player.reset(seed * 7919 + k)
        opp.reset(seed * 7919 + k + 1)
        them = seat_policy(opp)
        won = decided = 0
        for _ in range(parties):
            partie = Partie(random_deal(rng))
            play_out(partie, (them, me))  # seat 0 challenger, seat 1 dealer
            winner = partie.result().winner
            if winner is not None:
                decided += 1
                won += winner == 1
        out[kind] = won / decided if decided else 0.5
    return out
