"""The pyspiel games ``python_trappola`` and ``python_bulka``
(trappola_env/openspiel/): OpenSpiel's own checks, step-by-step agreement
with ``trappola_v0`` and ``bulka_v0``, and resampling."""

from __future__ import annotations

import itertools
import math
import random
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from helpers import make_deal_spec  # noqa: E402

from trappola.agents.players.openspiel_bots import sample_layout  # noqa: E402  (installs the lab's layout sampler)
from trappola.agents.search.sampling import constraints_of, dealt_consistent  # noqa: E402
from trappola_env import bulka_v0, trappola_v0  # noqa: E402
from trappola_env.engine import action_id, cards_of, deal_from_names, mask_of  # noqa: E402
from trappola_env.engine.infostate import InfoState  # noqa: E402
from trappola_env.openspiel import deal_order, set_layout_sampler, uniform_hand  # noqa: E402


@pytest.mark.parametrize("params", [{}, {"reward_mode": "points"}, {"ace_declaration": "first_card", "alifer": False}])
def test_python_trappola_passes_random_sim_test_with_serialization(params):
    game = pyspiel.load_game("python_trappola", params)
    pyspiel.random_sim_test(game, num_sims=10, serialize=True, verbose=False)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_python_bulka_passes_random_sim_test_with_serialization(players):
    game = pyspiel.load_game("python_bulka", {"players": players, "max_parties": 2})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_observers_for_every_observation_type_follow_the_layout_tables():
    from open_spiel.python.observation import make_observation

    from trappola_env.observation import LAYOUT, encode_public

    game = pyspiel.load_game("python_trappola")
    state = game.new_initial_state()
    _deal_cards(state, deal_from_names(make_deal_spec("RS RC RD 2S 7S 8S 9S TS 7C", "2C 8C 9C TC BC CC AC 2D 7D")))
    state.apply_action(action_id("declare Figura Re"))
    state.apply_action(action_id("RS"))
    private = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    public = make_observation(
        game, pyspiel.IIGObservationType(perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE)
    )
    assert list(private.dict) == [name for name, _, _ in LAYOUT]
    private.set_from(state, 1)
    assert cards_of(int("".join(str(int(v)) for v in private.dict["hand"][::-1]), 2)) == cards_of(state.partie.hands[1])
    assert private.dict["declared_by_opponent"][0] == 1  # Figura Re with 3, seen by the dealer
    public.set_from(state, 1)
    np.testing.assert_array_equal(public.tensor, encode_public(InfoState.public(state.partie, 1)))
    assert not public.dict["hand"].any() and public.dict["played_by_opponent"].sum() == 1
    assert private.string_from(state, 1) != private.string_from(state, 0)
    assert "hand" not in public.string_from(state, 1)


def test_openspiel_rl_environment_plays_both_games():
    from open_spiel.python import rl_environment

    for name, params in [("python_trappola", {}), ("python_bulka", {"players": 2, "max_parties": 2})]:
        env = rl_environment.Environment(pyspiel.load_game(name, params), seed=1)
        rng = random.Random(2)
        step = env.reset()
        # rl_environment reports no reward at reset: in python_bulka the first stakes, paid at seating,
        # are the first decision's reward (random_sim_test counts it), which rl_environment leaves out.
        total = np.array(env.get_state.rewards())
        while not step.last():
            player = step.observations["current_player"]
            step = env.step([rng.choice(step.observations["legal_actions"][player])])
            total += step.rewards
        assert len(step.observations["info_state"][0]) == env.observation_spec()["info_state"][0]
        assert total.tolist() == pytest.approx(env.get_state.returns())


def test_bad_parameters_are_value_errors_naming_them():
    for game, params, word in [
        ("python_trappola", {"reward_mode": "tokens"}, "reward_mode"),
        ("python_trappola", {"ace_declaration": "never"}, "ace_declaration"),
        ("python_bulka", {"players": 5}, "players"),
        ("python_bulka", {"max_parties": 0}, "max_parties"),
    ]:
        with pytest.raises((ValueError, pyspiel.SpielError), match=word):
            pyspiel.load_game(game, params)


def _deal_cards(state, deal):
    for c in deal_order(deal):
        assert state.is_chance_node()
        state.apply_action(c)


@pytest.mark.parametrize("reward_mode", ["win", "points"])
def test_python_trappola_agrees_with_trappola_v0_step_by_step(reward_mode):
    game = pyspiel.load_game("python_trappola", {"reward_mode": reward_mode})
    rng = random.Random(7)
    for seed in range(12):
        env = trappola_v0.env(reward_mode=reward_mode)
        env.reset(seed=seed)
        state = game.new_initial_state()
        _deal_cards(state, env.unwrapped.partie.deal)
        while not state.is_terminal():
            player = state.current_player()
            agent = env.agent_selection
            assert agent == f"player_{player}"
            mask = env.observe(agent)["action_mask"]
            assert state.legal_actions() == list(np.flatnonzero(mask))
            for p in (0, 1):
                vec = env.observe(f"player_{p}")["observation"]
                np.testing.assert_array_equal(state.information_state_tensor(p), vec)
                np.testing.assert_array_equal(state.observation_tensor(p), vec)
            action = rng.choice(state.legal_actions())
            state.apply_action(action)
            env.step(action)
        assert state.returns() == [env._cumulative_rewards[f"player_{p}"] for p in (0, 1)]
        assert all(env.terminations.values())


@pytest.mark.parametrize("players", [2, 3, 4])
def test_python_bulka_agrees_with_bulka_v0_step_by_step(players):
    game = pyspiel.load_game("python_bulka", {"players": players, "max_parties": 6})
    orders = list(itertools.permutations(range(players)))
    names = [f"player_{i}" for i in range(players)]
    rng = random.Random(players)
    parties = pro_decisions = 0
    for seed in range(3):
        env = bulka_v0.env(n_players=players, max_parties=6)
        env.reset(seed=seed)
        state = game.new_initial_state()
        seating = env.unwrapped.session.seating
        state.apply_action(orders.index(tuple(names.index(n) for n in seating.players)))
        while not state.is_terminal():
            if state.is_chance_node():
                _deal_cards(state, env.unwrapped.session.partie.deal)
            player = state.current_player()
            assert env.agent_selection == names[player]
            legal = state.legal_actions()
            assert legal == list(np.flatnonzero(env.observe(names[player])["action_mask"]))
            for p in range(players):
                vec = env.observe(names[p])["observation"]
                np.testing.assert_array_equal(state.information_state_tensor(p), vec)
                np.testing.assert_array_equal(state.observation_tensor(p), vec)
                assert state.returns()[p] == env.infos[names[p]]["balance"]
            pro_decisions += 47 in legal
            # Random play, but proposing Alifer rarely, so that sessions run through several parties.
            calm = [a for a in legal if a != 44]
            action = rng.choice(calm if calm and rng.random() > 0.02 else legal)
            state.apply_action(action)
            env.step(action)
        parties += env.unwrapped.session.parties_played
        assert state.returns() == pytest.approx([env.infos[n]["balance"] for n in names])
        assert sum(state.returns()) == pytest.approx(0.0, abs=1e-9)
    assert parties >= 18 and pro_decisions >= 1


def test_clone_and_serialize_carry_the_whole_state():
    for name, params in [("python_trappola", {}), ("python_bulka", {"players": 3, "max_parties": 3})]:
        game = pyspiel.load_game(name, params)
        state = game.new_initial_state()
        rng = random.Random(3)
        for _ in range(46):
            if state.is_terminal():
                break
            outcomes = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
            state.apply_action(rng.choice(outcomes))
        for copy in (state.clone(), game.deserialize_state(state.serialize())):
            assert copy.history() == state.history() and str(copy) == str(state)
            for p in range(game.num_players()):
                assert copy.information_state_string(p) == state.information_state_string(p)
                assert copy.information_state_tensor(p) == state.information_state_tensor(p)
            if not state.is_terminal():
                a = state.legal_actions()[-1]
                copy.apply_action(a)
                assert copy.history() != state.history()  # the copy moves alone


def _manko_state():
    """A partie where the challenger declared Figura Re with 3 (no RB) and the
    dealer asked Manko, played on with the lowest card until the challenger
    holds 5 cards and the dealer is to act:
    153 hands of the challenger are consistent with the dealer's view."""
    deal = deal_from_names(make_deal_spec("RS RC RD 2S 7S 8S 9S TS 7C", "2C 8C 9C TC BC CC AC 2D 7D"))
    state = pyspiel.load_game("python_trappola").new_initial_state()
    _deal_cards(state, deal)
    state.apply_action(action_id("declare Figura Re"))
    while True:
        partie = state.partie
        if partie.hands[0].bit_count() <= 5 and partie.to_act == 1:
            return state
        legal = state.legal_actions()
        if action_id("ask Manko") in legal:
            state.apply_action(action_id("ask Manko"))
        else:
            state.apply_action(min(a for a in legal if a < 36))


@pytest.fixture(params=["lab", "env"])
def sampler_installed(request):
    """Each layout sampler in turn: the lab's (installed by importing
    ``trappola.agents.players.openspiel_bots``) and ``trappola_env``'s own."""
    if request.param == "env":
        set_layout_sampler(None)
    yield request.param
    set_layout_sampler(sample_layout)


def test_resampling_is_consistent_and_uniform_over_the_consistent_layouts(sampler_installed):
    state = _manko_state()
    info = InfoState(state.partie, 1)
    assert info.manko_answer[0]  # the dealer knows which Re the challenger lacks
    unseen = cards_of(info.unseen())
    size = 9 - info.ncards[0]
    truth = sorted(mask_of(c) for c in itertools.combinations(unseen, size) if dealt_consistent(info, mask_of(c)))
    assert sorted(int(h) for h in constraints_of(info).all_hands()) == truth
    k = len(truth)
    assert 10 <= k <= 200
    n = 15 * k
    key, legal = state.information_state_string(1), state.legal_actions()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    counts = Counter()
    for _ in range(n):
        sample = state.resample_from_infostate(1, sampler)
        hand = sample.partie.hands[0]
        assert dealt_consistent(info, hand)
        assert sample.information_state_string(1) == key and sample.legal_actions() == legal
        assert sample.partie.hands[1] == state.partie.hands[1] and sample.partie.bottom == state.partie.bottom
        counts[hand] += 1
    assert set(counts) == set(truth)
    expected = n / k
    chi2 = sum((counts[h] - expected) ** 2 / expected for h in truth)
    df = k - 1
    # Wilson-Hilferty: the 99.9% point of chi-square with df degrees of freedom.
    limit = df * (1 - 2 / (9 * df) + 3.09 * math.sqrt(2 / (9 * df))) ** 3
    assert chi2 < limit, (chi2, limit)


def test_bulka_resampling_redraws_only_the_partie_in_play():
    game = pyspiel.load_game("python_bulka", {"players": 3, "max_parties": 6})
    state = game.new_initial_state()
    rng = random.Random(5)
    while state.is_chance_node() or state.session.parties_played < 1 or len(state.session.partie.history) < 6:
        outcomes = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        state.apply_action(rng.choice(outcomes))
        assert not state.is_terminal()
    player = state.current_player()
    seat = state.seat(player)
    info = InfoState(state.session.partie, seat)
    moved = 0
    for _ in range(30):
        sample = state.resample_with(player, random.Random(rng.random()))
        assert sample.information_state_string(player) == state.information_state_string(player)
        assert sample.returns() == state.returns() and sample.legal_actions() == state.legal_actions()
        assert sample.history()[: state.deal_start] == state.history()[: state.deal_start]
        hand = sample.session.partie.hands[1 - seat]
        assert dealt_consistent(info, hand)
        moved += hand != state.session.partie.hands[1 - seat]
    assert moved > 0


def _declared_twos_state(names=("declare Figura Twos", "declare Blans", "7S")):
    """The challenger holding four Twos and low cards has declared and led; the dealer is to act."""
    deal = deal_from_names(make_deal_spec("2S 2C 2D 2B 7S 7C 8S 8C 9S", "7D 7B 8D 8B 9C 9D 9B TS TC"))
    moves = deal_order(deal) + [action_id(n) for n in names]
    state = pyspiel.load_game("python_trappola").new_initial_state()
    for a in moves:
        state.apply_action(a)
    return state, moves


def test_a_process_that_imports_only_the_games_resamples_and_runs_openspiels_ismcts():
    # Resampled from the dealer's side 300 times, and OpenSpiel's own ISMCTSBot asked for a move,
    # with nothing of trappola.agents imported.
    state, moves = _declared_twos_state()
    code = (
        "import sys, pyspiel, numpy as np, trappola_env.openspiel\n"
        "from open_spiel.python.algorithms import ismcts, mcts\n"
        "game = pyspiel.load_game('python_trappola')\n"
        "s = game.new_initial_state()\n"
        f"for a in {moves}: s.apply_action(a)\n"
        "sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)\n"
        "hands = [s.resample_from_infostate(1, sampler).partie.hands[0] for _ in range(300)]\n"
        "ev = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))\n"
        "bot = ismcts.ISMCTSBot(game, ev, 2.0, 30, random_state=np.random.RandomState(0))\n"
        "assert bot.step(s) in s.legal_actions()\n"
        "assert not any(m.startswith('trappola.agents') for m in sys.modules), 'trappola.agents imported'\n"
        "print(' '.join(map(str, hands)))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    info = InfoState(state.partie, 1)
    drawn = Counter(int(h) for h in proc.stdout.split())
    assert sum(drawn.values()) == 300 and len(drawn) > 1
    assert all(dealt_consistent(info, h) for h in drawn)
    # Blans rules out every court card and the Twos declaration forces the other three Twos.
    twos = mask_of(action_id(n) for n in ("2C", "2D", "2B"))
    assert all(h & twos == twos for h in drawn)


def test_the_env_sampler_keeps_exactly_the_hands_blans_bianka_and_figura_allow():
    # The challenger declares four Twos, Blans and Bianka and plays 7S: it holds the four Twos and
    # four of the six low cards the dealer cannot see (TD and TB among them), nothing else.
    state, _ = _declared_twos_state(("declare Figura Twos", "declare Blans", "declare Bianka", "7S"))
    info = InfoState(state.partie, 1)
    truth = {int(h) for h in constraints_of(info).all_hands()}
    assert len(truth) == math.comb(6, 4)
    rng = random.Random(0)
    drawn = Counter(uniform_hand(info, rng) for _ in range(1500))
    assert set(drawn) == truth
    assert all(dealt_consistent(info, h) for h in drawn)


def test_python_bulka_bounds_come_from_the_rules_tables_and_hold_in_play():
    from trappola_env.openspiel.bounds import balance_bound, max_multipliers, partie_units
    from trappola_env.openspiel.session_game import EXTRA_REPLAYS

    # Stake 10 + Pro stake 10 + declarations 25 (four Twos, Blans, Bianka) + bonuses 60 (Marc 10,
    # a Two winning trick 1 20, Twos winning the last three tricks 30).
    assert partie_units() == 10 + 10 + 25 + 60
    # One partie, no Pro possible: no replay past it.
    assert max_multipliers(1, EXTRA_REPLAYS) == [1]
    assert max_multipliers(4, 2) == [1, 2, 4, 8, 4, 8]
    game = pyspiel.load_game("python_bulka", {"players": 2, "max_parties": 3, "stake_multiple": 2})
    bound = balance_bound(3, 2, EXTRA_REPLAYS)
    assert game.max_utility() == bound and game.min_utility() == -bound
    assert bound == 105 * 2 * (1 + 2 + 4 + sum(2**k for k in range(1, 17)))
    default = pyspiel.load_game("python_bulka")
    assert default.max_utility() < 2e12  # was 6.3e14
    rng = random.Random(0)
    for params in ({"players": 2, "max_parties": 3, "stake_multiple": 2}, {"players": 3, "max_parties": 4}):
        game = pyspiel.load_game("python_bulka", params)
        for _ in range(3):
            state = game.new_initial_state()
            while not state.is_terminal():
                outcomes = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
                state.apply_action(rng.choice(outcomes))
                assert all(game.min_utility() <= r <= game.max_utility() for r in state.returns())


def test_four_twos_blans_and_bianka_make_the_opponent_pay_the_largest_declaration_payment():
    from trappola_env.openspiel.bounds import max_declaration_payment

    state, _ = _declared_twos_state(("declare Figura Twos", "declare Blans", "declare Bianka", "7S"))
    partie = state.partie
    while not partie.terminal:  # lowest legal card each turn (declining any Alifer proposal)
        legal = partie.legal_actions()
        cards = [a for a in legal if a < 36]
        partie.apply(min(cards) if cards else action_id("decline Alifer"))
    assert partie.result().declaration_tokens[0] == max_declaration_payment() == 25


def test_the_env_sampler_draws_only_hands_the_labs_constraints_allow_in_random_play():
    # Random play with declarations, Manko questions and voids: at every decision of 20 parties both
    # seats' draws are hands the lab's own constraints (and the independent check) allow.
    rng = random.Random(5)
    game = pyspiel.load_game("python_trappola")
    checked = 0
    for _ in range(20):
        state = game.new_initial_state()
        while state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        while not state.is_terminal():
            legal = [a for a in state.legal_actions() if a != action_id("propose Alifer")]
            for seat in (0, 1):
                info = InfoState(state.partie, seat)
                allowed = constraints_of(info)
                for _ in range(3):
                    hand = uniform_hand(info, rng)
                    assert allowed.allows(hand) and dealt_consistent(info, hand)
                    checked += 1
            declarations = [a for a in legal if a >= 36]
            state.apply_action(declarations[0] if declarations and rng.random() < 0.7 else rng.choice(legal))
    assert checked > 1000
