"""Trick bonuses (docs/rules.md section 5, Art. 10)."""

from __future__ import annotations

from collections.abc import Sequence

MARC = (30, 10)
FIRST_TRICK_TWO = (52, 20)
MIDDLE_TWO = (10, 5)
LAST_TWOS = {1: (26, 10), 2: (52, 20), 3: (78, 30)}  # 4a, 4b, 4c
LAST_TRICK = (6, 0)
BONUS_NAMES = {1: "4a", 2: "4b", 3: "4c"}


def last_two_streak(two_winner: Sequence[int]) -> int:
    """s: the largest k <= 3 such that the last k tricks were all won with a
    Two by the same player. ``two_winner[t]`` is the seat that won trick t+1
    with a Two, or -1."""
    last = two_winner[8]
    if last < 0:
        return 0
    s = 1
    while s < 3 and two_winner[8 - s] == last:
        s += 1
    return s


def trick_bonuses(winners: Sequence[int], two_winner: Sequence[int]) -> list[tuple[str, int, int, int]]:
    """Bonuses of a finished partie as (name, earner seat, points, payment
    the earner's opponent makes into the Bulka), in base units.
    ``winners[t]`` is the seat that won trick t+1."""
    out = []
    if winners.count(winners[0]) == 9:
        out.append(("Marc", winners[0], *MARC))
    if two_winner[0] >= 0:
        out.append(("trick 1 with a Two", two_winner[0], *FIRST_TRICK_TWO))
    s = last_two_streak(two_winner)
    for t in range(1, 9 - s):
        if t < 8 and two_winner[t] >= 0:
            out.append((f"trick {t + 1} with a Two", two_winner[t], *MIDDLE_TWO))
    if s:
        out.append((f"{BONUS_NAMES[s]}: last {s} with Twos", two_winner[8], *LAST_TWOS[s]))
    else:
        out.append(("last trick", winners[8], *LAST_TRICK))
    return out
