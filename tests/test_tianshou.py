"""Tianshou takes the PettingZoo environments as they are: its Collector
plays whole Bulka sessions (and parties in token rewards) with masked
random policies, and each agent's return is its token balance."""

import numpy as np
import pytest

pytest.importorskip("tianshou")

from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv

from trappola_env import bulka_v0, trappola_v0


class Recording(PettingZooEnv):
    """Tianshou's wrapper, noting every agent's final balance (bulka_v0) or
    net tokens (trappola_v0) when an episode ends."""

    finals: list = []
    advised: list = []  # advice given per bulka_v0 episode

    def step(self, action):
        out = super().step(action)
        if out[2] or out[3]:
            raw = self.env.unwrapped
            Recording.finals.append([raw.infos[a].get("balance", raw.infos[a].get("tokens")) for a in self.agents])
            if hasattr(raw, "session"):
                Recording.advised.append(len(raw.session.advice_log))
        return out


def collect(make_env, episodes: int, seed: int) -> tuple[np.ndarray, list]:
    Recording.finals = []
    Recording.advised = []
    env = Recording(make_env())
    policy = MultiAgentPolicy(
        {a: MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space).policy for a in env.agents}
    )
    venv = DummyVectorEnv([lambda: env])
    venv.seed(seed)
    np.random.seed(seed)  # the random policies draw from numpy's global generator
    collector = Collector(policy, venv, VectorReplayBuffer(4_000, 1))
    stats = collector.collect(n_episode=episodes, reset_before_collect=True)
    return np.asarray(stats.returns), Recording.finals


@pytest.mark.parametrize("n_players,parties", [(2, 20), (3, 6)])
def test_bulka_session_returns_are_balances(n_players, parties):
    returns, finals = collect(
        lambda: bulka_v0.env(n_players=n_players, max_parties=parties), episodes=4, seed=n_players
    )
    assert returns.shape == (4, n_players)
    assert np.allclose(returns, np.asarray(finals[:4], dtype=float))
    assert np.allclose(returns.sum(axis=1), 0.0)  # tokens only change hands; the Bulka is split at the end
    assert np.abs(returns).max() > 0


def test_bulka_session_with_advice_returns_are_balances():
    returns, finals = collect(lambda: bulka_v0.env(n_players=4, max_parties=40, advice=True), episodes=4, seed=7)
    assert returns.shape == (4, 4) and sum(Recording.advised[:4]) > 0
    assert np.allclose(returns, np.asarray(finals[:4], dtype=float))
    assert np.allclose(returns.sum(axis=1), 0.0)


def test_trappola_returns_are_tokens():
    returns, finals = collect(lambda: trappola_v0.env(reward_mode="tokens"), episodes=6, seed=0)
    assert returns.shape == (6, 2)
    assert np.allclose(returns, np.asarray(finals[:6], dtype=float))
