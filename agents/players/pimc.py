"""``pimc``: Perfect Information Monte Carlo over the double-dummy solver.

At each card decision the player draws ``samples`` layouts of the cards it
cannot see, uniformly among those consistent with everything its seat
knows (``trappola.agents.search.sampling``: voids, the opponent's declarations and Manko
answers, the face-up stock card), solves every layout exactly with both
hands open (``trappola.agents.search.solver``, one batch call per decision) and plays the
card with the best mean value. When few layouts remain (at most ``exact``)
it solves all of them instead of sampling, so the last tricks are played
exactly given the information.

Objective (``objective``), what a card's value is averaged over:

* ``win``: the sign of the final difference (+1 win, 0 tie = Alifer, -1).
* ``points``: the final score difference.
* ``blend`` (default): ``sign + blend_weight * difference``: the win/loss
  outcome first, points to break its frequent ties (many cards win, or
  lose, in every layout).

Why ``blend`` is the default, measured against ``rule``: README.md, Results.

Inference (``belief``, off by default): a learned model of the opponent's
hand (``trappola.agents.search.belief``, trained by ``python -m trappola.train.fit.belief_fit``) weights the
layouts. ``belief_draws`` layouts are drawn uniformly as above, each is
weighted by the model's odds of the cards it gives the opponent, and
``samples`` of them are taken in proportion to their weights (all of them,
weighted, when every layout is solved), so a search costs the solver no
more than without it. The record's hard constraints still hold in every
layout. Measured with the ``policy`` player's endgame search in
``docs/results/inference.md`` ("Reading the opponent's hand").

Policy-based inference (``infer``, off by default): each layout is weighed
by the likelihood of the opponent's past decisions (cards, declarations,
Manko questions, Alifer answers) under a trained network, evaluated from the
information state the opponent had in that layout (``trappola.agents.search.inference``,
after Rebstock et al. 2019). ``infer=policy`` models the opponent with the
shipped network, ``infer=PATH`` with any checkpoint, e.g. one
``python -m trappola.train.fit.opponent_model`` fits to imitate a given player.
``infer_draws`` layouts are drawn (in arrays, ``Constraints.sample_array``)
and weighed, then ``samples`` taken as above; with ``belief`` too, the two
weights multiply. ``infer_temp`` and ``infer_floor`` soften a model that
does not match the opponent. Measured in ``docs/results/inference.md`` ("Reading the
opponent's decisions").

Signs need totals, so the solver is given every fixed point as
``base_diff``: the Figura/Blans/Bianka declarations made (and those this
player still means to make), and the Aces declarations as counts (the
solver scores them, 30/40 if every declared Ace wins its trick, else 6/12).

Declarations (``declare``, and ``declare_aces`` / ``declare_bianka`` to set
those two apart; their default ``same`` follows ``declare``):

* ``first``: at the first legal chance;
* ``last``: as late as allowed: Aces in the turn of the first Ace played
  (under ``ace_declaration=first_card`` that is the first card, as for
  Figura and Blans, whose only chance is the first card), Bianka in the turn
  of the last card. Until then the player counts the declaration it will
  make in its own search, and the opponent learns nothing from it;
* ``never``.

``manko=true`` asks Manko whenever legal (the answer is free information).
``anticipate=true`` counts, in each sampled layout, the declarations the
opponent has not made but still may (Aces until its first Ace, Bianka until
its last card, Figura and Blans before its first card), as if it will make
them: the right reading of an opponent that declares late; by default only
declarations made count.
``silence=true`` also reads what the opponent did *not* declare at its
first turn (``trappola.agents.search.sampling``, ``first_chance``): right against players
that declare everything at once, like ``rule``; off by default, since it is
a model of the opponent, not a fact of the record. Against ``rule`` (700
duplicate deals, seed 2): ``silence=true,anticipate=true`` 0.658 of decided
parties against 0.648 for the defaults (paired wins - losses per deal +0.04,
95% CI [-0.02, +0.10]: not significant); ``anticipate=true`` alone 0.641
(without ``silence`` it credits ``rule`` with declarations it would already
have made). ``notebooks/declaration_timing.ipynb`` measures what
``anticipate`` changes against late declarers.

Alifer: answering a proposal, it solves the sampled layouts with the
proposer to play on and accepts when the mean outcome sign is below
``alifer_accept``. The default, -0.5 (accept only when clearly losing:
P(loss) - P(win) > 0.5 over the layouts), was measured against ``rule``
(benchmarks/bench_pimc.py, 700 duplicate deals): at 0 pimc accepted 14% of
the parties and would have won about two thirds of those it accepted (the
double-dummy view is pessimistic for the answerer, and a proposal says the
proposer thinks it is behind); -0.5 and -0.9 both gain about +0.1 wins
minus losses per deal over 0.
``alifer=never`` (default) never proposes; ``alifer=losing`` proposes when
the best card's mean sign is below ``alifer_propose``. Pro: the shared
``trappola.agents.pro_rules`` settings (default ``threshold``, as ``rule``).
Advice (sessions with advice): honest, its own search's choice over
``advice_worlds`` imagined defender hands (``trappola.agents.advice``), each search
of ``samples`` layouts; ``heed=true`` plays the advice it gets when legal.
"""

from __future__ import annotations

import numpy as np

from trappola.agents.advice import HEED_WEB, advice_settings, heeded, honest_advice
from trappola.agents.base import AdviceView, Player, TurnView, pro_settings
from trappola.agents.pro_rules import PRO_WEB
from trappola.agents.search.belief import load_belief
from trappola.agents.search.inference import load_inference, normalise
from trappola.agents.search.knowledge import aces_failed
from trappola.agents.search.sampling import constraints_of
from trappola.agents.settings import NAMED_MODEL, Setting
from trappola_env.engine.actions import (
    ACCEPT_ALIFER,
    ACES,
    BIANKA,
    BLANS,
    DECLINE_ALIFER,
    FIGURA_RE,
    FIGURA_TWOS,
    MANKO,
    PROPOSE_ALIFER,
)
from trappola_env.engine.cards import ACE, ACE_MASK, RANK_MASK
from trappola_env.engine.declarations import (
    FIGURA_RANK,
    aces_possible,
    bianka_possible,
    declaration_value,
    first_card_declarations,
)
from trappola_env.engine.infostate import InfoState
from trappola_env.observation import encode_info

_CARDS = (1 << 36) - 1
_DECLARE_CHOICES = ("first", "last", "never")
_FIRST_CARD_DECLS = tuple(range(FIGURA_RE, FIGURA_TWOS + 1)) + (BLANS,)
OBJECTIVES = ("blend", "win", "points")
_ACDECL = 8  # index of seat 0's Aces count in the solver arguments after the hands


class PimcPlayer(Player):
    """The ``pimc`` player (see the module docstring for its settings)."""

    kind = "pimc"
    HELP = "perfect-information Monte Carlo over the double-dummy solver"
    ENDGAME = {"pimc": {}}
    # Advice: the imagined worlds cost one decision each, so pimc's are bounded lower than rule's.
    WEB = {
        "samples": (1, 128),
        "exact": (0, 256),
        "objective": None,
        "blend_weight": (0, 10),
        "declare": None,
        "declare_aces": None,
        "declare_bianka": None,
        "manko": None,
        "anticipate": None,
        "silence": None,
        "alifer": None,
        "alifer_propose": None,
        "alifer_accept": None,
        "belief": NAMED_MODEL,
        "belief_draws": (1, 1024),
        **PRO_WEB,
        **HEED_WEB,
        "advice_worlds": (0, 8),
    }
    SETTINGS = {
        "samples": Setting(int, 32, "layouts of the unseen cards solved per decision", low=1, high=4096),
        "exact": Setting(
            int, 64, "solve every consistent layout when there are at most this many", low=0, high=100_000
        ),
        "objective": Setting(OBJECTIVES, "blend", "what a card's mean is taken of: blend, win (sign), points"),
        "blend_weight": Setting(float, 0.02, "blend: weight of one point of difference against a win", low=0, high=100),
        "declare": Setting(_DECLARE_CHOICES, "first", "scoring declarations: first chance, last chance, never"),
        "declare_aces": Setting(
            ("same",) + _DECLARE_CHOICES, "same", "Aces: first, last, never, or the same as declare"
        ),
        "declare_bianka": Setting(
            ("same",) + _DECLARE_CHOICES, "same", "Bianka: first, last, never, or the same as declare"
        ),
        "manko": Setting(bool, True, "ask Manko whenever legal"),
        "anticipate": Setting(
            bool,
            False,
            "count the declarations the opponent could still make in each sampled layout (it is assumed to make them)",
        ),
        "silence": Setting(
            bool,
            False,
            "read a declaration the opponent did not make at its first turn as "
            "impossible (true of rule, which declares at once)",
        ),
        "alifer": Setting(("never", "losing"), "never", "propose Alifer: never, or when losing"),
        "alifer_propose": Setting(
            float, -0.3, "alifer=losing: propose when the best mean sign is below this", low=-1, high=1
        ),
        "alifer_accept": Setting(
            float, -0.5, "accept a proposal when the mean outcome sign is below this", low=-1, high=1
        ),
        "belief": Setting(
            str,
            "",
            "learned model of the opponent's hand weighting the layouts "
            "(trappola.agents.search.belief): empty for uniform, 'default' for the shipped one, or a path",
        ),
        "belief_draws": Setting(
            int,
            256,
            "belief: uniform layouts drawn and weighted before the samples are taken from them",
            low=1,
            high=65_536,
        ),
        "infer": Setting(
            str,
            "",
            "read the opponent's hand from its decisions (trappola.agents.search.inference): weight each "
            "layout by the likelihood of its past actions under a trained network: empty "
            "for none, 'policy' for the shipped network, 'pimc' for the shipped model of "
            "pimc:samples=32, or a checkpoint path",
        ),
        "infer_draws": Setting(
            int,
            128,
            "infer: uniform layouts drawn and weighted before the samples are taken from them (the cost grows with it)",
            low=1,
            high=4096,
        ),
        "infer_temp": Setting(
            float,
            1.0,
            "infer: temperature of the opponent model's choices (above 1 trusts it less)",
            low=0.05,
            high=100,
        ),
        "infer_floor": Setting(
            float,
            0.0,
            "infer: share of the uniform choice among legal actions mixed into each modelled probability",
            low=0,
            high=1,
        ),
        **pro_settings("threshold"),
        **advice_settings(),
    }

    def __init__(self, **settings):
        super().__init__(**settings)
        cfg = self.settings
        same = lambda key: cfg["declare"] if cfg[key] == "same" else cfg[key]  # noqa: E731
        self._aces_policy = same("declare_aces")
        self._bianka_policy = same("declare_bianka")
        self._table = None
        self._planned = None  # (turn key, card, sign) chosen this turn
        self._belief = load_belief(cfg["belief"]) if cfg["belief"] else None
        self._inference = load_inference(cfg["infer"], cfg["infer_temp"], cfg["infer_floor"]) if cfg["infer"] else None
        #: The values of the latest card search (``card_values``), a new dict
        #: per search, for saved games (``trappola.agents.evaluation.game_record``); None after reset.
        self.last_card_values = None

    # numba tables are large and per process: rebuild after unpickling.
    def __getstate__(self):
        state = self.__dict__.copy()
        state["_table"] = None
        return state

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._planned = None
        self.last_card_values = None

    @property
    def table(self):
        """The solver's transposition table, made on first use and kept across decisions."""
        if self._table is None:
            from trappola.agents.search.solver import new_table

            self._table = new_table()
        return self._table

    # ------------------------------------------------------------------ act
    def advise(self, view: AdviceView) -> int:
        """Honest advice: its own choice over imagined defender hands (``trappola.agents.advice``)."""
        return honest_advice(self, view, self.settings.advice_worlds)

    def act(self, view: TurnView) -> int:
        """Heed advice if asked to, answer Alifer, declare, ask Manko, then choose the
        card with the best mean solved value over the sampled layouts (or propose
        Alifer when even that card is losing)."""
        info = view.info
        mask = view.legal_mask
        if view.advice and self.settings.heed:
            advised = heeded(view)
            if advised is not None:
                return advised
        if mask >> ACCEPT_ALIFER & 1:
            return ACCEPT_ALIFER if self._continue_sign(info) < self.settings.alifer_accept else DECLINE_ALIFER
        cards = mask & _CARDS
        decl = self._declaration(info, mask, cards)
        if decl is not None:
            return decl
        if self.settings.manko and mask >> MANKO & 1:
            return MANKO
        may_propose = self.settings.alifer == "losing" and mask >> PROPOSE_ALIFER & 1
        if not cards & (cards - 1) and not may_propose:
            return cards.bit_length() - 1
        card, best_sign = self._plan(info, cards)
        if may_propose and best_sign < self.settings.alifer_propose:
            return PROPOSE_ALIFER
        return card

    # --------------------------------------------------------- declarations
    def _declaration(self, info: InfoState, mask: int, cards: int) -> int | None:
        """The declaration to make now, if any (then ``act`` is called again
        in the same turn for the card)."""
        if self.settings.declare != "never":
            for a in _FIRST_CARD_DECLS:
                if mask >> a & 1:
                    return a
        if mask >> ACES & 1:
            policy = self._aces_policy
            if policy == "first":
                return ACES
            if policy == "last":
                # The last chance is the turn in which the first Ace goes (or
                # the first card, when that is the only chance).
                if info.ace_declaration == "first_card" and info.ncards[info.seat] == 0:
                    return ACES
                card = self._plan(info, cards)[0]
                if card % 9 == ACE:
                    return ACES
        if mask >> BIANKA & 1:
            policy = self._bianka_policy
            if policy == "first" or (policy == "last" and info.hand.bit_count() == 1):
                return BIANKA
        return None

    def _plan(self, info: InfoState, cards: int) -> tuple[int, float]:
        """(card, its mean outcome sign) this turn will play, decided once
        per turn, so that a declaration made for it cannot change it."""
        key = (info.dealt, info.hand, info.lead)
        if self._planned is None or self._planned[0] != key:
            self._planned = (key, *self._best_card(info, cards))
        return self._planned[1:]

    def _pending(self, info: InfoState) -> tuple[int, int]:
        """(Aces count, other points) of declarations this player has not
        made yet but will: its own search counts them already."""
        me = info.seat
        made = info.declarations[me]
        aces = 0
        if ACES not in made and self._aces_policy != "never" and info.hand & ACE_MASK == info.dealt & ACE_MASK:
            n = (info.dealt & ACE_MASK).bit_count()
            still_legal = info.ace_declaration == "first_ace" or info.ncards[me] == 0
            if n >= 3 and still_legal:
                aces = n
        points = 0
        if BIANKA not in made and self._bianka_policy != "never" and bianka_possible(info.dealt):
            points += declaration_value(BIANKA, 1, True)[0]
        return aces, points

    # ------------------------------------------------------------ searching
    def _solver_args(self, info: InfoState, to_move: int):
        """The shared (public) arguments of the raw solver calls, seat 0's
        point of view, with this seat's pending declarations counted."""
        me = info.seat
        pend_aces, pend_points = self._pending(info)
        acdecl = [info.declarations[s].get(ACES, 0) for s in (0, 1)]
        if pend_aces:
            acdecl[me] = pend_aces
        fixed = [0, 0]
        for s in (0, 1):
            for a, n in info.declarations[s].items():
                if a != ACES:
                    fixed[s] += declaration_value(a, n, True)[0]
        fixed[me] += pend_points
        tricks_won = [0, 0]
        for t in info.tricks:
            tricks_won[t[3]] += 1
        two_hist = np.full(9, -1, dtype=np.int64)
        two_hist[: len(info.two_winner)] = info.two_winner
        return (
            to_move,
            info.lead,
            info.trick,
            info.card_points[0],
            info.card_points[1],
            tricks_won[0],
            tricks_won[1],
            two_hist,
            acdecl[0],
            acdecl[1],
            aces_failed(info, 0),
            aces_failed(info, 1),
            fixed[0] - fixed[1],
        )

    def solver_args(self, info: InfoState, to_move: int) -> tuple:
        """The public arguments of the raw solver calls for this decision (seat 0's point of view, this seat's
        pending declarations counted), for searches built on the solver (``trappola.agents.search.worldtree``)."""
        return self._solver_args(info, to_move)

    def layouts(self, info: InfoState) -> tuple[np.ndarray, np.ndarray | None]:
        """The layouts a search of this decision solves: (opponent hands,
        their weights summing to 1 or None for equal ones). Every consistent
        hand when there are at most ``exact``, else ``samples`` draws;
        uniform, or with ``belief``/``infer`` weighted by the learned model.
        If the ``silence`` model admits no hand (the opponent does not always
        declare at once), the record alone decides. Draws use the player's
        rng, as a decision would (``reset(seed)`` first to repeat them); a
        subclass may override it to search other layouts."""
        if self.settings.silence:
            try:
                cons = constraints_of(info, first_chance=True)
                hands = self._draw(cons)
                if len(hands):
                    return self._weigh(info, cons, hands)
            except ValueError:
                pass
        cons = constraints_of(info)
        return self._weigh(info, cons, self._draw(cons))

    def _draw(self, cons):
        if cons.count() <= self.settings.exact:
            return cons.all_hands()
        n = self.settings.samples
        if self._inference is not None:
            # Array draws from a generator seeded by the player's rng (so plain
            # pimc keeps its random stream and its recorded results).
            rng = np.random.default_rng(self.rng.getrandbits(63))
            return cons.sample_array(rng, max(self.settings.infer_draws, n))
        if self._belief is not None:
            n = max(self.settings.belief_draws, n)
        return cons.sample(self.rng, n)

    def _weigh(self, info: InfoState, cons, hands: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """Equal weights (None), or those of the belief and/or the inference
        (their log-weights add). From more draws than ``samples``, ``samples``
        are taken in proportion to their weights (systematic resampling), so
        the solver's work is unchanged; a hand taken twice is solved once
        with twice the weight."""
        if self._belief is None and self._inference is None:
            return hands, None
        if self._inference is None:
            weights = self._belief.layout_weights(encode_info(info), hands)
        else:
            log_w = self._inference.log_likelihood(info, hands)
            if self._belief is not None:
                with np.errstate(divide="ignore"):
                    log_w += np.log(self._belief.layout_weights(encode_info(info), hands))
            weights = normalise(log_w)
        if len(hands) <= self.settings.samples or cons.count() <= self.settings.exact:
            return hands, weights
        n = self.settings.samples
        points = (self.rng.random() + np.arange(n)) / n
        picks = np.minimum(np.searchsorted(np.cumsum(weights), points), len(hands) - 1)
        chosen, counts = np.unique(hands[picks], return_counts=True)
        return chosen, counts / n

    def _hands(self, info: InfoState, opp_hands: np.ndarray):
        mine = np.full(len(opp_hands), info.hand, dtype=np.int64)
        return (mine, opp_hands) if info.seat == 0 else (opp_hands, mine)

    def _score(self, diffs: np.ndarray) -> np.ndarray:
        """The objective of final differences (this seat's point of view)."""
        obj = self.settings.objective
        if obj == "points":
            return diffs.astype(np.float64)
        sign = np.sign(diffs).astype(np.float64)
        if obj == "win":
            return sign
        return sign + self.settings.blend_weight * diffs

    def solve_layouts(self, info: InfoState, to_move: int, moves: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
        """(final differences, layout weights) of a search of this decision
        with ``to_move`` to play: the differences under perfect play, this
        seat's point of view, over the ``layouts(info)``, per layout and card
        (``moves``: shape (layouts, 36), ``NOT_LEGAL`` for an illegal card)
        or per layout. One batch call, or one per group of layouts whose
        opponent would still declare Aces of a different count
        (``anticipate``)."""
        from trappola.agents.search.solver import solve_batch_raw, solve_moves_batch_raw

        opp_hands, weights = self.layouts(info)
        h0s, h1s = self._hands(info, opp_hands)
        args = list(self._solver_args(info, to_move))
        solve = solve_moves_batch_raw if moves else solve_batch_raw
        opp = 1 - info.seat
        if self.settings.anticipate:
            aces, points = opponent_pending(info, opp_hands)
            values = np.empty((len(opp_hands), 36) if moves else len(opp_hands), dtype=np.int64)
            declared = args[_ACDECL + opp]
            for n in np.unique(aces):
                rows = aces == n
                args[_ACDECL + opp] = int(n) if n else declared
                values[rows] = solve(h0s[rows], h1s[rows], *args, self.table)
            # The opponent's other points are a constant per layout: they move
            # the difference, never the best play within the layout.
            offset = points if opp == 1 else -points
            values -= offset[:, None] if moves else offset
        else:
            values = solve(h0s, h1s, *args, self.table)
        return (-values if info.seat == 1 else values), weights

    def card_values(self, info: InfoState, cards: int | None = None) -> dict[int, tuple[float, float, float]]:
        """Mean (objective, sign, point difference) of each legal card over
        the layouts this decision solves, from this seat's point of view."""
        from trappola.agents.search.solver import NOT_LEGAL

        values, weights = self.solve_layouts(info, info.seat, moves=True)
        cards = info.legal_mask & _CARDS if cards is None else cards
        out = {}
        c = cards
        while c:
            low = c & -c
            card = low.bit_length() - 1
            c ^= low
            v = values[:, card]
            if (np.abs(v) >= -NOT_LEGAL // 2).any():
                raise RuntimeError(f"solver found card {card} illegal in a sampled layout")
            out[card] = (_mean(self._score(v), weights), _mean(np.sign(v), weights), _mean(v, weights))
        return out

    def _best_card(self, info: InfoState, cards: int) -> tuple[int, float]:
        values = self.last_card_values = self.card_values(info, cards)
        # Ties: more points, then the lowest card (deterministic).
        card = max(values, key=lambda c: (values[c][0], values[c][2], -c))
        return card, values[card][1]

    def _continue_sign(self, info: InfoState) -> float:
        """Mean outcome sign, for this seat, if a proposal is declined and the
        proposer plays on (both sides then play perfectly in each layout)."""
        proposer = info.alifer_proposer if info.alifer_proposer >= 0 else 1 - info.seat
        values, weights = self.solve_layouts(info, proposer, moves=False)
        return _mean(np.sign(values), weights)


def opponent_pending(info: InfoState, opp_hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per opponent hand in ``opp_hands`` (its unplayed cards, one layout
    each), (Aces count, other points) of the declarations the opponent has
    not made but still may, read from the dealt hand that layout gives it;
    ``pimc:anticipate=true`` assumes it makes them all."""
    opp = 1 - info.seat
    made = info.declarations[opp]
    played = 0
    for c in info.played_by(opp):
        played |= 1 << c
    first_card = info.ncards[opp] == 0
    aces_open = ACES not in made and (first_card or (info.ace_declaration == "first_ace" and not played & ACE_MASK))
    aces = np.zeros(len(opp_hands), dtype=np.int64)
    points = np.zeros(len(opp_hands), dtype=np.int64)
    for i, h in enumerate(opp_hands):
        dealt = int(h) | played
        if aces_open and aces_possible(dealt):
            aces[i] = (dealt & ACE_MASK).bit_count()
        if BIANKA not in made and bianka_possible(dealt):
            points[i] += declaration_value(BIANKA, 1, True)[0]
        if first_card:
            bits = first_card_declarations(dealt)
            for a in _FIRST_CARD_DECLS:
                if bits >> a & 1 and a not in made:
                    n = (dealt & RANK_MASK[FIGURA_RANK[a]]).bit_count() if a in FIGURA_RANK else 1
                    points[i] += declaration_value(a, n, True)[0]
    return aces, points


def _mean(x: np.ndarray, weights: np.ndarray | None) -> float:
    """The plain mean when every layout counts the same (so results do not
    move by a rounding), else the weighted one."""
    return float(x.mean() if weights is None else x @ weights)


__all__ = ["PimcPlayer", "OBJECTIVES"]
