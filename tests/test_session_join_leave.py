"""Leaving and joining (docs/rules.md section 8, Art. 4). A waiting player may
leave with its balance; a newcomer joins at the end of the queue only with
everyone's agreement, at most 4 players, and only while the Bulka is empty
or a player queued at the end when it was last emptied would not yet have
come to the table (``engine.join_window``). Refusals raise ``ValueError``
and change nothing."""

from __future__ import annotations

import json

import pytest
from test_session_scripts import alifer, challenger_wins, dealer_wins, make_session, table


def snapshot(s):
    window = s.join_window
    return json.dumps(
        {**s.summary(), "history": s.history_dicts(), "window": (window.ahead, window.seated)},
        sort_keys=True,
        default=str,
    )


def refused(s, fn, *args, match, **kwargs):
    before = snapshot(s)
    with pytest.raises(ValueError, match=match):
        fn(*args, **kwargs)
    assert snapshot(s) == before
    s.check()


# ------------------------------------------------------------------ leave


def test_waiting_player_leaves_with_its_balance_and_stakes_stay():
    s = make_session("A", "B", ["C", "D"])
    dealer_wins(s)  # C challenges now; B queued; D waits at the head
    assert table(s) == ("A", "C", ["D", "B"])
    bulka = s.bulka
    taken = s.leave("B")
    s.check()
    assert taken == -10 and s.departed == {"B": -10}
    assert "B" not in s.balances and "B" not in s.players and "B" not in s.streaks
    assert s.bulka == bulka  # its stake stays in the Bulka
    assert table(s) == ("A", "C", ["D"])
    assert s.events[-1] == {"event": "leave", "player": "B", "after_parties": 1, "took": -10}
    # The session goes on with 3 players (3-player rotation).
    dealer_wins(s)
    assert table(s) == ("A", "D", ["C"])


def test_leave_mid_partie_by_a_waiting_player():
    s = make_session("A", "B", ["C"])
    s.act(44)  # a partie is under way
    assert s.leave("C") == 0
    s.act(45)
    assert table(s) == ("A", "B", []) and s.multiplier == 2
    s.check()


@pytest.mark.parametrize("who, match", [("A", "dealer"), ("C", "challenger"), ("Z", "not a player")])
def test_refused_leave_changes_nothing(who, match):
    s = make_session("A", "B", ["C"])
    dealer_wins(s)
    assert table(s) == ("A", "C", ["B"])
    refused(s, s.leave, who, match=match)


def test_two_players_cannot_leave_and_leaving_never_drops_below_two():
    s = make_session("A", "B")
    refused(s, s.leave, "A", match="dealer")
    refused(s, s.leave, "B", match="challenger")
    s = make_session("A", "B", ["C", "D"])
    s.leave("C")
    s.leave("D")
    assert s.players == ["B", "A"] and not s.over
    refused(s, s.leave, "A", match="dealer")


def test_leaving_during_a_pro_partie_changes_the_pro_win_rule_to_three_players():
    s = make_session("A", "B", ["C", "D"])
    dealer_wins(s)
    dealer_wins(s)
    s.decide_pro(True)
    assert table(s) == ("A", "D", ["B", "C"])
    s.leave("C")
    dealer_wins(s)  # Pro won with 3 present: the defender stays as dealer
    assert table(s) == ("D", "B", ["A"])
    s.check()


# ------------------------------------------------------------------- join


def test_newcomer_joins_at_the_end_and_comes_to_the_table_in_turn():
    s = make_session("A", "B", ["C"])
    name = s.join(agreed=True)
    assert name == "player_0"  # the first unused player_k
    assert s.queue == ["C", "player_0"] and s.balances["player_0"] == 0 and s.streaks["player_0"] == 0
    assert s.events[-1] == {"event": "join", "player": "player_0", "after_parties": 0}
    dealer_wins(s)
    assert table(s) == ("A", "C", ["player_0", "B"])
    dealer_wins(s)
    assert table(s) == ("A", "player_0", ["B", "C"])
    s.check()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"name": "E"}, "agree"),
        ({"name": "E", "agreed": "yes"}, "agree"),
        ({"name": "A", "agreed": True}, "already used"),
        ({"name": "", "agreed": True}, "non-empty"),
    ],
)
def test_refused_join_changes_nothing(kwargs, match):
    s = make_session("A", "B", ["C"])
    refused(s, s.join, match=match, **kwargs)


def test_at_most_four_players():
    s = make_session("A", "B", ["C", "D"])
    refused(s, s.join, "E", agreed=True, match="most allowed")


def test_a_leaver_name_cannot_come_back():
    s = make_session("A", "B", ["C", "D"])
    s.leave("D")
    refused(s, s.join, "D", agreed=True, match="already used")


def test_join_window_three_players():
    """Queue at the start: [C]. A newcomer queued behind C would come to the
    table at the second decided partie; Alifers move nobody."""
    s = make_session("A", "B", ["C"])
    dealer_wins(s)  # C comes to the table; V would be at the head
    alifer(s)
    alifer(s)
    assert s.join_window.open
    probe = make_session("A", "B", ["C"])
    dealer_wins(probe)
    alifer(probe)
    alifer(probe)
    probe.join("E", agreed=True)  # still allowed
    assert probe.queue[-1] == "E"
    dealer_wins(s)  # V would have come to the table now
    refused(s, s.join, "E", agreed=True, match="would already have come to the table")


def test_join_window_two_players_closes_after_one_decided_partie():
    s = make_session("A", "B")
    alifer(s)
    assert s.join_window.open
    challenger_wins(s)
    refused(s, s.join, "E", agreed=True, match="already have come")


def test_the_join_window_read_from_a_session_is_a_copy():
    s = make_session("A", "B")
    alifer(s)
    challenger_wins(s)
    window = s.join_window
    assert not window.open
    window.seated, window.ahead = False, 5
    assert not s.join_window.open
    refused(s, s.join, "E", agreed=True, match="already have come")


def test_join_window_reopens_when_a_pro_winner_empties_the_bulka():
    s = make_session("A", "B", ["C"])
    dealer_wins(s)
    dealer_wins(s)
    assert not s.join_window.open
    refused(s, s.join, "E", agreed=True, match="already have come")
    s.decide_pro(True)
    dealer_wins(s)  # A takes the Bulka; queue [A] after the re-seating
    assert s.history[-1].bulka == 0 and table(s) == ("B", "C", ["A"])
    assert s.join("E", agreed=True) == "E"
    assert s.queue == ["A", "E"]


def test_join_window_counts_only_players_ahead_of_the_virtual_newcomer():
    """4 players seated, one leaves: the window opened at the start with V
    behind [C, D]. C leaving moves V up, so V would come to the table after
    two decided parties instead of three."""

    def start():
        s = make_session("A", "B", ["C", "D"])
        s.leave("C")
        return s

    s = start()
    dealer_wins(s)  # D comes to the table
    s.join("E", agreed=True)
    s = start()
    dealer_wins(s)
    dealer_wins(s)  # V would have come now
    refused(s, s.join, "E", agreed=True, match="already have come")
    # Leaving behind V does not move it: B leaves from behind V's place.
    s = make_session("A", "B", ["C", "D"])
    dealer_wins(s)  # queue [D, B]; V (ahead 2 at start) is now behind D only
    s.leave("B")  # B joined the queue after V: V does not move
    dealer_wins(s)  # D to the table: V at the head
    assert s.join_window.open
    s.join("E", agreed=True)


def test_join_then_leave_during_a_replay_updates_the_replays_queue_record():
    s = make_session("A", "B", ["C"])
    s.act(44)
    s.join("E", agreed=True)
    s.act(45)  # agreed Alifer: the replay begins with E queued
    alifer(s)
    assert s.history[0].queue == ("C",)
    assert s.history[1].queue == ("C", "E")
    s.leave("C")  # during the replay (partie 2), which began with C queued
    dealer_wins(s)
    assert s.history[2].queue == ("C", "E")
    assert table(s) == ("A", "E", ["B"])
    alifer(s)
    assert s.history[3].queue == ("B",)
