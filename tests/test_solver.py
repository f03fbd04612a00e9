"""Exactness tests for the double-dummy solver (trappola.agents.search.solver).

The solver is checked against ``reference_move_values``: a plain recursive
minimax written from docs/rules.md (sections 2, 4, 5) with no pruning, no table
and no shortcuts.  It plays every legal card sequence to the end and scores
the finished partie from the complete trick record, so it shares no logic
with the solver's incremental scoring.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from trappola.agents.search.solver import (
    NOT_LEGAL,
    Position,
    new_table,
    raw_args,
    solve,
    solve_batch_raw,
    solve_moves,
    solve_moves_batch_raw,
    solve_moves_raw,
    solve_raw,
)

# ---------------------------------------------------------------------------
# Reference implementation (deliberately naive)
# ---------------------------------------------------------------------------

RANK_POINTS = [0, 0, 0, 0, 0, 3, 4, 5, 6]  # Two 7 8 9 10 Bube Cavall Re Ace


def card_points(card):
    return RANK_POINTS[card % 9]


def suit(card):
    return card // 9


def is_two(card):
    return card % 9 == 0


def is_ace(card):
    return card % 9 == 8


def card(name):
    """'AS' -> 8, '2C' -> 9 ... (rank code then suit code, docs/rules.md section 1)."""
    return "SCDB".index(name[1]) * 9 + "2789TBCRA".index(name[0])


def mask(*names):
    return sum(1 << card(n) for n in names)


def final_difference(pos, future):
    """Seat 0's total minus seat 1's, for ``pos`` followed by the tricks in
    ``future`` (a list of (leader, led card, followed card)) to trick 9."""
    totals = list(pos.card_points)
    won = list(pos.tricks_won)
    two = list(pos.two_winner)  # per trick: seat that won it with a Two, or -1
    failed = list(pos.aces_failed)
    last_winner = None
    for leader, led, followed in future:
        follower = 1 - leader
        if suit(followed) == suit(led) and followed > led:
            winner, winning_card = follower, followed
        else:
            winner, winning_card = leader, led
        totals[winner] += card_points(led) + card_points(followed)
        won[winner] += 1
        two.append(winner if is_two(winning_card) else -1)
        for seat, c in ((leader, led), (follower, followed)):
            if is_ace(c) and winner != seat:  # an Ace that did not win its trick
                failed[seat] = True
        last_winner = winner
    assert len(two) == 9 and sum(won) == 9

    for seat in (0, 1):
        declared = pos.aces_declared[seat]
        if declared == 3:
            totals[seat] += 6 if failed[seat] else 30
        elif declared == 4:
            totals[seat] += 12 if failed[seat] else 40
        if won[seat] == 9:
            totals[seat] += 30  # 1: Marc

    # s: the largest k <= 3 such that tricks 10-k..9 were all won with a Two
    # by the same player (two[i] is trick i+1).
    s = 0
    if two[8] != -1:
        s = 1
        while s < 3 and two[8 - s] == two[8]:
            s += 1
    if two[0] != -1:
        totals[two[0]] += 52  # 2: trick 1
    for t in range(2, 9):
        if two[t - 1] != -1 and t < 10 - s:  # 3: not in the last s
            totals[two[t - 1]] += 10
    if s > 0:
        totals[two[8]] += {1: 26, 2: 52, 3: 78}[s]  # 4a, 4b, 4c
    else:
        totals[last_winner] += 6  # 5
    return totals[0] - totals[1] + pos.base_diff


def cards_in(m):
    return [c for c in range(36) if m >> c & 1]


def legal_cards(hand, led):
    if led == -1:
        return cards_in(hand)
    follow = [c for c in cards_in(hand) if suit(c) == suit(led)]
    return follow or cards_in(hand)


def reference_move_values(pos):
    """{card: value} for every legal card of the player to move, by minimax."""

    def value(hands, to_move, led, future):
        if pos.tricks_done + len(future) == 9:
            return final_difference(pos, future)
        vals = [value_after(hands, to_move, led, future, c) for c in legal_cards(hands[to_move], led)]
        return max(vals) if to_move == 0 else min(vals)

    def value_after(hands, to_move, led, future, c):
        hands = list(hands)
        hands[to_move] &= ~(1 << c)
        if led == -1:
            return value(hands, 1 - to_move, c, future)
        leader = 1 - to_move
        winner = to_move if suit(c) == suit(led) and c > led else leader
        return value(hands, winner, -1, future + [(leader, led, c)])

    hands = list(pos.hands)
    return {
        c: value_after(hands, pos.to_move, pos.lead_card, [], c) for c in legal_cards(hands[pos.to_move], pos.lead_card)
    }


def reference_value(pos):
    vals = reference_move_values(pos).values()
    return max(vals) if pos.to_move == 0 else min(vals)


# ---------------------------------------------------------------------------
# Random positions
# ---------------------------------------------------------------------------


def random_position(rng, remaining, mid_trick):
    """A random endgame with ``remaining`` tricks left (counting the current one).

    Twos and Aces are dealt more often than chance would (they drive the
    bonuses and the Aces declaration), declaring seats usually hold Aces,
    and the history mixes Marc-alive runs, Two wins and failed declarations.
    """
    td = 9 - remaining
    # History: trick winners, the last one leads now.
    # One seat winning every trick so far keeps the Marc possible.
    winners = [rng.randrange(2)] * td if td and rng.random() < 0.3 else [rng.randrange(2) for _ in range(td)]
    leader = winners[-1] if td else rng.randrange(2)
    two_winner = tuple(w if rng.random() < 0.35 else -1 for w in winners)
    tricks_won = (winners.count(0), winners.count(1))
    aces_declared = tuple(rng.choice((0, 0, 3, 4)) for _ in range(2))
    aces_failed = tuple(bool(d) and rng.random() < 0.3 for d in aces_declared)

    # Deal: Twos and Aces first with some probability, declarers get Aces.
    deck = sorted(range(36), key=lambda c: rng.random() - (0.35 if c % 9 in (0, 8) else 0.0))
    aces = [c for c in deck if is_ace(c)]
    hands = [[], []]
    sizes = [remaining, remaining]
    for seat in (0, 1):
        if aces_declared[seat]:
            for _ in range(rng.randrange(0, min(3, remaining) + 1)):
                if aces:
                    hands[seat].append(aces.pop())
    if rng.random() < 0.25:
        # Two-run layout: the leader gets Twos, the other seat few suits,
        # so Twos win tricks in a row (bonuses 4b, 4c).
        twos = [c for c in deck if is_two(c) and not any(c in h for h in hands)]
        for c in twos[: rng.randrange(1, 4)]:
            if len(hands[leader]) < sizes[leader]:
                hands[leader].append(c)
        suits_allowed = rng.sample(range(4), rng.randrange(1, 3))
        pool = [c for c in deck if suit(c) in suits_allowed and not is_two(c) and not any(c in h for h in hands)]
        while len(hands[1 - leader]) < sizes[1 - leader] and pool:
            hands[1 - leader].append(pool.pop())
    rest = [c for c in deck if not any(c in h for h in hands)]
    for seat in (0, 1):
        while len(hands[seat]) < sizes[seat]:
            hands[seat].append(rest.pop(0) if rng.random() < 0.5 else rest.pop())
    lead_card = -1
    to_move = leader
    if mid_trick:
        lead_card = rng.choice(hands[leader])
        hands[leader].remove(lead_card)
        to_move = 1 - leader
    return Position(
        hands=(sum(1 << c for c in hands[0]), sum(1 << c for c in hands[1])),
        to_move=to_move,
        lead_card=lead_card,
        tricks_done=td,
        card_points=(rng.randrange(0, 40), rng.randrange(0, 40)),
        tricks_won=tricks_won,
        two_winner=two_winner,
        aces_declared=aces_declared,
        aces_failed=aces_failed,
        base_diff=rng.randrange(-20, 21),
    )


def played_position(rng, remaining, mid_trick):
    """A position reached by random legal play from a random deal, so its
    history is consistent (Aces declared by a seat dealt 3 or 4 of them,
    failed when one of them lost; Two wins as they happened)."""
    deck = list(range(36))
    rng.shuffle(deck)
    hands = [sum(1 << c for c in deck[:9]), sum(1 << c for c in deck[9:18])]
    declared = [0, 0]
    for seat in (0, 1):
        n_aces = sum(1 for c in cards_in(hands[seat]) if is_ace(c))
        if n_aces >= 3 and rng.random() < 0.8:
            declared[seat] = n_aces
    failed = [False, False]
    points, won, two = [0, 0], [0, 0], []
    leader = rng.randrange(2)
    for _ in range(9 - remaining):
        led = rng.choice(legal_cards(hands[leader], -1))
        hands[leader] &= ~(1 << led)
        followed = rng.choice(legal_cards(hands[1 - leader], led))
        hands[1 - leader] &= ~(1 << followed)
        winner = 1 - leader if suit(followed) == suit(led) and followed > led else leader
        points[winner] += card_points(led) + card_points(followed)
        won[winner] += 1
        two.append(winner if is_two(led) and winner == leader else -1)
        if is_ace(followed) and winner == leader:
            failed[1 - leader] = True
        leader = winner
    lead_card, to_move = -1, leader
    if mid_trick:
        lead_card = rng.choice(legal_cards(hands[leader], -1))
        hands[leader] &= ~(1 << lead_card)
        to_move = 1 - leader
    return Position(
        hands=tuple(hands),
        to_move=to_move,
        lead_card=lead_card,
        tricks_done=9 - remaining,
        card_points=tuple(points),
        tricks_won=tuple(won),
        two_winner=tuple(two),
        aces_declared=tuple(declared),
        aces_failed=tuple(f and d > 0 for f, d in zip(failed, declared, strict=True)),
    )


def random_deal(rng):
    """A fresh partie: 9 cards each, seat 0 leads, nothing declared."""
    deck = list(range(36))
    rng.shuffle(deck)
    return Position(
        hands=(sum(1 << c for c in deck[:9]), sum(1 << c for c in deck[9:18])),
        to_move=0,
        lead_card=-1,
        tricks_done=0,
        card_points=(0, 0),
        tricks_won=(0, 0),
        two_winner=(),
    )


# ---------------------------------------------------------------------------
# Exactness against the reference
# ---------------------------------------------------------------------------


def check_against_reference(pos, table):
    expected = reference_move_values(pos)
    assert solve_moves(pos, table) == expected, pos
    best = max(expected.values()) if pos.to_move == 0 else min(expected.values())
    assert solve(pos, table) == best, pos


# Positions with 1..6 tricks left (counting the current one), half of them
# mid-trick.  The solver's own search stack works from trick 6 back; tricks
# 7-9 go through last_tricks.py, so 4-6 tricks left exercise both.
@pytest.mark.parametrize(
    "remaining,count",
    [(1, 150), (2, 300), (3, 400), (4, 300), (5, 150), (6, 12)],
)
def test_matches_reference_minimax(remaining, count):
    rng = random.Random(1000 + remaining)
    table = new_table(14)  # small table: also exercises replacement
    for i in range(count):
        check_against_reference(random_position(rng, remaining, mid_trick=(i % 2 == 1)), table)


@pytest.mark.parametrize("remaining,count", [(3, 200), (4, 200), (5, 100)])
def test_matches_reference_after_random_play(remaining, count):
    rng = random.Random(2000 + remaining)
    table = new_table(14)
    for i in range(count):
        check_against_reference(played_position(rng, remaining, mid_trick=(i % 2 == 1)), table)


def test_value_is_best_move_value_on_full_deals():
    rng = random.Random(7)
    for _ in range(6):
        pos = random_deal(rng)
        moves = solve_moves(pos)
        assert len(moves) == 9
        assert solve(pos) == max(moves.values())


def test_shared_table_gives_same_values_as_fresh_table():
    """TT keys are complete: a table full of other positions changes nothing."""
    rng = random.Random(11)
    shared = new_table(12)
    positions = [random_position(rng, rng.choice((4, 5, 6)), rng.random() < 0.5) for _ in range(40)]
    positions += [random_deal(rng) for _ in range(3)]
    for pos in positions:
        assert solve(pos, shared) == solve(pos, new_table(16))


def test_batch_matches_single_solves():
    rng = random.Random(5)
    base = random_position(rng, 6, mid_trick=False)
    # Same public state, different layouts of the unseen cards.
    both = base.hands[0] | base.hands[1]
    pool = cards_in(both)
    h0s, h1s = [], []
    for _ in range(8):
        rng.shuffle(pool)
        h0s.append(sum(1 << c for c in pool[:6]))
        h1s.append(sum(1 << c for c in pool[6:]))
    args = list(raw_args(base))
    table = new_table()
    values = solve_batch_raw(np.array(h0s, dtype=np.int64), np.array(h1s, dtype=np.int64), *args[2:], table)
    moves = solve_moves_batch_raw(np.array(h0s, dtype=np.int64), np.array(h1s, dtype=np.int64), *args[2:], table)
    for i in range(8):
        args[0], args[1] = np.int64(h0s[i]), np.int64(h1s[i])
        assert values[i] == solve_raw(*args, table)
        assert np.array_equal(moves[i], solve_moves_raw(*args, table))
        legal = moves[i][moves[i] != NOT_LEGAL]
        assert values[i] == (legal.max() if base.to_move == 0 else legal.min())


# ---------------------------------------------------------------------------
# Hand-built positions, worked out by hand
# ---------------------------------------------------------------------------


def test_marc_on_the_last_trick():
    # Seat 0 won tricks 1-8 and leads AS against 7C: it takes 6 card points,
    # wins all 9 tricks (Marc +30) and the last trick without a Two (+6).
    # 40 + 6 + 30 + 6 = 82 against 0.
    pos = Position(
        hands=(mask("AS"), mask("7C")),
        to_move=0,
        lead_card=-1,
        tricks_done=8,
        card_points=(40, 0),
        tricks_won=(8, 0),
        two_winner=(-1,) * 8,
    )
    assert reference_value(pos) == solve(pos) == 82


def test_two_led_and_won_on_the_last_trick():
    # Seat 0 won trick 7 with a Two, seat 1 won trick 8 and leads 2S; seat 0
    # has no spade and throws RC.  Seat 1 wins trick 9 with a Two: s = 1, so
    # 4a pays seat 1 26 and trick 7 (outside the run) pays seat 0 10
    # (bonus 3); no bonus 5.  Seat 1 also takes RC's 5 points.
    # (20 + 10) - (10 + 5 + 26) = -11.
    pos = Position(
        hands=(mask("RC"), 0),
        to_move=0,
        lead_card=card("2S"),
        tricks_done=8,
        card_points=(20, 10),
        tricks_won=(4, 4),
        two_winner=(-1, -1, -1, -1, -1, -1, 0, -1),
    )
    assert reference_value(pos) == solve(pos) == -11


def test_bonus_4b_and_4c():
    # Seat 1 leads 2S then 2C; seat 0 only has Denari and must discard:
    # tricks 8 and 9 are won with Twos by seat 1.  No card points move.
    # Trick 7 not won with a Two: s = 2, 4b: 30 - (20 + 52) = -42.
    pos = Position(
        hands=(mask("7D", "8D"), mask("2S", "2C")),
        to_move=1,
        lead_card=-1,
        tricks_done=7,
        card_points=(30, 20),
        tricks_won=(4, 3),
        two_winner=(-1,) * 7,
    )
    assert reference_value(pos) == solve(pos) == -42
    # Seat 1 also won trick 7 with a Two: s = 3, 4c: 30 - (20 + 78) = -68
    # (trick 7 is inside the run, so no bonus 3 for it).
    pos.two_winner = (-1,) * 6 + (1,)
    assert reference_value(pos) == solve(pos) == -68
    # Three tricks left: seat 1 leads 2S, 2C and 2D into seat 0's Bastoni and
    # wins tricks 7, 8 and 9 with Twos: s = 3, 4c: 30 - (20 + 78) = -68.
    pos3 = Position(
        hands=(mask("7B", "8B", "9B"), mask("2S", "2C", "2D")),
        to_move=1,
        lead_card=-1,
        tricks_done=6,
        card_points=(30, 20),
        tricks_won=(3, 3),
        two_winner=(-1,) * 6,
    )
    assert reference_value(pos3) == solve(pos3) == -68
    # (Seat 0 cannot have won trick 7 with a Two here: seat 1 leads trick 8,
    # so seat 1 won trick 7.  Two-wins in consecutive tricks always belong to
    # one player, since a Two only wins when its owner leads it.)


def test_ace_thrown_off_suit_breaks_the_declaration():
    # Seat 1 declared 3 Aces (intact). Seat 0 leads 7S; seat 1 has only AC and
    # must throw it: the Ace loses, so the declaration is worth 6, not 30.
    # Seat 0: 30 + 6 (the Ace) + 6 (bonus 5) = 42; seat 1: 30 + 6 = 36.
    pos = Position(
        hands=(mask("7S"), mask("AC")),
        to_move=0,
        lead_card=-1,
        tricks_done=8,
        card_points=(30, 30),
        tricks_won=(5, 3),
        two_winner=(-1,) * 8,
        aces_declared=(0, 3),
    )
    assert reference_value(pos) == solve(pos) == 6
    # Had seat 1 led the Ace instead, it would have won: 30 + 6 + 6 + 30
    # for seat 1 against 30 for seat 0.
    pos2 = Position(
        hands=(mask("7S"), mask("AC")),
        to_move=1,
        lead_card=-1,
        tricks_done=8,
        card_points=(30, 30),
        tricks_won=(4, 4),
        two_winner=(-1,) * 8,
        aces_declared=(0, 3),
    )
    assert reference_value(pos2) == solve(pos2) == 30 - 72


def test_save_the_two_for_the_last_trick():
    # Seat 0 (to lead, two tricks left) holds 2S and AC; seat 1 holds 7C, 8D
    # (no spade).  Leading 2S first wins trick 8 with a Two (bonus 3: +10),
    # then AC wins trick 9 (6 points, bonus 5: +6): 22.  Leading AC first
    # (seat 1 must follow with 7C: +6) and then 2S wins trick 9 with a Two:
    # s = 1, 4a: +26, so 32.  Final: 20 + 32 - 25 = 27, or 17 after 2S.
    pos = Position(
        hands=(mask("2S", "AC"), mask("7C", "8D")),
        to_move=0,
        lead_card=-1,
        tricks_done=7,
        card_points=(20, 25),
        tricks_won=(4, 3),
        two_winner=(-1,) * 7,
    )
    assert reference_move_values(pos) == solve_moves(pos) == {card("2S"): 17, card("AC"): 27}
    # With a Marc alive (seat 0 won tricks 1-7) both lines add 30.
    pos.tricks_won = (7, 0)
    assert solve_moves(pos) == {card("2S"): 47, card("AC"): 57}


def test_trick_one_two_bonus_in_history():
    # Trick 1 was won with a Two by seat 1: +52 for it, whatever follows.
    pos = Position(
        hands=(mask("AS"), mask("7S")),
        to_move=0,
        lead_card=-1,
        tricks_done=8,
        card_points=(0, 0),
        tricks_won=(7, 1),
        two_winner=(1,) + (-1,) * 7,
    )
    # Seat 0 wins trick 9: 6 points + 6 (bonus 5); seat 1 has 52.
    assert reference_value(pos) == solve(pos) == 12 - 52


def test_invalid_positions_are_rejected():
    with pytest.raises(ValueError):
        solve(
            Position(
                hands=(mask("AS"), mask("AS")),
                to_move=0,
                lead_card=-1,
                tricks_done=8,
                card_points=(0, 0),
                tricks_won=(8, 0),
                two_winner=(-1,) * 8,
            )
        )
    with pytest.raises(ValueError):
        solve(
            Position(
                hands=(mask("AS", "7S"), mask("8S")),
                to_move=0,
                lead_card=-1,
                tricks_done=8,
                card_points=(0, 0),
                tricks_won=(8, 0),
                two_winner=(-1,) * 8,
            )
        )


def test_marc_by_the_player_who_follows_to_trick_one():
    # Seat 0 leads trick 1 with nothing but low Coppe and Denari; seat 1 holds
    # BCRA of both suits and 2S.  Seat 1 can win every trick: it heads trick 1,
    # cashes its 7 other court cards and Aces, then leads 2S at trick 9, which
    # seat 0 (no spade) cannot follow: a Two wins trick 9 (s = 1, 4a).
    # Seat 1: 36 card points + 30 (Marc) + 26 (4a) = 92, the most possible.
    pos = Position(
        hands=(
            mask("2C", "7C", "8C", "9C", "TC", "2D", "7D", "8D", "9D"),
            mask("BC", "CC", "RC", "AC", "BD", "CD", "RD", "AD", "2S"),
        ),
        to_move=0,
        lead_card=-1,
        tricks_done=0,
        card_points=(0, 0),
        tricks_won=(0, 0),
        two_winner=(),
    )
    assert solve(pos) == -92


def test_any_alpha_beta_window_gives_a_correct_bound():
    """The drivers only use null windows (MTD(f)); the search itself must be
    right for any window, with a table filled by earlier windows: fail-soft
    alpha-beta returns v with  v <= alpha => value <= v,  v >= beta =>
    value >= v,  and the exact value in between."""
    from trappola.agents.search.solver.rules_kernel import INF, root_offset
    from trappola.agents.search.solver.search import search_window_raw

    rng = random.Random(3)
    for i in range(60):
        pos = random_position(rng, rng.choice((5, 6, 7)), mid_trick=(i % 2 == 1)) if i < 50 else random_deal(rng)
        exact = solve(pos, new_table())
        args = raw_args(pos)
        (h0, h1, to_move, lead, td, cp0, cp1, tw0, tw1, hist, ad0, ad1, af0, af1, base) = args
        # Windows around the points still to be played for (what the search itself sees), as final differences.
        offset = root_offset(td, cp0, cp1, hist, ad0, ad1, af0, af1, base)
        table = new_table(12)
        windows = [(-INF, INF)] + [tuple(sorted(rng.sample(range(-60, 60), 2))) for _ in range(6)]
        for alpha, beta in windows:
            alpha, beta = alpha + offset, beta + offset
            v = search_window_raw(*args, alpha, beta, table)
            true = exact
            if v <= alpha:
                assert true <= v, (pos, alpha, beta)
            elif v >= beta:
                assert true >= v, (pos, alpha, beta)
            else:
                assert v == true, (pos, alpha, beta)
