"""A hand-built deal and scripted players for the self-play adapter tests.

Challenger: all nine Spade; dealer: all nine Coppe. Spade leads always win
(the dealer is void), so the challenger wins every trick: Marc. Playing
lowest cards first, the challenger leads 2S at trick 1 and wins it with a
Two: 36 card points + Marc 30 + trick 1 with a Two 52 + last trick (won
with the AS) 6 = 124; the dealer has 0.
"""

from __future__ import annotations

from helpers import make_deal_spec

from trappola_env.engine import action_id
from trappola_env.engine.actions import DECLINE_ALIFER

SPADE = "2S 7S 8S 9S TS BS CS RS AS"
COPPE = "2C 7C 8C 9C TC BC CC RC AC"
DEAL = make_deal_spec(SPADE, COPPE)
WINNER_POINTS = 124


def lowest_move(mask: int) -> int:
    """Decline an Alifer, otherwise the lowest legal card."""
    if mask >> DECLINE_ALIFER & 1:
        return DECLINE_ALIFER
    cards = mask & ((1 << 36) - 1)
    return (cards & -cards).bit_length() - 1


class Lowest:
    """Scripted player: ``lowest_move``; appends ("opponent", cards in its
    hand) to ``log`` at each move."""

    def __init__(self, log: list | None = None):
        self.log = log

    def reset(self, seed=None):
        pass

    def act(self, view):
        if self.log is not None:
            self.log.append(("opponent", view.info.hand.bit_count()))
        return lowest_move(view.legal_mask)


class Accepts(Lowest):
    """Accepts an Alifer, otherwise as ``Lowest``."""

    def act(self, view):
        accept = action_id("accept Alifer")
        return accept if view.legal_mask >> accept & 1 else super().act(view)
