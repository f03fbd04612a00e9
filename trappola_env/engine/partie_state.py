"""``PartieState``: what the modules below ``partie`` read of a partie (the
settlement, the information sets, the text rendering). ``Partie`` has all of
it; the interface lets those modules name their argument's type without
importing ``partie``, which imports them."""

from __future__ import annotations

from typing import Protocol

from trappola_env.engine.rule_config import RuleConfig


class PartieState(Protocol):
    """The readable state of a partie (``trappola_env.engine.partie.Partie``); seat 0 = challenger, 1 = dealer."""

    @property
    def config(self) -> RuleConfig:
        """The rule options."""

    @property
    def unit(self) -> int:
        """``stake_multiple * multiplier``: what one payment unit is worth in tokens."""

    @property
    def multiplier(self) -> int:
        """The Alifer multiplier ``m``."""

    @property
    def stake_multiple(self) -> int:
        """The table's stake multiple."""

    @property
    def hands(self) -> list[int]:
        """Each seat's cards in hand, as bit sets."""

    @property
    def dealt(self) -> tuple[int, int]:
        """Each seat's dealt hand, as bit sets."""

    @property
    def bottom(self) -> int:
        """The face-up bottom card of the stock."""

    @property
    def to_act(self) -> int:
        """The seat to act."""

    @property
    def phase(self) -> int:
        """Play, Alifer answer or done (``partie.PLAY``, ``ALIFER_ANSWER``, ``DONE``)."""

    @property
    def terminal(self) -> bool:
        """Whether the partie is over."""

    @property
    def trick(self) -> int:
        """Completed tricks."""

    @property
    def lead(self) -> int:
        """The card led to the current trick, -1 if none."""

    @property
    def leader(self) -> int:
        """The seat that leads the current trick."""

    @property
    def ncards(self) -> list[int]:
        """Cards each seat has played."""

    @property
    def done(self) -> list[int]:
        """Per seat, the bits of the declaration, question and proposal actions already used."""

    @property
    def counts(self) -> tuple[dict[int, int], dict[int, int]]:
        """Per seat, the declared count per declaration action id."""

    @property
    def aces_failed(self) -> list[bool]:
        """Per seat, whether a declared Ace was lost."""

    @property
    def manko_answer(self) -> list[tuple[tuple[int, int], ...] | None]:
        """Per declarer, the Manko answer: ``((rank, missing suit), ...)``, or None before the question."""

    @property
    def alifer_proposer(self) -> int:
        """The seat whose Alifer proposal waits for an answer, -1 if none."""

    @property
    def propose_bit(self) -> int:
        """The proposal action's bit when proposals are allowed, else 0."""

    @property
    def card_points(self) -> list[int]:
        """Card points won so far, per seat."""

    @property
    def tricks(self) -> list[tuple[int, int, int, int]]:
        """Completed tricks: (leader, lead card, follow card, winner)."""

    @property
    def two_winner(self) -> list[int]:
        """Per completed trick, the seat that won it with a Two, or -1."""

    @property
    def history(self) -> list[tuple[int, int]]:
        """Every action, (seat, action id), in order."""

    @property
    def outcome(self) -> str | None:
        """How the partie ended (``scoring.DECIDED``...), None while it is played."""

    @property
    def winner(self) -> int | None:
        """The winning seat; None for an Alifer or while it is played."""

    @property
    def forfeited_by(self) -> int | None:
        """The seat that forfeited (Art. 12), else None."""

    def legal_mask(self) -> int:
        """Bit set of the legal action ids of the seat to act."""
