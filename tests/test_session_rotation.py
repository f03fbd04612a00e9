"""Queue, rotation and streaks (docs/rules.md section 8, Art. 4 and 5) for 2, 3
and 4 players and every kind of partie end: a normal win (by the dealer or
the challenger), an Alifer, a Pro partie won, a Pro partie lost, and a Pro
partie that ends in Alifer and is replayed (then won or lost).

Seating: A deals, B challenges, C and D wait (in that order). Pro cases:
A wins two parties (streak 2) and declares Pro before the third."""

from __future__ import annotations

import pytest
from test_session_scripts import alifer, challenger_wins, dealer_wins, make_session, table, wins

QUEUES = {2: [], 3: ["C"], 4: ["C", "D"]}


def seated(n):
    return make_session("A", "B", QUEUES[n])


# -------------------------------------------------------------- normal wins


@pytest.mark.parametrize(
    "n, expected",
    [
        (2, ("A", "B", [])),
        (3, ("A", "C", ["B"])),
        (4, ("A", "C", ["D", "B"])),
    ],
)
def test_dealer_wins_stays_and_deals_loser_to_the_end_of_the_queue(n, expected):
    s = seated(n)
    dealer_wins(s)
    assert table(s) == expected
    assert s.streaks["A"] == 1 and s.streaks["B"] == 0
    assert s.multiplier == 1 and s.phase == "partie"


@pytest.mark.parametrize(
    "n, expected",
    [
        (2, ("B", "A", [])),
        (3, ("B", "C", ["A"])),
        (4, ("B", "C", ["D", "A"])),
    ],
)
def test_challenger_wins_deals_next_and_the_old_dealer_queues(n, expected):
    s = seated(n)
    challenger_wins(s)
    assert table(s) == expected
    assert s.streaks["B"] == 1 and s.streaks["A"] == 0


@pytest.mark.parametrize("n", [2, 3, 4])
def test_alifer_replays_with_the_same_two_and_m_doubles(n):
    s = seated(n)
    dealer_wins(s)  # A streak 1
    before = table(s), dict(s.streaks)
    for m in (2, 4, 8):
        alifer(s)
        assert (table(s), s.streaks) == before
        assert s.multiplier == m
        assert s.partie.multiplier == m
    rec = s.history[-1]
    assert rec.replay and rec.multiplier == 4 and rec.winner is None
    dealer_wins(s)
    assert s.multiplier == 1
    assert s.history[-1].multiplier == 8 and s.history[-1].replay
    assert s.streaks["A"] == 2


def test_a_long_run_of_normal_rotation_with_four():
    s = seated(4)
    seen = []
    for _ in range(6):
        challenger_wins(s)  # every challenger wins: the table walks through the queue
        seen.append(table(s))
    assert seen == [
        ("B", "C", ["D", "A"]),
        ("C", "D", ["A", "B"]),
        ("D", "A", ["B", "C"]),
        ("A", "B", ["C", "D"]),
        ("B", "C", ["D", "A"]),
        ("C", "D", ["A", "B"]),
    ]
    assert all(v <= 1 for v in s.streaks.values())


def test_history_records_table_and_queue_at_the_start_of_each_partie():
    s = seated(4)
    dealer_wins(s)
    challenger_wins(s)
    alifer(s)
    h = s.history
    assert [(r.dealer, r.challenger, list(r.queue)) for r in h] == [
        ("A", "B", ["C", "D"]),
        ("A", "C", ["D", "B"]),
        ("C", "D", ["B", "A"]),
    ]
    assert [r.winner for r in h] == ["A", "C", None]
    assert h[1]["queue"] == ("D", "B") and h[1].to_dict()["queue"] == ["D", "B"]


# --------------------------------------------------------------------- Pro


def to_pro_offer(s):
    """A wins twice; returns the opponent A will face in the Pro partie."""
    dealer_wins(s)
    dealer_wins(s)
    assert s.phase == "pro" and s.pending.player == "A" and s.streaks["A"] == 2
    return s.challenger


PRO_WON = {2: ("B", "A", []), 3: ("B", "C", ["A"]), 4: ("B", "C", ["D", "A"])}
PRO_LOST = {2: ("B", "A", []), 3: ("B", "C", ["A"]), 4: ("D", "B", ["C", "A"])}
PRO_DEFENDER = {2: "B", 3: "B", 4: "D"}


@pytest.mark.parametrize("n", [2, 3, 4])
def test_pro_won_rotation(n):
    s = seated(n)
    defender = to_pro_offer(s)
    assert defender == PRO_DEFENDER[n]
    s.decide_pro(True)
    s.check()
    pot = s.bulka
    wins(s, "A")
    rec = s.history[-1]
    assert rec.pro_declared and rec.pro_result == "won" and rec.bulka_won == pot and rec.bulka == 0
    assert table(s) == PRO_WON[n]
    assert s.streaks["A"] == 0 and s.streaks[defender] == 0
    # The Bulka was emptied and now holds only the next partie's stakes.
    assert s.bulka == 20
    assert s.pro_declarer is None and s.phase == "partie"


@pytest.mark.parametrize("n", [2, 3, 4])
def test_pro_lost_rotation_defender_deals_with_streak_one(n):
    s = seated(n)
    defender = to_pro_offer(s)
    s.decide_pro(True)
    pot = s.bulka
    wins(s, defender)
    rec = s.history[-1]
    assert rec.pro_result == "lost" and rec.bulka_won == 0 and rec.bulka == pot
    assert table(s) == PRO_LOST[n]
    assert s.dealer == defender and s.streaks[defender] == 1 and s.streaks["A"] == 0
    assert s.bulka == pot + 20


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("then", ["won", "lost"])
def test_pro_partie_tied_is_replayed_as_pro_extra_stake_once(n, then):
    s = seated(n)
    defender = to_pro_offer(s)
    s.decide_pro(True)
    a_before = s.balances["A"]
    alifer(s)
    # Same two, m doubled, still Pro, no new offer, no second Pro stake.
    assert table(s)[:2] == ("A", defender) and s.phase == "partie"
    assert s.pro_declarer == "A" and s.multiplier == 2
    assert s.balances["A"] == a_before - 20  # only the replay's stake (m = 2)
    alifer(s)
    assert s.multiplier == 4 and s.pro_declarer == "A"
    assert len(s.pro_offers) == 1
    wins(s, "A" if then == "won" else defender)
    recs = s.history[-3:]
    assert [r.pro_result for r in recs] == ["alifer", "alifer", then]
    assert [r.replay for r in recs] == [False, True, True]
    assert [r.pro_stake for r in recs] == [10, 0, 0]
    assert [r.multiplier for r in recs] == [1, 2, 4]
    assert table(s) == (PRO_WON if then == "won" else PRO_LOST)[n]
    assert s.multiplier == 1
    assert s.pro_declarations == [
        {"partie_index": 2, "player": "A", "result": then, "parties": 3, "bulka_won": recs[-1].bulka_won}
    ]


def test_pro_won_balances_three_players_exactly():
    s = seated(3)
    to_pro_offer(s)  # A: -10 -10; B -10; C -10; Bulka 40
    s.decide_pro(True)  # A pays 10 extra and 10 stake; B 10 stake: Bulka 70
    assert s.balances == {"A": -40, "B": -20, "C": -10} and s.bulka == 70
    dealer_wins(s)  # A takes 70; next: B deals, C challenges (10 each)
    assert s.balances == {"A": 30, "B": -30, "C": -20} and s.bulka == 20


def test_pro_won_after_replay_takes_the_replay_stakes_too():
    s = seated(3)
    to_pro_offer(s)
    s.decide_pro(True)
    alifer(s)  # replay at m = 2: 20 each more; Bulka 110
    assert s.bulka == 110
    dealer_wins(s)
    assert s.history[-1].bulka_won == 110
    assert s.balances == {"A": 50, "B": -50, "C": -20} and s.bulka == 20


def test_declined_pro_is_offered_again_and_never_before_a_replay():
    s = seated(3)
    to_pro_offer(s)
    s.decide_pro(False)
    assert s.pro_declarer is None and s.phase == "partie"
    alifer(s)  # a replay: no offer although A's streak is 2
    assert s.phase == "partie"
    dealer_wins(s)  # streak 3: offered again before the new partie
    assert s.phase == "pro" and s.pending.streak == 3
    s.decide_pro(False)
    dealer_wins(s)
    assert s.streaks["A"] == 4 and s.phase == "pro" and s.pending.streak == 4
    assert [(o.partie_index, o.player, o.streak, o.declared) for o in s.pro_offers] == [
        (2, "A", 2, False),
        (4, "A", 3, False),
    ]
    # Winning without declaring never takes the Bulka.
    assert all(r.bulka_won == 0 for r in s.history)


def test_challenger_never_has_a_streak_so_pro_lost_defender_has_exactly_one():
    s = seated(4)
    for _ in range(30):
        assert s.streaks[s.challenger] == 0
        if s.phase == "pro":
            s.decide_pro(True)
            continue
        (dealer_wins if len(s.history) % 3 else challenger_wins)(s)
