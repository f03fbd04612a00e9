"""The shipped Pro decision: one-partie lookahead on learned win rates
(agents/pro_learned.py, learned by train/pro/lookahead.py), and the public information it reads."""

from __future__ import annotations

import pytest

from trappola.agents import make_player
from trappola.agents.pro_learned import LookaheadPro, ProPolicy, matchup, opponent_kind, pro_policy_from_dict
from trappola.train.pro.lookahead import measure_win_rates
from trappola_env.engine.session import ProDecision
from trappola_env.interface import ProView
from trappola_env.referee import play_session

RATES = LookaheadPro({"rule": 0.6, "random": 0.9}, default=0.75)


def offer(bulka, challenger="rule", nxt="random", parties_left=30):
    return ProDecision("me", 2, 10, bulka, 0, 4, parties_left, challenger, nxt)


def test_values_follow_the_stated_formula():
    # Bulka of 5 extra stakes, p = 0.6 now, q = 0.9 next:
    # now 0.6 * 8 - 2 = 2.8; wait -1 + 0.6 * (0.9 * 10 - 2) = 3.2.
    now, wait = RATES.values(offer(50))
    assert now == pytest.approx(2.8) and wait == pytest.approx(3.2)
    assert not RATES.decide(offer(50))


@pytest.mark.parametrize("bulka, declares", [(40, False), (110, False), (120, True), (500, True)])
def test_waits_for_an_easier_next_challenger_only_while_the_bulka_is_small(bulka, declares):
    # p (B + 3) - 2 >= -1 + p (q (B + 5) - 2)  <=>  B >= 1 / (p (1 - q)) - 5 = 11.67 extra stakes.
    assert RATES.decide(offer(bulka)) is declares


@pytest.mark.parametrize("challenger, nxt", [("random", "rule"), ("rule", "rule#2"), ("pimc", "bot"), ("rule", None)])
def test_declares_unless_the_next_challenger_is_easier(challenger, nxt):
    # A harder or equal next challenger (or an unknown one: the default rate both times) never
    # makes waiting pay.
    assert all(RATES.decide(offer(b, challenger, nxt)) for b in range(20, 400, 10))


def test_declares_when_no_partie_follows():
    assert not RATES.decide(offer(40, parties_left=2))
    assert RATES.decide(offer(40, parties_left=1))


def test_reads_proview_and_prodecision_alike():
    view = ProView(
        player=0,
        players=("me", "rule", "random", "x"),
        balances=(0,) * 4,
        streaks=(2, 0, 0, 0),
        bulka=40,
        opponent="rule:declare=never",
        next_opponent="random#2",
        parties_left=30,
    )
    assert matchup(view) == ("rule:declare=never", "random#2")
    assert RATES.values(view) == RATES.values(offer(40))
    assert opponent_kind("rule:declare=never") == "rule" and opponent_kind("random#2") == "random"
    assert opponent_kind(None) == ""


def test_serialisation_dispatch_and_validation():
    assert pro_policy_from_dict(RATES.to_dict()) == RATES
    linear = ProPolicy((-0.5, 1.0, 0.0))
    assert pro_policy_from_dict(linear.to_dict()) == linear
    with pytest.raises(ValueError, match="unsupported"):
        pro_policy_from_dict({"kind": "lookahead"})
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        LookaheadPro({"rule": 1.5})


def test_measured_win_rates_order_the_opponents():
    rates = measure_win_rates(
        make_player("rule"), {"random": make_player("random"), "rule": make_player("rule")}, parties=150, seed=1
    )
    assert set(rates) == {"random", "rule"}
    assert rates["random"] > 0.7 > rates["rule"] > 0.3
    assert rates == measure_win_rates(
        make_player("rule"), {"random": make_player("random"), "rule": make_player("rule")}, parties=150, seed=1
    )
    with pytest.raises(ValueError, match="positive"):
        measure_win_rates(make_player("rule"), {}, parties=0)


def test_runner_tells_the_decider_its_next_opponent():
    from trappola.agents.players.random import RandomPlayer

    class Recording(RandomPlayer):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.pro_views = []

        def decide_pro(self, view):
            self.pro_views.append(view)
            return True

    players = [Recording(alifer=False), Recording(alifer=True), Recording(alifer=False, pro="always")]
    names = {p.name for p in players}
    assert len(names) == 3
    play_session(players, max_parties=150, seed=3)
    views = [v for p in players for v in p.pro_views]
    assert views
    for v in views:
        # Three players: the decider deals, the opponent challenges, the third waits and comes next.
        assert v.next_opponent == (names - {v.name, v.opponent}).pop()


def test_shipped_model_holds_a_lookahead_pro_policy():
    player = make_player("policy")
    pro = player.learned_pro
    assert isinstance(pro, LookaheadPro)
    # Learned by play: the model beats `random` far more often than `rule`, so it waits for a
    # `random` challenger behind a `rule` one while the Bulka is small, and declares otherwise.
    assert pro.win_rates["random"] > pro.win_rates["rule"] > 0.5
    assert not player.decide_pro(
        ProView(
            player=0,
            players=("policy", "rule", "random", "rule#2"),
            balances=(0,) * 4,
            streaks=(2, 0, 0, 0),
            bulka=40,
            opponent="rule",
            next_opponent="random",
            parties_left=30,
        )
    )
    assert player.decide_pro(
        ProView(
            player=0,
            players=("policy", "rule", "random", "rule#2"),
            balances=(0,) * 4,
            streaks=(2, 0, 0, 0),
            bulka=40,
            opponent="random",
            next_opponent="rule",
            parties_left=30,
        )
    )
