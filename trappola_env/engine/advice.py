"""Advice in a Pro partie (docs/rules.md section 8, Art. 5.3): the action
ids an adviser answers with, and which defender actions the public record
leaves possible.

While a Pro partie is played, the waiting players may advise the defender
(the challenger: the Pro declarer always deals). Advice is one suggested
action of the defender, or no advice. Its ids follow the 49 ids of the
shared table:

| id | advice | ``advice_name`` |
|---|---|---|
| 49 + a, a in 0..46 | "do action a" (a card, declaration, Manko, Alifer move) | ``advise play AS`` .. |
| 96 | no advice | ``no advice`` |

(The names run from ``advise play AS`` to ``advise decline Alifer``; an Alifer move is
propose, accept or decline.)

An adviser sees only the public record, never a hand, so it may suggest
only what the defender could possibly do on that record
(``possible_mask``): a card nobody has seen yet (not played, not the
face-up stock card) outside the suits the defender failed to follow; a
declaration whose moment has not passed by the record (Figura and Blans
before the defender's first card, Aces before its first Ace under the
default ``ace_declaration``, Bianka while it has played no court card or
Ace, Manko at its second card after a 3-card Figura of the declarer); a
proposal while it has one left; accept or decline, and nothing else, when
a proposal waits for its answer. This is a superset of the defender's
legal actions (a test checks it over random games) and depends on nothing
hidden (another test deals the hidden cards afresh and gets the same mask).
Misleading advice is allowed: the advice need not be what the adviser
believes best.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trappola_env.engine.actions import (
    ACCEPT_ALIFER,
    ACES,
    BIANKA,
    BLANS,
    DECLINE_ALIFER,
    FIGURA_RE,
    FIGURA_TWOS,
    MANKO,
    N_ACTIONS,
    PROPOSE_ALIFER,
    action_name,
)
from trappola_env.engine.cards import ACE_MASK, ALL_CARDS, COURT_MASK, SUIT_MASK

if TYPE_CHECKING:
    from trappola_env.engine.infostate import InfoState

ADVICE_BASE = N_ACTIONS  # 49: advice id of "do action 0"
ADVISABLE = DECLINE_ALIFER + 1  # 47: the defender's actions 0..46 can be advised
NO_ADVICE = ADVICE_BASE + ADVISABLE  # 96
N_ACTIONS_WITH_ADVICE = NO_ADVICE + 1  # 97: the action space of bulka_v0(advice=True)

_FIRST_CARD_DECLS = sum(1 << a for a in range(FIGURA_RE, FIGURA_TWOS + 1)) | (1 << BLANS)
_ANSWERS = (1 << ACCEPT_ALIFER) | (1 << DECLINE_ALIFER)


def advice_id(action: int) -> int:
    """The advice id that suggests defender action ``action`` (0..46)."""
    if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < ADVISABLE:
        raise ValueError(f"only the defender's actions 0..{ADVISABLE - 1} can be advised, got {action!r}")
    return ADVICE_BASE + action


def advised_action(advice: int) -> int | None:
    """The defender action an advice id suggests; ``None`` for no advice."""
    if isinstance(advice, bool) or not isinstance(advice, int) or not ADVICE_BASE <= advice <= NO_ADVICE:
        raise ValueError(f"an advice id is in {ADVICE_BASE}..{NO_ADVICE}, got {advice!r}")
    return None if advice == NO_ADVICE else advice - ADVICE_BASE


def advice_name(advice: int) -> str:
    """``"advise play AS"``, ``"advise declare Aces"``, ``"no advice"``."""
    action = advised_action(advice)
    return "no advice" if action is None else "advise " + action_name(action)


def possible_mask(info: InfoState) -> int:
    """Bit set of the defender actions (ids 0..46) that the public record
    of ``info`` (an ``InfoState`` of the defender's seat, of which only
    public fields are read: never ``hand`` or ``dealt``) leaves possible;
    see the module docstring. ``alifer_allowed`` is whether the partie
    allows proposals at all."""
    seat = info.seat
    if info.alifer_proposer == 1 - seat:  # a proposal of the declarer waits for the defender's answer
        return _ANSWERS
    seen = 1 << info.bottom
    for _, lead, follow, _ in info.tricks:
        seen |= (1 << lead) | (1 << follow)
    if info.lead >= 0:
        seen |= 1 << info.lead
    cards = ALL_CARDS & ~seen
    for suit in info.void_suits(seat):
        cards &= ~SUIT_MASK[suit]
    played = 0
    for c in info.played_by(seat):
        played |= 1 << c
    k = info.ncards[seat]
    decl = 0
    if k == 0:
        decl |= _FIRST_CARD_DECLS
    if k == 0 or (info.ace_declaration == "first_ace" and not played & ACE_MASK):
        decl |= 1 << ACES
    if not played & (COURT_MASK | ACE_MASK):
        decl |= 1 << BIANKA
    if k == 1 and any(n == 3 and a <= FIGURA_TWOS for a, n in info.declarations[1 - seat].items()):
        decl |= 1 << MANKO
    if info.alifer_allowed:
        decl |= 1 << PROPOSE_ALIFER
    return cards | (decl & ~info.used[seat])


def advice_mask(info: InfoState) -> int:
    """The adviser's legal actions: one advice id per possible defender
    action (``possible_mask``), and no advice."""
    return possible_mask(info) << ADVICE_BASE | 1 << NO_ADVICE


__all__ = [
    "ADVICE_BASE",
    "ADVISABLE",
    "NO_ADVICE",
    "N_ACTIONS_WITH_ADVICE",
    "advice_id",
    "advised_action",
    "advice_name",
    "possible_mask",
    "advice_mask",
]
