"""Alpha-beta search over the remaining tricks, with a transposition table.

How the search works
--------------------
A position is searched by ``_search``.  There are two kinds of node:

* a *trick start* (``lead == -1``): the leader chooses a card;
* a *mid-trick* node (``lead`` = the card on the table): the other player
  answers, the trick is scored by ``play_follow`` and the winner leads the
  next trick.

Seat 0 maximises and seat 1 minimises the score difference.  A node returns
only the points still to be earned from it ("future value"); everything the
past fixed is added once at the root (``rules_kernel.root_offset``).  Because
the future value depends only on a handful of fields (see ``_tt_key``), a
trick-start node can be stored in a transposition table (TT) and reused when
another order of play reaches the same cards.

The TT stores a *bound* (lower, upper) on a node's future value and the best
card found, so that searches with any alpha-beta window can share it.  The
drivers use MTD(f): a sequence of null-window searches (alpha = beta - 1)
that home in on the exact value; null windows cut far more than a full
window and the TT makes the repeated passes cheap.  The key holds every field
the future value depends on, so a table may be kept between solves of
different positions (a PIMC player reuses one table for all its samples).

Moves are searched in a good order so cut-offs come early: the TT's best
card first, then leads that surely win the trick (a Two led into a void
first: it scores a Two bonus), then cheap leads; replies that win the trick
before replies that lose it, losing replies cheapest first.  Cards of one
hand that are provably interchangeable (``rules_kernel.redundant_cards``)
are searched once.  The last three tricks are not expanded node by node:
``last_tricks.py`` computes them by direct minimax (trick 7 starts are still
stored in the TT, with their exact value).

numba cannot load a cached self-recursive function (numba issue #6061), so
the depth-first search keeps its own stack of frames instead of recursing.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from trappola.agents.search.solver.last_tricks import last_three_tricks_value, last_trick_value, last_two_tricks_value
from trappola.agents.search.solver.rules_kernel import (
    ACES,
    INF,
    POINTS,
    SUITS,
    ace_stake,
    play_follow,
    redundant_cards,
    root_offset,
)

# A TT row: [key1, key2, packed bounds, best card].
TT_COLUMNS = 4
_BOUND_BITS = 22  # each bound is stored as value + INF in 22 bits
_BOUND_MASK = (1 << _BOUND_BITS) - 1
_EMPTY_KEY = -1  # no real key1 is negative (bit 63 is never set)

# Returned by solve_moves_raw for cards that are not legal moves.
NOT_LEGAL = -(1 << 40)

MAX_PLY = 18  # 9 tricks x 2 cards


def new_table(log2_rows: int = 17) -> np.ndarray:
    """A fresh, empty transposition table (2**log2_rows rows, 32 bytes each).

    A full 9-trick solve stores a few thousand positions, so the default
    2**17 rows (4 MiB) rarely overwrites anything useful; much larger tables
    are slower (cache misses).  Keys are complete, so one table can serve
    any number of solves, of any positions.
    """
    tt = np.zeros((1 << log2_rows, TT_COLUMNS), dtype=np.int64)
    tt[:, 0] = _EMPTY_KEY
    return tt


# Columns of the frame array: one row per node on the current search path.
H0, H1, LEADER, LEAD, TD, MARC, ST0, ST1, TW7, TW8 = range(10)  # node state
ALPHA, BETA = 10, 11  # current window
A0, B0 = 12, 13  # window the moves are searched with (after TT)
LO, HI = 14, 15  # bounds known from the TT before the search
BEST, BEST_CARD, CUR = 16, 17, 18
MAXIMIZE = 19  # 1 if seat 0 chooses at this node
N_MOVES, NEXT = 20, 21  # move list length, index of the next move
DELTA = 22  # points the trick to the current child earned
SLOT, K1, K2 = 23, 24, 25  # TT row and key of a trick-start node
N_FIELDS = 26


@njit(cache=True)
def _scratch():
    """Per-solve work arrays: the search stack, move lists, node counters."""
    return (
        np.zeros((MAX_PLY + 1, N_FIELDS), dtype=np.int64),
        np.zeros((MAX_PLY + 1, 9), dtype=np.int64),
        np.zeros(2, dtype=np.int64),
    )


@njit(cache=True, inline="always")
def _tt_key(h0, h1, leader, marc, st0, st1, tw7, tw8):
    """Two 64-bit words holding every field the future value depends on.

    The number of tricks played is implied by the hand sizes.  ``st`` is 0,
    24 or 28, so ``st >> 2`` fits 3 bits; ``tw + 1`` is 0..2.
    """
    k1 = (
        h0
        | (leader << 36)
        | (marc << 37)
        | ((st0 >> 2) << 38)
        | ((st1 >> 2) << 41)
        | ((tw7 + 1) << 44)
        | ((tw8 + 1) << 46)
    )
    return k1, h1


@njit(cache=True, inline="always")
def _tt_slot(k1, k2, n_rows):
    x = np.uint64(k1) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(k2) * np.uint64(0xC2B2AE3D27D4EB4F)
    x ^= x >> np.uint64(31)
    return np.int64(x & np.uint64(n_rows - 1))


@njit(cache=True, inline="always")
def _tt_store(tt, slot, k1, k2, lo, hi, best_card):
    """Always-replace: the newest entry is the likeliest to be probed again."""
    tt[slot, 0] = k1
    tt[slot, 1] = k2
    tt[slot, 2] = (lo + INF) | ((hi + INF) << _BOUND_BITS)
    tt[slot, 3] = best_card


@njit(cache=True, inline="always")
def _insert(row, n, key):
    """Insert ``key`` into the descending list row[:n] (insertion sort)."""
    i = n
    while i > 0 and row[i - 1] < key:
        row[i] = row[i - 1]
        i -= 1
    row[i] = key


@njit(cache=True)
def _order_leads(hl, hf, cands, tt_best, row):
    """Fill row with the candidate leads, best first; return their number.

    Entries are ``score * 64 + card`` so one integer sort orders them.
    """
    n = 0
    c = cands
    while c:
        a = trailing_zeros(c)
        c &= c - 1
        opp = hf & SUITS[a // 9]
        if a == tt_best:
            sc = 900
        elif opp == 0:
            # The opponent is void: the lead wins.  A Two wins a Two bonus.
            sc = 800 if a % 9 == 0 else 600 + POINTS[a]
        elif opp < (1 << a):
            sc = 600 + POINTS[a]  # highest card left in its suit: wins
        else:
            sc = 300 - 8 * POINTS[a] - a % 9  # the opponent can win: lead cheap
        _insert(row, n, sc * 64 + a)
        n += 1
    return n


@njit(cache=True)
def _order_replies(lead, cands, stake, row):
    """Fill row with the candidate replies to ``lead``, best first."""
    n = 0
    c = cands
    suit = lead // 9
    while c:
        b = trailing_zeros(c)
        c &= c - 1
        if b // 9 == suit and b > lead:
            sc = 600 + POINTS[b]  # takes the trick
        else:
            sc = 300 - 8 * POINTS[b] - b % 9  # loses it: give away little
            if stake and b % 9 == 8 and b // 9 != suit:
                sc -= 200  # would break an Aces declaration
        _insert(row, n, sc * 64 + b)
        n += 1
    return n


@njit(cache=True, inline="always")
def _push(fr, sp, h0, h1, leader, lead, td, marc, st0, st1, tw7, tw8, alpha, beta):
    fr[sp, H0] = h0
    fr[sp, H1] = h1
    fr[sp, LEADER] = leader
    fr[sp, LEAD] = lead
    fr[sp, TD] = td
    fr[sp, MARC] = marc
    fr[sp, ST0] = st0
    fr[sp, ST1] = st1
    fr[sp, TW7] = tw7
    fr[sp, TW8] = tw8
    fr[sp, ALPHA] = alpha
    fr[sp, BETA] = beta


@njit(cache=True)
def _enter(fr, sp, tt, row, stats):
    """Set up the node at ``sp``: probe the TT, generate and order moves.

    Returns (resolved, value): resolved is True when the node needs no
    search for this window (a TT hit, or tricks 7-9, solved directly).
    """
    stats[0] += 1
    h0 = fr[sp, H0]
    h1 = fr[sp, H1]
    leader = fr[sp, LEADER]
    lead = fr[sp, LEAD]
    fr[sp, NEXT] = 0
    fr[sp, DELTA] = 0
    fr[sp, BEST_CARD] = -1
    if lead >= 0:
        # Mid-trick: the follower answers (following suit if it can).
        f = 1 - leader
        hf = h0 if f == 0 else h1
        ho = h1 if f == 0 else h0
        legal = hf & SUITS[lead // 9]
        if legal == 0:
            legal = hf
        cands = legal & ~redundant_cards(hf, ho | (1 << lead))
        fr[sp, N_MOVES] = _order_replies(lead, cands, fr[sp, ST0] if f == 0 else fr[sp, ST1], row)
        fr[sp, MAXIMIZE] = 1 if f == 0 else 0
        fr[sp, BEST] = -INF if f == 0 else INF
        return False, 0

    # Trick start: the leader chooses.  Tricks 8 and 9 are solved directly.
    td = fr[sp, TD]
    marc = fr[sp, MARC]
    st0 = fr[sp, ST0]
    st1 = fr[sp, ST1]
    tw7 = fr[sp, TW7]
    tw8 = fr[sp, TW8]
    if td == 8:
        return True, last_trick_value(h0, h1, leader, marc, st0, st1, tw7, tw8)
    if td == 7:
        return True, last_two_tricks_value(h0, h1, leader, marc, st0, st1, tw7, tw8)

    alpha = fr[sp, ALPHA]
    beta = fr[sp, BETA]
    k1, k2 = _tt_key(h0, h1, leader, marc, st0, st1, tw7, tw8)
    slot = _tt_slot(k1, k2, tt.shape[0])
    lo = -INF
    hi = INF
    tt_best = -1
    if tt[slot, 0] == k1 and tt[slot, 1] == k2:
        packed = tt[slot, 2]
        lo = (packed & _BOUND_MASK) - INF
        hi = (packed >> _BOUND_BITS) - INF
        if lo >= beta:
            return True, lo
        if hi <= alpha:
            return True, hi
        if lo == hi:
            return True, lo
        alpha = max(alpha, lo)
        beta = min(beta, hi)
        tt_best = tt[slot, 3]
    if td == 6:
        # Trick 7: solved exactly by direct minimax, and remembered.
        v = last_three_tricks_value(h0, h1, leader, marc, st0, st1, tw7, tw8)
        _tt_store(tt, slot, k1, k2, v, v, -1)
        return True, v

    fr[sp, ALPHA] = alpha
    fr[sp, BETA] = beta
    fr[sp, A0] = alpha
    fr[sp, B0] = beta
    fr[sp, LO] = lo
    fr[sp, HI] = hi
    fr[sp, SLOT] = slot
    fr[sp, K1] = k1
    fr[sp, K2] = k2
    hl = h0 if leader == 0 else h1
    hf = h1 if leader == 0 else h0
    cands = hl & ~redundant_cards(hl, hf)
    fr[sp, N_MOVES] = _order_leads(hl, hf, cands, tt_best, row)
    fr[sp, MAXIMIZE] = 1 if leader == 0 else 0
    fr[sp, BEST] = -INF if leader == 0 else INF
    return False, 0


@njit(cache=True, inline="always")
def _absorb(fr, sp, v):
    """A move of the node at ``sp`` turned out to be worth ``v``."""
    if fr[sp, MAXIMIZE]:
        if v > fr[sp, BEST]:
            fr[sp, BEST] = v
            fr[sp, BEST_CARD] = fr[sp, CUR]
            if v > fr[sp, ALPHA]:
                fr[sp, ALPHA] = v
    else:
        if v < fr[sp, BEST]:
            fr[sp, BEST] = v
            fr[sp, BEST_CARD] = fr[sp, CUR]
            if v < fr[sp, BETA]:
                fr[sp, BETA] = v


@njit(cache=True)
def _finish(fr, sp, tt, stats):
    """Close the node at ``sp``: store its result in the TT; return it."""
    best = fr[sp, BEST]
    if fr[sp, LEAD] < 0:
        # Fail-soft result: an upper bound if it failed low, a lower bound if
        # it failed high, else exact.  Merge with what the entry knew.
        lo = fr[sp, LO]
        hi = fr[sp, HI]
        if best <= fr[sp, A0]:
            hi = best
        elif best >= fr[sp, B0]:
            lo = best
        else:
            lo = best
            hi = best
        _tt_store(tt, fr[sp, SLOT], fr[sp, K1], fr[sp, K2], lo, hi, fr[sp, BEST_CARD])
        stats[1] += 1
    return best


@njit(cache=True)
def _search(h0, h1, leader, lead, td, marc, st0, st1, tw7, tw8, alpha, beta, tt, fr, moves, stats):
    """Future value of a node (fail-soft alpha-beta; see module docstring).

    h0, h1: cards held (the led card is no longer in its owner's hand);
    leader: seat that leads the current trick; lead: card led, or -1 at a
    trick start; td: tricks completed; marc: 1 while a Marc is possible;
    st0, st1: stake of each intact Aces declaration; tw7, tw8: seat that won
    trick 7 / 8 with a Two (-1: none or not yet played).

    Depth-first with an explicit stack ``fr`` (one row per node on the path,
    ``moves`` holds each node's ordered move list).  The loop either enters
    a new node, or resumes its parent with the value the child returned.
    """
    sp = 0
    _push(fr, 0, h0, h1, leader, lead, td, marc, st0, st1, tw7, tw8, alpha, beta)
    entering = True
    ret = 0
    while True:
        if entering:
            resolved, ret = _enter(fr, sp, tt, moves[sp], stats)
            if resolved:
                if sp == 0:
                    return ret
                sp -= 1
                entering = False
                continue
        else:
            _absorb(fr, sp, ret + fr[sp, DELTA])
        # Next move of this node, unless it has a cut-off or is exhausted.
        pushed = False
        while fr[sp, ALPHA] < fr[sp, BETA] and fr[sp, NEXT] < fr[sp, N_MOVES]:
            m = moves[sp, fr[sp, NEXT]] & 63
            fr[sp, NEXT] += 1
            fr[sp, CUR] = m
            h0 = fr[sp, H0]
            h1 = fr[sp, H1]
            leader = fr[sp, LEADER]
            alpha = fr[sp, ALPHA]
            beta = fr[sp, BETA]
            if fr[sp, LEAD] < 0:
                # The leader plays m; the child is the follower's turn.
                if leader == 0:
                    h0 &= ~(1 << m)
                else:
                    h1 &= ~(1 << m)
                fr[sp, DELTA] = 0
                _push(
                    fr,
                    sp + 1,
                    h0,
                    h1,
                    leader,
                    m,
                    fr[sp, TD],
                    fr[sp, MARC],
                    fr[sp, ST0],
                    fr[sp, ST1],
                    fr[sp, TW7],
                    fr[sp, TW8],
                    alpha,
                    beta,
                )
                pushed = True
                break
            d, nh0, nh1, w, t, nm, ns0, ns1, n7, n8 = play_follow(
                h0,
                h1,
                leader,
                fr[sp, LEAD],
                m,
                fr[sp, TD],
                fr[sp, MARC],
                fr[sp, ST0],
                fr[sp, ST1],
                fr[sp, TW7],
                fr[sp, TW8],
            )
            if t == 9:
                _absorb(fr, sp, d)  # the partie is over: nothing to search
                continue
            fr[sp, DELTA] = d
            _push(fr, sp + 1, nh0, nh1, w, -1, t, nm, ns0, ns1, n7, n8, alpha - d, beta - d)
            pushed = True
            break
        if pushed:
            sp += 1
            entering = True
            continue
        ret = _finish(fr, sp, tt, stats)
        if sp == 0:
            return ret
        sp -= 1
        entering = False


@njit(cache=True)
def _mtdf(h0, h1, leader, lead, td, marc, st0, st1, tw7, tw8, guess, tt, fr, moves, stats):
    """Exact future value by MTD(f): null-window searches around a guess."""
    lo = -INF
    hi = INF
    g = guess
    while lo < hi:
        beta = g + 1 if g == lo else g
        g = _search(h0, h1, leader, lead, td, marc, st0, st1, tw7, tw8, beta - 1, beta, tt, fr, moves, stats)
        if g < beta:
            hi = g
        else:
            lo = g
    return g


@njit(cache=True)
def _root_state(h0, h1, to_move, lead, td, tw0, tw1, two_hist, acdecl0, acdecl1, acfail0, acfail1):
    """The search's history fields at the root: (leader, marc, st0, st1, tw7, tw8)."""
    leader = to_move if lead < 0 else 1 - to_move
    marc = 1 if td == 0 or (tw0 if leader == 0 else tw1) == td else 0
    st0 = ace_stake(acdecl0, acfail0) if h0 & ACES else 0
    st1 = ace_stake(acdecl1, acfail1) if h1 & ACES else 0
    tw7 = two_hist[6] if td >= 7 else -1
    tw8 = two_hist[7] if td >= 8 else -1
    return leader, marc, st0, st1, tw7, tw8


@njit(cache=True, nogil=True)
def solve_raw(
    h0, h1, to_move, lead, tricks_done, cp0, cp1, tw0, tw1, two_hist, acdecl0, acdecl1, acfail0, acfail1, base_diff, tt
):
    """Exact final score difference (seat 0 minus seat 1) under optimal play.

    Same fields as ``Position`` as plain numbers: ``h0``/``h1`` hands,
    ``lead`` the card on the table or -1, ``cp*`` card points won,
    ``tw*`` tricks won, ``two_hist`` an int array (length >= tricks_done) of
    the seat that won each completed trick with a Two or -1, ``acdecl*``
    0/3/4, ``acfail*`` bool, ``tt`` a table from ``new_table()``.
    """
    fr, moves, stats = _scratch()
    leader, marc, st0, st1, tw7, tw8 = _root_state(
        h0, h1, to_move, lead, tricks_done, tw0, tw1, two_hist, acdecl0, acdecl1, acfail0, acfail1
    )
    offset = root_offset(tricks_done, cp0, cp1, two_hist, acdecl0, acdecl1, acfail0, acfail1, base_diff)
    return offset + _mtdf(h0, h1, leader, lead, tricks_done, marc, st0, st1, tw7, tw8, 0, tt, fr, moves, stats)


@njit(cache=True, nogil=True)
def solve_moves_raw(
    h0, h1, to_move, lead, tricks_done, cp0, cp1, tw0, tw1, two_hist, acdecl0, acdecl1, acfail0, acfail1, base_diff, tt
):
    """Value (final difference) of each card for ``to_move``: an int64 array
    of 36, ``NOT_LEGAL`` where the card is not a legal move."""
    out = np.full(36, NOT_LEGAL, dtype=np.int64)
    fr, moves, stats = _scratch()
    leader, marc, st0, st1, tw7, tw8 = _root_state(
        h0, h1, to_move, lead, tricks_done, tw0, tw1, two_hist, acdecl0, acdecl1, acfail0, acfail1
    )
    offset = root_offset(tricks_done, cp0, cp1, two_hist, acdecl0, acdecl1, acfail0, acfail1, base_diff)
    hm = h0 if to_move == 0 else h1
    ho = h1 if to_move == 0 else h0
    if lead >= 0:
        legal = hm & SUITS[lead // 9]
        if legal == 0:
            legal = hm
        red = redundant_cards(hm, ho | (1 << lead))
    else:
        legal = hm
        red = redundant_cards(hm, ho)
    guess = 0
    c = legal
    while c:
        m = trailing_zeros(c)  # ascending, so a redundant card's twin is done
        c &= c - 1
        if red & (1 << m):
            # Same value as the next lower card of this hand in the suit.
            below = hm & SUITS[m // 9] & ((1 << m) - 1)
            out[m] = out[63 - leading_zeros(below)]
            continue
        if lead < 0:
            nh0 = h0 & ~(1 << m) if to_move == 0 else h0
            nh1 = h1 & ~(1 << m) if to_move == 1 else h1
            v = _mtdf(nh0, nh1, leader, m, tricks_done, marc, st0, st1, tw7, tw8, guess, tt, fr, moves, stats)
        else:
            d, nh0, nh1, w, t, nm, ns0, ns1, n7, n8 = play_follow(
                h0, h1, leader, lead, m, tricks_done, marc, st0, st1, tw7, tw8
            )
            v = d
            if t < 9:
                v += _mtdf(nh0, nh1, w, -1, t, nm, ns0, ns1, n7, n8, guess - d, tt, fr, moves, stats)
        guess = v
        out[m] = offset + v
    return out


@njit(cache=True, nogil=True)
def solve_batch_raw(
    h0s,
    h1s,
    to_move,
    lead,
    tricks_done,
    cp0,
    cp1,
    tw0,
    tw1,
    two_hist,
    acdecl0,
    acdecl1,
    acfail0,
    acfail1,
    base_diff,
    tt,
):
    """``solve_raw`` for many layouts of the same public state at once:
    ``h0s[i], h1s[i]`` are the hands of layout i.  Returns int64 values."""
    n = h0s.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = solve_raw(
            h0s[i],
            h1s[i],
            to_move,
            lead,
            tricks_done,
            cp0,
            cp1,
            tw0,
            tw1,
            two_hist,
            acdecl0,
            acdecl1,
            acfail0,
            acfail1,
            base_diff,
            tt,
        )
    return out


@njit(cache=True, nogil=True)
def solve_moves_batch_raw(
    h0s,
    h1s,
    to_move,
    lead,
    tricks_done,
    cp0,
    cp1,
    tw0,
    tw1,
    two_hist,
    acdecl0,
    acdecl1,
    acfail0,
    acfail1,
    base_diff,
    tt,
):
    """``solve_moves_raw`` for many layouts: an (n, 36) int64 array."""
    n = h0s.shape[0]
    out = np.empty((n, 36), dtype=np.int64)
    for i in range(n):
        out[i] = solve_moves_raw(
            h0s[i],
            h1s[i],
            to_move,
            lead,
            tricks_done,
            cp0,
            cp1,
            tw0,
            tw1,
            two_hist,
            acdecl0,
            acdecl1,
            acfail0,
            acfail1,
            base_diff,
            tt,
        )
    return out


@njit(cache=True)
def search_window_raw(
    h0,
    h1,
    to_move,
    lead,
    tricks_done,
    cp0,
    cp1,
    tw0,
    tw1,
    two_hist,
    acdecl0,
    acdecl1,
    acfail0,
    acfail1,
    base_diff,
    alpha,
    beta,
    tt,
):
    """One fail-soft alpha-beta search with the window ``(alpha, beta)``
    (final differences, as ``solve_raw`` returns) instead of the drivers'
    MTD(f) sequence of null windows, reading and filling ``tt``: a value
    ``v <= alpha`` is an upper bound of the exact one, ``v >= beta`` a lower
    bound, and in between it is exact. For checking and tuning the search."""
    fr, moves, stats = _scratch()
    leader, marc, st0, st1, tw7, tw8 = _root_state(
        h0, h1, to_move, lead, tricks_done, tw0, tw1, two_hist, acdecl0, acdecl1, acfail0, acfail1
    )
    offset = root_offset(tricks_done, cp0, cp1, two_hist, acdecl0, acdecl1, acfail0, acfail1, base_diff)
    return offset + _search(
        h0, h1, leader, lead, tricks_done, marc, st0, st1, tw7, tw8, alpha - offset, beta - offset, tt, fr, moves, stats
    )


@njit(cache=True)
def count_nodes_raw(
    h0, h1, to_move, lead, tricks_done, cp0, cp1, tw0, tw1, two_hist, acdecl0, acdecl1, acfail0, acfail1, base_diff, tt
):
    """Like ``solve_raw`` but returns (value, nodes visited, TT stores): for tuning."""
    fr, moves, stats = _scratch()
    leader, marc, st0, st1, tw7, tw8 = _root_state(
        h0, h1, to_move, lead, tricks_done, tw0, tw1, two_hist, acdecl0, acdecl1, acfail0, acfail1
    )
    offset = root_offset(tricks_done, cp0, cp1, two_hist, acdecl0, acdecl1, acfail0, acfail1, base_diff)
    v = _mtdf(h0, h1, leader, lead, tricks_done, marc, st0, st1, tw7, tw8, 0, tt, fr, moves, stats)
    return offset + v, stats[0], stats[1]
