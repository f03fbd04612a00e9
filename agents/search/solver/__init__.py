"""Double-dummy (open-card) solver for Trappola.

Given both hands and the history that still matters, ``solve`` returns the
exact final score difference (seat 0's total minus seat 1's total, docs/rules.md
section 2.4) when both players play perfectly from here: seat 0 maximises,
seat 1 minimises.  Only card plays are moves; declarations are taken as
already made (their points are in ``base_diff`` and the Aces fields).

Python API::

    pos = Position(hands=(h0, h1), to_move=0, lead_card=-1, tricks_done=0,
                   card_points=(0, 0), tricks_won=(0, 0), two_winner=())
    solve(pos)          # -> int
    solve_moves(pos)    # -> {card id: value after playing it}

Fast API for sampling players (numba-callable, no Python objects): the
``*_raw`` functions take the same fields as numbers plus a transposition
table from ``new_table()``; the ``*_batch_raw`` variants solve many layouts
of one public state in a single call::

    table = new_table()                     # keep it: reuse for every call
    args = raw_args(pos)                    # or build the tuple yourself
    values = solve_moves_batch_raw(h0s, h1s, *args[2:], table)
    # values[i, card] = final difference after `card` in layout i,
    # NOT_LEGAL for cards that cannot be played

``h0s``/``h1s`` are int64 arrays of hands.  The raw functions release the
GIL; threads must not share a table.

See ``search.py`` for how the search works and ``rules_kernel.py`` for the
scoring it relies on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from trappola.agents.search.solver._numba_cache import drop_stale_cache, numba_sources

drop_stale_cache()  # before the numba modules load their cached code

from trappola.agents.search.solver.search import (  # noqa: E402
    NOT_LEGAL,
    count_nodes_raw,
    new_table,
    search_window_raw,
    solve_batch_raw,
    solve_moves_batch_raw,
    solve_moves_raw,
    solve_raw,
)

__all__ = [
    "Position",
    "solve",
    "solve_moves",
    "solve_raw",
    "solve_moves_raw",
    "solve_batch_raw",
    "solve_moves_batch_raw",
    "count_nodes_raw",
    "search_window_raw",
    "new_table",
    "default_table",
    "raw_args",
    "NOT_LEGAL",
    "numba_sources",
]


@dataclass
class Position:
    """A partie in progress, as plain ints (engine-independent).

    hands: cards still held by seat 0 and seat 1 (36-bit masks).
    to_move: seat to play now.
    lead_card: -1 if ``to_move`` leads; else the card already led to this
        trick by the other seat (no longer in its hand).
    tricks_done: completed tricks, 0..8.
    card_points, tricks_won: per seat, from the completed tricks.
    two_winner: per completed trick, the seat that won it with a Two, or -1.
    aces_declared: 0, 3 or 4 per seat; aces_failed: whether a declared Ace
        already lost its trick.
    base_diff: every other fixed point (Figura, Blans, Bianka...), seat 0
        minus seat 1.
    """

    hands: tuple[int, int]
    to_move: int
    lead_card: int
    tricks_done: int
    card_points: tuple[int, int]
    tricks_won: tuple[int, int]
    two_winner: tuple[int, ...]
    aces_declared: tuple[int, int] = (0, 0)
    aces_failed: tuple[bool, bool] = (False, False)
    base_diff: int = 0

    def validate(self) -> None:
        """Raise ValueError if the fields cannot describe a real position."""
        h0, h1 = (int(h) for h in self.hands)
        td = self.tricks_done
        if not 0 <= td <= 8:
            raise ValueError(f"tricks_done must be 0..8, got {td}")
        if self.to_move not in (0, 1):
            raise ValueError(f"to_move must be 0 or 1, got {self.to_move}")
        full = (1 << 36) - 1
        if h0 & ~full or h1 & ~full or h0 & h1:
            raise ValueError("hands must be disjoint 36-bit card sets")
        mover = self.to_move
        n_mover = bin(self.hands[mover]).count("1")
        n_other = bin(self.hands[1 - mover]).count("1")
        if n_mover != 9 - td:
            raise ValueError(f"seat {mover} should hold {9 - td} cards, holds {n_mover}")
        if self.lead_card == -1:
            if n_other != 9 - td:
                raise ValueError(f"seat {1 - mover} should hold {9 - td} cards, holds {n_other}")
        else:
            if not 0 <= self.lead_card < 36 or (h0 | h1) >> self.lead_card & 1:
                raise ValueError(f"lead_card {self.lead_card} must be a card no hand holds")
            if n_other != 8 - td:
                raise ValueError(f"seat {1 - mover} led, so should hold {8 - td} cards, holds {n_other}")
        if len(self.two_winner) != td or any(w not in (-1, 0, 1) for w in self.two_winner):
            raise ValueError("two_winner needs one entry (-1, 0 or 1) per completed trick")
        if sum(self.tricks_won) != td:
            raise ValueError("tricks_won must add up to tricks_done")
        for d in self.aces_declared:
            if d not in (0, 3, 4):
                raise ValueError(f"aces_declared entries must be 0, 3 or 4, got {d}")


_DEFAULT_TABLE: np.ndarray | None = None


def default_table() -> np.ndarray:
    """The transposition table shared by ``solve`` and ``solve_moves`` calls
    that do not pass their own (keys are complete, so sharing is safe)."""
    global _DEFAULT_TABLE
    if _DEFAULT_TABLE is None:
        _DEFAULT_TABLE = new_table()
    return _DEFAULT_TABLE


def raw_args(pos: Position) -> tuple:
    """The positional arguments of the ``*_raw`` functions (without the table)."""
    two_hist = np.full(9, -1, dtype=np.int64)
    two_hist[: pos.tricks_done] = pos.two_winner
    return (
        np.int64(pos.hands[0]),
        np.int64(pos.hands[1]),
        pos.to_move,
        pos.lead_card,
        pos.tricks_done,
        pos.card_points[0],
        pos.card_points[1],
        pos.tricks_won[0],
        pos.tricks_won[1],
        two_hist,
        pos.aces_declared[0],
        pos.aces_declared[1],
        bool(pos.aces_failed[0]),
        bool(pos.aces_failed[1]),
        pos.base_diff,
    )


def solve(pos: Position, table: np.ndarray | None = None) -> int:
    """Exact final score difference (seat 0 minus seat 1) under optimal play."""
    pos.validate()
    tt = default_table() if table is None else table
    return int(solve_raw(*raw_args(pos), tt))


def solve_moves(pos: Position, table: np.ndarray | None = None) -> dict[int, int]:
    """Final score difference after each legal card of ``to_move``, with
    optimal play afterwards.  Seat 0 picks a card of maximal value, seat 1
    one of minimal value; ``solve(pos)`` is that best value."""
    pos.validate()
    tt = default_table() if table is None else table
    values = solve_moves_raw(*raw_args(pos), tt)
    return {c: int(v) for c, v in enumerate(values) if v != NOT_LEGAL}
