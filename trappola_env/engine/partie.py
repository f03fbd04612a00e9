"""One partie between the challenger (seat 0) and the dealer (seat 1):
docs/rules.md sections 2, 3, 6 and 7 as a state machine.

The state is a handful of ints and short lists so that ``copy`` and
``apply`` stay cheap: search players copy and step it millions of times.
Legal actions are an ``int`` bit set over the 49 action ids.

``alifer_allowed=False`` makes proposing Alifer illegal for both seats:
the session does this in a live Pro partie once ``max_parties`` has been
reached (docs/rules.md section 8, End), so that every session ends.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trappola_env.engine.actions import (
    ACCEPT_ALIFER,
    ACES,
    BIANKA,
    DECLINE_ALIFER,
    FIGURA_TWOS,
    MANKO,
    N_ACTIONS,
    PROPOSE_ALIFER,
    action_name,
)
from trappola_env.engine.cards import ACE, ACE_MASK, CARD_POINTS, SUIT_MASK, cards_of
from trappola_env.engine.checks import check_positive_int
from trappola_env.engine.deal import Deal
from trappola_env.engine.declarations import (
    FIGURA_ACTIONS,
    FIGURA_RANK,
    aces_possible,
    bianka_possible,
    first_card_declarations,
    missing_suit,
    rank_count,
)
from trappola_env.engine.rule_config import DEFAULT_CONFIG, RuleConfig
from trappola_env.engine.scoring import AGREED_ALIFER, DECIDED, FORFEIT, TIE, PartieResult, final_totals, settle

if TYPE_CHECKING:
    from trappola_env.engine.infostate import InfoState

PLAY, ALIFER_ANSWER, DONE = 0, 1, 2

_FIGURA_BITS = sum(1 << a for a in FIGURA_ACTIONS)
_ACES_BIT = 1 << ACES
_MANKO_BIT = 1 << MANKO
_PROPOSE_BIT = 1 << PROPOSE_ALIFER
_ANSWER_MASK = (1 << ACCEPT_ALIFER) | (1 << DECLINE_ALIFER)
_RANK_OF = tuple(c % 9 for c in range(36))
_SUIT_OF = tuple(c // 9 for c in range(36))


class IllegalActionError(ValueError):
    """An action outside the legal set (a ``ValueError``)."""


class Partie:
    """Mutable state of one partie. Seats: 0 = challenger, 1 = dealer."""

    __slots__ = (
        "config",
        "deal",
        "unit",
        "multiplier",
        "stake_multiple",
        "hands",
        "dealt",
        "bottom",
        "to_act",
        "phase",
        "trick",
        "lead",
        "leader",
        "ncards",
        "done",
        "counts",
        "aces_failed",
        "manko_answer",
        "first_decl",
        "aces_ok",
        "bianka_ok",
        "alifer_proposer",
        "card_points",
        "tricks",
        "two_winner",
        "history",
        "outcome",
        "winner",
        "forfeited_by",
        "propose_bit",
    )

    def __init__(
        self,
        deal: Deal,
        config: RuleConfig = DEFAULT_CONFIG,
        stake_multiple: int = 1,
        multiplier: int = 1,
        alifer_allowed: bool = True,
    ):
        if not isinstance(deal, Deal):
            raise TypeError(f"deal must be a Deal (deal_from_names builds one from card names), got {deal!r}")
        if not isinstance(config, RuleConfig):
            raise TypeError(f"config must be a RuleConfig, got {type(config).__name__}")
        check_positive_int("stake_multiple", stake_multiple)
        check_positive_int("multiplier", multiplier)
        self.config = config
        self.deal = deal
        self.stake_multiple = stake_multiple
        self.multiplier = multiplier
        self.unit = stake_multiple * multiplier
        hands = deal.hands
        self.hands = list(hands)
        self.dealt = hands
        self.bottom = deal.bottom
        self.to_act = 0  # the challenger leads trick 1
        self.phase = PLAY
        self.trick = 0  # completed tricks
        self.lead = -1
        self.leader = 0
        self.ncards = [0, 0]
        self.done = [0, 0]  # declaration/question/proposal action bits already used
        # Declared count per declaration action id (Figura, Aces), per seat.
        self.counts: tuple[dict[int, int], dict[int, int]] = ({}, {})
        self.aces_failed = [False, False]
        # Per declarer: ((rank, missing suit), ...).
        self.manko_answer: list[tuple[tuple[int, int], ...] | None] = [None, None]
        self.first_decl = tuple(first_card_declarations(h) for h in hands)
        self.aces_ok = tuple(aces_possible(h) for h in hands)
        self.bianka_ok = tuple((1 << BIANKA) if bianka_possible(h) else 0 for h in hands)
        self.alifer_proposer = -1
        self.card_points = [0, 0]
        self.tricks: list[tuple[int, int, int, int]] = []  # (leader, lead card, follow card, winner)
        self.two_winner: list[int] = []  # per completed trick: seat that won it with a Two, or -1
        self.history: list[tuple[int, int]] = []  # (seat, action) in order
        self.outcome: str | None = None
        self.winner: int | None = None
        self.forfeited_by: int | None = None
        if alifer_allowed not in (True, False):
            raise ValueError(f"alifer_allowed must be True or False, got {alifer_allowed!r}")
        self.propose_bit = _PROPOSE_BIT if alifer_allowed else 0

    # ------------------------------------------------------------------ copy
    def copy(self) -> Partie:
        """An independent copy of the partie (the deal and rule config are shared: both are immutable)."""
        new = Partie.__new__(Partie)
        new.config = self.config
        new.deal = self.deal
        new.stake_multiple = self.stake_multiple
        new.multiplier = self.multiplier
        new.unit = self.unit
        new.hands = self.hands[:]
        new.dealt = self.dealt
        new.bottom = self.bottom
        new.to_act = self.to_act
        new.phase = self.phase
        new.trick = self.trick
        new.lead = self.lead
        new.leader = self.leader
        new.ncards = self.ncards[:]
        new.done = self.done[:]
        new.counts = (dict(self.counts[0]), dict(self.counts[1]))
        new.aces_failed = self.aces_failed[:]
        new.manko_answer = self.manko_answer[:]
        new.first_decl = self.first_decl
        new.aces_ok = self.aces_ok
        new.bianka_ok = self.bianka_ok
        new.alifer_proposer = self.alifer_proposer
        new.card_points = self.card_points[:]
        new.tricks = self.tricks[:]
        new.two_winner = self.two_winner[:]
        new.history = self.history[:]
        new.outcome = self.outcome
        new.winner = self.winner
        new.forfeited_by = self.forfeited_by
        new.propose_bit = self.propose_bit
        return new

    # ------------------------------------------------------------ queries
    @property
    def terminal(self) -> bool:
        """Whether the partie is over."""
        return self.phase == DONE

    def legal_cards(self, seat: int | None = None) -> int:
        """Bit set of the cards ``seat`` (default: the one to act) may play."""
        hand = self.hands[self.to_act if seat is None else seat]
        if self.lead >= 0:
            follow = hand & SUIT_MASK[_SUIT_OF[self.lead]]
            if follow:
                return follow
        return hand

    def legal_mask(self) -> int:
        """Bit set over the 49 action ids; 0 once the partie is over."""
        if self.phase != PLAY:
            return _ANSWER_MASK if self.phase == ALIFER_ANSWER else 0
        p = self.to_act
        hand = self.hands[p]
        cards = (hand & SUIT_MASK[_SUIT_OF[self.lead]] or hand) if self.lead >= 0 else hand
        k = self.ncards[p]
        decl = self.bianka_ok[p] | self.propose_bit
        if k == 0:
            decl |= self.first_decl[p]
        if self.aces_ok[p] and (
            k == 0 or (self.config.ace_declaration == "first_ace" and hand & ACE_MASK == self.dealt[p] & ACE_MASK)
        ):
            decl |= _ACES_BIT
        if k == 1:
            for a, n in self.counts[1 - p].items():
                if n == 3 and a <= FIGURA_TWOS:
                    decl |= _MANKO_BIT
                    break
        return cards | (decl & ~self.done[p])

    def legal_actions(self) -> list[int]:
        """The legal action ids of the seat to act, ascending."""
        return cards_of(self.legal_mask())

    def is_legal(self, action: int) -> bool:
        """Whether action id ``action`` is legal for the seat to act."""
        return 0 <= action < N_ACTIONS and bool(self.legal_mask() >> action & 1)

    # ------------------------------------------------------------- apply
    def apply(self, action: int) -> None:
        """Apply one action of the seat to act (``self.to_act``)."""
        p = self.to_act
        if type(action) is not int:
            # numpy integers would leak into the bit sets; bools and floats are not actions.
            if isinstance(action, bool) or not hasattr(action, "__index__"):
                self._illegal(p, action)
                return
            action = action.__index__()
        if 0 <= action < 36 and self.phase == PLAY:
            bit = 1 << action
            hand = self.hands[p]
            lead = self.lead
            if hand & bit and (lead < 0 or bit & SUIT_MASK[_SUIT_OF[lead]] or not hand & SUIT_MASK[_SUIT_OF[lead]]):
                self.history.append((p, action))
                self._play(p, action, hand ^ bit)
                return
        elif self.is_legal(action):
            self.history.append((p, action))
            self._declare(p, action)
            return
        self._illegal(p, action)

    def _play(self, p: int, card: int, hand: int) -> None:
        self.hands[p] = hand
        self.ncards[p] += 1
        lead = self.lead
        if lead < 0:
            self.lead = card
            self.leader = p
            self.to_act = 1 - p
            return
        leader = self.leader
        # Same suit: higher id is the higher card; another suit never wins.
        winner = p if (_SUIT_OF[card] == _SUIT_OF[lead] and card > lead) else leader
        self.card_points[winner] += CARD_POINTS[lead] + CARD_POINTS[card]
        if self.counts[p].get(ACES) and _RANK_OF[card] == ACE and winner != p:
            self.aces_failed[p] = True
        win_card = card if winner == p else lead
        self.two_winner.append(winner if _RANK_OF[win_card] == 0 else -1)
        self.tricks.append((leader, lead, card, winner))
        self.trick += 1
        self.lead = -1
        self.to_act = winner
        if self.trick == 9:
            self._finish_by_points()

    def _declare(self, p: int, action: int) -> None:
        if action == ACCEPT_ALIFER:
            self._end(None, AGREED_ALIFER)
            return
        if action == DECLINE_ALIFER:
            self.phase = PLAY
            self.to_act = self.alifer_proposer
            self.alifer_proposer = -1
            return
        self.done[p] |= 1 << action
        if action == PROPOSE_ALIFER:
            self.alifer_proposer = p
            self.phase = ALIFER_ANSWER
            self.to_act = 1 - p
        elif action == MANKO:
            declarer = 1 - p
            dealt = self.dealt[declarer]
            self.manko_answer[declarer] = tuple(
                (FIGURA_RANK[a], missing_suit(dealt, FIGURA_RANK[a]))
                for a, n in sorted(self.counts[declarer].items())
                if n == 3 and a in FIGURA_RANK
            )
        elif action in FIGURA_RANK:
            self.counts[p][action] = rank_count(self.hands[p], FIGURA_RANK[action])
        elif action == ACES:
            self.counts[p][ACES] = (self.hands[p] & ACE_MASK).bit_count()
        else:  # Blans, Bianka: no count
            self.counts[p][action] = 1

    def _illegal(self, p: int, action: int) -> None:
        legal = [f"{a} ({action_name(a)})" for a in self.legal_actions()]
        try:
            what = f"{action} ({action_name(action)})"
        except ValueError:
            what = repr(action)
        if self.phase == DONE:
            raise IllegalActionError(f"the partie is over; action {what} cannot be applied")
        if self.config.illegal_action == "forfeit":
            self.history.append((p, action))
            self.forfeited_by = p
            self._end(1 - p, FORFEIT)
            return
        raise IllegalActionError(f"illegal action {what} for seat {p}; legal: {', '.join(legal)}")

    def _finish_by_points(self) -> None:
        totals = final_totals(self)
        if totals[0] == totals[1]:
            self._end(None, TIE)
        else:
            self._end(0 if totals[0] > totals[1] else 1, DECIDED)

    def _end(self, winner: int | None, outcome: str) -> None:
        self.phase = DONE
        self.winner = winner
        self.outcome = outcome
        self.alifer_proposer = -1

    # ------------------------------------------------------------ results
    def result(self) -> PartieResult:
        """The settled result (``scoring.PartieResult``) of a finished partie."""
        if self.phase != DONE:
            raise RuntimeError("the partie is not over yet")
        return settle(self)

    def info_state(self, seat: int) -> InfoState:
        """What ``seat`` may know (``infostate.InfoState``)."""
        from trappola_env.engine.infostate import InfoState

        return InfoState(self, seat)

    def __repr__(self) -> str:
        from trappola_env.engine.render import render_partie

        return render_partie(self)
