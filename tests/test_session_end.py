"""The end of a session (docs/rules.md section 8, End): after max_parties
parties (replays count) a live Pro partie is played out through its
replays, in which proposing Alifer is illegal, any other pending replay is
dropped, and the Bulka is split equally among the players present,
fractions allowed."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from test_session_scripts import (
    DEAL_DECLARATION,
    DEAL_TIE,
    act,
    alifer,
    challenger_wins,
    dealer_wins,
    make_session,
    play_deal,
)

from trappola_env.engine import IllegalActionError, RuleConfig
from trappola_env.engine.actions import ACCEPT_ALIFER, DECLINE_ALIFER, PROPOSE_ALIFER
from trappola_env.engine.session import Session


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
    assert s.partie.legal_mask() >> PROPOSE_ALIFER & 1  # max_parties not reached yet
    alifer(s)
    assert not s.over and s.parties_played == 3 and s.parties_left == 0
    # max_parties is reached: the live Pro partie can no longer be abandoned
    # by an Alifer (docs/rules.md section 8, End), but a tie still replays it.
    assert not s.partie.legal_mask() >> PROPOSE_ALIFER & 1
    play_deal(s, DEAL_TIE)
    assert not s.over and s.multiplier == 4
    assert not s.partie.legal_mask() >> PROPOSE_ALIFER & 1
    dealer_wins(s)
    assert s.over and s.parties_played == 5
    assert [r.multiplier for r in s.history] == [1, 1, 1, 2, 4]
    assert [r.outcome for r in s.history] == ["forfeit", "forfeit", "agreed_alifer", "tie", "forfeit"]
    assert [r.pro_result for r in s.history] == [None, None, "alifer", "alifer", "won"]
    # Stakes 10 + 10 + (10 + 10 Pro) + 20 + 40 from each side, and the tie's
    # bonus payments of 5 * m = 10 each: the Pro winner takes all 210.
    assert s.history[-1].bulka_won == 210
    assert s.final_share == 0
    assert s.balances == {"A": 100, "B": -100}
    s.check()


@pytest.mark.parametrize("illegal_action", ["raise", "forfeit"])
def test_proposing_alifer_after_max_parties_is_an_illegal_action(illegal_action):
    s = make_session("A", "B", max_parties=3, config=RuleConfig(illegal_action=illegal_action))
    for _ in range(2):
        play_deal(s, DEAL_DECLARATION, first=["declare Figura Re"])  # the dealer A wins
    s.decide_pro(True)
    act(s, PROPOSE_ALIFER)
    act(s, ACCEPT_ALIFER)
    assert s.parties_left == 0 and s.pro_declarer == "A" and s.challenger == "B"
    if illegal_action == "raise":
        with pytest.raises(IllegalActionError, match="propose Alifer"):
            s.act(PROPOSE_ALIFER)
        assert not s.partie.history and not s.over
    else:
        act(s, PROPOSE_ALIFER)  # the challenger's violation loses the Pro partie (Art. 12)
        rec = s.history[-1]
        assert s.over and (rec.outcome, rec.forfeited_by, rec.pro_result) == ("forfeit", "B", "won")


def test_always_proposing_and_accepting_alifer_cannot_stall_a_pro_partie():
    # A degenerate policy that proposes and accepts Alifer whenever it may:
    # once max_parties is reached the live Pro partie must be played out.
    s = make_session("A", "B", ["C"], max_parties=4)
    dealer_wins(s)
    dealer_wins(s)
    s.decide_pro(True)
    for _ in range(2000):
        if s.over:
            break
        mask = s.partie.legal_mask()
        if mask >> PROPOSE_ALIFER & 1:
            act(s, PROPOSE_ALIFER)
        elif mask >> ACCEPT_ALIFER & 1:
            act(s, ACCEPT_ALIFER)
        else:
            act(s, min(a for a in s.partie.legal_actions() if a < 36))
    assert s.over and s.end_reason == "max_parties"
    assert s.history[2].outcome == "agreed_alifer" and s.history[3].outcome == "agreed_alifer"
    assert all(r.outcome != "agreed_alifer" for r in s.history[4:])


def test_live_pro_lost_after_a_replay_at_the_end():
    s = make_session("A", "B", ["C"], max_parties=3)
    dealer_wins(s)
    dealer_wins(s)
    s.decide_pro(True)
    alifer(s)
    # Proposing Alifer is illegal now: the challenger leads a card and the
    # dealer forfeits with an illegal answer to no proposal.
    act(s, min(a for a in s.partie.legal_actions() if a < 36))
    act(s, DECLINE_ALIFER)
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


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"max_parties": 0}, "max_parties"),
        ({"max_parties": 2.5}, "max_parties"),
        ({"stake_multiple": 0}, "stake_multiple"),
        ({"n_players": 1}, "2 to 4"),
        ({"n_players": 5}, "2 to 4"),
        ({"names": ["a", "a"]}, "distinct"),
    ],
)
def test_bad_session_arguments_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Session(**kwargs)


def test_finish_partie_before_the_end_raises():
    s = make_session("A", "B")
    with pytest.raises(ValueError, match="not over"):
        s.finish_partie()
