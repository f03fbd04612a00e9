"""bulka_v0: the Bulka session as a PettingZoo AEC environment."""

from __future__ import annotations

import math
import re
import subprocess
import sys
import warnings
from fractions import Fraction

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils.wrappers import OrderEnforcingWrapper
from test_session_scripts import DEAL_CHALLENGER_WINS, DEAL_DECLARATION

from trappola_env import bulka_v0, trappola_v0
from trappola_env.aec_base import OrderEnforcing
from trappola_env.bulka_v0 import BULKA_OBS_SIZE, SESSION_LAYOUT
from trappola_env.engine.actions import NO_PRO, PRO
from trappola_env.observation import OBS_SIZE, decode_observation, encode

SEATING3 = {"dealer": "player_1", "challenger": "player_0", "queue": ["player_2"]}


def random_action(obs, rng):
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


def run(env, rng, on_step=None, max_steps=10**6):
    """Play random legal actions to the end; returns per-agent lists of the
    rewards given at each live step (env.rewards; the last is the final
    split) and of the rewards last() reported at each selection."""
    given = {a: [] for a in env.possible_agents}
    seen = {a: [] for a in env.possible_agents}
    # range() caps a session that would not end: the lengths differ by design.
    for _, agent in zip(range(max_steps), env.agent_iter(), strict=False):
        obs, reward, term, trunc, info = env.last()
        seen[agent].append(reward)
        env.step(None if term or trunc else random_action(obs, rng))
        if not (term or trunc):
            for a, r in env.rewards.items():
                given[a].append(r)
        if on_step is not None:
            on_step(env)
    return given, seen


# ------------------------------------------------------------------ API


def test_env_is_raw_env_in_order_enforcing_wrapper_only():
    env = bulka_v0.env()
    assert type(env) is OrderEnforcing and type(env).__bases__ == (OrderEnforcingWrapper,)
    assert type(env.env) is bulka_v0.raw_env
    assert env.metadata == {"name": "bulka_v0", "render_modes": ["human", "ansi"], "is_parallelizable": False}
    assert str(env) == "bulka_v0"


def test_package_import_stays_cheap():
    code = (
        "import sys, trappola_env; assert 'pettingzoo' not in sys.modules; "
        "from trappola_env import bulka_v0; assert bulka_v0.raw_env"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"n_players": 2, "max_parties": 40},
        {"n_players": 3, "max_parties": 40},
        {"n_players": 4, "max_parties": 40},
        {"n_players": 3, "max_parties": 25, "illegal_action": "forfeit", "stake_multiple": 2},
        {"n_players": 4, "max_parties": 25, "ace_declaration": "first_card"},
    ],
)
def test_pettingzoo_api_test(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test resets with an unknown option, which we warn about
        api_test(bulka_v0.env(**kwargs), num_cycles=1000)


def test_pettingzoo_seed_test():
    seed_test(lambda: bulka_v0.env(n_players=3, max_parties=30), num_cycles=500)


def test_spaces_and_agents():
    env = bulka_v0.env(n_players=4)
    env.reset(seed=1)
    assert env.possible_agents == env.agents == ["player_0", "player_1", "player_2", "player_3"]
    space = env.observation_space("player_2")
    assert space["observation"].shape == (BULKA_OBS_SIZE,) == (366,)
    assert space["action_mask"].shape == (49,) and env.action_space("player_0").n == 49


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_players": 5}, "n_players"),
        ({"n_players": 1}, "n_players"),
        ({"n_players": True}, "n_players"),
        ({"max_parties": 0}, "max_parties"),
        ({"stake_multiple": 1.5}, "stake_multiple"),
        ({"render_mode": "rgb_array"}, "render_mode"),
        ({"illegal_action": "ignore"}, "illegal_action"),
        ({"ace_declaration": "never"}, "ace_declaration"),
    ],
)
def test_bad_constructor_arguments_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        bulka_v0.env(**kwargs)


def test_docstring_table_matches_the_layout_data():
    rows = re.findall(r"^\| `(\w+)` \| (\d+) \| (\d+) \|", bulka_v0.__doc__, flags=re.M)
    assert [(name, int(off), int(size)) for name, off, size in rows] == SESSION_LAYOUT + bulka_v0.ADVICE_LAYOUT
    assert bulka_v0.ADVICE_LAYOUT[0][1] == BULKA_OBS_SIZE
    assert bulka_v0.ADVICE_LAYOUT[-1][1] + bulka_v0.ADVICE_LAYOUT[-1][2] == bulka_v0.ADVICE_OBS_SIZE
    assert [(n, s) for n, s, _ in bulka_v0.ADVICE_FIELDS] == [(n, s) for n, _, s in bulka_v0.ADVICE_LAYOUT]
    assert SESSION_LAYOUT[0][1] == OBS_SIZE
    assert SESSION_LAYOUT[-1][1] + SESSION_LAYOUT[-1][2] == BULKA_OBS_SIZE
    assert f"({BULKA_OBS_SIZE},)" in bulka_v0.__doc__


# ---------------------------------------------------------- observations


def test_partie_part_equals_trappola_v0_in_the_same_position():
    """Same deal, same roles, same actions: the first 347 values and the
    mask of each of the two players equal trappola_v0's, step by step, for
    the first partie and for an Alifer replay at m = 2."""
    rng = np.random.default_rng(3)
    b = bulka_v0.env(n_players=3, max_parties=10)
    b.reset(seed=3, options={"seating": SEATING3, "deal": DEAL_DECLARATION})
    session = b.unwrapped.session
    compared = 0
    for partie_no in range(2):
        deal = session.partie.deal.to_names()
        t = trappola_v0.env()
        # trappola_v0's player_0 is the challenger unless told otherwise.
        t.reset(options={"deal": deal, "multiplier": session.multiplier})
        names = {session.challenger: "player_0", session.dealer: "player_1"}
        start = len(session.history)
        while len(session.history) == start:
            for ours, theirs in names.items():
                ob, ot = b.observe(ours), t.observe(theirs)
                np.testing.assert_array_equal(ob["observation"][:OBS_SIZE], ot["observation"])
                np.testing.assert_array_equal(ob["action_mask"], ot["action_mask"])
                compared += 1
            agent = b.agent_selection
            assert names[agent] == t.agent_selection
            if partie_no == 0:
                action = 44 if not session.partie.history else 45  # propose and accept: a replay follows
            else:
                action = random_action(b.observe(agent), rng)
            b.step(action)
            t.step(action)
    assert session.history[1].multiplier == 2 and compared > 20


def test_partie_part_is_encode_and_zeros_when_not_at_a_partie():
    rng = np.random.default_rng(5)
    env = bulka_v0.env(n_players=4, max_parties=60)
    env.reset(seed=5)
    s = env.unwrapped.session
    kinds = set()

    def check(env):
        for a in env.agents:
            vec = env.observe(a)["observation"]
            assert vec.dtype == np.float32 and vec.shape == (BULKA_OBS_SIZE,)
            assert np.all((vec >= 0) & (vec <= 1))
            seat = env.infos[a]["seat"]
            feats = vec[OBS_SIZE:]
            assert feats[3:6].tolist() == [seat == "challenger", seat == "dealer", seat == "waiting"]
            if s.phase == "partie" and seat != "waiting":
                np.testing.assert_array_equal(vec[:OBS_SIZE], encode(s.partie, 0 if seat == "challenger" else 1))
                kinds.add("partie")
            else:
                assert not vec[:OBS_SIZE].any()
                kinds.add(s.phase if seat != "waiting" else "waiting")

    run(env, rng, on_step=check)
    assert {"partie", "waiting", "pro", "over"} <= kinds


def test_pro_decision_is_the_dealers_with_exactly_47_and_48():
    rng = np.random.default_rng(2)
    env = bulka_v0.env(n_players=3, max_parties=200)
    env.reset(seed=2)
    s = env.unwrapped.session
    decisions = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        assert info["seat"] != "waiting"
        mask = obs["action_mask"]
        if s.phase == "pro":
            decisions += 1
            assert agent == s.dealer and np.flatnonzero(mask).tolist() == [PRO, NO_PRO]
            feats = obs["observation"][OBS_SIZE:]
            assert feats[0] == 1 and feats[4] == 1  # deciding Pro, as the dealer
            assert feats[SESSION_LAYOUT[4][1] - OBS_SIZE] == pytest.approx(min(s.streaks[agent], 8) / 8)
            for other in env.agents:
                if other != agent:
                    assert not env.observe(other)["action_mask"].any()
        else:
            assert not mask[PRO] and not mask[NO_PRO]
        env.step(random_action(obs, rng))
    assert decisions >= 5


def test_session_features_decode():
    env = bulka_v0.env(n_players=3, max_parties=10, stake_multiple=2)
    env.reset(seed=0, options={"seating": SEATING3})
    vec = env.observe("player_2")["observation"]
    off = {name: o for name, o, _ in SESSION_LAYOUT}
    assert vec[off["phase"] : off["phase"] + 3].tolist() == [0, 1, 0]
    assert vec[off["seat"] : off["seat"] + 3].tolist() == [0, 0, 1]
    assert vec[off["queue_position"]] == pytest.approx(1 / 3)
    assert vec[off["n_players"] : off["n_players"] + 3].tolist() == [0, 1, 0]
    assert vec[off["parties_left"]] == 1.0
    assert vec[off["balance"]] == 0.5  # player_2 has paid nothing
    # The challenger has paid one stake of 20 (u = 20): log2(2) / 16 below the middle.
    ch = env.observe("player_0")["observation"]
    assert ch[off["balance"]] == pytest.approx(0.5 - 0.5 / 16)
    assert ch[off["bulka"]] == pytest.approx(math.log2(3) / 16)  # Bulka 40 = 2u
    assert decode_observation(ch)["role"] == "challenger"


# --------------------------------------------------------------- rewards


@pytest.mark.parametrize("n, seed", [(2, 1), (3, 2), (3, 3), (4, 4), (4, 5)])
def test_summed_rewards_equal_final_balances(n, seed):
    env = bulka_v0.env(n_players=n, max_parties=60)
    env.reset(seed=seed)
    s = env.unwrapped.session
    given, seen = run(env, np.random.default_rng(seed))
    assert s.over
    for a in env.possible_agents:
        balance = s.balances[a]
        # Every reward before the last step is a whole number of tokens:
        # exact. The last is the exact rest (the final split included),
        # rounded once to a float.
        before_last = sum(given[a][:-1])
        assert before_last == int(before_last)
        assert given[a][-1] == float(balance - int(before_last))
        assert any(r != 0 for r in given[a])
        if Fraction(float(balance)) == balance:  # whole, halves, quarters: exact
            assert sum(given[a]) == balance
            assert sum(seen[a]) == balance  # what last() reported over the agent's turns
        else:  # a third of a token is no float: the sum is off by the rounding of the last reward
            assert sum(given[a]) == pytest.approx(float(balance), rel=1e-12, abs=1e-9)
        assert env.unwrapped.infos.get(a) is None  # dead-stepped away


def test_first_step_reports_the_initial_stakes():
    env = bulka_v0.env(n_players=3, max_parties=5)
    env.reset(seed=0, options={"seating": SEATING3, "deal": DEAL_CHALLENGER_WINS})
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": 0.0}
    assert env.infos["player_0"]["balance"] == -10.0
    assert env.agent_selection == "player_0"
    env.step(44)  # propose Alifer
    assert env.rewards == {"player_0": -10.0, "player_1": -10.0, "player_2": 0.0}
    _, reward, *_ = env.last()  # player_1 answers; it has not acted yet
    assert reward == -10.0
    env.step(45)  # accept: replay at m = 2, stakes of 20 each
    assert env.rewards == {"player_0": -20.0, "player_1": -20.0, "player_2": 0.0}
    _, reward, *_ = env.last()
    assert env.agent_selection == "player_0" and reward == -30.0  # -10 then -20 since its last turn


def test_pro_win_reward_is_the_whole_bulka():
    env = bulka_v0.env(n_players=2, max_parties=20, illegal_action="forfeit")
    env.reset(seed=0, options={"seating": {"dealer": "player_1", "challenger": "player_0", "queue": []}})
    s = env.unwrapped.session
    env.step(46)  # the challenger forfeits: player_1 wins
    env.step(46)
    assert s.phase == "pro" and env.agent_selection == "player_1"
    env.step(PRO)
    assert env.rewards == {"player_0": -10.0, "player_1": -20.0}
    pot = s.bulka
    env.step(46)  # player_0 forfeits again: the Pro is won
    # player_1 takes the Bulka, then both pay the next stakes.
    assert env.rewards == {"player_0": -10.0, "player_1": float(pot - 10)}
    assert env.infos["player_1"]["seat"] == "challenger" and env.infos["player_1"]["streak"] == 0


def test_1000_random_parties_with_four_conserve_after_every_step():
    env = bulka_v0.env(n_players=4, max_parties=1000)
    env.reset(seed=9)
    s = env.unwrapped.session

    def check(env):
        s.check()
        for a in env.agents:
            info = env.infos[a]
            assert info["balance"] == float(s.balances[a]) and info["streak"] == s.streaks[a]
            assert info["seat"] == s.seat_of(a)

    given, _ = run(env, np.random.default_rng(9), on_step=check)
    assert s.over and s.parties_played >= 1000
    assert sum(map(sum, given.values())) == pytest.approx(0.0, abs=1e-6)


# ------------------------------------------------------------- illegal


def test_illegal_action_raises_naming_the_agent_and_changes_nothing():
    env = bulka_v0.env(n_players=3, max_parties=10)
    env.reset(seed=0, options={"seating": SEATING3})
    s = env.unwrapped.session
    before = s.summary(), list(s.partie.history)
    with pytest.raises(ValueError, match=r"player_0 \(challenger\).*illegal action 46"):
        env.step(46)
    assert (s.summary(), list(s.partie.history)) == before
    assert env.agent_selection == "player_0"


def test_illegal_pro_answer_raises_and_with_forfeit_loses_the_coming_partie():
    for mode in ("raise", "forfeit"):
        env = bulka_v0.env(n_players=3, max_parties=10, illegal_action=mode)
        env.reset(seed=0, options={"seating": SEATING3, "deal": DEAL_DECLARATION})
        s = env.unwrapped.session
        rng = np.random.default_rng(0)
        while s.phase != "pro":
            if mode == "forfeit":
                env.step(
                    46
                    if s.partie.phase == 0 and not s.partie.history
                    else 45
                    if s.partie.phase == 1
                    else random_action(env.observe(env.agent_selection), rng)
                )
            else:
                env.step(random_action(env.observe(env.agent_selection), rng))
            assert not s.over
        dealer = s.dealer
        if mode == "raise":
            before = s.summary()
            with pytest.raises(ValueError, match=f"{dealer} \\(dealer\\).*deciding Pro"):
                env.step(0)
            assert s.summary() == before
        else:
            env.step(0)
            rec = s.history[-1]
            assert rec.outcome == "forfeit" and rec.forfeited_by == dealer and rec.deal is None


# ------------------------------------------------------- options, render


def test_reset_options():
    env = bulka_v0.env(n_players=3)
    env.reset(options={"seating": SEATING3, "deal": DEAL_DECLARATION})
    s = env.unwrapped.session
    assert (s.dealer, s.challenger, s.queue) == ("player_1", "player_0", ["player_2"])
    assert s.partie.deal.to_names() == DEAL_DECLARATION
    with pytest.warns(UserWarning, match="ignores unknown options"):
        env.reset(options={"colour": "red"})
    with pytest.raises(ValueError, match="9 cards"):
        env.reset(options={"deal": {**DEAL_DECLARATION, "dealer": DEAL_DECLARATION["dealer"][:8]}})
    with pytest.raises(ValueError, match="does not seat exactly"):
        env.reset(options={"seating": {"dealer": "player_1", "challenger": "player_0", "queue": []}})


def test_seeded_reset_is_reproducible():
    def first_steps(seed):
        env = bulka_v0.env(n_players=4, max_parties=20)
        env.reset(seed=seed)
        s = env.unwrapped.session
        return (s.dealer, s.challenger, tuple(s.queue), s.partie.deal)

    assert first_steps(4) == first_steps(4)
    assert len({first_steps(k) for k in range(6)}) > 1


def test_render_modes(capsys):
    env = bulka_v0.env(n_players=3, render_mode="ansi")
    env.reset(seed=0, options={"seating": SEATING3})
    text = env.render()
    assert "Bulka session" in text and "player_2" in text and "challenger" in text and "stock bottom" in text
    env = bulka_v0.env(n_players=3, render_mode="human")
    env.reset(seed=0)
    assert "Bulka session" in capsys.readouterr().out
    env = bulka_v0.env(n_players=3)
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="render mode"):
        assert env.render() is None


def test_infos_at_the_end_carry_the_final_share():
    env = bulka_v0.env(n_players=3, max_parties=2)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    s = env.unwrapped.session
    while not s.over:
        env.step(random_action(env.observe(env.agent_selection), rng))
    for a in env.agents:
        assert env.terminations[a] and env.infos[a]["final_share"] == float(s.final_share)
        assert env.infos[a]["balance"] == float(s.balances[a])
        assert not env.observe(a)["action_mask"].any()
        assert env.observe(a)["observation"][OBS_SIZE + 2] == 1.0  # phase: over
