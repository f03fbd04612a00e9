"""Declarations (docs/rules.md sections 3 and 4): when each is true of a hand,
and what it scores and costs the opponent.

Counts, points and payments are in base units; payments are multiplied by
``stake_multiple * m`` when settled.
"""

from __future__ import annotations

from trappola_env.engine.actions import ACES, BIANKA, BLANS, FIGURA_BUBE, FIGURA_CAVALL, FIGURA_RE, FIGURA_TWOS
from trappola_env.engine.cards import ACE_MASK, BUBE, CAVALL, COURT_MASK, RANK_MASK, RANKS, RE, TWO

# Figura action -> rank it declares.
FIGURA_RANK = {FIGURA_RE: RE, FIGURA_CAVALL: CAVALL, FIGURA_BUBE: BUBE, FIGURA_TWOS: TWO}
FIGURA_ACTIONS = (FIGURA_RE, FIGURA_CAVALL, FIGURA_BUBE, FIGURA_TWOS)

# (points, opponent pays) by declared count.
FIGURA_VALUE = {
    FIGURA_RE: {3: (6, 5), 4: (12, 10)},
    FIGURA_CAVALL: {3: (6, 5), 4: (12, 10)},
    FIGURA_BUBE: {3: (6, 5), 4: (12, 10)},
    FIGURA_TWOS: {3: (10, 5), 4: (20, 10)},
}
# Aces: (points if every declared Ace won its trick, points otherwise, pay).
ACES_VALUE = {3: (30, 6, 5), 4: (40, 12, 10)}
BLANS_VALUE = (10, 5)
BIANKA_VALUE = (20, 10)

BIANKA_FORBIDDEN = COURT_MASK | ACE_MASK


def rank_count(hand: int, rank: int) -> int:
    """How many cards of ``rank`` the card set ``hand`` holds."""
    return (hand & RANK_MASK[rank]).bit_count()


def first_card_declarations(hand: int) -> int:
    """Bits (action ids) of the Figura and Blans declarations true of a hand
    at its first card."""
    bits = 0
    for action in FIGURA_ACTIONS:
        if rank_count(hand, FIGURA_RANK[action]) >= 3:
            bits |= 1 << action
    if hand & COURT_MASK == 0:
        bits |= 1 << BLANS
    return bits


def aces_possible(dealt: int) -> bool:
    """Whether a dealt hand may declare Aces (3 or 4 of them)."""
    return (dealt & ACE_MASK).bit_count() >= 3


def bianka_possible(dealt: int) -> bool:
    """Whether a dealt hand may declare Bianka (no court card and no Asso)."""
    return dealt & BIANKA_FORBIDDEN == 0


def missing_suit(dealt: int, rank: int) -> int:
    """The suit of the one card of ``rank`` that a 3-card Figura lacks (Manko)."""
    for s in range(4):
        if not dealt >> (9 * s + rank) & 1:
            return s
    raise ValueError(f"hand holds all four {RANKS[rank]}: no Manko for a 4-card Figura")


def declaration_value(action: int, count: int, aces_won: bool) -> tuple[int, int]:
    """(points, payment from the opponent) of one declaration."""
    if action in FIGURA_VALUE:
        return FIGURA_VALUE[action][count]
    if action == ACES:
        win, lose, pay = ACES_VALUE[count]
        return (win if aces_won else lose), pay
    if action == BLANS:
        return BLANS_VALUE
    if action == BIANKA:
        return BIANKA_VALUE
    raise ValueError(f"action {action} is not a scoring declaration")
