"""The parts of the Trappola rules the solver needs, as small numba kernels.

Everything here is stated in terms of the *score difference* seat 0 minus
seat 1, so a point earned by seat ``s`` counts ``sign(s) = +1 / -1``.

Cards are ids ``suit * 9 + rank`` (rank 0 = Two ... 8 = Ace) and sets of
cards are int bit sets, exactly as in ``trappola_env.engine.cards``.

Why the remaining game is *additive* (what makes a transposition table
possible): the final score difference is the sum of

* constants fixed by the past (card points already won, declarations, the
  Two bonuses of tricks 1..6 already played, a failed or settled Aces
  declaration), and
* contributions of the tricks still to play, which depend only on the cards
  still held and on a few history bits: who leads, whether a Marc is still
  possible, whether each Aces declaration can still fail, and which player
  (if any) won tricks 7 and 8 with a Two (the "last s tricks" tail of
  docs/rules.md section 5).

The search adds up the second part; the first is ``root_offset``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from trappola_env.engine import bonuses, declarations
from trappola_env.engine.cards import ACE, ACE_MASK, CARD_POINTS, N_CARDS, SUIT_MASK, TWO

assert N_CARDS == 36, "the solver packs a hand into 36 bits"
assert (TWO, ACE) == (0, 8), "the kernels find a Two as card % 9 == 0 and an Ace as card % 9 == 8"

# numba freezes module-level numbers and numpy arrays into the compiled code
# as constants, so the engine's tables are read into plain names here
# (``_numba_cache`` drops the compiled code when the engine's files change).
POINTS = np.array(CARD_POINTS, dtype=np.int64)  # card points by card id
SUITS = np.array(SUIT_MASK, dtype=np.int64)  # the 9 cards of each suit
ACES = ACE_MASK

# Trick bonuses (docs/rules.md section 5) and Aces declaration values
# (section 4), the points only: the solver scores the points difference.
MARC_BONUS = bonuses.MARC[0]
FIRST_TRICK_TWO = bonuses.FIRST_TRICK_TWO[0]  # bonus 2
MIDDLE_TWO = bonuses.MIDDLE_TWO[0]  # bonus 3, tricks 2..8 not in the final run
assert sorted(bonuses.LAST_TWOS) == [1, 2, 3], "the final run of Twos is 1 to 3 tricks long"
RUN_BONUS = np.array([0] + [bonuses.LAST_TWOS[s][0] for s in (1, 2, 3)], dtype=np.int64)  # 4a/4b/4c by run length s
LAST_TRICK_BONUS = bonuses.LAST_TRICK[0]  # bonus 5, only when s == 0

assert sorted(declarations.ACES_VALUE) == [3, 4], "Aces are declared with 3 or 4 of them"
# by number of declared Aces: every Ace won its trick (kept), or some declared Ace lost its trick (broken)
ACES_KEPT_3, ACES_BROKEN_3 = declarations.ACES_VALUE[3][:2]
ACES_KEPT_4, ACES_BROKEN_4 = declarations.ACES_VALUE[4][:2]

# Larger than the magnitude of any score difference the search can produce.
INF = 1 << 20


@njit(cache=True, inline="always")
def sign(seat):
    """+1 for seat 0, -1 for seat 1: the weight of that seat's points in the difference."""
    return 1 - 2 * seat


@njit(cache=True)
def ace_stake(declared, failed):
    """How much a still-intact Aces declaration loses if one of its Aces fails.

    The search scores an intact declaration as if it will succeed (in the root
    offset) and subtracts this stake at the moment an Ace is thrown off-suit.
    """
    if failed:
        return 0
    if declared == 3:
        return ACES_KEPT_3 - ACES_BROKEN_3
    if declared == 4:
        return ACES_KEPT_4 - ACES_BROKEN_4
    return 0


@njit(cache=True)
def ace_declaration_value(declared, failed):
    """Points of an Aces declaration for its owner, assuming no further failure."""
    if declared == 3:
        return ACES_BROKEN_3 if failed else ACES_KEPT_3
    if declared == 4:
        return ACES_BROKEN_4 if failed else ACES_KEPT_4
    return 0


@njit(cache=True)
def two_bonus_fixed(trick_no, seat):
    """Bonus for trick ``trick_no`` (1..9) won with a Two by ``seat``, when it is
    already certain at that trick: bonus 2 for trick 1 and bonus 3 for tricks 2..6.

    Tricks 7..9 return 0: whether they pay 10 or count towards bonus 4
    depends on the tricks after them, so ``final_tail`` scores them.
    """
    if seat < 0:
        return 0
    if trick_no == 1:
        return sign(seat) * FIRST_TRICK_TWO
    if trick_no <= 6:
        return sign(seat) * MIDDLE_TWO
    return 0


@njit(cache=True)
def final_tail(tw7, tw8, tw9, winner9):
    """Bonuses 3 (for tricks 7 and 8), 4a/4b/4c and 5, once trick 9 is over.

    ``twN`` is the seat that won trick N with a Two, or -1.  s is the length
    (0..3) of the run of final tricks all won with a Two by one player.
    """
    if tw9 < 0:
        s = 0
    elif tw8 != tw9:
        s = 1
    elif tw7 != tw8:
        s = 2
    else:
        s = 3
    v = 0
    if tw7 >= 0 and s < 3:  # trick 7 is outside the run: ordinary bonus 3
        v += sign(tw7) * MIDDLE_TWO
    if tw8 >= 0 and s < 2:
        v += sign(tw8) * MIDDLE_TWO
    if s > 0:
        v += sign(tw9) * RUN_BONUS[s]
    else:
        v += sign(winner9) * LAST_TRICK_BONUS
    return v


@njit(cache=True, inline="always")
def trick_winner(leader, lead, follow):
    """(winning seat, winning card) of a trick: the higher card of the led suit."""
    if follow // 9 == lead // 9 and follow > lead:
        return 1 - leader, follow
    return leader, lead


@njit(cache=True, inline="always")
def play_follow(h0, h1, leader, lead, b, td, marc, st0, st1, tw7, tw8):
    """The follower plays card ``b`` to ``lead``: score the trick, return the
    points it earns (difference) and the state at the next trick start.

    Returns (points, h0, h1, winner, tricks_done, marc, st0, st1, tw7, tw8).
    """
    f = 1 - leader
    if f == 0:
        h0 &= ~(1 << b)
    else:
        h1 &= ~(1 << b)
    w, wc = trick_winner(leader, lead, b)
    sw = sign(w)
    d = sw * (POINTS[lead] + POINTS[b])
    # An Ace thrown on another suit loses its trick: its declaration fails.
    # (A led Ace, or one played to its own suit, always wins.)
    if b % 9 == 8 and b // 9 != lead // 9:
        if f == 0:
            d -= st0
            st0 = 0
        else:
            d += st1
            st1 = 0
    two = w if wc % 9 == 0 else -1  # won with a Two: the winning card is a Two
    t = td + 1
    d += two_bonus_fixed(t, two)
    # Marc survives while one player wins every trick; after trick 1 the
    # candidate is the leader (who won the previous trick).
    if td > 0 and w != leader:
        marc = 0
    if t == 7:
        tw7 = two
    elif t == 8:
        tw8 = two
    elif t == 9:
        if marc:
            d += sw * MARC_BONUS
        d += final_tail(tw7, tw8, two, w)
    # A declaration whose owner has no Ace left can no longer fail; forgetting
    # its stake lets the TT merge such positions.
    if (h0 & ACES) == 0:
        st0 = 0
    if (h1 & ACES) == 0:
        st1 = 0
    return d, h0, h1, w, t, marc, st0, st1, tw7, tw8


def _build_equivalence_table():
    """Redundant-card table for one suit, indexed by ``mine * 16 + theirs``.

    Only ranks 7, 8, 9, 10 (ranks 1..4, bits 0..3 of the 4-bit fields) can
    be interchangeable: they are worth 0 points, and neither is a Two (whose
    identity decides "won with a Two") nor an Ace (declarations).  Two such
    cards of one hand with no *remaining* card of the other hand between them
    beat and lose to exactly the same remaining cards, so swapping them
    anywhere in a line of play changes nothing: the two moves have the same
    value.  A card is redundant when the next lower remaining card of its
    suit is its own 0-point neighbour; the lowest card of each run stays.
    (A Two or nothing below a rank-1 card ends the scan: not redundant.)
    """
    table = np.zeros(256, dtype=np.int64)
    for mine in range(16):
        for theirs in range(16):
            if mine & theirs:
                continue
            red = 0
            for r in range(1, 4):
                if not (mine >> r) & 1:
                    continue
                for q in range(r - 1, -1, -1):
                    if (theirs >> q) & 1:
                        break
                    if (mine >> q) & 1:
                        red |= 1 << r
                        break
            table[mine * 16 + theirs] = red
    return table


EQUIV = _build_equivalence_table()


@njit(cache=True)
def redundant_cards(mine, theirs):
    """Cards of ``mine`` whose move is equivalent to a lower card of ``mine``.

    ``theirs`` must hold every other card still in play (the other hand and
    the card led to the current trick, if any).
    """
    red = 0
    for s in range(4):
        sh = 9 * s + 1
        red |= EQUIV[((mine >> sh) & 15) * 16 + ((theirs >> sh) & 15)] << sh
    return red


@njit(cache=True)
def root_offset(tricks_done, cp0, cp1, two_hist, acdecl0, acdecl1, acfail0, acfail1, base_diff):
    """The part of the final difference that the remaining play cannot change
    (an intact Aces declaration is counted as kept; the search subtracts its
    stake if an Ace later fails)."""
    v = base_diff + cp0 - cp1
    v += ace_declaration_value(acdecl0, acfail0)
    v -= ace_declaration_value(acdecl1, acfail1)
    for i in range(tricks_done):
        v += two_bonus_fixed(i + 1, two_hist[i])
    return v
