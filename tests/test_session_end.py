"""The end of a session (RULES.md section 8, End): after max_parties parties
(replays count) a live Pro partie is played out through its replays, any
other pending replay is dropped, and the Bulka is split equally among the
players present, fractions allowed."""
from __future__ import annotations

import json
from fractions import Fraction

import pytest

from trappola_env.engine.session import Session

from test_session_scripts import (DEAL_DECLARATION, DEAL_TIE, alifer, challenger_wins, dealer_wins, make_session,
                                  play_deal)


def test_session_ends_after_max_parties_and_splits_the_bulka():
    s = make_session("A", "B", ["C", "D"], max_parties=3)
    dealer_wins(s)
    challenger_wins(s)
    assert s.parties_left == 1
    dealer_wins(s)
    assert s.over and s.end_reason == "max_parties" and s.parties_played == 3
    assert len(s.history) == 3
    # Three parties of 20 in stakes, nothing else: 60 / 4 = 15 each.
    assert s.final_share == 15 and s.bulka == 0
    assert s.balances == {"A": -20 + 15, "B": -10 + 15, "C": -20 + 15, "D": -10 + 15}
    assert sum(s.balances.values()) == 0


def test_pending_non_pro_replay_is_dropped_and_the_split_is_exact_thirds():
    s = make_session("A", "B", ["C"], max_parties=1)
    alifer(s)
    assert s.over and s.parties_played == 1 and len(s.history) == 1
    assert s.final_share == Fraction(20, 3)
    assert s.balances == {"A": Fraction(-10, 3), "B": Fraction(-10, 3), "C": Fraction(20, 3)}
    assert sum(s.balances.values()) + s.bulka == 0
    s.check()
    assert s.multiplier == 1  # the dropped replay's m is gone too
    summary = json.loads(json.dumps(s.summary()))
    assert summary["balances"]["C"] == pytest.approx(20 / 3) and summary["final_share"] == pytest.approx(20 / 3)


def test_split_with_two_players_whole_and_in_halves():
    s = make_session("A", "B", max_parties=1)
    play_deal(s, DEAL_TIE)  # a tie settles 5 + 5 of bonus payments: Bulka 30, 15 each
    assert s.over and s.final_share == 15 and s.balances == {"A": 0, "B": 0}
    s = make_session("A", "B", max_parties=1)
    play_deal(s, DEAL_DECLARATION, first=["declare Figura Re"])  # Bulka 25: 25/2 each
    assert s.over and s.final_share == Fraction(25, 2)
    assert s.balances == {"B": Fraction(5, 2), "A": Fraction(-5, 2)}


def test_live_pro_partie_is_played_out_through_its_replays():
    s = make_session("A", "B", max_parties=3)
    dealer_wins(s)
    dealer_wins(s)
    assert s.phase == "pro" and s.pending.parties_left == 1
    s.decide_pro(True)
    alifer(s)
    assert not s.over and s.parties_played == 3 and s.parties_left == 0
    alifer(s)
    assert not s.over and s.multiplier == 4
    dealer_wins(s)
    assert s.over and s.parties_played == 5
    assert [r.multiplier for r in s.history] == [1, 1, 1, 2, 4]
    assert [r.pro_result for r in s.history] == [None, None, "alifer", "alifer", "won"]
    assert s.history[-1].bulka_won == 190
    assert s.final_share == 0
    assert s.balances == {"A": 90, "B": -90}


def test_live_pro_lost_after_a_replay_at_the_end():
    s = make_session("A", "B", ["C"], max_parties=3)
    dealer_wins(s)
    dealer_wins(s)
    s.decide_pro(True)
    alifer(s)
    challenger_wins(s)
    assert s.over and s.parties_played == 4
    assert s.history[-1].pro_result == "lost" and s.history[-1].winner == "B"
    s.check()


def test_no_pro_offer_without_parties_left():
    s = make_session("A", "B", max_parties=2)
    dealer_wins(s)
    dealer_wins(s)  # streak 2, but the session is over
    assert s.over and s.pro_offers == []


def test_over_session_refuses_everything():
    s = make_session("A", "B", ["C"], max_parties=1)
    dealer_wins(s)
    assert s.pending is None and s.to_act is None and s.legal_mask() == 0
    with pytest.raises(ValueError, match="over"):
        s.act(0)
    with pytest.raises(ValueError, match="over"):
        s.leave("C")
    with pytest.raises(ValueError, match="over"):
        s.join("E", agreed=True)
    with pytest.raises(ValueError, match="no partie"):
        s.finish_partie()


@pytest.mark.parametrize("kwargs, match", [
    ({"max_parties": 0}, "max_parties"),
    ({"max_parties": 2.5}, "max_parties"),
    ({"stake_multiple": 0}, "stake_multiple"),
    ({"n_players": 1}, "2 to 4"),
    ({"n_players": 5}, "2 to 4"),
    ({"names": ["a", "a"]}, "distinct"),
])
def test_bad_session_arguments_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Session(**kwargs)


def test_finish_partie_before_the_end_raises():
    s = make_session("A", "B")
    with pytest.raises(ValueError, match="not over"):
        s.finish_partie()
