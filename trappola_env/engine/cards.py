"""Cards and their names (docs/rules.md section 1).

A card's id is ``suit * 9 + rank``; a set of cards is an ``int`` bit set
with bit ``id`` set, which keeps hands cheap to copy and to test.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import SupportsIndex, cast

SUITS = "SCDB"  # Spade, Coppe, Denari, Bastoni
SUIT_NAMES = ("Spade", "Coppe", "Denari", "Bastoni")
RANKS = "2789TBCRA"
RANK_NAMES = ("Two", "7", "8", "9", "10", "Bube", "Cavall", "Re", "Asso")
N_CARDS = 36

TWO, SEVEN, EIGHT, NINE, TEN, BUBE, CAVALL, RE, ACE = range(9)
RANK_POINTS = (0, 0, 0, 0, 0, 3, 4, 5, 6)

CARD_POINTS = tuple(RANK_POINTS[c % 9] for c in range(N_CARDS))
CARD_NAMES = tuple(RANKS[c % 9] + SUITS[c // 9] for c in range(N_CARDS))
_NAME_TO_ID = {name: i for i, name in enumerate(CARD_NAMES)}

ALL_CARDS = (1 << N_CARDS) - 1
SUIT_MASK = tuple(((1 << 9) - 1) << (9 * s) for s in range(4))
RANK_MASK = tuple(sum(1 << (9 * s + r) for s in range(4)) for r in range(9))
COURT_MASK = RANK_MASK[BUBE] | RANK_MASK[CAVALL] | RANK_MASK[RE]
ACE_MASK = RANK_MASK[ACE]


def suit_of(card: int) -> int:
    """The suit (0..3: Spade, Coppe, Denari, Bastoni) of a card id."""
    return card // 9


def rank_of(card: int) -> int:
    """The rank (0 = Two ... 8 = Asso) of a card id."""
    return card % 9


def _int_id(x: object) -> int | None:
    """``x`` as a plain int if it is an integer (numpy ones included), but
    not a bool; else None."""
    if isinstance(x, bool) or not hasattr(x, "__index__"):
        return None
    return cast(SupportsIndex, x).__index__()


def card_name(card: int) -> str:
    """The name of a card id, such as ``"AS"``; ``ValueError`` for anything but an id 0..35."""
    c = _int_id(card)
    if c is None or not 0 <= c < N_CARDS:
        raise ValueError(f"card id must be an int in 0..35, got {card!r}")
    return CARD_NAMES[c]


def card_id(name: str | int) -> int:
    """The id of a card name such as ``"AS"``; accepts an id unchanged."""
    c = _int_id(name)
    if c is not None:
        if 0 <= c < N_CARDS:
            return c
        raise ValueError(f"card id must be an int in 0..35, got {name!r}")
    try:
        return _NAME_TO_ID[cast(str, name).strip().upper()]
    except (KeyError, AttributeError):
        raise ValueError(
            f"unknown card {name!r}: a card is a rank ({RANKS}) then a suit ({SUITS}), e.g. 'AS', 'TC', 'BD'"
        ) from None


def mask_of(cards: Iterable[int]) -> int:
    """The card set (bit set) holding the card ids ``cards``."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> list[int]:
    """The ids of the set bits of ``mask``, ascending: the cards of a card
    set, and equally the action ids of a legal-action mask (a card's play
    has its card id as action id)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def names_of(mask: int) -> list[str]:
    """The names of the cards of a card set, in id order."""
    return [CARD_NAMES[c] for c in cards_of(mask)]


def points_of(mask: int) -> int:
    """The card points of a card set (Bube 3, Cavall 4, Re 5, Asso 6; docs/rules.md section 1)."""
    return sum(CARD_POINTS[c] for c in cards_of(mask))
