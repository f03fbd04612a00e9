"""The privileged view of a partie: what the opponent holds and how the
stock lies, as a flat ``float32`` vector for a critic that may see the whole
deal in training (the PerfectDou scheme: the critic sees everything, the
actor only its own information set, ``observation.encode``).

A player never reads this vector; only training code does. It is relative to
one seat, like the observation:

* ``opponent_hand`` (36): the cards the opponent holds now;
* ``opponent_dealt`` (36): the 9 cards the opponent was dealt;
* ``stock_order`` (36): ``(k + 1) / 18`` for the card at position ``k`` of the
  stock (0 is the top, 17 the face-up bottom card), 0 for a card not in the
  stock.

Together with the observation this fixes the whole deal: my hand, the
opponent's hand and the stock order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from trappola_env.engine.cards import cards_of
from trappola_env.observation import seat_buffer

if TYPE_CHECKING:
    from trappola_env.engine.partie import Partie

FULL_DEAL_FIELDS = (
    ("opponent_hand", 36, "cards the opponent holds now"),
    ("opponent_dealt", 36, "the 9 cards the opponent was dealt"),
    ("stock_order", 36, "(k + 1) / 18 for the card at stock position k (top = 0), else 0"),
)
FULL_DEAL_SIZE = sum(size for _, size, _ in FULL_DEAL_FIELDS)  # 108
STOCK_SIZE = 18

#: Where each field of ``FULL_DEAL_FIELDS`` starts in the vector.
HAND_OFFSET, DEALT_OFFSET, STOCK_OFFSET = 0, 36, 72
#: The feature of the card at stock position k: (k + 1) / 18, as a float32 rounding.
STOCK_VALUE = tuple(float(np.float32((k + 1) / STOCK_SIZE)) for k in range(STOCK_SIZE))


def encode_full_deal(partie: Partie, seat: int, out: npt.NDArray[np.float32] | None = None) -> npt.NDArray[np.float32]:
    """The privileged vector of ``seat`` (0 = challenger, 1 = dealer).

    ``out``, when given, must be a writable float32 array of shape
    ``(FULL_DEAL_SIZE,)``; it is overwritten and returned."""
    out = seat_buffer(seat, out, FULL_DEAL_SIZE)
    out.fill(0.0)
    opp = 1 - seat
    for c in cards_of(partie.hands[opp]):
        out[HAND_OFFSET + c] = 1.0
    for c in cards_of(partie.dealt[opp]):
        out[DEALT_OFFSET + c] = 1.0
    for k, c in enumerate(partie.deal.stock):
        out[STOCK_OFFSET + c] = STOCK_VALUE[k]
    return out
