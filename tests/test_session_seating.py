"""Seating by drawing cards (docs/rules.md section 8, Art. 3): the lowest rank
deals, the highest challenges, the rest queue in descending order (highest
first, waiting longest); equal ranks redraw among themselves only."""

from __future__ import annotations

import random

import pytest

from trappola_env.engine.seating import Seating, draw_seating, seating_from_draws
from trappola_env.engine.session import Session

NAMES4 = ["p0", "p1", "p2", "p3"]


def test_no_ties_four_players():
    # Ranks: p0 Re, p1 Two, p2 Ace, p3 9.
    s = seating_from_draws(NAMES4, [{"p0": "RS", "p1": "2C", "p2": "AD", "p3": "9B"}])
    assert (s.dealer, s.challenger, s.queue) == ("p1", "p2", ("p0", "p3"))
    assert s.draws == ({"p0": "RS", "p1": "2C", "p2": "AD", "p3": "9B"},)


def test_no_ties_two_and_three_players():
    s = seating_from_draws(["x", "y"], [{"x": "7S", "y": "8S"}])
    assert (s.dealer, s.challenger, s.queue) == ("x", "y", ())
    s = seating_from_draws(["x", "y", "z"], [{"x": "TS", "y": "2D", "z": "BS"}])
    assert (s.dealer, s.challenger, s.queue) == ("y", "z", ("x",))


def test_suits_do_not_break_ties_only_ranks_count():
    # AS and AB are equal ranks: those two redraw, the suit order is irrelevant.
    s = seating_from_draws(["x", "y", "z"], [{"x": "AS", "y": "AB", "z": "2S"}, {"x": "7C", "y": "RC"}])
    assert (s.dealer, s.challenger, s.queue) == ("z", "y", ("x",))


def test_tie_for_highest_redraws_only_the_tied_and_orders_them_in_place():
    rounds = [{"p0": "AS", "p1": "2C", "p2": "AD", "p3": "9B"}, {"p0": "7S", "p2": "CS"}]  # only p0 and p2 redraw
    s = seating_from_draws(NAMES4, rounds)
    # p2 wins the redraw: challenger; p0 keeps its place above p3 in the queue.
    assert (s.dealer, s.challenger, s.queue) == ("p1", "p2", ("p0", "p3"))
    assert s.draws == tuple(rounds)


def test_tie_for_lowest_and_in_the_middle():
    rounds = [
        {"p0": "2S", "p1": "2C", "p2": "9D", "p3": "9B"},
        {"p2": "TS", "p3": "RS"},  # the higher tied group is redrawn first
        {"p0": "AC", "p1": "8C"},
    ]
    s = seating_from_draws(NAMES4, rounds)
    assert (s.dealer, s.challenger, s.queue) == ("p1", "p3", ("p2", "p0"))


def test_tie_in_the_redraw_is_redrawn_recursively_among_those_still_tied():
    rounds = [
        {"p0": "RS", "p1": "RC", "p2": "RD", "p3": "7B"},
        {"p0": "AS", "p1": "AC", "p2": "2S"},  # p2 is now below p0 and p1
        {"p0": "TS", "p1": "BS"},
    ]
    s = seating_from_draws(NAMES4, rounds)
    assert (s.dealer, s.challenger, s.queue) == ("p3", "p1", ("p0", "p2"))
    assert len(s.draws) == 3


def test_four_way_tie():
    rounds = [
        {n: f"9{suit}" for n, suit in zip(NAMES4, "SCDB", strict=True)},
        {"p0": "7S", "p1": "8S", "p2": "TS", "p3": "BS"},
    ]
    s = seating_from_draws(NAMES4, rounds)
    assert (s.dealer, s.challenger, s.queue) == ("p0", "p3", ("p2", "p1"))


@pytest.mark.parametrize(
    "rounds, match",
    [
        ([{"p0": "AS", "p1": "2C", "p2": "AD", "p3": "9B"}], "tied and must redraw"),
        ([{"p0": "AS", "p1": "2C", "p2": "KD", "p3": "9B"}], "card"),
        ([{"p0": "AS", "p1": "2C", "p2": "AD", "p3": "9B"}, {"p0": "7S", "p1": "8S"}], "exactly the players"),
        ([{"p0": "AS", "p1": "2C", "p2": "7D", "p3": "9B"}, {"p0": "7S", "p2": "8S"}], "not needed"),
        ([{"p0": "AS", "p1": "AS", "p2": "7D", "p3": "9B"}], "twice"),
    ],
)
def test_bad_scripted_draws_raise(rounds, match):
    with pytest.raises(ValueError, match=match):
        seating_from_draws(NAMES4, rounds)


def test_random_draw_is_consistent_with_its_own_record():
    """Replaying a seeded draw's recorded rounds reproduces the seating, and
    the recorded first round orders the players by rank."""
    ties = 0
    for seed in range(400):
        n = 2 + seed % 3
        names = [f"player_{i}" for i in range(n)]
        s = draw_seating(names, random.Random(seed))
        assert seating_from_draws(names, s.draws) == s
        assert sorted(s.players) == sorted(names)
        first = {k: "2789TBCRA".index(v[0]) for k, v in s.draws[0].items()}
        ranks = [first[p] for p in s.players]
        assert ranks == sorted(ranks, reverse=True)
        ties += len(s.draws) > 1
    assert ties > 20  # ties do happen and are resolved


def test_draw_is_reproducible_per_seed():
    a = draw_seating(NAMES4, random.Random(11))
    b = draw_seating(NAMES4, random.Random(11))
    assert a == b


def test_session_draws_with_its_seed_and_accepts_explicit_seating():
    s1, s2 = Session(n_players=4, seed=5), Session(n_players=4, seed=5)
    assert (s1.dealer, s1.challenger, s1.queue) == (s2.dealer, s2.challenger, s2.queue)
    assert s1.seating.draws
    s = Session(n_players=3, seating={"dealer": "player_2", "challenger": "player_0", "queue": ["player_1"]})
    assert (s.dealer, s.challenger, s.queue) == ("player_2", "player_0", ["player_1"])
    assert s.seating.draws == ()


@pytest.mark.parametrize(
    "seating, match",
    [
        ({"dealer": "player_2", "challenger": "player_0", "queue": []}, "does not seat exactly"),
        ({"dealer": "player_2", "challenger": "player_2", "queue": ["player_1"]}, "twice"),
        ({"dealer": "player_9", "challenger": "player_0", "queue": ["player_1"]}, "does not seat exactly"),
        ({"challenger": "player_0", "queue": ["player_1", "player_2"]}, "lacks dealer;"),
        ({"queue": ["player_1"]}, "lacks dealer and challenger"),
    ],
)
def test_bad_explicit_seating_raises(seating, match):
    with pytest.raises(ValueError, match=match):
        Session(n_players=3, seating=seating)


def test_explicit_seating_object():
    seat = Seating.explicit("b", "a", ["c", "d"])
    assert seat.players == ("a", "c", "d", "b")
    assert seat.to_dict() == {"dealer": "b", "challenger": "a", "queue": ["c", "d"], "draws": []}
