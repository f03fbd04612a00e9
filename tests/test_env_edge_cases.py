"""Edge cases of the environments' API: actions as numpy arrays, refused
resets, steps without a successful reset, bad constructor arguments and
options, and the observation signature of ``bulka_v0`` checkpoints."""

from __future__ import annotations

import re

import numpy as np
import pytest

from trappola_env import bulka_v0, trappola_v0
from trappola_env.engine import IllegalActionError

MAKERS = {"trappola_v0": trappola_v0.env, "bulka_v0": bulka_v0.env}
BAD_OPTIONS = {"trappola_v0": {"dealer": "nobody"}, "bulka_v0": {"seating": {"challenger": "player_0"}}}


def first_legal(env) -> int:
    return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])


def view(env) -> tuple:
    agent = env.agent_selection
    obs = env.observe(agent)
    return agent, obs["observation"].tobytes(), obs["action_mask"].tobytes()


@pytest.mark.parametrize("name", sorted(MAKERS))
@pytest.mark.parametrize(
    "wrap",
    [lambda a: np.array([a]), lambda a: np.array(a), lambda a: np.array([[a]], np.uint8)],
    ids=["array1", "array0d", "array1x1u8"],
)
def test_an_integer_array_of_one_element_is_that_action(name, wrap):
    env, same = MAKERS[name](), MAKERS[name]()
    env.reset(seed=2)
    same.reset(seed=2)
    for _ in range(6):
        a = first_legal(env)
        env.step(wrap(a))
        same.step(a)
        assert view(env) == view(same)


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_any_other_array_is_refused_naming_it(name):
    env = MAKERS[name]()
    env.reset(seed=2)
    before = view(env)
    a = first_legal(env)
    for bad, text in ((np.array([a, a]), f"[{a}, {a}]"), (np.array([float(a)]), f"[{float(a)}]")):
        with pytest.raises(IllegalActionError, match="illegal action " + re.escape(text)):
            env.step(bad)
        assert view(env) == before


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_a_refused_reset_changes_neither_the_episode_nor_the_generator(name):
    env, same = MAKERS[name](), MAKERS[name]()
    env.reset(seed=1)
    same.reset(seed=1)
    env.step(first_legal(env))
    same.step(first_legal(same))
    with pytest.raises(ValueError):
        env.reset(seed=5, options=BAD_OPTIONS[name])
    assert view(env) == view(same)  # the episode goes on
    env.step(first_legal(env))
    same.step(first_legal(same))
    assert view(env) == view(same)
    env.reset()
    same.reset()
    assert view(env) == view(same)  # not re-seeded with 5


@pytest.mark.parametrize("name", sorted(MAKERS))
@pytest.mark.parametrize("raw", [False, True], ids=["env", "raw_env"])
def test_a_step_after_a_failed_first_reset_says_to_reset(name, raw):
    env = MAKERS[name]()
    env = env.unwrapped if raw else env
    with pytest.raises(ValueError):
        env.reset(options=BAD_OPTIONS[name])
    # The raw env says so itself; the wrapper gives PettingZoo's own errors.
    error, match = (
        (RuntimeError, rf"{name}: \w+\(\) needs a successful reset\(\) first")
        if raw
        else ((AssertionError, AttributeError), r"before reset|reset\(\) needs to be called")
    )
    for call in (lambda: env.step(0), lambda: env.observe("player_0"), env.last):
        with pytest.raises(error, match=match):
            call()
    env.reset(seed=0)  # and a good reset repairs it
    env.step(first_legal(env))


@pytest.mark.parametrize("n_players", [3.0, "3", None, True, 5])
def test_bulka_n_players_must_be_2_3_or_4(n_players):
    with pytest.raises(ValueError, match="n_players must be 2, 3 or 4"):
        bulka_v0.env(n_players=n_players)


@pytest.mark.parametrize(
    "seating, match",
    [
        ({"challenger": "player_0", "queue": ["player_2"]}, "lacks dealer;"),
        ({"dealer": "player_0"}, "lacks challenger"),
        ("player_0", "seating must be a dict"),
        ({"dealer": "player_1", "challenger": "player_0"}, "does not seat exactly"),
    ],
)
def test_bulka_seating_option_is_checked(seating, match):
    env = bulka_v0.env()
    with pytest.raises(ValueError, match=match):
        env.reset(options={"seating": seating})


def test_bulka_seating_option_takes_a_seating_object_too():
    from trappola_env.engine.seating import Seating

    env = bulka_v0.env()
    env.reset(options={"seating": Seating.explicit("player_2", "player_1", ["player_0"])})
    s = env.unwrapped.session
    assert (s.dealer, s.challenger, s.queue) == ("player_2", "player_1", ["player_0"])


@pytest.mark.parametrize("seed", [-1, 2.5, "7", True])
def test_a_bad_seed_is_refused(seed):
    for make in MAKERS.values():
        with pytest.raises(ValueError, match="seed must be None or an int >= 0"):
            make().reset(seed=seed)


def test_observation_signature_matches_real_observations():
    from trappola.agents.model_io.checkpoint_format import observation_signature

    env = bulka_v0.env()
    env.reset(seed=0)
    assert observation_signature("bulka_v0")["dim"] == len(env.observe(env.agent_selection)["observation"]) == 366
    env = trappola_v0.env()
    env.reset(seed=0)
    sig = observation_signature("trappola_v0")
    assert sig["dim"] == len(env.observe(env.agent_selection)["observation"]) == 347
    assert sig["hash"] == "0c45ca5975f47ab3"  # unchanged: the shipped checkpoint records it
    assert observation_signature("bulka_v0")["hash"] != sig["hash"]
