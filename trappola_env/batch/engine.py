"""``BatchPartie``: N parties of ``trappola_v0`` advanced together in arrays.

The same rules as ``trappola_env.engine.Partie`` (docs/rules.md sections
2-7), the same legal masks, the same observation vectors as
``observation.encode``, the same privileged vectors as
``full_deal.encode_full_deal``, and the same settlement and rewards as
``scoring.settle`` and ``spaces_and_rewards.partie_reward``: a second
implementation, checked against the reference engine step by step by the
tests. Each call works on a set of parties (``rows``, default all), so a
caller can step the parties whose player is to act and leave the others.

    b = BatchPartie(1024)
    b.deal(rng=np.random.default_rng(0))
    while not b.done.all():
        rows = np.flatnonzero(~b.done)
        b.step(b.random_actions(rows), rows)
    res = b.results()
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from trappola_env.engine.actions import N_ACTIONS, action_name
from trappola_env.engine.cards import N_CARDS
from trappola_env.engine.checks import check_positive_int
from trappola_env.engine.deal import Deal
from trappola_env.engine.partie import IllegalActionError
from trappola_env.engine.rule_config import RuleConfig
from trappola_env.full_deal import FULL_DEAL_SIZE
from trappola_env.observation import OBS_SIZE
from trappola_env.spaces_and_rewards import REWARD_MODES, check_reward_mode

from . import kernels as K
from . import parallel as P

ROWS_DTYPE = np.int64
Ints = npt.NDArray[np.int64]
Rows = npt.ArrayLike | None
"""A row selection: party indices, a boolean mask over all parties, or ``None`` for all."""
#: Calls on fewer parties run on one core: starting the threads would cost more than they save.
PARALLEL_MIN_ROWS = 256


def available_threads() -> int:
    """The most threads the batched engine may use: numba's limit (the
    cores, unless ``NUMBA_NUM_THREADS`` says fewer)."""
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)


def check_threads(threads: int) -> int:
    """The threads ``threads`` asks for: itself, or every core for 0 or
    more than the machine has. ``ValueError`` unless an int >= 0."""
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 0:
        raise ValueError(f"threads must be an int >= 0 (0: every core), got {threads!r}")
    most = available_threads()
    return most if threads == 0 else min(int(threads), most)


def random_orders(rng: np.random.Generator, k: int) -> Ints:
    """``k`` shuffled decks, one per row (int64, shape ``(k, 36)``)."""
    return rng.permuted(np.broadcast_to(np.arange(N_CARDS, dtype=np.int64), (k, N_CARDS)), axis=1)


class BatchPartie:
    """``n`` parties in one state array; see the module docstring.

    ``ace_declaration`` and ``illegal_action`` are the engine's
    ``RuleConfig`` options; ``stake_multiple`` scales tokens as in
    ``Partie``. A party is dealt by ``deal`` and is over when ``done`` is
    True; it then stays as it ended until it is dealt again.

    ``threads``: the cores that dealing, stepping, legal masks and
    observations use (``trappola_env.batch.parallel``; 0: every core).
    The results are the same bytes with any number; the random player's
    draws stay on one core."""

    def __init__(
        self,
        n: int,
        ace_declaration: str = "first_ace",
        illegal_action: str = "raise",
        stake_multiple: int = 1,
        threads: int = 1,
    ):
        check_positive_int("n", n)
        check_positive_int("stake_multiple", stake_multiple)
        self.threads = check_threads(threads)
        self.config = RuleConfig(ace_declaration=ace_declaration, illegal_action=illegal_action)
        self.n = n
        self.stake_multiple = stake_multiple
        self._ace_first_card = ace_declaration == "first_card"
        self._forfeit = illegal_action == "forfeit"
        self.S = np.zeros((n, K.NCOLS), np.int64)
        self.S[:, K.PHASE] = K.DONE  # nothing dealt yet
        self.S[:, K.OUTCOME] = -1
        self._all = np.arange(n, dtype=ROWS_DTYPE)

    # ------------------------------------------------------------- helpers
    def _rows(self, rows: Rows) -> Ints:
        if rows is None:
            return self._all
        rows = np.asarray(rows)
        if rows.dtype == bool:
            if rows.shape != (self.n,):
                raise ValueError(f"a boolean row selection must have shape ({self.n},), got {rows.shape}")
            return np.flatnonzero(rows).astype(ROWS_DTYPE)
        rows = np.ascontiguousarray(rows, dtype=ROWS_DTYPE).reshape(-1)
        if rows.size and (rows.min() < 0 or rows.max() >= self.n):
            raise ValueError(f"party rows must lie in 0..{self.n - 1}, got {rows.min()}..{rows.max()}")
        return rows

    def _kernels(self, k: int, rows: Ints | None = None) -> Any:  # the module kernels or parallel
        """The kernels for a call on ``k`` parties: on ``threads`` cores
        when there are enough parties (and ``rows`` lists each once)."""
        if self.threads == 1 or k < PARALLEL_MIN_ROWS or (rows is not None and not P.distinct_rows(rows, self.n)):
            return K
        import numba

        numba.set_num_threads(self.threads)
        return P

    @staticmethod
    def _per_row(value: npt.ArrayLike, k: int) -> Ints:
        """One int64 per row: ``value`` itself, or one value repeated."""
        return np.ascontiguousarray(np.broadcast_to(np.asarray(value, dtype=np.int64), (k,)))

    # ---------------------------------------------------------------- deal
    def deal(
        self,
        rows: Rows = None,
        orders: npt.ArrayLike | None = None,
        rng: np.random.Generator | None = None,
        multipliers: npt.ArrayLike = 1,
    ) -> None:
        """Start new parties in ``rows``: from ``orders`` (one shuffled deck
        of 36 card ids per row, dealt as ``deal_from_order``), or from
        decks shuffled by ``rng``. ``multipliers``: the Alifer multiplier
        m, one for all or one per row."""
        rows = self._rows(rows)
        k = rows.size
        if orders is None:
            if rng is None:
                raise ValueError("deal needs orders or an rng")
            orders = random_orders(rng, k)
        orders = np.ascontiguousarray(orders, dtype=np.int64)
        if orders.shape != (k, N_CARDS):
            raise ValueError(f"orders must have shape ({k}, {N_CARDS}), got {orders.shape}")
        if k and not (np.sort(orders, axis=1) == np.arange(N_CARDS)).all():
            raise ValueError("every order must hold each card id 0..35 once")
        mult = self._per_row(multipliers, k)
        if k and mult.min() < 1:
            raise ValueError(f"multipliers must be positive ints, got {mult.min()}")
        self._kernels(k, rows).deal_rows(self.S, rows, orders, mult)

    # ------------------------------------------------------------- queries
    @property
    def done(self) -> npt.NDArray[np.bool_]:
        """bool per party: over (or never dealt)."""
        done: npt.NDArray[np.bool_] = self.S[:, K.PHASE] == K.DONE
        return done

    @property
    def to_act(self) -> Ints:
        """The seat to act per party (0 = challenger, 1 = dealer)."""
        return self.S[:, K.TO_ACT]

    def legal_bits(self) -> Ints:
        """``Partie.legal_mask()`` of every party as int64 bit sets."""
        out = np.empty(self.n, np.int64)
        self._kernels(self.n).legal_bits(self.S, self._ace_first_card, out)
        return out

    def legal_masks(self, rows: Rows = None, out: npt.NDArray[Any] | None = None) -> npt.NDArray[Any]:
        """Legal actions of ``rows`` as an array ``(len(rows), 49)`` of 0/1
        (int8 unless ``out`` of another type is given)."""
        rows = self._rows(rows)
        if out is None:
            out = np.empty((rows.size, N_ACTIONS), np.int8)
        self._kernels(rows.size).legal_array(self.S, rows, self._ace_first_card, out)
        return out

    def observe(
        self, seats: npt.ArrayLike, rows: Rows = None, out: npt.NDArray[np.float32] | None = None
    ) -> npt.NDArray[np.float32]:
        """The ``trappola_v0`` observation of ``seats`` (one for all, or one
        per row) in ``rows``: float32 ``(len(rows), 347)``."""
        return self._encode("encode_rows", OBS_SIZE, seats, rows, out)

    def full_deal(
        self, seats: npt.ArrayLike, rows: Rows = None, out: npt.NDArray[np.float32] | None = None
    ) -> npt.NDArray[np.float32]:
        """``full_deal.encode_full_deal`` of ``seats`` in ``rows``: float32
        ``(len(rows), 108)``, for a critic that may see the whole deal."""
        return self._encode("full_deal_rows", FULL_DEAL_SIZE, seats, rows, out)

    def _encode(
        self, kernel: str, size: int, seats: npt.ArrayLike, rows: Rows, out: npt.NDArray[np.float32] | None
    ) -> npt.NDArray[np.float32]:
        picked = self._rows(rows)
        per_row = self._per_row(seats, picked.size)
        if out is None:
            out = np.empty((picked.size, size), np.float32)
        getattr(self._kernels(picked.size), kernel)(self.S, picked, per_row, out)
        return out

    # ---------------------------------------------------------------- step
    def step(self, actions: npt.ArrayLike, rows: Rows = None) -> None:
        """Apply ``actions[j]`` in party ``rows[j]`` for its seat to act.

        An action in a party that is over, or an illegal one when
        ``illegal_action="raise"``, raises ``IllegalActionError`` (a
        ``ValueError``) naming the party and the legal actions; the parties
        listed before it have been stepped, it and those after it not."""
        rows = self._rows(rows)
        actions = np.ascontiguousarray(actions, dtype=np.int64).reshape(-1)
        if actions.shape != rows.shape:
            raise ValueError(f"need one action per party: {actions.size} actions for {rows.size} parties")
        err, j = self._kernels(rows.size, rows).step_rows(self.S, rows, actions, self._ace_first_card, self._forfeit)
        if err != K.OK:
            i, a = int(rows[j]), int(actions[j])
            what = f"{a} ({action_name(a)})" if 0 <= a < N_ACTIONS else repr(a)
            if err == K.ERR_OVER:
                raise IllegalActionError(f"party {i}: the partie is over; action {what} cannot be applied")
            legal = self.legal_masks([i])[0]
            names = ", ".join(f"{x} ({action_name(int(x))})" for x in np.flatnonzero(legal))
            raise IllegalActionError(
                f"party {i}: illegal action {what} for seat {int(self.S[i, K.TO_ACT])}; legal: {names}"
            )

    def random_actions(self, rows: Rows = None) -> Ints:
        """A uniformly drawn legal action per party in ``rows`` (all must be
        in play), from numba's generator (seed it with ``seed_random``)."""
        rows = self._rows(rows)
        if self.done[rows].any():
            raise ValueError("random_actions needs parties that are not over")
        out = np.empty(rows.size, np.int64)
        K.random_actions(self.S, rows, self._ace_first_card, out)
        return out

    @staticmethod
    def seed_random(seed: int) -> None:
        """Seed the generator of ``random_actions`` and ``random_playout``."""
        K.seed_numba(int(seed))

    def random_playout(self, rows: Rows = None) -> int:
        """Play ``rows`` to their end by uniformly random legal actions (in
        compiled code: the engine's bare speed); returns the actions applied."""
        return int(K.random_playout(self.S, self._rows(rows), self._ace_first_card, self._forfeit))

    # -------------------------------------------------------------- results
    def results(self, rows: Rows = None) -> dict[str, Ints]:
        """The settlement of finished parties (``scoring.settle``), as arrays
        over ``rows``: ``outcome`` (0 decided, 1 tie, 2 agreed_alifer, 3
        forfeit; names in ``OUTCOME_NAMES``), ``winner`` and
        ``forfeited_by`` (seat or -1), ``scores`` ``(k, 2, 3)`` (card,
        declaration, bonus points per seat), ``totals`` ``(k, 2)`` and
        ``tokens`` ``(k, 2)`` (net tokens per seat)."""
        rows = self._rows(rows)
        if not self.done[rows].all() or (self.S[rows, K.OUTCOME] < 0).any():
            raise RuntimeError("results of parties that are not over")
        scores = np.empty((rows.size, 2, 3), np.int64)
        tokens = np.empty((rows.size, 2), np.int64)
        K.results(self.S, rows, self.stake_multiple, scores, tokens)
        return {
            "outcome": self.S[rows, K.OUTCOME].copy(),
            "winner": self.S[rows, K.WINNER].copy(),
            "forfeited_by": self.S[rows, K.FORFEITED].copy(),
            "scores": scores,
            "totals": scores.sum(axis=2),
            "tokens": tokens,
        }

    def rewards(
        self, seats: npt.ArrayLike, reward_mode: str = "win", rows: Rows = None, results: dict[str, Ints] | None = None
    ) -> npt.NDArray[np.float64]:
        """``spaces_and_rewards.partie_reward`` of ``seats`` (one for all or one per
        row) in finished ``rows``, as float64; ``results`` may pass those
        already computed by ``results(rows)``."""
        check_reward_mode(reward_mode, REWARD_MODES)
        rows = self._rows(rows)
        res = self.results(rows) if results is None else results
        seats = self._per_row(seats, rows.size)
        return rewards_of(res, seats, reward_mode)


def rewards_of(res: dict[str, Ints], seats: Ints, reward_mode: str) -> npt.NDArray[np.float64]:
    """``partie_reward`` over the arrays of ``BatchPartie.results``."""
    k = seats.size
    idx = np.arange(k)
    if reward_mode == "tokens":
        return res["tokens"][idx, seats].astype(np.float64)
    outcome = res["outcome"]
    alifer = (outcome == K.TIE) | (outcome == K.AGREED)
    won = res["winner"] == seats
    if reward_mode == "win":
        r = np.where(won, 1.0, -1.0)
    else:
        totals = res["totals"]
        diff = (totals[idx, seats] - totals[idx, 1 - seats]).astype(np.float64)
        offender = np.minimum(np.where(won, -diff, diff), -1.0)
        r = np.where(outcome == K.FORFEIT, np.where(won, -offender, offender), diff)
    return np.where(alifer, 0.0, r)


OUTCOME_NAMES = K.OUTCOME_NAMES
__all__ = ["BatchPartie", "OUTCOME_NAMES", "order_of", "random_orders", "rewards_of"]


def order_of(deal: Deal) -> list[int]:
    """The deck order that ``deal_from_order`` deals into ``deal`` (an
    engine ``Deal``), for ``BatchPartie.deal(orders=...)``."""
    ch, de = deal.challenger, deal.dealer
    out: list[int] = []
    for p in range(3):
        out.extend(ch[3 * p : 3 * p + 3])
        out.extend(de[3 * p : 3 * p + 3])
    return out + list(deal.stock)
