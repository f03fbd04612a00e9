"""SelfPlayEnv's own behaviour (the rewards, the pool and the Alifer value
it shares with the other adapters are tested in test_selfplay_adapters.py):
the gymnasium and SB3 checkers, seeded resets, illegal actions, a step
after the end."""

from __future__ import annotations

import numpy as np
import pytest
from scripted import DEAL, Lowest

from trappola.train.selfplay.env import SelfPlayEnv


def test_step_after_end_is_refused():
    env = SelfPlayEnv(pool={"lowest": 1.0}, players={"lowest": Lowest()}, reward_mode="win", seed=0)
    env.reset(seed=3, options={"deal": DEAL, "dealer": "player_1"})
    done = False
    while not done:
        _, _, done, _, _ = env.step(int(np.flatnonzero(env.action_masks()[:36])[0]))
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


@pytest.mark.parametrize("pool", [{"random": 1.0}, {"rule": 1.0}])
def test_gymnasium_and_sb3_environment_checkers_pass(pool):
    import warnings

    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a checker's warning is a failure too
        # Its random actions are mostly illegal: they forfeit instead of raising.
        check_env(SelfPlayEnv(pool=pool, seed=0, illegal_action="forfeit"), skip_render_check=True)
        sb3_check_env(SelfPlayEnv(pool=pool, seed=0, illegal_action="forfeit"))


def _random_episode(env, rng, seed=None):
    obs, _ = env.reset(seed=seed)
    trajectory = [obs.tobytes()]
    done = False
    while not done:
        obs, reward, done, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        trajectory.append(obs.tobytes())
    return trajectory, reward, {k: v for k, v in info.items() if k != "action_mask"}


def test_a_seeded_episode_equals_a_fresh_one_whatever_came_before():
    def make():
        return SelfPlayEnv(pool={"random": 1.0}, reward_mode="win", alifer_ema=0.2)

    used = make()
    rng = np.random.default_rng(0)
    for _ in range(30):  # moves the Alifer replay value away from its start
        _random_episode(used, rng)
    assert used.replay_value["random"] != 0.0
    for seed in range(6):  # some of these end in an Alifer, scored at the replay value
        again = _random_episode(used, np.random.default_rng(seed), seed=seed)
        fresh = _random_episode(make(), np.random.default_rng(seed), seed=seed)
        assert again == fresh
        assert again[2]["replay_value"] == 0.0
    used.reset(options={"replay_value": {"random": 0.25}})
    assert used.replay_value == {"random": 0.25}
    with pytest.raises(ValueError, match="replay_value"):
        used.reset(options={"replay_value": {"random": float("nan")}})


def test_illegal_learner_actions_follow_the_illegal_action_setting():
    from trappola_env.engine import IllegalActionError

    strict = SelfPlayEnv(pool={"random": 1.0}, reward_mode="win", seed=1)
    strict.reset(seed=1)
    illegal = int(np.flatnonzero(~strict.action_masks())[0])
    with pytest.raises(IllegalActionError, match="illegal action"):
        strict.step(illegal)
    lenient = SelfPlayEnv(pool={"random": 1.0}, reward_mode="win", seed=1, illegal_action="forfeit")
    lenient.reset(seed=1)
    _, reward, terminated, truncated, info = lenient.step(illegal)
    assert (reward, terminated, truncated, info["result"], info["outcome"]) == (-1.0, True, False, "loss", "forfeit")
    with pytest.raises(ValueError, match="illegal_action"):
        SelfPlayEnv(illegal_action="ignore")
