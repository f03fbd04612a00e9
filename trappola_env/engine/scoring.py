"""Scoring and settlement of a partie (docs/rules.md sections 2.4-2.5, 4, 5, 6, 7).

Points decide the partie; tokens settle it. Payments are computed in base
units and multiplied by ``stake_multiple * m`` (``partie.unit``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from trappola_env.engine.actions import ACES, ACTION_NAMES
from trappola_env.engine.bonuses import trick_bonuses
from trappola_env.engine.declarations import declaration_value
from trappola_env.engine.partie_state import PartieState

BASE_STAKE = 10
DECIDED, TIE, AGREED_ALIFER, FORFEIT = "decided", "tie", "agreed_alifer", "forfeit"


@dataclass(frozen=True)
class Score:
    """One seat's points in a partie: card points, declaration points and trick bonus points."""

    card_points: int
    declaration_points: int
    bonus_points: int

    @property
    def total(self) -> int:
        """The seat's total points (what decides the partie)."""
        return self.card_points + self.declaration_points + self.bonus_points

    def to_dict(self) -> dict[str, int]:
        """The three parts and the total as a dict."""
        return {**asdict(self), "total": self.total}


@dataclass(frozen=True)
class PartieResult:
    """Per-seat tuples are indexed 0 = challenger, 1 = dealer.

    ``declaration_tokens[s]``: tokens seat s received from its opponent for
    its declarations (gross; it also paid the opponent's).
    ``bonus_tokens[s]``: tokens seat s paid into the Bulka for the
    opponent's trick bonuses. ``tokens[s]``: net change of s's balance
    (stake included). ``bulka_in``: everything paid into the Bulka."""

    outcome: str  # decided | tie | agreed_alifer | forfeit
    winner: int | None
    scores: tuple[Score, Score]
    stake: int
    declaration_tokens: tuple[int, int]
    bonus_tokens: tuple[int, int]
    tokens: tuple[int, int]
    bulka_in: int
    details: tuple[tuple[int, str, int, int], ...] = field(default=())  # (seat, what, points, payment in tokens)
    forfeited_by: int | None = None

    @property
    def settled(self) -> bool:
        """Whether declaration and bonus payments were settled."""
        return self.outcome in (DECIDED, TIE)


def declaration_lines(partie: PartieState, seat: int) -> list[tuple[str, int, int]]:
    """(name, points, payment units) of each declaration ``seat`` made."""
    out = []
    for action, count in sorted(partie.counts[seat].items()):
        pts, pay = declaration_value(action, count, not partie.aces_failed[seat])
        name = ACTION_NAMES[action].replace("declare ", "")
        if action == ACES or action < 40:
            name = f"{name} ({count})"
            if action == ACES:
                name += " all won" if not partie.aces_failed[seat] else " one lost"
        out.append((name, pts, pay))
    return out


def final_totals(partie: PartieState) -> tuple[int, int]:
    """Each seat's total points at the end of the 9 tricks (card points, declarations, trick bonuses)."""
    challenger, dealer = _scores(partie, finished=True)
    return challenger.total, dealer.total


def _scores(partie: PartieState, finished: bool) -> tuple[Score, Score]:
    decl = [sum(p for _, p, _ in declaration_lines(partie, s)) for s in (0, 1)]
    bonus = [0, 0]
    if finished:
        winners = [t[3] for t in partie.tricks]
        for _, seat, pts, _ in trick_bonuses(winners, partie.two_winner):
            bonus[seat] += pts
    return Score(partie.card_points[0], decl[0], bonus[0]), Score(partie.card_points[1], decl[1], bonus[1])


def settle(partie: PartieState) -> PartieResult:
    """Settle a finished partie. A partie abandoned by agreed Alifer or lost
    by forfeit settles nothing beyond the stakes; its scores are the points
    of the play so far (declarations as they stand, no trick bonuses)."""
    outcome = partie.outcome
    if outcome is None:
        raise RuntimeError("the partie is not over yet")
    u = partie.unit
    stake = BASE_STAKE * u
    finished = len(partie.tricks) == 9 and partie.outcome in (DECIDED, TIE)
    scores = _scores(partie, finished)
    details = []
    decl_units = [0, 0]
    bonus_units = [0, 0]  # paid by this seat into the Bulka
    for s in (0, 1):
        for name, pts, pay in declaration_lines(partie, s):
            decl_units[s] += pay
            details.append((s, name, pts, pay * u))
    if finished:
        winners = [t[3] for t in partie.tricks]
        for name, seat, pts, pay in trick_bonuses(winners, partie.two_winner):
            bonus_units[1 - seat] += pay
            details.append((seat, name, pts, pay * u))
    if partie.outcome not in (DECIDED, TIE):
        decl_units = [0, 0]
        bonus_units = [0, 0]
        details = [(s, name, pts, 0) for s, name, pts, _ in details]
    decl_tokens = (decl_units[0] * u, decl_units[1] * u)
    bonus_tokens = (bonus_units[0] * u, bonus_units[1] * u)
    tokens = (
        -stake + decl_tokens[0] - decl_tokens[1] - bonus_tokens[0],
        -stake + decl_tokens[1] - decl_tokens[0] - bonus_tokens[1],
    )
    return PartieResult(
        outcome=outcome,
        winner=partie.winner,
        scores=scores,
        stake=stake,
        declaration_tokens=decl_tokens,
        bonus_tokens=bonus_tokens,
        tokens=tokens,
        bulka_in=2 * stake + bonus_tokens[0] + bonus_tokens[1],
        details=tuple(details),
        forfeited_by=partie.forfeited_by,
    )
