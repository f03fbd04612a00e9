"""How far a player's token balance can move in a Bulka session, from the
rules' own tables (docs/rules.md sections 2, 4, 5, 6 and 8): the utility
bounds of ``python_bulka``.

In one partie of multiplier ``m`` a seated player pays at most its stake,
the Pro stake, the largest declaration payment one dealt hand can earn its
opponent and the largest trick-bonus payment (``partie_units``, in units of
``stake_multiple * m`` tokens). Whatever a player gains, some other player
paid: in a partie it sits out, the two at the table pay at most their two
stakes, one Pro stake and the bonuses (declarations pass between them), which
is less. So ``partie_units * stake_multiple * m`` bounds the change of any
balance in that partie, gains and losses alike, the final split of the
Bulka included (it only returns what was paid).

The multiplier is what makes the range wide: an Alifer doubles every
payment of the replay (``m = 1, 2, 4, ...``), and replays count as parties.
Partie ``k`` (from 0) has ``m <= 2**k``. After ``max_parties`` only a live
Pro partie is replayed, on a tie; a Pro partie starts at ``m = 1`` after the
declarer's second decided win in a row, so no earlier than partie 2, and
its replay ``k`` has ``m <= 2**(k - 2)``. ``python_bulka`` plays at most
``extra`` such replays (its ``max_game_length``); the bound holds within that
length.
"""

from __future__ import annotations

import itertools

from trappola_env.engine.bonuses import FIRST_TRICK_TWO, LAST_TWOS, MARC, MIDDLE_TWO
from trappola_env.engine.declarations import ACES_VALUE, BIANKA_VALUE, BLANS_VALUE, FIGURA_VALUE
from trappola_env.engine.scoring import BASE_STAKE

# The first decided partie is 0 and the second 1, so the earliest Pro partie is partie 2.
FIRST_PRO_PARTIE = 2


def max_declaration_payment() -> int:
    """The most one dealt hand's declarations make its opponent pay, in units
    (a hand holding all four Twos, no court card and no Ace: Twos for 20,
    Blans and Bianka, 25)."""
    best = 0
    # Counts of Twos, Bube, Cavall, Re and Aces; the other 16 cards (7 to 10) fill the hand.
    for twos, bube, cavall, re, aces in itertools.product(range(5), repeat=5):
        held = twos + bube + cavall + re + aces
        if held > 9 or 9 - held > 16:
            continue
        pay = sum(FIGURA_VALUE[a][n][1] for a, n in zip(FIGURA_VALUE, (re, cavall, bube, twos), strict=True) if n >= 3)
        if aces >= 3:
            pay += ACES_VALUE[aces][2]
        if bube + cavall + re == 0:
            pay += BLANS_VALUE[1] + (BIANKA_VALUE[1] if aces == 0 else 0)
        best = max(best, pay)
    return best


def max_bonus_payment() -> int:
    """The most one player's trick bonuses make its opponent pay into the
    Bulka in a partie, in units: Marc, and the four Twos placed where they
    pay most (trick 1, then the last three tricks in a row: 60)."""
    best = 0
    for s in (0, 1, 2, 3):  # the Twos that win the last s tricks
        rest = 4 - s
        pay = (LAST_TWOS[s][1] if s else 0) + (FIRST_TRICK_TWO[1] if rest else 0) + MIDDLE_TWO[1] * max(0, rest - 1)
        best = max(best, pay)
    return MARC[1] + best


def partie_units() -> int:
    """The most any balance moves in one partie, in units of
    ``stake_multiple * m`` tokens: the stake, the Pro stake, the largest
    declaration and bonus payments (105)."""
    return 2 * BASE_STAKE + max_declaration_payment() + max_bonus_payment()


def max_multipliers(max_parties: int, extra: int) -> list[int]:
    """The largest multiplier each partie of a session can have: ``2**k``
    for partie ``k < max_parties``, then ``2**(k - 2)`` for up to ``extra``
    replays of a live Pro partie (none if no Pro partie can start before
    ``max_parties``)."""
    out = [2**k for k in range(max_parties)]
    if max_parties > FIRST_PRO_PARTIE:
        out += [2 ** (k - FIRST_PRO_PARTIE) for k in range(max_parties, max_parties + extra)]
    return out


def balance_bound(max_parties: int, stake_multiple: int, extra: int) -> int:
    """A bound on the absolute token balance a player can reach in a session
    of ``max_parties`` parties and at most ``extra`` Pro replays past them
    (every partie at its largest multiplier and payments: a bound, which no
    single session need reach)."""
    return partie_units() * stake_multiple * sum(max_multipliers(max_parties, extra))


__all__ = [
    "FIRST_PRO_PARTIE",
    "balance_bound",
    "max_bonus_payment",
    "max_declaration_payment",
    "max_multipliers",
    "partie_units",
]
