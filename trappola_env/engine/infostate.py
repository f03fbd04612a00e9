"""What one seat may know of a partie: its own hand and the public record.

Players receive this, never the ``Partie`` itself; it holds no reference to
the opponent's hand or the hidden stock. ``InfoState.public(partie, seat)``
hides the seat's own cards too: what an onlooker (an adviser) knows.
"""

from __future__ import annotations

from trappola_env.engine.cards import SUIT_MASK, names_of
from trappola_env.engine.partie_state import PartieState

ROLES = ("challenger", "dealer")


class InfoState:
    """What seat ``seat`` of ``partie`` may know: its own hand, its dealt hand, the face-up
    stock card and the public record (tricks, declarations, Manko answers, points)."""

    __slots__ = (
        "seat",
        "role",
        "hand",
        "dealt",
        "bottom",
        "to_act",
        "phase",
        "trick",
        "lead",
        "leader",
        "tricks",
        "two_winner",
        "declarations",
        "manko_answer",
        "used",
        "card_points",
        "alifer_proposer",
        "multiplier",
        "stake_multiple",
        "ncards",
        "legal_mask",
        "terminal",
        "ace_declaration",
        "alifer_allowed",
        "history",
    )

    def __init__(self, partie: PartieState, seat: int):
        if seat not in (0, 1):
            raise ValueError(f"seat must be 0 (challenger) or 1 (dealer), got {seat!r}")
        self.seat = seat
        self.role = ROLES[seat]
        self.hand = partie.hands[seat]
        self.dealt = partie.dealt[seat]
        self.bottom = partie.bottom
        self.to_act = partie.to_act
        self.phase = partie.phase
        self.trick = partie.trick
        self.lead = partie.lead
        self.leader = partie.leader
        self.tricks = tuple(partie.tricks)
        self.two_winner = tuple(partie.two_winner)
        self.declarations = (dict(partie.counts[0]), dict(partie.counts[1]))
        self.manko_answer = tuple(partie.manko_answer)
        self.used = tuple(partie.done)
        self.card_points = tuple(partie.card_points)
        self.alifer_proposer = partie.alifer_proposer
        self.multiplier = partie.multiplier
        self.stake_multiple = partie.stake_multiple
        self.ncards = tuple(partie.ncards)
        self.terminal = partie.terminal
        self.legal_mask = partie.legal_mask() if partie.to_act == seat else 0
        self.ace_declaration = partie.config.ace_declaration
        self.alifer_allowed = bool(partie.propose_bit)
        # Every action of the partie is announced to both seats (cards,
        # declarations, Manko, Alifer), so their order is public too.
        self.history = tuple(partie.history)

    @classmethod
    def public(cls, partie: PartieState, seat: int) -> InfoState:
        """What anyone watching the table knows, from ``seat``'s side: the
        ``InfoState`` of ``seat`` with its hand and dealt hand hidden (both
        0) and no legal mask. An adviser in a Pro partie sees this
        (docs/rules.md section 8): the public record and nothing else."""
        info = cls(partie, seat)
        info.hand = info.dealt = info.legal_mask = 0
        return info

    def played_by(self, seat: int) -> list[int]:
        """Cards ``seat`` has played, in order."""
        out = []
        for leader, lead, follow, _ in self.tricks:
            out.append(lead if leader == seat else follow)
        if self.lead >= 0 and self.leader == seat:
            out.append(self.lead)
        return out

    def void_suits(self, seat: int) -> set[int]:
        """Suits ``seat`` has shown it lacks by not following them."""
        out = set()
        for leader, lead, follow, _ in self.tricks:
            if leader != seat and follow // 9 != lead // 9:
                out.add(lead // 9)
        return out

    def unseen(self) -> int:
        """Bit set of cards this seat has not seen: the opponent's hand and
        the 17 hidden stock cards together."""
        seen = self.dealt | (1 << self.bottom)
        for _, lead, follow, _ in self.tricks:
            seen |= (1 << lead) | (1 << follow)
        if self.lead >= 0:
            seen |= 1 << self.lead
        return ((1 << 36) - 1) & ~seen

    def __repr__(self) -> str:
        return (
            f"InfoState(seat={self.seat} {self.role}, hand={' '.join(names_of(self.hand))}, "
            f"trick={self.trick + 1}, to_act={self.to_act})"
        )


__all__ = ["InfoState", "ROLES", "SUIT_MASK"]
