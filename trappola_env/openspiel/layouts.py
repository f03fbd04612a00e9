"""Hidden layouts for ``resample_from_infostate``: the hook that draws them,
and the deal orders that put them on the table.

The draw itself (which opponent hands a seat's record allows, in what
proportions) is the lab's sampler, ``trappola.agents.search.sampling``,
which lives above this layer. It is plugged in here as a callable:
``set_layout_sampler(fn)`` with ``fn(info, rng) -> hand``, where ``info`` is
the ``InfoState`` of the seat to resample for, ``rng`` a ``random.Random``
and ``hand`` the bit set of the opponent's current hand (the rest of the
unseen cards are the hidden stock). ``trappola.agents.players.openspiel_bots``
sets it on import, which building the ``ismcts`` player does; a script
using the pyspiel games directly imports that module (or sets its own).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from trappola_env.engine.cards import cards_of
from trappola_env.engine.deal import Deal
from trappola_env.engine.infostate import InfoState

_sampler: Callable[[InfoState, random.Random], int] | None = None

# Deal positions (deal_from_order: packets of three, challenger first) of each seat's cards.
SEAT_POSITIONS = (
    tuple(p for k in range(3) for p in range(6 * k, 6 * k + 3)),
    tuple(p for k in range(3) for p in range(6 * k + 3, 6 * k + 6)),
)
STOCK_POSITIONS = tuple(range(18, 36))


def set_layout_sampler(fn: Callable[[InfoState, random.Random], int] | None) -> None:
    """Install ``fn(info, rng) -> opponent hand`` as the sampler of hidden
    layouts (``None`` removes it)."""
    global _sampler
    if fn is not None and not callable(fn):
        raise ValueError(f"the layout sampler must be callable, got {fn!r}")
    _sampler = fn


def layout_sampler() -> Callable[[InfoState, random.Random], int]:
    """The installed sampler; ``RuntimeError`` saying how to install one if none is."""
    if _sampler is None:
        raise RuntimeError(
            "resample_from_infostate needs the lab's layout sampler: import trappola.agents.players.openspiel_bots "
            "(or call trappola_env.openspiel.set_layout_sampler)"
        )
    return _sampler


def rng_from(probability_sampler: Callable[[], float]) -> random.Random:
    """A ``random.Random`` seeded from one draw of OpenSpiel's probability
    sampler (a callable returning a float in [0, 1))."""
    return random.Random(int(probability_sampler() * 2**52))


def deal_order(deal: Deal) -> list[int]:
    """The 36 chance outcomes (card ids in deal order) that deal ``deal``
    (an engine ``Deal``): the inverse of ``engine.deal_from_order``."""
    out = [0] * 36
    for seat_cards, positions in ((deal.challenger, SEAT_POSITIONS[0]), (deal.dealer, SEAT_POSITIONS[1])):
        for p, c in zip(positions, seat_cards, strict=True):
            out[p] = c
    for p, c in zip(STOCK_POSITIONS, deal.stock, strict=True):
        out[p] = c
    return out


def layout_order(order: Sequence[int], info: InfoState, hand: int) -> list[int]:
    """The deal order (36 card ids) that keeps ``info.seat``'s cards where
    ``order`` dealt them and gives its opponent the dealt hand ``hand`` plus
    the cards it has played, the other unseen cards to the hidden stock, and
    the face-up card to the bottom."""
    seat = info.seat
    opp = 1 - seat
    dealt = hand
    for c in info.played_by(opp):
        dealt |= 1 << c
    stock = info.unseen() & ~hand
    out = list(order)
    for p, c in zip(SEAT_POSITIONS[opp], cards_of(dealt), strict=True):
        out[p] = c
    for p, c in zip(STOCK_POSITIONS, [*cards_of(stock), info.bottom], strict=True):
        out[p] = c
    return out


__all__ = [
    "SEAT_POSITIONS",
    "STOCK_POSITIONS",
    "deal_order",
    "layout_order",
    "layout_sampler",
    "rng_from",
    "set_layout_sampler",
]
