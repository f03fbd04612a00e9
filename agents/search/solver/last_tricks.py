"""Exact values of the last one, two and three tricks, without a search stack.

Near the end of the partie there are so few lines of play (at most 1, 2 x 2
and 3 x 3 x 2 x 2) that plain minimax over them is cheaper than pushing
search nodes and probing the transposition table for each one.  The main
search (``search.py``) calls these at the start of tricks 7, 8 and 9 and
gets an exact value back, whatever its alpha-beta window.

All three return the *future value* (points still to be earned, seat 0
minus seat 1) at a trick start; the arguments are the search's node fields
(see ``search._search``).  Seat 0 maximises, seat 1 minimises.
"""

from __future__ import annotations

from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from trappola.agents.search.solver.rules_kernel import INF, SUITS, play_follow, redundant_cards


@njit(cache=True)
def last_trick_value(h0, h1, leader, marc, st0, st1, tw7, tw8):
    """Trick 9: both cards are forced."""
    a = trailing_zeros(h0 if leader == 0 else h1)
    b = trailing_zeros(h1 if leader == 0 else h0)
    return play_follow(h0, h1, leader, a, b, 8, marc, st0, st1, tw7, tw8)[0]


@njit(cache=True, inline="always")
def _better(leader, value, best):
    """Whether the leader prefers ``value`` to ``best``."""
    return value > best if leader == 0 else value < best


@njit(cache=True)
def last_two_tricks_value(h0, h1, leader, marc, st0, st1, tw7, tw8):
    """Tricks 8 and 9: minimax over the leader's 2 cards x the replies."""
    hl = h0 if leader == 0 else h1
    hf = h1 if leader == 0 else h0
    best = -INF if leader == 0 else INF
    c = hl
    while c:
        a = trailing_zeros(c)
        c &= c - 1
        legal = hf & SUITS[a // 9]
        if legal == 0:
            legal = hf
        # The follower picks the reply worst for the leader.
        reply = INF if leader == 0 else -INF
        r = legal
        while r:
            b = trailing_zeros(r)
            r &= r - 1
            nh0 = h0 & ~(1 << a) if leader == 0 else h0
            nh1 = h1 & ~(1 << a) if leader == 1 else h1
            d, nh0, nh1, w, t, nm, ns0, ns1, n7, n8 = play_follow(nh0, nh1, leader, a, b, 7, marc, st0, st1, tw7, tw8)
            v = d + last_trick_value(nh0, nh1, w, nm, ns0, ns1, n7, n8)
            if _better(leader, reply, v):
                reply = v
                if not _better(leader, reply, best):
                    break  # this lead can no longer beat one already found
        if _better(leader, reply, best):
            best = reply
    return best


@njit(cache=True)
def last_three_tricks_value(h0, h1, leader, marc, st0, st1, tw7, tw8):
    """Tricks 7, 8 and 9: minimax over trick 7, then ``last_two_tricks_value``.

    Interchangeable cards (``redundant_cards``) are tried once.
    """
    hl = h0 if leader == 0 else h1
    hf = h1 if leader == 0 else h0
    best = -INF if leader == 0 else INF
    c = hl & ~redundant_cards(hl, hf)
    while c:
        a = trailing_zeros(c)
        c &= c - 1
        legal = hf & SUITS[a // 9]
        if legal == 0:
            legal = hf
        legal &= ~redundant_cards(hf, hl | (1 << a))
        reply = INF if leader == 0 else -INF
        r = legal
        while r:
            b = trailing_zeros(r)
            r &= r - 1
            nh0 = h0 & ~(1 << a) if leader == 0 else h0
            nh1 = h1 & ~(1 << a) if leader == 1 else h1
            d, nh0, nh1, w, t, nm, ns0, ns1, n7, n8 = play_follow(nh0, nh1, leader, a, b, 6, marc, st0, st1, tw7, tw8)
            v = d + last_two_tricks_value(nh0, nh1, w, nm, ns0, ns1, n7, n8)
            if _better(leader, reply, v):
                reply = v
                if not _better(leader, reply, best):
                    break
        if _better(leader, reply, best):
            best = reply
    return best
