"""The ``policy`` player's endgame search (``endgame=K``): the network
decides until the hand holds ``K`` cards, ``pimc`` every turn with a card
to play after that, and nothing else changes."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from trappola.agents import make_player
from trappola_env.engine import Partie, random_deal
from trappola_env.engine.actions import CARD_ACTIONS
from trappola_env.interface import TurnView


def _my_turns(me, other, deal):
    """The view at each of ``me``'s turns with a choice (``me`` is the
    challenger, ``other`` the dealer); ``me.act`` then plays the turn. A
    caller may ask ``me.act(view)`` first: a second call in the same turn
    repeats the answer (the network is greedy, ``pimc`` plans once a turn)."""
    partie = Partie(deal)
    while not partie.terminal:
        seat = partie.to_act
        view = TurnView(partie.info_state(seat))
        if seat == 0:
            mask = view.legal_mask
            if mask & (mask - 1):
                yield view
            action = me.act(view)
        else:
            action = other.act(view)
        partie.apply(action)


def test_the_network_decides_until_the_endgame_and_pimc_after():
    me = make_player("policy:endgame=4,endgame_samples=8")
    net = make_player("policy:endgame=0")
    rule = make_player("rule")
    searched = by_network = 0
    for g in range(12):
        me.reset(g)
        rule.reset(g)
        for view in _my_turns(me, rule, random_deal(random.Random(g))):
            in_endgame = view.legal_mask & CARD_ACTIONS and view.info.hand.bit_count() <= 4
            # What the searcher would answer, from its state before this turn.
            expected = copy.deepcopy(me.endgame_searcher).act(view) if in_endgame else net.act(view)
            got = me.act(view)
            assert got == expected, (g, view.info, in_endgame)
            searched += bool(in_endgame)
            by_network += not in_endgame
    assert searched > 20 and by_network > 20


def test_the_endgame_search_changes_some_cards():
    # The option would be a no-op if pimc always agreed with the network.
    me = make_player("policy:endgame=9,endgame_samples=8")
    net = make_player("policy:endgame=0")
    rule = make_player("rule")
    differ = 0
    for g in range(10):
        me.reset(g)
        rule.reset(g)
        for view in _my_turns(me, rule, random_deal(random.Random(100 + g))):
            if view.legal_mask & CARD_ACTIONS:
                differ += copy.deepcopy(me.endgame_searcher).act(view) != net.act(view)
    assert differ > 0


def test_default_searches_the_last_six_cards_with_the_shipped_belief():
    me = make_player("policy")
    assert me.settings["endgame"] == 6 and me.endgame_searcher.settings["belief"] == "default"
    alone = make_player("policy:endgame=0")
    assert alone.name == "policy:endgame=0" and alone.endgame_searcher is None


def test_name_round_trips_and_bad_settings_are_refused():
    me = make_player("policy:endgame=4,endgame_samples=16")
    assert me.name == "policy:endgame=4,endgame_samples=16"
    assert make_player(me.name).settings == me.settings
    for bad in ("endgame=-1", "endgame=10", "endgame_samples=0", "endgame=two"):
        with pytest.raises(ValueError):
            make_player(f"policy:{bad}")


def test_a_seed_fixes_the_searched_parties():
    # Evaluation workers rebuild a player from its name and reset it per deal.
    me = make_player("policy:endgame=5,endgame_samples=8")
    twin = make_player(me.name)
    rule = make_player("rule")

    def actions(player):
        player.reset(3)
        rule.reset(3)
        return [player.act(v) for v in _my_turns(player, rule, random_deal(random.Random(7)))]

    assert actions(me) == actions(twin)


def test_observation_vectors_are_refused_with_endgame_search():
    me = make_player("policy:endgame=3")
    with pytest.raises(ValueError, match="InfoState"):
        me.act_observation(np.zeros(347, np.float32), np.ones(49, bool))


def test_without_numba_the_search_is_refused_at_once_and_the_network_still_plays(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "numba" else real(name, *a))
    with pytest.raises(ValueError, match="needs numba.*policy:endgame=0"):
        make_player("policy")
    assert make_player("policy:endgame=0").endgame_searcher is None


def test_training_time_evaluation_plays_the_network_alone():
    # A run's evaluations measure the network it trains, whatever the player's defaults.
    from trappola.agents.players.policy import PolicyPlayer

    shipped = make_player("policy:endgame=0")
    me = PolicyPlayer.from_numpy(shipped.policy)
    assert me.settings["endgame"] == 0 and me.endgame_searcher is None
    assert PolicyPlayer.from_numpy(shipped.policy, endgame=4).endgame_searcher is not None
