"""The SB3 path's self-play environment for RLlib: ``trappola_v0`` against
the opponent pool.

    from trappola.train.rllib.pool_env import PoolEnv
    env = PoolEnv({"pool": {"self": 0.8, "random": 0.2}, "alifer_value": "replay"})
    obs, info = env.reset(seed=0)         # {"observations": ..., "action_mask": ...}

``PoolEnv`` is ``trappola.train.selfplay.env.SelfPlayEnv`` (the learner's
episode, the opponent drawn from ``trappola.train.selfplay.pool``, its
reward shaping, forced moves and Alifer value), with the observation and
the legal actions in one dict (the keys of ``trappola.train.rllib.env``),
which the RLlib network (``trappola.train.rllib.module``) reads: so an RLlib
run plays the same games and scores them the same way as an SB3 run.

Snapshots of the learner reach an env runner's environments through
``sync_snapshots(env_runner, snapshots)``: ``snapshots`` is the list of the
newest ``(number, weights)`` the trainer has made, and each environment adds
those it has not seen yet (a replaced env runner, which starts empty, gets
them all).
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces

from trappola.train.rllib.env import MASK_KEY, OBS_KEY
from trappola.train.selfplay.env import SelfPlayEnv


class PoolEnv(gymnasium.Env):
    """See the module docstring. ``config`` (RLlib's ``env_config``): the
    keyword arguments of ``SelfPlayEnv`` (``pool``, ``reward_mode``,
    ``alifer_value``...)."""

    metadata = {"render_modes": []}

    def __init__(self, config: dict | None = None):
        self.core = SelfPlayEnv(**dict(config or {}))
        box = self.core.observation_space
        assert isinstance(self.core.action_space, spaces.Discrete)
        n_actions = int(self.core.action_space.n)
        self.observation_space = spaces.Dict({OBS_KEY: box, MASK_KEY: spaces.Box(0.0, 1.0, (n_actions,), np.float32)})
        self.action_space = self.core.action_space
        self.snapshots_seen = 0  # the number of the newest snapshot added to the pool
        self.decisions = 0  # learner steps played here: the work an env runner reports

    def reset(self, *, seed=None, options=None):
        """``SelfPlayEnv.reset``, the observation as a dict."""
        obs, info = self.core.reset(seed=seed, options=options)
        return self._obs(obs), info

    def step(self, action):
        """``SelfPlayEnv.step``, the observation as a dict."""
        obs, reward, terminated, truncated, info = self.core.step(action)
        self.decisions += 1
        return self._obs(obs), reward, terminated, truncated, info

    def add_snapshots(self, snapshots) -> None:
        """Add the snapshots of ``snapshots`` (``(number, weights)``, oldest
        first) newer than the last one added."""
        for number, weights in snapshots:
            if number > self.snapshots_seen:
                self.core.add_snapshot(weights)
                self.snapshots_seen = number

    def _obs(self, obs: np.ndarray) -> dict:
        return {OBS_KEY: np.asarray(obs, np.float32), MASK_KEY: self.core.action_masks().astype(np.float32)}


def runner_envs(env_runner) -> list:
    """The ``PoolEnv``s of an RLlib ``SingleAgentEnvRunner`` (none when it
    has no environment, as the driver's beside remote env runners)."""
    vector = getattr(env_runner, "env", None)
    if vector is None:
        return []
    return [e.unwrapped for e in vector.unwrapped.envs if isinstance(e.unwrapped, PoolEnv)]


def sync_snapshots(env_runner, snapshots) -> int:
    """Give every environment of ``env_runner`` the snapshots it lacks;
    returns how many environments it has."""
    envs = runner_envs(env_runner)
    for env in envs:
        env.add_snapshots(snapshots)
    return len(envs)
