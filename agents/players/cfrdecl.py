"""``cfrdecl``: ``pimc`` whose declarations and Manko questions come from external-sampling MCCFR.

At a turn where a scoring declaration or the Manko question is open, the player builds the small game of those
decisions: chance deals a layout of the unseen cards (``pimc``'s layouts, belief-weighted if ``belief`` is set),
this seat decides each open declaration in turn (declare or hold), or whether to ask Manko, and the opponent,
when a 3-card Figura was declared and its Manko question is still open, decides whether to ask; every leaf is the
layout solved double-dummy with the declarations made counted (``pimc``'s objective). External-sampling MCCFR
(Lanctot et al. 2009) runs ``iterations`` traversals for each seat, sampling the layout and the other seat's
actions, and the player follows its average strategy (the more likely action; ties to declaring and asking).

By construction it plays as ``pimc`` does (its defaults: ``declare=first``, ``manko=true``). The leaves give
both sides every card, so neither a declaration's nor a Manko answer's information can change a leaf, and
declaring is never worse in any of them: MCCFR's average strategy declares every scoring combination and asks
Manko, which is ``pimc``'s own choice. The player exists to show that, not as a remedy: CFR at these decisions
can only help with leaves that respect what each side knows (``infopimc`` prices the information by play-outs).
Where it departs from Lanctot et al.: MCCFR runs online on a one-decision abstraction of the partie (the open
declarations and the Manko question, then open-hand leaves), not on the game itself.
"""

from __future__ import annotations

import numpy as np

from trappola.agents.players.pimc import PimcPlayer
from trappola.agents.settings import Setting
from trappola_env.engine.actions import ACES, BIANKA, BLANS, FIGURA_RE, FIGURA_TWOS, MANKO
from trappola_env.engine.cards import RANK_MASK
from trappola_env.engine.declarations import FIGURA_RANK, declaration_value
from trappola_env.engine.infostate import InfoState

_DECLS = tuple(range(FIGURA_RE, FIGURA_TWOS + 1)) + (BLANS, ACES, BIANKA)


class CfrDeclarePlayer(PimcPlayer):
    """The ``cfrdecl`` player (see the module docstring)."""

    kind = "cfrdecl"
    HELP = (
        "pimc with MCCFR at its declarations over open-hand leaves: by construction it declares and asks as pimc does"
    )
    SETTINGS = {
        **PimcPlayer.SETTINGS,
        "iterations": Setting(int, 200, "MCCFR traversals per seat at each such decision", low=1, high=100_000),
    }

    def _declaration(self, info: InfoState, mask: int, cards: int) -> int | None:
        open_decls = [a for a in _DECLS if mask >> a & 1]
        if not open_decls:
            return None
        policy = self.declaration_policy(info, open_decls)
        for a in open_decls:
            if policy[a] >= 0.5:
                return a
        return None

    def act(self, view):
        """``pimc``'s turn, with the Manko question decided by the same MCCFR (a one-decision game)."""
        mask = view.legal_mask
        if (
            mask >> MANKO & 1
            and not any(mask >> a & 1 for a in _DECLS)
            and self.declaration_policy(view.info, [MANKO])[MANKO] < 0.5
        ):
            return super().act(_without(view, MANKO))
        return super().act(view)

    # --------------------------------------------------------------- MCCFR
    def declaration_policy(self, info: InfoState, decisions: list[int]) -> dict[int, float]:
        """Average MCCFR probability of taking each of ``decisions`` (declare, or ask Manko)."""
        from trappola.agents.search.solver import solve_batch_raw

        opp_hands, weights = self.layouts(info)
        me = info.seat
        args = list(self._solver_args(info, me))
        h0s, h1s = self._hands(info, opp_hands)
        # One solve per layout and set of Aces counted; other declarations are constants added to the leaf.
        ace_n = (info.hand & RANK_MASK[8]).bit_count() if ACES in decisions else 0
        base = self._leaf(solve_batch_raw(h0s, h1s, *args, self.table), me)
        with_aces = base
        if ace_n:
            args[8 + me] = ace_n
            with_aces = self._leaf(solve_batch_raw(h0s, h1s, *args, self.table), me)
        points = {a: _points(info, a) for a in decisions}
        rng = np.random.default_rng(self.rng.getrandbits(63))
        p = np.full(len(opp_hands), 1.0 / len(opp_hands)) if weights is None else np.asarray(weights)
        regret = np.zeros((len(decisions), 2))
        avg = np.zeros((len(decisions), 2))
        for _ in range(self.settings.iterations):
            world = int(rng.choice(len(p), p=p))
            self._traverse(decisions, points, base[world], with_aces[world], regret, avg, rng)
        out = {}
        for i, a in enumerate(decisions):
            s = avg[i].sum()
            out[a] = 1.0 if s == 0 or avg[i, 0] >= avg[i, 1] else avg[i, 0] / s
        return out

    def _leaf(self, values: np.ndarray, me: int) -> np.ndarray:
        return self._score(-values if me == 1 else values)

    def _traverse(self, decisions, points, base, with_aces, regret, avg, rng) -> None:
        """One external-sampling traversal for this seat (the opponent has no decision the leaves can tell
        apart, so its Manko node is a constant and only this seat's regrets move)."""

        def value(i: int, taken: tuple) -> float:
            if i == len(decisions):
                aces = ACES in taken
                raw_gain = sum(points[a] for a in taken if a not in (ACES, MANKO))
                # The objective of a layout moves with its points: add them through the blend's weight and sign.
                return self._shift(with_aces if aces else base, raw_gain)
            strat = _matching(regret[i])
            avg[i] += strat
            vals = np.array([value(i + 1, taken + (decisions[i],)), value(i + 1, taken)])
            regret[i] += vals - strat @ vals
            return float(strat @ vals)

        value(0, ())

    def _shift(self, leaf: float, gain: int) -> float:
        """A leaf's objective with ``gain`` more points for this seat (exact for ``points``; for ``blend`` and
        ``win`` the sign term is kept, a small overstatement only when the gain turns a loss)."""
        if gain == 0:
            return float(leaf)
        obj = self.settings.objective
        if obj == "points":
            return float(leaf + gain)
        if obj == "blend":
            return float(leaf + self.settings.blend_weight * gain)
        return float(leaf)


def _matching(regret: np.ndarray) -> np.ndarray:
    pos = np.maximum(regret, 0.0)
    s = pos.sum()
    return pos / s if s > 0 else np.full(len(regret), 1.0 / len(regret))


def _points(info: InfoState, a: int) -> int:
    """The points of declaring ``a`` now (Aces are scored by the solver; Manko has none)."""
    if a in (ACES, MANKO):
        return 0
    n = (info.hand & RANK_MASK[FIGURA_RANK[a]]).bit_count() if a in FIGURA_RANK else 1
    return declaration_value(a, n, True)[0]


def _without(view, action: int):
    """``view`` with ``action`` removed from its legal mask."""
    import copy

    out = copy.copy(view)
    out.legal_mask = view.legal_mask & ~(1 << action)
    return out


__all__ = ["CfrDeclarePlayer"]
