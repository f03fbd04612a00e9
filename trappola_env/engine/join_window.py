"""When a newcomer may join a Bulka session that has a non-empty Bulka
(docs/rules.md section 8, Art. 4): only if, "had it queued at the end when the
Bulka was last emptied, it would not yet have come to the table".

Precise definition used here. Let t0 be the moment the Bulka was last
emptied: the start of the session (before any stake), or the moment a Pro
winner took it, taken *after* the re-seating that goes with that Pro win
(the Pro winner, and with 4 players the defender, are already at the end of
the queue). Put a virtual player V at the end of the queue as it stood at
t0; V never plays. Replay everything since t0: each time a player moves
from the head of the queue to the table (one per normal rotation, two after
a 4-player Pro win) V moves up one place, or comes to the table if it was at
the head; each waiting player ahead of V who leaves also moves V up. Players
who join after t0, and losers sent to the end of the queue, line up behind V.
An Alifer replay moves nobody. The newcomer may join while V has not come to
the table.

``ahead`` counts the players ahead of V; V comes to the table on the pop
that finds ``ahead == 0``.
"""

from __future__ import annotations


class JoinWindow:
    """Whether a newcomer may still join: the virtual player V of the module
    docstring and the number of players ahead of it."""

    __slots__ = ("ahead", "seated")

    def __init__(self, queue_length: int):
        self.reset(queue_length)

    def reset(self, queue_length: int) -> None:
        """The Bulka was just emptied; the queue then holds ``queue_length``."""
        self.ahead = queue_length
        self.seated = False

    def popped(self, count: int) -> None:
        """``count`` players went from the head of the queue to the table."""
        if not self.seated:
            self.ahead -= count
            if self.ahead < 0:
                self.seated = True

    def left(self, queue_index: int) -> None:
        """A waiting player at ``queue_index`` (0 = head) left."""
        if not self.seated and queue_index < self.ahead:
            self.ahead -= 1

    @property
    def open(self) -> bool:
        """Whether V has not yet come to the table."""
        return not self.seated
