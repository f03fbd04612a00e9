"""The tokens of a Bulka session (docs/rules.md section 8, "Accounting"): each
player's balance, the Bulka (the pot) and what players who left took away.

Invariant: ``sum(balances) + bulka + sum(departed) == 0`` exactly, at every
moment; ``check()`` asserts it.

Numbers: every stake and payment is an ``int`` (``base * stake_multiple *
m``), so balances and the Bulka stay ``int`` through play. Only the final
equal split can leave a remainder (a Bulka of 100 among 3 players); docs/rules.md
allows fractions there. The split uses ``fractions.Fraction`` rather than
``float`` because a float third cannot be represented, and the ledger
invariant (and the tests that assert it after every step) must hold exactly,
not to a tolerance. A share that divides evenly stays an ``int``. Interfaces
that need JSON or rewards convert with ``float()`` at the boundary.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trappola_env.engine.scoring import PartieResult

Tokens = int | Fraction
"""A token amount: whole, or a share of a split Bulka."""


def exact(x: Tokens) -> Tokens:
    """``x`` as an ``int`` when whole, else a ``Fraction``."""
    if isinstance(x, Fraction) and x.denominator == 1:
        return x.numerator
    return x


def to_json_number(x: Tokens) -> int | float:
    """An ``int`` stays an ``int``; a ``Fraction`` becomes a ``float``."""
    return x if isinstance(x, int) else float(x)


class Ledger:
    """Balances, the Bulka and what departed players took, for the players ``names``
    (all at 0 to begin with)."""

    __slots__ = ("balances", "bulka", "departed")

    def __init__(self, names: Iterable[str]):
        self.balances: dict[str, Tokens] = {n: 0 for n in names}
        self.bulka: Tokens = 0
        self.departed: dict[str, Tokens] = {}  # name -> balance it took away on leaving

    def pay_in(self, name: str, amount: int) -> None:
        """``name`` pays ``amount`` into the Bulka (a stake, the Pro stake, a bonus)."""
        self.balances[name] -= amount
        self.bulka += amount

    def stakes(self, challenger: str, dealer: str, stake: int) -> None:
        """Both players of a partie pay ``stake`` into the Bulka."""
        bal = self.balances
        bal[challenger] -= stake
        bal[dealer] -= stake
        self.bulka += 2 * stake

    def settle(self, result: PartieResult, challenger: str, dealer: str) -> None:
        """A finished partie's payments beyond the stakes (already paid in):
        declarations player to player, trick bonuses into the Bulka
        (``scoring.PartieResult``; seat 0 = challenger, 1 = dealer)."""
        d0, d1 = result.declaration_tokens
        b0, b1 = result.bonus_tokens
        if not (d0 or d1 or b0 or b1):  # most parties (every agreed Alifer) settle nothing more
            return
        bal = self.balances
        bal[challenger] += d0 - d1 - b0
        bal[dealer] += d1 - d0 - b1
        self.bulka += b0 + b1

    def award(self, name: str) -> Tokens:
        """``name`` takes the whole Bulka (a Pro win); returns the amount."""
        amount = self.bulka
        self.balances[name] += amount
        self.bulka = 0
        return amount

    def split(self, names: list[str]) -> Tokens:
        """Share the Bulka equally among ``names``; returns one share."""
        if not names:
            raise ValueError("cannot split the Bulka among nobody")
        share = exact(Fraction(self.bulka, len(names)))
        for n in names:
            self.balances[n] = exact(self.balances[n] + share)
        self.bulka = 0
        return share

    def add(self, name: str) -> None:
        """A new player ``name`` joins with balance 0; a name already used raises ``ValueError``."""
        if name in self.balances or name in self.departed:
            raise ValueError(f"player name {name!r} is already used in this session")
        self.balances[name] = 0

    def remove(self, name: str) -> Tokens:
        """``name`` leaves with its balance (its stakes stay in the Bulka)."""
        taken = self.balances.pop(name)
        self.departed[name] = taken
        return taken

    def total(self) -> Tokens:
        """The sum of balances, Bulka and departed balances: 0 while the ledger is sound."""
        return sum(self.balances.values()) + self.bulka + sum(self.departed.values())

    def check(self) -> None:
        """Raise ``AssertionError`` unless the tokens add up to 0."""
        total = self.total()
        if total != 0:
            raise AssertionError(
                f"ledger out of balance by {total}: balances {self.balances}, "
                f"bulka {self.bulka}, departed {self.departed}"
            )

    def to_dict(self) -> dict[str, object]:
        """Balances, Bulka and departed balances as JSON numbers."""
        return {
            "balances": {n: to_json_number(v) for n, v in self.balances.items()},
            "bulka": to_json_number(self.bulka),
            "departed": {n: to_json_number(v) for n, v in self.departed.items()},
        }
