"""``vecpimc`` and ``alphamu``: ``pimc`` with its next decisions searched over all its layouts at once
(``search.worldtree``).

Both are ``pimc`` in every respect (layouts, belief, inference, declarations, Manko, Alifer) except how a card is
chosen: instead of solving each layout from the root with both hands open, the next decisions are searched over
all the layouts at once, this seat's card being one card for every layout it cannot tell apart, while the
opponent, as in PIMC, answers each layout seeing every card (the best-defence model of Frank and Basin 1998).

* ``vecpimc:depth=D`` (vector PIMC): ``D`` more decisions of this seat after the root card are taken in the tree,
  each greedily the card of best weighted mean over the layouts reaching it; the opponent takes the minimum of
  each layout; then each layout is solved double-dummy. ``depth=0`` is ``pimc``. Named ``epimc`` until this
  release: it is not EPIMC (Arjonilla, Saffidine and Cazenave 2024), which postpones the perfect-information
  resolution to depth ``d`` and resolves the subgame above it as an imperfect-information game, where this
  search keeps the opponent clairvoyant and this seat's choice greedy (``search.worldtree``).
* ``alphamu:cards=K`` (alpha-mu, Cazenave and Ventos 2019, "The alpha-mu search algorithm for the game of Bridge",
  arXiv:1911.07960): once the hand holds at most ``K`` cards, every remaining decision is taken in the tree, with a
  Pareto front of outcome vectors per node, so the root card is the best pure strategy against an opponent that sees
  every card. Where it departs from the paper: it runs only for the last ``K`` cards (``pimc`` before) and always to
  the end of the partie (no smaller number of own moves); the layouts carry weights (``pimc``'s belief) and the root
  takes the best weighted mean; a vector holds this seat's objective (``pimc``'s ``objective``, real-valued); fronts
  are capped at ``max_front`` vectors of best mean, past which the result is no longer exact. It is checked against
  a brute force over this seat's pure strategies, not against the paper's own examples.

``from_cards`` (``vecpimc``) limits the deeper search to hands of at most that many cards (its cost grows as the
product of the branching of ``D`` own decisions and the opponent's replies); earlier cards are ``pimc``'s.
"""

from __future__ import annotations

import numpy as np

from trappola.agents.players.pimc import PimcPlayer
from trappola.agents.search.worldtree import WorldTree, legal_cards, public_of
from trappola.agents.settings import Setting
from trappola_env.engine.infostate import InfoState


class _TreePimc(PimcPlayer):
    """``pimc`` whose card search is a ``WorldTree`` once ``_deep(info)`` says so."""

    def _deep(self, info: InfoState) -> bool:
        raise NotImplementedError

    def _max_front(self) -> int:
        """Most outcome vectors kept per node of the tree."""
        return 64

    def _tree_values(self, tree: WorldTree, pub, cards: list[int], info: InfoState) -> dict[int, float]:
        raise NotImplementedError

    def _tree(self, info: InfoState) -> tuple[WorldTree, object]:
        opp, weights = self.layouts(info)
        w = np.full(len(opp), 1.0 / len(opp)) if weights is None else np.asarray(weights, dtype=np.float64)
        tree = WorldTree(info.seat, info.hand, opp, w, self._score, self.table, max_front=self._max_front())
        return tree, public_of(self.solver_args(info, info.seat))

    def _best_card(self, info: InfoState, cards: int) -> tuple[int, float]:
        if not self._deep(info):
            return super()._best_card(info, cards)
        tree, pub = self._tree(info)
        values = self._tree_values(tree, pub, legal_cards(cards, -1), info)
        self.last_card_values = None
        card = max(values, key=lambda c: (values[c], -c))
        # The objective is sign-dominated (``blend``, ``win``); clipped, it stands in for the mean sign.
        return card, float(np.clip(values[card], -1.0, 1.0))


class VecPimcPlayer(_TreePimc):
    """The ``vecpimc`` player (see the module docstring)."""

    kind = "vecpimc"
    HELP = (
        "pimc whose next decisions are one card per information set, chosen greedily by mean, against an "
        "opponent that sees every card (not EPIMC; named epimc before)"
    )
    ENDGAME = {"vecpimc1": {"depth": 1}, "vecpimc2": {"depth": 2}}
    SETTINGS = {
        **PimcPlayer.SETTINGS,
        "depth": Setting(
            int, 1, "decisions of this seat after the root card kept one card per information set", low=0, high=3
        ),
        "from_cards": Setting(int, 9, "search deeper only when the hand holds at most this many cards", low=1, high=9),
    }

    def _deep(self, info: InfoState) -> bool:
        return self.settings.depth > 0 and info.hand.bit_count() <= self.settings.from_cards

    def _tree_values(self, tree, pub, cards, info):
        return {c: float(v @ tree.weights) for c, v in tree.root_vectors(pub, cards, self.settings.depth).items()}


class AlphaMuPlayer(_TreePimc):
    """The ``alphamu`` player (see the module docstring)."""

    kind = "alphamu"
    HELP = "pimc, then alpha-mu (Pareto fronts over the layouts, Cazenave and Ventos 2019) for the last cards"
    ENDGAME = {"alphamu": {"cards": 3}}
    SETTINGS = {
        **PimcPlayer.SETTINGS,
        "cards": Setting(
            int, 3, "search the rest of the partie by alpha-mu once the hand holds this many", low=1, high=5
        ),
        "max_front": Setting(int, 64, "most outcome vectors kept per node (those of best mean)", low=1, high=4096),
    }

    def _deep(self, info: InfoState) -> bool:
        return info.hand.bit_count() <= self.settings.cards

    def _max_front(self) -> int:
        return self.settings.max_front

    def _tree_values(self, tree, pub, cards, info):
        return tree.root_fronts(pub, cards, info.hand.bit_count())


__all__ = ["AlphaMuPlayer", "VecPimcPlayer"]
