"""Who sits at the table after a decided partie (docs/rules.md section 8, Art. 4
and Art. 5). An Alifer changes nobody's place: the same two replay.

Both functions take the queue as a list (head = waiting longest) and update
it in place, because the session calls them once per partie and a copy
would be wasted; they return ``(dealer, challenger, pops)`` where ``pops``
is how many players left the head of the queue for the table (the session
uses it to know who has "come to the table" since the Bulka was last
emptied, for joining).
"""

from __future__ import annotations


def rotate_normal(winner: str, loser: str, queue: list[str]) -> tuple[str, str, int]:
    """The winner stays and deals; the loser goes to the end of the queue;
    the head of the queue challenges. With 2 players the queue was empty, so
    the loser challenges at once. Also used when a Pro declarer loses (the
    defender, the winner, deals)."""
    queue.append(loser)
    return winner, queue.pop(0), 1


def rotate_pro_won(pro_winner: str, defender: str, queue: list[str], n_players: int) -> tuple[str, str, int]:
    """After a Pro win, with ``n_players`` present at that moment.

    4 players: the defeated defender and then the Pro winner go to the end
    of the queue; the two longest-waiting come to the table, the longer
    waiting of them as dealer. 3 players: the defender stays as dealer, the
    Pro winner goes to the end of the queue and the one who waited
    challenges. 2 players **[ruling]**: the same as 3 with nobody waiting,
    so the defender deals and the Pro winner challenges."""
    if n_players >= 4:
        queue.append(defender)
        queue.append(pro_winner)
        dealer = queue.pop(0)
        return dealer, queue.pop(0), 2
    queue.append(pro_winner)
    return defender, queue.pop(0), 1
