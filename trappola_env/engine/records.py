"""What every player at a Bulka table can know about the others: each
player's record so far in the session (docs/rules.md section 8), from the
public history of parties alone (``Session.history``).

For a player ``me`` and each other player ``x``:

* ``won_vs_me`` / ``lost_vs_me``: decided parties ``x`` won / lost against ``me``;
* ``won`` / ``lost``: decided parties ``x`` won / lost against anyone;
* ``pro_declared`` / ``pro_won``: Pro parties ``x`` declared (counted once
  its Pro partie is decided, Alifer replays included) / won.

Alifers (a tie or an agreed Alifer) decide nothing and count nowhere; a
forfeit is a decided loss of the offender (Art. 12). ``SessionRecords``
keeps the counts of all pairs and reads only the parties added since its
last update, so an environment can refresh it at every step.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from trappola_env.engine.history import History


class Record(NamedTuple):
    """One player's record, seen from another player (see the module docstring)."""

    won_vs_me: int = 0
    lost_vs_me: int = 0
    won: int = 0
    lost: int = 0
    pro_declared: int = 0
    pro_won: int = 0


class SessionRecords:
    """Counts per player and per pair from a session's history."""

    __slots__ = ("won", "lost", "pro_declared", "pro_won", "beat", "_seen")

    def __init__(self) -> None:
        self.won: dict[str, int] = {}
        self.lost: dict[str, int] = {}
        self.pro_declared: dict[str, int] = {}
        self.pro_won: dict[str, int] = {}
        self.beat: dict[tuple[str, str], int] = {}  # (winner, loser) -> decided parties
        self._seen = 0

    def update(self, history: History) -> SessionRecords:
        """Read the parties of ``history`` (a ``Session.history``) not read
        yet; returns self."""
        n = len(history)
        if n < self._seen:
            raise ValueError("a session's history only grows: this is another session's")
        for rec in history[self._seen : n]:
            winner, loser = rec.winner, rec.loser
            if winner is None or loser is None:  # both None together: an Alifer
                continue
            self.won[winner] = self.won.get(winner, 0) + 1
            self.lost[loser] = self.lost.get(loser, 0) + 1
            self.beat[winner, loser] = self.beat.get((winner, loser), 0) + 1
            pro = rec.pro_declarer
            if pro is not None:
                self.pro_declared[pro] = self.pro_declared.get(pro, 0) + 1
                if winner == pro:
                    self.pro_won[pro] = self.pro_won.get(pro, 0) + 1
        self._seen = n
        return self

    def record(self, x: str, me: str) -> Record:
        """``x``'s record as ``me`` sees it."""
        return Record(
            self.beat.get((x, me), 0),
            self.beat.get((me, x), 0),
            self.won.get(x, 0),
            self.lost.get(x, 0),
            self.pro_declared.get(x, 0),
            self.pro_won.get(x, 0),
        )


def session_records(history: History, me: str, players: Iterable[str]) -> dict[str, Record]:
    """``{x: Record}`` for every ``x`` of ``players`` (``me`` included: its
    own overall record, with zeros against itself), from ``history``."""
    counts = SessionRecords().update(history)
    return {x: counts.record(x, me) for x in players}


__all__ = ["Record", "SessionRecords", "session_records"]
