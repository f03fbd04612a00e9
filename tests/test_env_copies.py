"""Copies of an environment mid-game (``copy.deepcopy``, ``copy.copy``,
``pickle``; raw or wrapped by ``env()``) carry the whole state: the copy
plays on exactly as the original does (observations, masks, rewards,
terminations, infos, to the end and into the next unseeded reset), and
stepping the copy leaves the original unchanged."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from trappola_env import bulka_v0, trappola_v0

MAKERS = {
    "trappola_v0": lambda wrapped: (trappola_v0.env if wrapped else trappola_v0.raw_env)(reward_mode="tokens"),
    "bulka_v0": lambda wrapped: (bulka_v0.env if wrapped else bulka_v0.raw_env)(n_players=3, max_parties=6),
}
COPIES = {
    "deepcopy": copy.deepcopy,
    "copy": copy.copy,
    "pickle": lambda env: pickle.loads(pickle.dumps(env)),
}


def choose(obs, k: int):
    """A legal action that depends on the step only (no generator to
    share); never an Alifer proposal or acceptance, so parties run long."""
    legal = [a for a in np.flatnonzero(obs["action_mask"]).tolist() if a not in (44, 45)]
    return legal[(7 * k + 3) % len(legal)]


def snapshot(env) -> tuple:
    """Everything an agent can read, for every agent still in the episode."""
    agents = list(env.agents)
    obs = {a: env.observe(a) for a in agents}
    # _cumulative_rewards is PettingZoo's, not ours: AECEnv declares it and last() returns it, which every AEC
    # env must keep up; no other surface gives every agent's value at once (tests/test_public_surfaces.py).
    return (
        env.agent_selection,
        agents,
        {a: (obs[a]["observation"].tobytes(), obs[a]["action_mask"].tobytes()) for a in agents},
        dict(env.rewards),
        dict(env._cumulative_rewards),
        dict(env.terminations),
        dict(env.truncations),
        repr(env.infos),
    )


def play_out(env, start: int = 0) -> list:
    """Play ``env`` to its end and on through one unseeded reset; the
    snapshot before every step."""
    seen = []
    for k in range(start, start + 10**5):
        if not env.agents:
            break
        seen.append(snapshot(env))
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else choose(obs, k))
    else:
        raise AssertionError("the episode did not end")
    env.reset()
    seen.append(snapshot(env))
    return seen


@pytest.mark.parametrize("copier", sorted(COPIES))
@pytest.mark.parametrize("wrapped", [True, False], ids=["env", "raw_env"])
@pytest.mark.parametrize("name, steps", [("trappola_v0", 11), ("bulka_v0", 60)])
def test_a_copy_mid_game_plays_on_exactly_as_the_original(name, steps, wrapped, copier):
    env = MAKERS[name](wrapped)
    env.reset(seed=4)
    for k in range(steps):
        env.step(choose(env.observe(env.agent_selection), k))
    if name == "bulka_v0":
        assert env.unwrapped.session.parties_played >= 1  # later deals come from the copied generator
    before = snapshot(env)
    twin = COPIES[copier](env)
    assert type(twin) is type(env) and twin.unwrapped is not env.unwrapped
    assert snapshot(twin) == before
    copied = play_out(twin, steps)
    assert snapshot(env) == before  # stepping the copy changed nothing here
    assert play_out(env, steps) == copied


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_a_copy_owns_its_engine_and_generator(name):
    env = MAKERS[name](True)
    env.reset(seed=1)
    twin = copy.copy(env)
    raw, other = env.unwrapped, twin.unwrapped
    engine = "partie" if name == "trappola_v0" else "session"
    assert getattr(raw, engine) is not getattr(other, engine)
    assert raw.np_random is not other.np_random
    assert raw.infos is not other.infos and raw.agents is not other.agents
    if name == "bulka_v0":
        assert other.session.rng is other.np_random  # one generator, still shared inside the copy
