"""The rules of a partie (docs/rules.md sections 2-7) as numba kernels over
many parties at once.

The state of party ``i`` is row ``i`` of one ``int64`` array ``S`` of shape
``(N, NCOLS)``; the column offsets below name its fields. Cards and card
sets are ids and bit sets exactly as in ``trappola_env.engine.cards``, and
legal actions a bit set over the 49 action ids as ``Partie.legal_mask``.

Every kernel mirrors one method of ``trappola_env.engine.partie.Partie``
(or ``scoring``, ``bonuses``, ``observation.encode``); the tests check them
against those step by step. The numbers below are the engine's, read
into plain module names because numba freezes module globals into the
compiled code; the layout assumptions are asserted at import, and
``tests/test_rules_constants.py`` checks every copy against the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt
from numba import njit

from trappola_env.engine import bonuses as _bonuses
from trappola_env.engine import declarations as _decl
from trappola_env.engine.actions import (
    ACCEPT_ALIFER,
    ACES,
    BIANKA,
    BLANS,
    DECLINE_ALIFER,
    FIGURA_BUBE,
    FIGURA_CAVALL,
    FIGURA_RE,
    FIGURA_TWOS,
    MANKO,
    N_ACTIONS,
    PROPOSE_ALIFER,
)
from trappola_env.engine.cards import ACE, ACE_MASK, CARD_POINTS, COURT_MASK, N_CARDS, RANK_MASK, SUIT_MASK, TWO
from trappola_env.engine.scoring import AGREED_ALIFER, BASE_STAKE
from trappola_env.engine.scoring import DECIDED as _DECIDED
from trappola_env.engine.scoring import FORFEIT as _FORFEIT
from trappola_env.engine.scoring import TIE as _TIE

from .. import full_deal as _fd
from .. import observation as _obs

Array = npt.NDArray[Any]
"""A kernel's array argument; numba compiles one version per dtype and layout it is called with."""

_F = TypeVar("_F", bound=Callable[..., Any])


def kernel(**options: Any) -> Callable[[_F], _F]:
    """``numba.njit(**options)``, typed so that a compiled kernel keeps its Python signature for the type checker."""
    return cast("Callable[[_F], _F]", njit(**options))


# ---------------------------------------------------------------- state columns
HAND = 0  # 2: cards held now, per seat
DEALT = 2  # 2: cards dealt, per seat
BOTTOM = 4  # the face-up bottom card of the stock
TO_ACT = 5
PHASE = 6  # PLAY, ANSWER (an Alifer proposal awaits its answer), DONE
TRICK = 7  # completed tricks
LEAD = 8  # card led to the current trick, -1 if none
LEADER = 9
NCARDS = 10  # 2: cards played per seat
USED = 12  # 2: declaration/question/proposal action bits already used (Partie.done)
COUNTS = 14  # 2 x 7: declared count per action 36..42 (0: not declared)
ACES_FAILED = 28  # 2
MANKO_ANSWER = 30  # 2: per declarer, bits (4 * figura index + missing suit) of the Manko answer
PROPOSER = 32  # the seat whose Alifer proposal is pending, else -1
POINTS = 33  # 2: card points won
TRICK_LEADER = 35  # 9
TRICK_WINNER = 44  # 9
TWO_WINNER = 53  # 9: seat that won trick t with a Two, else -1
CARD_TRICK = 62  # 36: trick number (1..9) in which a card was played, 0 if not
OUTCOME = 98  # -1 while playing; DECIDED, TIE, AGREED, FORFEIT
WINNER = 99  # -1 for none
FORFEITED = 100  # -1 for none
MULTIPLIER = 101
FIRST_DECL = 102  # 2: Figura/Blans action bits true of the dealt hand
ACES_OK = 104  # 2: 1 if the dealt hand holds 3 or 4 Aces
BIANKA_OK = 106  # 2: the Bianka action bit if the dealt hand qualifies, else 0
STOCK = 108  # 18: the stock in order, the last the face-up bottom card
NCOLS = 126

PLAY, ANSWER, DONE = 0, 1, 2
DECIDED, TIE, AGREED, FORFEIT = 0, 1, 2, 3
OUTCOME_NAMES = (_DECIDED, _TIE, AGREED_ALIFER, _FORFEIT)

# step() error codes
OK, ERR_ILLEGAL, ERR_OVER = 0, 1, 2

# ---------------------------------------------------------------- rule constants
SUIT_MASKS = np.array(SUIT_MASK, dtype=np.int64)
RANK_MASKS = np.array(RANK_MASK, dtype=np.int64)
CARD_PTS = np.array(CARD_POINTS, dtype=np.int64)
ACE_BITS = ACE_MASK
COURT_BITS = COURT_MASK
BIANKA_FORBIDDEN = _decl.BIANKA_FORBIDDEN
CARD_BITS = (1 << N_CARDS) - 1
FIG0 = FIGURA_RE  # Figura actions are FIG0..FIG0+3: Re, Cavall, Bube, Twos
FIG_RANK = np.array(
    [_decl.FIGURA_RANK[a] for a in (FIGURA_RE, FIGURA_CAVALL, FIGURA_BUBE, FIGURA_TWOS)], dtype=np.int64
)
# (points, payment) of a Figura by action index 0..3 and count 3/4
FIG_POINTS = np.array(
    [[_decl.FIGURA_VALUE[a][n][0] for n in (3, 4)] for a in (FIGURA_RE, FIGURA_CAVALL, FIGURA_BUBE, FIGURA_TWOS)],
    dtype=np.int64,
)
FIG_PAY = np.array(
    [[_decl.FIGURA_VALUE[a][n][1] for n in (3, 4)] for a in (FIGURA_RE, FIGURA_CAVALL, FIGURA_BUBE, FIGURA_TWOS)],
    dtype=np.int64,
)
ACES_WIN = np.array([_decl.ACES_VALUE[n][0] for n in (3, 4)], dtype=np.int64)
ACES_LOSE = np.array([_decl.ACES_VALUE[n][1] for n in (3, 4)], dtype=np.int64)
ACES_PAY = np.array([_decl.ACES_VALUE[n][2] for n in (3, 4)], dtype=np.int64)
BLANS_POINTS, BLANS_PAY = _decl.BLANS_VALUE
BIANKA_POINTS, BIANKA_PAY = _decl.BIANKA_VALUE
MARC_POINTS, MARC_PAY = _bonuses.MARC
FIRST_TWO_POINTS, FIRST_TWO_PAY = _bonuses.FIRST_TRICK_TWO
MIDDLE_TWO_POINTS, MIDDLE_TWO_PAY = _bonuses.MIDDLE_TWO
LAST_TWOS_POINTS = np.array([0] + [_bonuses.LAST_TWOS[s][0] for s in (1, 2, 3)], dtype=np.int64)
LAST_TWOS_PAY = np.array([0] + [_bonuses.LAST_TWOS[s][1] for s in (1, 2, 3)], dtype=np.int64)
LAST_TRICK_POINTS, LAST_TRICK_PAY = _bonuses.LAST_TRICK
STAKE = BASE_STAKE
FIGURA_BITS = sum(1 << a for a in (FIGURA_RE, FIGURA_CAVALL, FIGURA_BUBE, FIGURA_TWOS))
ACES_BIT = 1 << ACES
MANKO_BIT = 1 << MANKO
PROPOSE_BIT = 1 << PROPOSE_ALIFER
ANSWER_BITS = (1 << ACCEPT_ALIFER) | (1 << DECLINE_ALIFER)
NACT = N_ACTIONS
assert (ACES, BLANS, BIANKA, MANKO) == (FIG0 + 4, FIG0 + 5, FIG0 + 6, FIG0 + 7)
assert N_CARDS == 36 and (TWO, ACE) == (0, 8), "the kernels find a Two as card % 9 == 0 and an Ace as card % 9 == 8"
assert sorted(_bonuses.LAST_TWOS) == [1, 2, 3] and sorted(_decl.ACES_VALUE) == [3, 4]

# ---------------------------------------------------------------- observation layout
OBS_SIZE = _obs.OBS_SIZE
O_HAND = _obs.OFFSET["hand"]
O_DEALT = _obs.OFFSET["dealt_hand"]
O_BOTTOM = _obs.OFFSET["stock_bottom"]
O_PME = _obs.OFFSET["played_by_me"]
O_POPP = _obs.OFFSET["played_by_opponent"]
O_LEAD = _obs.OFFSET["table_lead"]
O_LED = _obs.OFFSET["trick_led_by_me"]
O_WME = _obs.OFFSET["trick_won_by_me"]
O_WOPP = _obs.OFFSET["trick_won_by_opponent"]
O_DECL_ME = _obs.OFFSET["declared_by_me"]
O_DECL_OPP = _obs.OFFSET["declared_by_opponent"]
O_MASKED_ME = _obs.OFFSET["manko_asked_by_me"]
O_MASKED_OPP = _obs.OFFSET["manko_asked_by_opponent"]
O_MANSWER_ME = _obs.OFFSET["manko_answer_by_me"]
O_MANSWER_OPP = _obs.OFFSET["manko_answer_by_opponent"]
O_ROLE = _obs.OFFSET["role"]
O_PENDING = _obs.OFFSET["alifer_pending"]
O_PROPOSED = _obs.OFFSET["alifer_proposed"]
O_TRICK_OF = _obs.OFFSET["played_in_trick"]
O_POINTS = _obs.OFFSET["card_points"]
O_TRICKNO = _obs.OFFSET["trick_number"]
O_MULT = _obs.OFFSET["multiplier"]
MULT_LOG2_MAX = _obs.MULTIPLIER_LOG2_MAX
TRICK_VALUE = np.array([np.float32(t / 9) for t in range(10)], dtype=np.float32)
POINT_SCALE = 1.0 / _obs.CARD_POINTS_TOTAL  # a double, as observation.encode multiplies
# declared_by_* bit of (action index 0..6, count): Figura/Aces 2 * index + (count - 3); Blans 10, Bianka 11
assert _obs._DECL_BIT[(FIGURA_TWOS, 4)] == 7 and _obs._DECL_BIT[(ACES, 3)] == 8
assert _obs._DECL_BIT[(BLANS, 1)] == 10 and _obs._DECL_BIT[(BIANKA, 1)] == 11
# manko_answer_* row of a Figura: 4 * (action - FIG0) + missing suit
assert all(_obs._MANKO_ROW[_decl.FIGURA_RANK[FIG0 + i]] == 4 * i for i in range(4))

# full deal (trappola_env.full_deal)
FD_HAND, FD_DEALT, FD_STOCK = (sum(size for _, size, _ in _fd.FULL_DEAL_FIELDS[:k]) for k in range(3))
assert [name for name, _, _ in _fd.FULL_DEAL_FIELDS] == ["opponent_hand", "opponent_dealt", "stock_order"]
FD_SIZE = _fd.FULL_DEAL_SIZE
STOCK_SIZE = _fd.STOCK_SIZE
STOCK_VALUE = np.array([np.float32((k + 1) / STOCK_SIZE) for k in range(STOCK_SIZE)], dtype=np.float32)


@kernel(cache=True, inline="always")
def _popcount(x: int) -> int:
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@kernel(cache=True, inline="always")
def _lowbit_index(x: int) -> int:
    n = 0
    while not (x >> n) & 1:
        n += 1
    return n


# ---------------------------------------------------------------- deal
@kernel(cache=True)
def deal_rows(S: Array, rows: Array, orders: Array, multipliers: Array) -> None:
    """Start party ``rows[j]`` from the shuffled deck ``orders[j]`` (36 ids,
    dealt as ``deal.deal_from_order``) with Alifer multiplier
    ``multipliers[j]``: ``Partie.__init__``."""
    for j in range(rows.shape[0]):
        deal_row(S, rows[j], orders[j], multipliers[j])


@kernel(cache=True, inline="always")
def deal_row(S: Array, i: int, o: Array, multiplier: int) -> None:
    """Party ``i`` of ``deal_rows`` from the deck ``o`` with Alifer multiplier ``multiplier``."""
    for c in range(NCOLS):
        S[i, c] = 0
    h0 = 0
    h1 = 0
    for p in range(3):
        for k in range(3):
            h0 |= 1 << o[6 * p + k]
            h1 |= 1 << o[6 * p + 3 + k]
    for k in range(18):
        S[i, STOCK + k] = o[18 + k]
    S[i, HAND] = h0
    S[i, HAND + 1] = h1
    S[i, DEALT] = h0
    S[i, DEALT + 1] = h1
    S[i, BOTTOM] = o[35]
    S[i, LEAD] = -1
    S[i, PROPOSER] = -1
    S[i, OUTCOME] = -1
    S[i, WINNER] = -1
    S[i, FORFEITED] = -1
    S[i, MULTIPLIER] = multiplier
    for t in range(9):
        S[i, TWO_WINNER + t] = -1
    for s in range(2):
        h = h0 if s == 0 else h1
        bits = 0
        for f in range(4):
            if _popcount(h & RANK_MASKS[FIG_RANK[f]]) >= 3:
                bits |= 1 << (FIG0 + f)
        if h & COURT_BITS == 0:
            bits |= 1 << BLANS
        S[i, FIRST_DECL + s] = bits
        S[i, ACES_OK + s] = 1 if _popcount(h & ACE_BITS) >= 3 else 0
        S[i, BIANKA_OK + s] = (1 << BIANKA) if h & BIANKA_FORBIDDEN == 0 else 0


# ---------------------------------------------------------------- legal actions
@kernel(cache=True, inline="always")
def _legal(S: Array, i: int, ace_first_card: bool) -> int:
    ph = S[i, PHASE]
    if ph != PLAY:
        return ANSWER_BITS if ph == ANSWER else 0
    p = S[i, TO_ACT]
    hand = S[i, HAND + p]
    lead = S[i, LEAD]
    cards = hand
    if lead >= 0:
        follow = hand & SUIT_MASKS[lead // 9]
        if follow:
            cards = follow
    k = S[i, NCARDS + p]
    decl = S[i, BIANKA_OK + p] | PROPOSE_BIT
    if k == 0:
        decl |= S[i, FIRST_DECL + p]
    if S[i, ACES_OK + p] and (k == 0 or (not ace_first_card and hand & ACE_BITS == S[i, DEALT + p] & ACE_BITS)):
        decl |= ACES_BIT
    if k == 1:
        for f in range(4):
            if S[i, COUNTS + 7 * (1 - p) + f] == 3:
                decl |= MANKO_BIT
                break
    legal: int = cards | (decl & ~S[i, USED + p])
    return legal


@kernel(cache=True)
def legal_bits(S: Array, ace_first_card: bool, out: Array) -> None:
    """``out[i]``: ``Partie.legal_mask()`` of party ``i`` (0 once it is over)."""
    for i in range(S.shape[0]):
        out[i] = _legal(S, i, ace_first_card)


@kernel(cache=True)
def legal_array(S: Array, rows: Array, ace_first_card: bool, out: Array) -> None:
    """``out[j, a]``: 1 if action ``a`` is legal in party ``rows[j]``."""
    for j in range(rows.shape[0]):
        legal_row(S, rows[j], ace_first_card, out, j)


@kernel(cache=True, inline="always")
def legal_row(S: Array, i: int, ace_first_card: bool, out: Array, j: int) -> None:
    """``out[j, a]``: 1 if action ``a`` is legal in party ``i``."""
    m = _legal(S, i, ace_first_card)
    for a in range(NACT):
        out[j, a] = (m >> a) & 1


@kernel(cache=True, inline="always")
def legal_bit(S: Array, i: int, ace_first_card: bool) -> int:
    """``Partie.legal_mask()`` of party ``i`` as an int64 bit set."""
    return _legal(S, i, ace_first_card)


# ---------------------------------------------------------------- scoring
@kernel(cache=True)
def _decl_points_pay(S: Array, i: int, s: int) -> tuple[int, int]:
    pts = 0
    pay = 0
    base = COUNTS + 7 * s
    for f in range(4):
        n = S[i, base + f]
        if n:
            pts += FIG_POINTS[f, n - 3]
            pay += FIG_PAY[f, n - 3]
    n = S[i, base + 4]
    if n:
        pts += ACES_LOSE[n - 3] if S[i, ACES_FAILED + s] else ACES_WIN[n - 3]
        pay += ACES_PAY[n - 3]
    if S[i, base + 5]:
        pts += BLANS_POINTS
        pay += BLANS_PAY
    if S[i, base + 6]:
        pts += BIANKA_POINTS
        pay += BIANKA_PAY
    return pts, pay


@kernel(cache=True)
def _trick_bonuses(S: Array, i: int, out_pts: Array, out_pay: Array) -> None:
    """Trick bonuses of a finished partie: points earned and payments made
    into the Bulka per seat (``bonuses.trick_bonuses``)."""
    out_pts[0] = out_pts[1] = out_pay[0] = out_pay[1] = 0
    w0 = S[i, TRICK_WINNER]
    marc = True
    for t in range(1, 9):
        if S[i, TRICK_WINNER + t] != w0:
            marc = False
    if marc:
        out_pts[w0] += MARC_POINTS
        out_pay[1 - w0] += MARC_PAY
    tw = S[i, TWO_WINNER]
    if tw >= 0:
        out_pts[tw] += FIRST_TWO_POINTS
        out_pay[1 - tw] += FIRST_TWO_PAY
    last = S[i, TWO_WINNER + 8]
    s = 0
    if last >= 0:
        s = 1
        while s < 3 and S[i, TWO_WINNER + 8 - s] == last:
            s += 1
    for t in range(1, 9 - s):
        if t < 8:
            tw = S[i, TWO_WINNER + t]
            if tw >= 0:
                out_pts[tw] += MIDDLE_TWO_POINTS
                out_pay[1 - tw] += MIDDLE_TWO_PAY
    if s:
        out_pts[last] += LAST_TWOS_POINTS[s]
        out_pay[1 - last] += LAST_TWOS_PAY[s]
    else:
        w = S[i, TRICK_WINNER + 8]
        out_pts[w] += LAST_TRICK_POINTS
        out_pay[1 - w] += LAST_TRICK_PAY


@kernel(cache=True)
def results(S: Array, rows: Array, stake_multiple: int, scores: Array, tokens: Array) -> None:
    """Settle finished parties (``scoring.settle``): ``scores[j, s]`` = (card
    points, declaration points, bonus points) of seat ``s`` and
    ``tokens[j, s]`` its net tokens, for party ``rows[j]``."""
    bp = np.zeros(2, np.int64)
    bpay = np.zeros(2, np.int64)
    for j in range(rows.shape[0]):
        i = rows[j]
        u = stake_multiple * S[i, MULTIPLIER]
        outcome = S[i, OUTCOME]
        settled = outcome in (DECIDED, TIE)
        finished = settled and S[i, TRICK] == 9
        if finished:
            _trick_bonuses(S, i, bp, bpay)
        else:
            bp[0] = bp[1] = bpay[0] = bpay[1] = 0
        dpay0 = 0
        dpay1 = 0
        for s in range(2):
            pts, pay = _decl_points_pay(S, i, s)
            scores[j, s, 0] = S[i, POINTS + s]
            scores[j, s, 1] = pts
            scores[j, s, 2] = bp[s]
            if s == 0:
                dpay0 = pay
            else:
                dpay1 = pay
        if not settled:
            dpay0 = dpay1 = 0
            bpay[0] = bpay[1] = 0
        tokens[j, 0] = -STAKE * u + (dpay0 - dpay1) * u - bpay[0] * u
        tokens[j, 1] = -STAKE * u + (dpay1 - dpay0) * u - bpay[1] * u


@kernel(cache=True)
def _finish_by_points(S: Array, i: int) -> None:
    bp = np.zeros(2, np.int64)
    bpay = np.zeros(2, np.int64)
    _trick_bonuses(S, i, bp, bpay)
    t0 = S[i, POINTS] + _decl_points_pay(S, i, 0)[0] + bp[0]
    t1 = S[i, POINTS + 1] + _decl_points_pay(S, i, 1)[0] + bp[1]
    if t0 == t1:
        _end(S, i, -1, TIE)
    else:
        _end(S, i, 0 if t0 > t1 else 1, DECIDED)


@kernel(cache=True, inline="always")
def _end(S: Array, i: int, winner: int, outcome: int) -> None:
    S[i, PHASE] = DONE
    S[i, WINNER] = winner
    S[i, OUTCOME] = outcome
    S[i, PROPOSER] = -1


# ---------------------------------------------------------------- actions
@kernel(cache=True)
def _play(S: Array, i: int, p: int, card: int) -> None:
    S[i, HAND + p] &= ~(1 << card)
    S[i, NCARDS + p] += 1
    lead = S[i, LEAD]
    t = S[i, TRICK]
    S[i, CARD_TRICK + card] = t + 1
    if lead < 0:
        S[i, LEAD] = card
        S[i, LEADER] = p
        S[i, TO_ACT] = 1 - p
        return
    leader = S[i, LEADER]
    winner = p if (card // 9 == lead // 9 and card > lead) else leader
    S[i, POINTS + winner] += CARD_PTS[lead] + CARD_PTS[card]
    if S[i, COUNTS + 7 * p + 4] and card % 9 == 8 and winner != p:
        S[i, ACES_FAILED + p] = 1
    win_card = card if winner == p else lead
    S[i, TWO_WINNER + t] = winner if win_card % 9 == 0 else -1
    S[i, TRICK_LEADER + t] = leader
    S[i, TRICK_WINNER + t] = winner
    S[i, TRICK] = t + 1
    S[i, LEAD] = -1
    S[i, TO_ACT] = winner
    if t + 1 == 9:
        _finish_by_points(S, i)


@kernel(cache=True)
def _declare(S: Array, i: int, p: int, action: int) -> None:
    if action == ACCEPT_ALIFER:
        _end(S, i, -1, AGREED)
        return
    if action == DECLINE_ALIFER:
        S[i, PHASE] = PLAY
        S[i, TO_ACT] = S[i, PROPOSER]
        S[i, PROPOSER] = -1
        return
    S[i, USED + p] |= 1 << action
    if action == PROPOSE_ALIFER:
        S[i, PROPOSER] = p
        S[i, PHASE] = ANSWER
        S[i, TO_ACT] = 1 - p
    elif action == MANKO:
        d = 1 - p
        dealt = S[i, DEALT + d]
        ans = 0
        for f in range(4):
            if S[i, COUNTS + 7 * d + f] == 3:
                r = FIG_RANK[f]
                for s in range(4):
                    if not (dealt >> (9 * s + r)) & 1:
                        ans |= 1 << (4 * f + s)
                        break
        S[i, MANKO_ANSWER + d] = ans
    elif action < ACES:
        S[i, COUNTS + 7 * p + action - FIG0] = _popcount(S[i, HAND + p] & RANK_MASKS[FIG_RANK[action - FIG0]])
    elif action == ACES:
        S[i, COUNTS + 7 * p + 4] = _popcount(S[i, HAND + p] & ACE_BITS)
    else:  # Blans, Bianka
        S[i, COUNTS + 7 * p + action - FIG0] = 1


@kernel(cache=True)
def step_rows(S: Array, rows: Array, actions: Array, ace_first_card: bool, forfeit: bool) -> tuple[int, int]:
    """Apply ``actions[j]`` in party ``rows[j]`` for the seat to act
    (``Partie.apply``). Returns (error code, j) of the first refused
    action, ``(OK, -1)`` if none: an action in a party already over
    (``ERR_OVER``) or an illegal action without ``forfeit``
    (``ERR_ILLEGAL``); the parties before it were stepped, that one and
    those after it were not. With ``forfeit`` an illegal action loses the
    partie for its maker (Art. 12)."""
    # apply_action's steps written out here: this loop is the one-core path, and
    # calling it measured a fifth slower.
    for j in range(rows.shape[0]):
        i = rows[j]
        a = actions[j]
        if S[i, PHASE] == DONE:
            return ERR_OVER, j
        p = S[i, TO_ACT]
        legal = _legal(S, i, ace_first_card)
        if 0 <= a < NACT and (legal >> a) & 1:
            if a < 36:
                _play(S, i, p, a)
            else:
                _declare(S, i, p, a)
        elif forfeit:
            S[i, FORFEITED] = p
            _end(S, i, 1 - p, FORFEIT)
        else:
            return ERR_ILLEGAL, j
    return OK, -1


@kernel(cache=True, inline="always")
def _allowed(legal: int, a: int) -> bool:
    return 0 <= a < NACT and ((legal >> a) & 1) == 1


@kernel(cache=True, inline="always")
def check_action(S: Array, i: int, a: int, ace_first_card: bool, forfeit: bool) -> int:
    """``OK`` if ``step_rows`` may apply action ``a`` in party ``i`` (legal,
    or illegal with ``forfeit``), else its error code."""
    if S[i, PHASE] == DONE:
        return ERR_OVER
    if forfeit or _allowed(_legal(S, i, ace_first_card), a):
        return OK
    return ERR_ILLEGAL


@kernel(cache=True, inline="always")
def apply_action(S: Array, i: int, a: int, legal: int) -> None:
    """Apply action ``a`` in party ``i``, whose legal actions are the bit
    set ``legal``, as ``step_rows`` does (``check_action`` allowed it): an
    illegal one forfeits the partie for its maker."""
    p = S[i, TO_ACT]
    if _allowed(legal, a):
        if a < 36:
            _play(S, i, p, a)
        else:
            _declare(S, i, p, a)
    else:
        S[i, FORFEITED] = p
        _end(S, i, 1 - p, FORFEIT)


# ---------------------------------------------------------------- observation
@kernel(cache=True)
def encode_rows(S: Array, rows: Array, seats: Array, out: Array) -> None:
    """``out[j]``: ``observation.encode(partie, seats[j])`` of party ``rows[j]``."""
    for j in range(rows.shape[0]):
        encode_row(S, rows[j], seats[j], out[j])


@kernel(cache=True, inline="always")
def encode_row(S: Array, i: int, me: int, o: Array) -> None:
    """``o``: ``observation.encode(partie, me)`` of party ``i``."""
    opp = 1 - me
    o[:] = 0.0
    hand = S[i, HAND + me]
    mine = S[i, DEALT + me]
    theirs = S[i, DEALT + opp]
    played_me = mine & ~hand
    played_opp = theirs & ~S[i, HAND + opp]
    for c in range(36):
        if (hand >> c) & 1:
            o[O_HAND + c] = 1.0
        if (mine >> c) & 1:
            o[O_DEALT + c] = 1.0
        if (played_me >> c) & 1:
            o[O_PME + c] = 1.0
        if (played_opp >> c) & 1:
            o[O_POPP + c] = 1.0
        t = S[i, CARD_TRICK + c]
        if t:
            o[O_TRICK_OF + c] = TRICK_VALUE[t]
    o[O_BOTTOM + S[i, BOTTOM]] = 1.0
    o[O_ROLE + me] = 1.0
    lead = S[i, LEAD]
    if lead >= 0:
        o[O_LEAD + lead] = 1.0
    nt = S[i, TRICK]
    for t in range(nt):
        if S[i, TRICK_LEADER + t] == me:
            o[O_LED + t] = 1.0
        if S[i, TRICK_WINNER + t] == me:
            o[O_WME + t] = 1.0
        else:
            o[O_WOPP + t] = 1.0
    for who in range(2):
        s = me if who == 0 else opp
        base_decl = O_DECL_ME if who == 0 else O_DECL_OPP
        cb = COUNTS + 7 * s
        for f in range(5):
            n = S[i, cb + f]
            if n:
                o[base_decl + 2 * f + n - 3] = 1.0
        if S[i, cb + 5]:
            o[base_decl + 10] = 1.0
        if S[i, cb + 6]:
            o[base_decl + 11] = 1.0
        used = S[i, USED + s]
        if used & MANKO_BIT:
            o[(O_MASKED_ME if who == 0 else O_MASKED_OPP)] = 1.0
        ans = S[i, MANKO_ANSWER + s]
        base_ans = O_MANSWER_ME if who == 0 else O_MANSWER_OPP
        for b in range(16):
            if (ans >> b) & 1:
                o[base_ans + b] = 1.0
        if used & PROPOSE_BIT:
            o[O_PROPOSED + who] = 1.0
    if S[i, PHASE] == ANSWER:
        o[O_PENDING + (1 if S[i, PROPOSER] != me else 0)] = 1.0
    o[O_POINTS] = S[i, POINTS + me] * POINT_SCALE
    o[O_POINTS + 1] = S[i, POINTS + opp] * POINT_SCALE
    o[O_TRICKNO] = TRICK_VALUE[nt]
    m = S[i, MULTIPLIER]
    if m > 1:
        o[O_MULT] = min(np.log2(np.float64(m)) / MULT_LOG2_MAX, 1.0)


@kernel(cache=True)
def full_deal_rows(S: Array, rows: Array, seats: Array, out: Array) -> None:
    """``out[j]``: ``full_deal.encode_full_deal(partie, seats[j])`` of party ``rows[j]``."""
    for j in range(rows.shape[0]):
        full_deal_row(S, rows[j], seats[j], out[j])


@kernel(cache=True, inline="always")
def full_deal_row(S: Array, i: int, me: int, o: Array) -> None:
    """``o``: ``full_deal.encode_full_deal(partie, me)`` of party ``i``."""
    opp = 1 - me
    o[:] = 0.0
    hand = S[i, HAND + opp]
    dealt = S[i, DEALT + opp]
    for c in range(36):
        if (hand >> c) & 1:
            o[FD_HAND + c] = 1.0
        if (dealt >> c) & 1:
            o[FD_DEALT + c] = 1.0
    for k in range(STOCK_SIZE):
        o[FD_STOCK + S[i, STOCK + k]] = STOCK_VALUE[k]


# ---------------------------------------------------------------- random play
@kernel(cache=True)
def seed_numba(seed: int) -> None:
    """Seed numba's own generator (used by ``random_actions``)."""
    np.random.seed(seed)


@kernel(cache=True)
def random_actions(S: Array, rows: Array, ace_first_card: bool, out: Array) -> None:
    """``out[j]``: a legal action of party ``rows[j]`` drawn uniformly (the
    ``random`` player), from numba's generator."""
    for j in range(rows.shape[0]):
        m = _legal(S, rows[j], ace_first_card)
        k = np.random.randint(0, _popcount(m))
        for _ in range(k):
            m &= m - 1
        out[j] = _lowbit_index(m)


@kernel(cache=True)
def random_playout(S: Array, rows: Array, ace_first_card: bool, forfeit: bool) -> int:
    """Play parties ``rows`` to their end with uniformly random legal
    actions; returns the number of actions applied."""
    n = 0
    one = np.zeros(1, np.int64)
    act = np.zeros(1, np.int64)
    for j in range(rows.shape[0]):
        one[0] = rows[j]
        while S[rows[j], PHASE] != DONE:
            random_actions(S, one, ace_first_card, act)
            step_rows(S, one, act, ace_first_card, forfeit)
            n += 1
    return n
