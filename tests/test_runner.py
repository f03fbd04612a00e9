"""The session runner (trappola_env.referee): players and their adapters,
Pro rules, results consistent with the session engine's own records."""

from __future__ import annotations

import json
import random

import pytest

from trappola_env.engine import InfoState, cards_of
from trappola_env.engine.session import Session
from trappola_env.interface import ProView
from trappola_env.referee import SessionResult, play_session
from trappola_env.seat_adapters import PolicySeat


def random_policy(seed):
    rng = random.Random(seed)

    def policy(info, legal_mask):
        acts = cards_of(legal_mask)
        return acts[rng.randrange(len(acts))]

    return policy


def cards_only(seed):
    """Random cards, never Alifer or a declaration: every partie is decided."""
    rng = random.Random(seed)

    def policy(info, legal_mask):
        acts = [a for a in cards_of(legal_mask) if a < 36] or cards_of(legal_mask)
        return acts[rng.randrange(len(acts))]

    return policy


def test_adapted_callables_play_a_session_reproducibly():
    def play():
        return play_session([PolicySeat(random_policy(i)) for i in range(3)], max_parties=80, seed=4)

    a, b = play(), play()
    assert isinstance(a, SessionResult)
    assert a.balances == b.balances and a.history.to_dicts() == b.history.to_dicts()
    assert a.session.over and a.parties_played >= 80
    assert a.balances == a.session.balances
    assert sum(a.balances.values()) == 0
    assert a.pro_offers and not any(o.declared for o in a.pro_offers)  # PolicySeat's default: never
    json.dumps(a.to_dict())


@pytest.mark.parametrize("answer", [True, False])
def test_adapted_players_with_a_constant_pro_rule(answer):
    res = play_session([PolicySeat(cards_only(i), answer) for i in range(3)], max_parties=150, seed=1)
    assert res.pro_offers and all(o.declared is answer for o in res.pro_offers)
    assert len(res.pro_declarations) == (len(res.pro_offers) if answer else 0)


def test_pro_declarations_and_bulka_wins_match_the_history():
    res = play_session([PolicySeat(cards_only(i), True) for i in range(4)], max_parties=300, seed=2)
    wins = {n: 0 for n in res.balances}
    won = {n: 0 for n in res.balances}
    starts = []
    for rec in res.history:
        if rec.pro_declared and not rec.replay:
            starts.append((rec.index, rec.pro_declarer))
        if rec.pro_result == "won":
            wins[rec.winner] += 1
            won[rec.winner] += rec.bulka_won
    assert res.bulka_wins == wins and res.bulka_won == won and sum(wins.values()) > 0
    assert [(d["partie_index"], d["player"]) for d in res.pro_declarations] == starts
    assert {d["result"] for d in res.pro_declarations} == {"won", "lost"}
    by_index = {r.index: r for r in res.history}
    for d in res.pro_declarations:
        last = by_index[d["partie_index"] + d["parties"] - 1]
        assert last.pro_result == d["result"] and last.bulka_won == d["bulka_won"]


def test_adapted_policies_get_info_states_and_pro_views():
    class Recorder:
        def __init__(self, seed):
            self.policy = cards_only(seed)
            self.infos = 0
            self.decisions = []

        def act(self, info, legal_mask):
            assert isinstance(info, InfoState) and info.legal_mask == legal_mask
            self.infos += 1
            return self.policy(info, legal_mask)

        def decide_pro(self, view):
            assert isinstance(view, ProView)
            self.decisions.append(view)
            return view.streak >= 3

    recorders = [Recorder(i) for i in range(3)]
    res = play_session([PolicySeat(r.act, r.decide_pro) for r in recorders], max_parties=200, seed=3)
    decisions = [d for r in recorders for d in r.decisions]
    assert all(r.infos > 0 for r in recorders) and decisions
    offers = res.pro_offers
    assert sorted((o.player, o.streak) for o in offers) == sorted((d.name, d.streak) for d in decisions)
    assert all(o.declared == (o.streak >= 3) for o in offers)
    for d in decisions:
        assert d.pro_cost == 10 and len(d.players) == 3 and 0 < d.parties_left <= 200


def test_seating_deal_source_and_existing_session():
    s = Session(
        names=["a", "b", "c"], seating={"dealer": "a", "challenger": "b", "queue": ["c"]}, max_parties=30, seed=1
    )
    s.join("d", agreed=True)
    res = play_session({n: PolicySeat(random_policy(i)) for i, n in enumerate("abcd")}, session=s)
    assert res.session is s and s.over and set(res.balances) == {"a", "b", "c", "d"}
    assert s.history[0].dealer == "a" and s.history[0].challenger == "b"


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: PolicySeat(42), "callable"),
        (lambda: PolicySeat(random_policy(0), "sometimes"), "Pro rule"),
        (lambda: play_session([random_policy(0), random_policy(1)], max_parties=2, seed=0), r"act\(view\)"),
    ],
)
def test_bad_players_raise(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_missing_player_for_an_existing_session_raises():
    s = Session(n_players=3, max_parties=3, seed=0)
    with pytest.raises(ValueError, match="no player given"):
        play_session({"player_0": PolicySeat(random_policy(0)), "player_1": PolicySeat(random_policy(1))}, session=s)


# ------------------------------------------------------- agents players


def test_agents_players_get_turn_views_pro_views_and_results():
    pytest.importorskip("trappola.agents.players.random")
    from trappola.agents.players.random import RandomPlayer
    from trappola_env.interface import ProView, TurnView

    class Recording(RandomPlayer):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.views, self.pro_views, self.results = [], [], 0

        def act(self, view):
            assert isinstance(view, TurnView)
            self.views.append(view.opponent)
            return super().act(view)

        def decide_pro(self, view):
            assert isinstance(view, ProView)
            self.pro_views.append(view)
            return True

        def observe_result(self, info, result):
            self.results += 1

    players = [Recording(alifer=False) for _ in range(3)]
    res = play_session(players, max_parties=120, seed=5)
    names = [p.name for p in players]
    assert all(set(p.views) <= set(names) for p in players)
    views = [v for p in players for v in p.pro_views]
    assert views and all(v.players == tuple(names) and v.pro_cost == 10 for v in views)
    assert len(views) == len(res.pro_offers) == len(res.pro_declarations)
    played = {n: 0 for n in res.balances}
    for rec in res.history:
        played[rec.dealer] += 1
        played[rec.challenger] += 1
    assert [p.results for p in players] == [played[f"player_{i}"] for i in range(3)]


def test_a_pro_rule_must_answer_a_bool():
    import numpy as np

    with pytest.raises(ValueError, match=r"player 'player_\d' \(player_\d\): its Pro rule answered 'no'"):
        play_session([PolicySeat(cards_only(i), lambda view: "no") for i in range(3)], max_parties=150, seed=1)
    res = play_session(
        [PolicySeat(cards_only(i), lambda view: np.bool_(False)) for i in range(3)], max_parties=150, seed=1
    )
    assert res.pro_offers and not any(o.declared for o in res.pro_offers)


def test_an_illegal_action_names_the_player_and_the_seat():
    from trappola_env.engine import IllegalActionError

    class Cheat:
        name = "cheat:v2"

        def act(self, view):
            return 47  # a Pro action: never legal inside a partie

    with pytest.raises(IllegalActionError, match=r"player 'cheat:v2' \(bob\): illegal action 47 .* for seat \d"):
        play_session({"alice": PolicySeat(cards_only(0)), "bob": Cheat()}, max_parties=3, seed=0)
    with pytest.raises(IllegalActionError, match=r"player 'player_1' \(player_1\): illegal action"):
        play_session([PolicySeat(cards_only(0)), PolicySeat(lambda info, mask: 47)], max_parties=3, seed=0)
