"""The players' advice (``trappola.agents.advice``): imagined worlds that keep to the
public record, honest advice as a vote, random advice, heeding advice, and
the referee's advice loop."""

from __future__ import annotations

import random

import pytest

from trappola.agents import make_player
from trappola.agents.advice import heeded, honest_advice, imagined_views
from trappola_env.engine import InfoState, Partie, RuleConfig
from trappola_env.engine.actions import ACCEPT_ALIFER, DECLINE_ALIFER, PRO, PROPOSE_ALIFER
from trappola_env.engine.advice import ADVICE_BASE, NO_ADVICE, advice_id, advice_mask, possible_mask
from trappola_env.engine.deal import random_deal
from trappola_env.engine.session import Session
from trappola_env.interface import AdviceView, TurnView
from trappola_env.referee import advice_view, play_session


def public_key(info: InfoState) -> tuple:
    return (
        info.bottom,
        info.tricks,
        info.lead,
        info.leader,
        info.trick,
        info.declarations,
        info.manko_answer,
        info.used,
        info.card_points,
        info.alifer_proposer,
        info.ncards,
        info.multiplier,
    )


def defender_states(n: int, seed: int):
    """Random parties stopped at a decision of seat 0 (the defender)."""
    rng = random.Random(seed)
    while n:
        p = Partie(random_deal(rng))
        stop = rng.randrange(1, 30)
        for _ in range(stop):
            if p.terminal:
                break
            p.apply(rng.choice(p.legal_actions()))
        if not p.terminal and p.to_act == 0:
            n -= 1
            yield p


def view_of(p: Partie) -> AdviceView:
    info = InfoState.public(p, 0)
    return AdviceView(info, tuple(p.history), advice_mask(info), "D", "A")


def test_imagined_worlds_keep_to_the_public_record():
    rng = random.Random(0)
    worlds = 0
    for p in defender_states(150, 1):
        real = InfoState.public(p, 0)
        possible = possible_mask(real)
        for v in imagined_views(view_of(p), rng, 4):
            imagined = v.info
            assert public_key(imagined) == public_key(real)
            assert v.legal_mask & ~possible == 0
            assert imagined.hand.bit_count() == 9 - real.ncards[0]
            assert not imagined.hand & (1 << real.bottom)
            worlds += 1
    assert worlds > 400


class Declines:
    """Declines any proposal, else plays its lowest legal action."""

    def __init__(self):
        self.rng = random.Random(0)
        self.seen = []

    def act(self, view: TurnView) -> int:
        self.seen.append(view.info.hand)
        return DECLINE_ALIFER if view.is_legal(DECLINE_ALIFER) else view.legal_actions[0]


def test_honest_advice_is_the_players_own_choice_by_majority():
    for p in defender_states(40, 2):
        if p.legal_mask() >> ACCEPT_ALIFER & 1:
            break
    else:  # make a pending proposal of the declarer
        p = Partie(random_deal(random.Random(3)))
        p.apply(p.legal_actions()[0])
        p.apply(PROPOSE_ALIFER)
    player = Declines()
    assert honest_advice(player, view_of(p), 6) == advice_id(DECLINE_ALIFER)
    assert len(player.seen) == 6 and len(set(player.seen)) > 1  # different imagined hands
    assert honest_advice(player, view_of(p), 0) == NO_ADVICE


@pytest.mark.parametrize("spec", ["rule", "pimc:samples=4,advice_worlds=3", "random"])
def test_advisers_answer_with_a_legal_advice_id(spec):
    player = make_player(spec)
    player.reset(0)
    for p in defender_states(12, 4):
        view = view_of(p)
        a = player.advise(view)
        assert view.legal_mask >> a & 1 and a >= ADVICE_BASE


def test_random_advice_is_uniform_over_the_advice_mask():
    player = make_player("random")
    player.reset(1)
    p = next(defender_states(1, 5))
    view = view_of(p)
    seen = {player.advise(view) for _ in range(2000)}
    assert seen == set(view.legal_actions)


def test_the_policy_player_and_default_players_give_no_advice():
    from trappola.agents.base import Player

    p = next(defender_states(1, 6))
    assert Player().advise(view_of(p)) == NO_ADVICE


def test_heed_plays_the_first_legal_advice():
    p = next(defender_states(1, 7))
    info = InfoState(p, 0)
    legal = p.legal_actions()
    not_legal = next(a for a in range(36) if a not in legal)
    advice = (("B", not_legal), ("C", None), ("E", legal[-1]))
    view = TurnView(info, advice=advice)
    assert heeded(view) == legal[-1]
    for spec in ("random:heed=true", "rule:heed=true"):
        player = make_player(spec)
        player.reset(0)
        assert player.act(view) == legal[-1]
    assert heeded(TurnView(info, advice=(("B", not_legal),))) is None
    ignoring = make_player("random")
    ignoring.reset(0)
    picks = {ignoring.act(view) for _ in range(200)}
    assert len(picks) > 1  # heed is off by default: it plays its own choice


class Recorder:
    """A view-taking player that plays its lowest legal action, records the
    advice it is shown and advises the lowest advice id."""

    def __init__(self, name):
        self.name = name
        self.shown = []
        self.views = []

    def act(self, view: TurnView) -> int:
        self.shown.append(view.advice)
        return view.legal_actions[0]

    def decide_pro(self, view) -> bool:
        return True

    def advise(self, view: AdviceView) -> int:
        self.views.append(view)
        assert view.info.hand == 0 and view.info.dealt == 0
        return view.legal_actions[0]


def test_the_referee_asks_advisers_and_shows_the_defender_their_advice():
    players = {n: Recorder(n) for n in ("A", "B", "C", "D")}
    result = play_session(players, max_parties=40, seed=3, advice=True)
    s = result.session
    assert s.advice_log
    views = [v for p in players.values() for v in p.views]
    assert len(views) == len(s.advice_log)
    for index, _step, adviser, _advice in s.advice_log:
        rec = s.history[index]
        assert rec.pro_declarer == rec.dealer and adviser in rec.queue
    shown = [a for p in players.values() for a in p.shown if a]
    assert shown and all(len(a) == 2 for a in shown)  # two waiting players advised every decision
    # The same session without advice: nobody is asked, and with these
    # players (who never follow advice) the outcome is the same.
    players2 = {n: Recorder(n) for n in ("A", "B", "C", "D")}
    plain = play_session(players2, max_parties=40, seed=3)
    assert not any(p.views for p in players2.values())
    assert plain.balances == result.balances


def test_the_referee_names_an_adviser_giving_illegal_advice():
    class Bad(Recorder):
        def advise(self, view):
            return 0

    players = {n: (Bad(n) if n == "C" else Recorder(n)) for n in ("A", "B", "C", "D")}
    with pytest.raises(ValueError, match="'C'"):
        play_session(players, max_parties=60, seed=3, advice=True)


def test_advice_view_shows_only_the_public_record():
    s = Session(
        names=["A", "B", "C"],
        seating={"dealer": "A", "challenger": "B", "queue": ["C"]},
        streaks={"A": 2},
        advice=True,
        seed=0,
        config=RuleConfig(),
    )
    s.act(PRO)
    v = advice_view(s)
    assert (v.defender, v.declarer, v.history, v.advice) == ("B", "A", (), ())
    assert v.info.hand == 0 and v.info.dealt == 0 and v.legal_mask == s.legal_mask()
