"""The equity of declaring Pro, by dynamic programming over a Bulka session (docs/rules.md section 8).

A take-point model in the manner of backgammon's match-equity tables: the session is reduced to who
sits where, the dealer's streak, the Bulka and the parties left, and every partie to a coin, won by
the dealer ``i`` against the challenger ``j`` with probability ``win[i][j]``. Player 0 is the focal
player. Money is counted in stakes (``base_stake * stake_multiple``; every Pro offer is at ``m = 1``,
and coin parties are never tied, so there is no Alifer): each partie both players pay 1 into the
Bulka, a Pro declarer 1 more, a Pro winner takes the whole Bulka, and the Bulka left after
``parties`` parties is split equally among the ``n`` players. Seating follows
``trappola_env.engine.rotation`` exactly (the loser to the end of the queue; after a Pro win the 4-
and the 3/2-player rules).

State: the seating ``order`` (dealer, challenger, then the queue from its head), the dealer's streak
(0, 1, or 2 meaning "2 or more": only then is Pro offered), the Bulka ``b`` and the parties played.
``SessionModel.solve()`` computes backwards, for every state, the focal player's expected tokens
from there to the end of the session (its Bulka share included). The other players follow fixed Pro
rules (``"always"``, ``"never"`` or a Bulka threshold in stakes); the focal player follows its own
(``"optimal"``: the better of declaring and waiting at every offer, or a fixed rule). At each offer
of the focal player ``advantage(...)`` is the equity of declaring minus that of waiting, each followed
by the focal player's rule; declaring pays where it is positive. ``threshold(...)`` is the least Bulka
at which it does: the take point.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

PRO_STREAK = 2


def _declares(rule, b: np.ndarray) -> np.ndarray:
    """Whether a fixed Pro rule declares at each Bulka of ``b`` (in stakes)."""
    if rule == "always":
        return np.ones(b.shape, dtype=bool)
    if rule == "never":
        return np.zeros(b.shape, dtype=bool)
    if isinstance(rule, (int, float)) and not isinstance(rule, bool):
        return b >= float(rule)
    raise ValueError(f"a Pro rule is 'always', 'never' or a Bulka threshold in stakes, got {rule!r}")


def after_partie(order: tuple, dealer_won: bool, pro: bool) -> tuple[tuple, int, bool]:
    """(seating after the partie, the new dealer's streak, whether the Bulka was taken), streaks of a
    dealer that won counted by the caller; mirrors ``trappola_env.engine.rotation``."""
    d, c, queue = order[0], order[1], list(order[2:])
    n = len(order)
    if dealer_won and pro:
        if n >= 4:
            return tuple(queue + [c, d]), 0, True
        return (c, *queue, d), 0, True
    if dealer_won:
        return (d, *queue, c), -1, False  # -1: the dealer's streak goes up by one
    return (c, *queue, d), 1, False


class SessionModel:
    """The dynamic programme of the module docstring for ``win`` (an n x n matrix of the dealer's
    chance to win against the challenger, n = 2..4), ``parties`` parties, the others' Pro ``rules``
    (players 1..n-1) and the focal player's ``focal`` rule."""

    def __init__(self, win, parties: int, rules=None, focal="optimal"):
        self.win = np.asarray(win, dtype=float)
        n = self.n = self.win.shape[0]
        if self.win.shape != (n, n) or not 2 <= n <= 4:
            raise ValueError(f"win must be a square matrix of 2 to 4 players, got shape {self.win.shape}")
        if ((self.win < 0) | (self.win > 1)).any():
            raise ValueError("win probabilities must lie in [0, 1]")
        if isinstance(parties, bool) or not isinstance(parties, int) or parties < 1:
            raise ValueError(f"parties must be a positive int, got {parties!r}")
        self.parties = parties
        self.rules = list(rules) if rules is not None else ["always"] * (n - 1)
        if len(self.rules) != n - 1:
            raise ValueError(f"rules: one Pro rule per other player ({n - 1}), got {len(self.rules)}")
        self.focal = focal
        self.orders = list(itertools.permutations(range(n)))
        self.bmax = 3 * parties + 4
        self._values: list[Any] | None = None  # per parties played: (seating, streak) -> value by Bulka
        self._adv: dict = {}

    def _rule(self, player: int):
        return self.focal if player == 0 else self.rules[player - 1]

    def solve(self) -> SessionModel:
        """Fill the value tables (once); returns the model."""
        if self._values is not None:
            return self
        b = np.arange(self.bmax + 4, dtype=float)
        size = len(b)
        terminal = {(o, s): b / self.n for o in self.orders for s in range(PRO_STREAK + 1)}
        values: list[Any] = [None] * (self.parties + 1)
        values[self.parties] = terminal
        for t in range(self.parties - 1, -1, -1):
            nxt = values[t + 1]
            cur = {}
            for order in self.orders:
                d, c = order[0], order[1]
                p = self.win[d, c]
                pay = -1.0 if 0 in (d, c) else 0.0
                for s in range(PRO_STREAK + 1):
                    wait = self._branch(nxt, order, s, p, pay, False, b, size)
                    if s < PRO_STREAK:
                        cur[order, s] = wait
                        continue
                    declare = self._branch(nxt, order, s, p, pay, True, b, size)
                    if d == 0:
                        self._adv[t, order] = declare - wait
                        if self.focal == "optimal":
                            cur[order, s] = np.maximum(declare, wait)
                            continue
                    cur[order, s] = np.where(_declares(self._rule(d), b), declare, wait)
            values[t] = cur
        self._values = values
        return self

    def _branch(self, nxt, order, s, p, pay, pro, b, size) -> np.ndarray:
        """Focal equity of the partie at ``order`` (dealer streak ``s``) and after, the dealer declaring
        Pro or not, for every Bulka."""
        d = order[0]
        add = 3 if pro else 2
        flow = pay - (1.0 if pro and d == 0 else 0.0)
        won_order, won_streak, taken = after_partie(order, True, pro)
        lost_order, lost_streak, _ = after_partie(order, False, pro)

        def at(table, shift):
            # the table at Bulka b + shift; beyond the largest reachable Bulka the last value stands
            return np.concatenate([table[shift:], np.full(shift, table[-1])])[:size]

        if taken:
            won = nxt[won_order, won_streak][0] + ((b + add) if d == 0 else 0.0)
        else:
            won = at(nxt[won_order, min(s + 1, PRO_STREAK)], add)
        lost = at(nxt[lost_order, lost_streak], add)
        return flow + p * won + (1 - p) * lost

    def value(self, order=None, streak: int = 0, bulka: int = 0, played: int = 0) -> float:
        """The focal player's expected tokens from a state to the end (in stakes); without ``order``
        the mean over the n! seatings of a session's start (every seating is equally likely)."""
        self.solve()
        assert self._values is not None  # solve() filled them
        if order is None:
            return float(np.mean([self._values[0][o, 0][0] for o in self.orders]))
        return float(self._values[played][tuple(order), min(streak, PRO_STREAK)][bulka])

    def advantage(self, order, bulka: int, played: int) -> float:
        """Declaring minus waiting at the focal player's offer (it deals at ``order``, streak 2 or more)."""
        self.solve()
        order = tuple(order)
        if not 0 <= played < self.parties:
            raise ValueError(f"played must be in 0..{self.parties - 1}, got {played!r}")
        if order[0] != 0:
            raise ValueError(f"the focal player (0) must deal at an offer, got order {order}")
        return float(self._adv[played, order][bulka])

    def threshold(self, order, played: int = 0) -> float:
        """The least Bulka (stakes) at which declaring is worth at least waiting; inf if none below the
        largest reachable Bulka."""
        self.advantage(order, 0, played)  # checks the arguments
        adv = self._adv[played, tuple(order)][: self.bmax]
        ok = np.flatnonzero(adv >= 0)
        return float(ok[0]) if len(ok) else float("inf")


def three_player_win(p: float, q: float, r: float = 0.5) -> np.ndarray:
    """The win matrix of a 3-player table for the chart: the focal player (0) wins a partie it deals
    against player 1 (the challenger at the offer) with ``p`` and against player 2 (next in the
    queue) with ``q``; as challenger it wins with the complements (the chance of the dealer against
    it is the same, roles ignored); ``r``: player 1 dealing against 2."""
    return np.array([[0.5, p, q], [1 - p, 0.5, r], [1 - q, 1 - r, 0.5]])
