"""The Pro decision as an action (docs/rules.md section 8, Art. 5 and 9.2.2):
its cost, what the decider is told, and illegal answers."""

from __future__ import annotations

import json

import pytest
from test_session_scripts import DEAL_DECLARATION, dealer_wins, make_session, play_deal, table

from trappola_env.engine import RuleConfig
from trappola_env.engine.actions import NO_PRO, PRO
from trappola_env.engine.partie import IllegalActionError


def offered(stake_multiple=1, config=None):
    """A (dealer) has won twice and is offered Pro; with ``config`` (no
    forfeits) the two wins are real parties on DEAL_DECLARATION."""
    if config is None:
        s = make_session("A", "B", ["C"], stake_multiple=stake_multiple)
        dealer_wins(s)
        dealer_wins(s)
    else:
        s = make_session("A", "B", ["C"], stake_multiple=stake_multiple, config=config)
        play_deal(s, DEAL_DECLARATION, first=["declare Figura Re"])
        play_deal(s, DEAL_DECLARATION, first=["declare Figura Re"])
    assert s.phase == "pro" and s.dealer == "A"
    return s


def test_pending_pro_decision_describes_the_offer():
    s = offered()
    d = s.pending
    assert (d.player, d.streak, d.extra_stake, d.bulka, d.balance, d.n_players, d.parties_left) == (
        "A",
        2,
        10,
        40,
        -20,
        3,
        98,
    )
    # A beat B, then C; B and C went to the end of the queue in turn: B challenges, C would come next.
    assert (d.challenger, d.next_challenger) == ("B", "C") == (s.challenger, s.queue[0])
    assert s.to_act == "A" and s.partie is None
    assert s.legal_mask() == (1 << PRO) | (1 << NO_PRO)


@pytest.mark.parametrize("stake_multiple", [1, 2, 5])
def test_pro_extra_stake_is_base_times_stake_multiple(stake_multiple):
    s = offered(stake_multiple)
    a, bulka = s.balances["A"], s.bulka
    s.act(PRO)
    s.check()
    # The extra stake and the partie's own stake.
    assert s.balances["A"] == a - 2 * 10 * stake_multiple
    assert s.bulka == bulka + 3 * 10 * stake_multiple
    dealer_wins(s)
    assert s.history[-1].pro_stake == 10 * stake_multiple
    assert s.history[-1].bulka_won == bulka + 3 * 10 * stake_multiple


def test_act_48_declines():
    s = offered()
    a = s.balances["A"]
    s.act(NO_PRO)
    assert s.pro_declarer is None and s.phase == "partie"
    assert s.balances["A"] == a - 10
    assert s.pro_offers[-1].declared is False


@pytest.mark.parametrize("bad", [0, 44, 46, 49, -1, True, 47.0, "47"])
def test_illegal_pro_answer_raises_and_changes_nothing(bad):
    s = offered(config=RuleConfig())
    before = json.dumps(s.summary(), sort_keys=True)
    with pytest.raises(IllegalActionError, match="deciding Pro"):  # a ValueError
        s.act(bad)
    assert json.dumps(s.summary(), sort_keys=True) == before
    assert s.phase == "pro"


def test_illegal_pro_answer_with_forfeit_loses_the_coming_partie():
    s = offered()  # the scripts' config is illegal_action="forfeit"
    a, b = s.balances["A"], s.balances["B"]
    bulka = s.bulka
    assert s.challenger == "B"
    s.act(0)
    s.check()
    rec = s.history[-1]
    assert (rec.outcome, rec.winner, rec.forfeited_by, rec.pro_declared, rec.deal) == ("forfeit", "B", "A", False, None)
    assert rec.tokens == {"A": -10, "B": -10} and rec.stake == 10
    assert s.streaks["A"] == 0 and s.streaks["B"] == 1
    assert table(s) == ("B", "C", ["A"])
    # Both stakes of the forfeited partie, then B's and C's for the next.
    assert s.balances["A"] == a - 10 and s.balances["B"] == b - 20
    assert s.bulka == bulka + 40


def test_decide_pro_validation():
    s = make_session("A", "B", ["C"])
    with pytest.raises(ValueError, match="no Pro decision"):
        s.decide_pro(True)
    s = offered()
    with pytest.raises(ValueError, match="True or False"):
        s.decide_pro("yes")
    s.decide_pro(1)  # 1 == True: accepted as a yes
    assert s.pro_declarer == "A"


def test_pro_partie_history_and_offers_are_json_serialisable():
    s = offered()
    s.decide_pro(True)
    dealer_wins(s)
    json.dumps(s.history_dicts())
    json.dumps(s.summary())
    assert s.summary()["pro_offers"] == [{"partie_index": 2, "player": "A", "streak": 2, "declared": True}]
