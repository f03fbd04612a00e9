"""Hidden layouts for ``resample_from_infostate``: the draw, the hook that
replaces it, and the deal orders that put a layout on the table.

A layout is the opponent's current hand (the rest of the unseen cards are
the hidden stock). ``uniform_hand(info, rng)`` draws it uniformly among the
hands the seat's record allows, from the rules alone: the cards the seat
has not seen, no card of a suit the opponent failed to follow, exactly the
declared count of each rank it declared a Figura or Aces of, no court card
after Blans, no court card or Ace after Bianka, and the other three cards
of a rank whose missing suit a Manko answer named. Nothing is inferred from
what the opponent chose to play or not to declare. Under a uniform deal
this is the exact posterior over the hidden cards, so the games resample
correctly with nothing but this package imported.

``set_layout_sampler(fn)`` installs another draw, ``fn(info, rng) -> hand``
(``info`` the ``InfoState`` of the seat to resample for, ``rng`` a
``random.Random``, ``hand`` the bit set of the opponent's current hand):
``trappola.agents.players.openspiel_bots`` installs the lab's sampler
(``trappola.agents.search.sampling``, the same distribution, drawn from
precomputed groups) on import.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from trappola_env.engine.actions import ACES, BIANKA, BLANS
from trappola_env.engine.cards import ACE, ACE_MASK, COURT_MASK, RANK_MASK, SUIT_MASK, cards_of
from trappola_env.engine.deal import Deal
from trappola_env.engine.declarations import FIGURA_RANK
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
    """The installed sampler, ``uniform_hand`` if none is."""
    return uniform_hand if _sampler is None else _sampler


def uniform_hand(info: InfoState, rng: random.Random) -> int:
    """The opponent's current hand, drawn uniformly among the hands
    ``info.seat``'s record allows (see the module docstring).

    The exact counts of declared ranks are disjoint, so the hand is drawn
    rank by rank (``need`` of the rank's possible cards) and then filled
    from the unconstrained cards; each part is uniform and the parts are
    independent, so the whole is uniform. Raises ``ValueError`` for a record
    that admits no hand (the engine never produces one)."""
    opp = 1 - info.seat
    played = 0
    for c in info.played_by(opp):
        played |= 1 << c
    possible = info.unseen()
    for s in info.void_suits(opp):
        possible &= ~SUIT_MASK[s]
    declared = info.declarations[opp]
    if BLANS in declared:
        possible &= ~COURT_MASK
    if BIANKA in declared:
        possible &= ~(COURT_MASK | ACE_MASK)
    for rank, suit in info.manko_answer[opp] or ():
        possible &= ~(1 << (9 * suit + rank))
    hand = 0
    exact = [(FIGURA_RANK[a], n) for a, n in declared.items() if a in FIGURA_RANK]
    exact += [(ACE, n) for a, n in declared.items() if a == ACES]
    for rank, n in exact:
        cards = cards_of(possible & RANK_MASK[rank])
        need = n - (played & RANK_MASK[rank]).bit_count()
        if not 0 <= need <= len(cards):
            raise ValueError(f"no hand holds {n} of rank {rank} with these cards seen: {cards}")
        for c in rng.sample(cards, need):
            hand |= 1 << c
        possible &= ~RANK_MASK[rank]
    free = cards_of(possible)
    need = 9 - info.ncards[opp] - hand.bit_count()
    if not 0 <= need <= len(free):
        raise ValueError(f"no hand of {9 - info.ncards[opp]} cards fits the record: {len(free)} free cards for {need}")
    for c in rng.sample(free, need):
        hand |= 1 << c
    return hand


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
    "uniform_hand",
]
