"""A search over a set of layouts (worlds) that keeps this seat's choices the same in layouts it cannot tell apart.

PIMC solves each layout with both hands open, so below the root it may play a different card in each layout:
strategy fusion. Here the tree of the next plies is expanded over all the layouts at once. A node holds the public
state (the solver's raw arguments) and the layouts still consistent with it; this seat's hand is the same in every
layout, so at its nodes one card is chosen for all of them (one information set), while the opponent, assumed to
see every card as PIMC assumes, answers each layout on its own. After ``own`` more decisions of this seat the
remaining play of each layout is solved double-dummy, in one batch call of the solver per node.

Both backups hold values per layout (this seat's objective) and both keep the best-defence assumption of Frank
and Basin (1998, "Search in games with incomplete information: a case study using Bridge card play"): the
opponent sees every card, as in PIMC.

* ``vector`` (the ``vecpimc`` player): one vector per node; at this seat's nodes the card whose vector has the
  best weighted mean is taken, greedily, at the opponent's the minimum of each layout. Greedy on means, it can
  miss this seat's best pure strategy when two cards' vectors are better in different layouts (``front`` is
  exact there). This is not EPIMC (Arjonilla, Saffidine and Cazenave 2024, "Perfect Information Monte Carlo
  with Postponing Reasoning"), which postpones the perfect-information resolution to depth ``d`` and resolves
  the depth-``d`` subgame above it as an imperfect-information game; here the opponent's nodes keep PIMC's
  clairvoyance and this seat's nodes a greedy choice, so the backup is named for what it does.
* ``front`` (alpha-mu, Cazenave and Ventos 2019): a Pareto front of vectors per node, the outcomes of this
  seat's strategies below it; the opponent's node combines its children's fronts by the minimum of each layout,
  this seat's node takes the union. The root card's value is the best mean of its front, which is exact for a
  pure strategy of this seat against an opponent that sees all cards ("strong defence"), whatever the depth,
  when ``own`` covers the rest of the partie. ``max_front`` bounds a front (the vectors of best mean are kept).

Forced moves (one legal card) do not count as decisions.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from trappola.agents.search.solver.rules_kernel import POINTS
from trappola_env.engine.cards import SUIT_MASK

_TWO = 0
_ACE = 8


class Public(NamedTuple):
    """The solver's raw arguments after the hands (``PimcPlayer._solver_args`` order)."""

    to_move: int
    lead: int
    td: int
    cp0: int
    cp1: int
    tw0: int
    tw1: int
    two_hist: tuple
    ad0: int
    ad1: int
    af0: bool
    af1: bool
    base_diff: int

    def raw(self) -> tuple:
        """The tuple the solver's ``*_raw`` functions take after the hands."""
        return (*self[:7], np.array(self.two_hist, dtype=np.int64), *self[8:])


def public_of(args: tuple) -> Public:
    """A ``Public`` from ``PimcPlayer._solver_args``."""
    a = list(args)
    a[7] = tuple(int(x) for x in a[7])
    return Public(*a)


def play(pub: Public, card: int) -> Public:
    """The public state after ``pub.to_move`` plays ``card`` (a legal card)."""
    mover = pub.to_move
    if pub.lead < 0:
        return pub._replace(to_move=1 - mover, lead=card)
    lead, leader = pub.lead, 1 - mover
    winner = mover if card // 9 == lead // 9 and card > lead else leader
    cp = [pub.cp0, pub.cp1]
    cp[winner] += int(POINTS[card] + POINTS[lead])
    tw = [pub.tw0, pub.tw1]
    tw[winner] += 1
    win_card = card if winner == mover else lead
    hist = list(pub.two_hist)
    hist[pub.td] = winner if win_card % 9 == _TWO else -1
    af = [pub.af0, pub.af1]
    if card % 9 == _ACE and winner != mover and (pub.ad0, pub.ad1)[mover]:
        af[mover] = True
    return pub._replace(
        to_move=winner,
        lead=-1,
        td=pub.td + 1,
        cp0=cp[0],
        cp1=cp[1],
        tw0=tw[0],
        tw1=tw[1],
        two_hist=tuple(hist),
        af0=af[0],
        af1=af[1],
    )


def legal_cards(hand: int, lead: int) -> list[int]:
    """The cards ``hand`` may play to ``lead`` (-1: it leads)."""
    if lead >= 0 and hand & SUIT_MASK[lead // 9]:
        hand &= SUIT_MASK[lead // 9]
    out = []
    while hand:
        low = hand & -hand
        out.append(low.bit_length() - 1)
        hand ^= low
    return out


def opponent_moves(opp: np.ndarray, lead: int) -> list[tuple[int, np.ndarray]]:
    """(card, rows of ``opp`` in which the opponent may play it) for every card some layout allows."""
    if lead >= 0:
        suit = np.int64(SUIT_MASK[lead // 9])
        follows = (opp & suit) != 0
        allowed = np.where(follows, opp & suit, opp)
    else:
        allowed = opp
    union = int(np.bitwise_or.reduce(allowed)) if len(allowed) else 0
    out = []
    for card in legal_cards(union, -1):
        rows = np.flatnonzero((allowed >> card) & 1)
        out.append((card, rows))
    return out


def pareto(front: np.ndarray, max_front: int, weights: np.ndarray) -> tuple[np.ndarray, bool]:
    """(the non-dominated rows of ``front``, each a vector over layouts, at most ``max_front`` of best mean;
    whether rows were dropped by that bound)."""
    front = np.unique(front, axis=0)
    if len(front) > 1:
        front = front[np.argsort(-(front @ weights), kind="stable")]
        keep = np.zeros(len(front), dtype=bool)
        kept = front[:0]
        for i, v in enumerate(front):
            # Sorted by mean, a row can only be dominated by one kept before it.
            if not len(kept) or not np.all(kept >= v, axis=1).any():
                keep[i] = True
                kept = front[keep]
                if len(kept) > max_front:
                    return kept[:max_front], True
        front = kept
    return front[:max_front], len(front) > max_front


class WorldTree:
    """The search of one decision (see the module docstring).

    ``me``: this seat; ``hand``: its cards; ``opp``: the opponent's cards, one row per layout; ``weights``: the
    layouts' weights (summing to 1); ``score``: maps final differences (this seat's point of view) to the
    objective; ``table``: the solver's transposition table."""

    def __init__(self, me: int, hand: int, opp: np.ndarray, weights: np.ndarray, score, table, max_front=64):
        self.me = me
        self.hand = hand
        self.opp = np.asarray(opp, dtype=np.int64)
        self.weights = np.asarray(weights, dtype=np.float64)
        self.score = score
        self.table = table
        self.max_front = max_front
        self.solves = 0  # solver batch calls, for the benchmarks
        self.capped = False  # whether ``max_front`` dropped a vector that was not dominated

    # ---------------------------------------------------------------- leaves
    def _hands(self, hand: int, opp: np.ndarray):
        mine = np.full(len(opp), hand, dtype=np.int64)
        return (mine, opp) if self.me == 0 else (opp, mine)

    def _sign(self, values: np.ndarray) -> np.ndarray:
        return -values if self.me == 1 else values

    def leaf(self, pub: Public, hand: int, opp: np.ndarray) -> np.ndarray:
        """The objective of each layout solved double-dummy from ``pub``."""
        from trappola.agents.search.solver import solve_batch_raw

        self.solves += 1
        h0, h1 = self._hands(hand, opp)
        return self.score(self._sign(solve_batch_raw(h0, h1, *pub.raw(), self.table)))

    def leaf_moves(self, pub: Public, hand: int, opp: np.ndarray, cards: list[int]) -> np.ndarray:
        """(cards, layouts) objective after this seat plays each of ``cards``, the rest solved double-dummy."""
        from trappola.agents.search.solver import solve_moves_batch_raw

        self.solves += 1
        h0, h1 = self._hands(hand, opp)
        values = self._sign(solve_moves_batch_raw(h0, h1, *pub.raw(), self.table))
        return np.stack([self.score(values[:, c]) for c in cards])

    # --------------------------------------------------------------- vectors
    def vector(self, pub: Public, hand: int, opp: np.ndarray, w: np.ndarray, own: int) -> np.ndarray:
        """Vector backup (``vecpimc``): the objective per layout of this node, ``own`` decisions of this seat still
        searched."""
        if pub.td >= 8 or own <= 0:
            return self.leaf(pub, hand, opp)
        if pub.to_move == self.me:
            cards = legal_cards(hand, pub.lead)
            if len(cards) == 1:
                return self.vector(play(pub, cards[0]), hand & ~(1 << cards[0]), opp, w, own)
            if own == 1:
                values = self.leaf_moves(pub, hand, opp, cards)
            else:
                values = np.stack([self.vector(play(pub, c), hand & ~(1 << c), opp, w, own - 1) for c in cards])
            return values[int(np.argmax(values @ w))]
        out = np.full(len(opp), np.inf)
        for card, rows in opponent_moves(opp, pub.lead):
            sub = self.vector(play(pub, card), hand, opp[rows] & ~np.int64(1 << card), w[rows], own)
            out[rows] = np.minimum(out[rows], sub)
        return out

    def root_vectors(self, pub: Public, cards: list[int], own: int) -> dict[int, np.ndarray]:
        """Vector backup: each root card's objective per layout, ``own`` further decisions of this seat kept one
        card per information set."""
        w = self.weights
        return {c: self.vector(play(pub, c), self.hand & ~(1 << c), self.opp, w, own) for c in cards}

    # ---------------------------------------------------------------- fronts
    def front(self, pub: Public, hand: int, opp: np.ndarray, w: np.ndarray, own: int) -> np.ndarray:
        """alpha-mu backup: the Pareto front (rows: vectors over this node's layouts) of this node."""
        if pub.td >= 8 or own <= 0:
            return self.leaf(pub, hand, opp)[None, :]
        if pub.to_move == self.me:
            cards = legal_cards(hand, pub.lead)
            if len(cards) == 1:
                return self.front(play(pub, cards[0]), hand & ~(1 << cards[0]), opp, w, own)
            if own == 1:
                rows = self.leaf_moves(pub, hand, opp, cards)
            else:
                rows = np.concatenate([self.front(play(pub, c), hand & ~(1 << c), opp, w, own - 1) for c in cards])
            return self._pareto(rows, w)
        combined = np.full((1, len(opp)), np.inf)
        for card, rows in opponent_moves(opp, pub.lead):
            sub = self.front(play(pub, card), hand, opp[rows] & ~np.int64(1 << card), w[rows], own)
            wide = np.full((len(sub), len(opp)), np.inf)
            wide[:, rows] = sub
            pairs = np.minimum(combined[:, None, :], wide[None, :, :]).reshape(-1, len(opp))
            combined = self._pareto(pairs, w)
        return combined

    def _pareto(self, rows: np.ndarray, w: np.ndarray) -> np.ndarray:
        front, capped = pareto(rows, self.max_front, w)
        self.capped |= capped
        return front

    def root_fronts(self, pub: Public, cards: list[int], own: int) -> dict[int, float]:
        """alpha-mu: each root card's value, the best weighted mean of its front."""
        w = self.weights
        out = {}
        for c in cards:
            f = self.front(play(pub, c), self.hand & ~(1 << c), self.opp, w, own)
            out[c] = float(np.max(f @ w))
        return out


__all__ = ["Public", "WorldTree", "legal_cards", "opponent_moves", "pareto", "play", "public_of"]
