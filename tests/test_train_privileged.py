"""The privileged critic: the critic reads the whole deal, the actor only
the trappola_v0 observation, and what is shipped for play is the actor."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from test_agents import first_decisions_on_swapped_deals
from test_train_smoke import TINY

from trappola.agents.model_io.checkpoint_format import load_policy
from trappola.agents.model_io.numpy_policy import NumpyPolicy
from trappola.train.run.config_file import load_config
from trappola.train.sb3.batched_vec_env import BatchedSelfPlayVecEnv
from trappola.train.sb3.ppo_selfplay import train
from trappola.train.sb3.privileged_policy import PrivilegedCriticPolicy
from trappola.train.selfplay.env import SelfPlayEnv
from trappola_env.engine import cards_of
from trappola_env.full_deal import FULL_DEAL_SIZE, encode_full_deal
from trappola_env.observation import OBS_SIZE


@pytest.fixture(scope="module")
def model():
    env = SelfPlayEnv(pool={"random": 1.0}, seed=3, privileged=True)
    return MaskablePPO(
        PrivilegedCriticPolicy,
        env,
        n_steps=64,
        batch_size=32,
        seed=0,
        device="cpu",
        policy_kwargs=dict(net_arch=dict(pi=[32], vf=[32]), activation_fn=torch.nn.ReLU),
    )


def batch(seed: int, n: int = 8) -> torch.Tensor:
    env = SelfPlayEnv(pool={"random": 1.0}, seed=seed, privileged=True)
    rows = []
    obs, info = env.reset()
    while len(rows) < n:
        rows.append(obs)
        obs, _, done, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if done:
            obs, info = env.reset()
    return torch.as_tensor(np.stack(rows))


def test_the_actor_ignores_the_privileged_part_and_the_critic_reads_it(model):
    policy = model.policy
    obs = batch(1)
    other = obs.clone()
    other[:, OBS_SIZE:] = torch.as_tensor(batch(2)[:, OBS_SIZE:])
    with torch.no_grad():
        pi = policy.get_distribution(obs).distribution.logits
        pi_other = policy.get_distribution(other).distribution.logits
        v, v_other = policy.predict_values(obs), policy.predict_values(other)
    torch.testing.assert_close(pi, pi_other)
    assert not torch.allclose(v, v_other)


def test_the_numpy_actor_is_the_torch_actor_on_the_plain_observation(model):
    obs = batch(4)
    actor = NumpyPolicy.from_sb3(model.policy)
    assert actor.obs_dim == OBS_SIZE
    with torch.no_grad():
        logits = model.policy.action_net(model.policy.mlp_extractor.forward_actor(obs)).numpy()
    np.testing.assert_allclose(actor.logits(obs[:, :OBS_SIZE].numpy()), logits, rtol=1e-5, atol=1e-5)


def test_selfplay_env_appends_the_learners_full_deal():
    plain = SelfPlayEnv(pool={"rule": 1.0}, seed=11)
    priv = SelfPlayEnv(pool={"rule": 1.0}, seed=11, privileged=True)
    assert priv.observation_space.shape == (OBS_SIZE + FULL_DEAL_SIZE,)
    (a, _), (b, info) = plain.reset(), priv.reset()
    for _ in range(200):
        np.testing.assert_array_equal(b[:OBS_SIZE], a)
        seat = 0 if info.get("role", priv.env.infos["player_0"]["role"]) == "challenger" else 1
        partie = priv.env.partie
        np.testing.assert_array_equal(b[OBS_SIZE:], encode_full_deal(partie, seat))
        # The privileged part names the opponent's actual hand, disjoint from the learner's.
        opp = {c for c in range(36) if b[OBS_SIZE + c] > 0}
        assert opp == set(cards_of(partie.hands[1 - seat]))
        action = int(np.flatnonzero(priv.action_masks())[-1])
        (a, _, d1, _, _), (b, _, d2, _, info) = plain.step(action), priv.step(action)
        assert d1 == d2
        if d1:
            (a, _), (b, info) = plain.reset(), priv.reset()


def batched_trajectory(**kwargs) -> list:
    """(observation, full deals or None, terminal infos) per step of 30 first-legal-action steps."""
    env = BatchedSelfPlayVecEnv(8, pool={"random": 1.0}, seed=5, **kwargs)
    obs, out = env.reset(), []
    for _ in range(30):
        full = env.full_deals() if kwargs.get("full_deal") else None
        actions = np.array([np.flatnonzero(m)[0] for m in env.action_masks()])
        nxt, _, done, infos = env.step(actions)
        out.append((obs, full, [infos[i] for i in np.flatnonzero(done)]))
        obs = nxt
    return out


def test_the_batched_env_appends_the_same_full_deal():
    # One after the other: random opponents draw from numba's process-wide generator.
    plain = batched_trajectory(full_deal=True)
    priv = batched_trajectory(privileged=True)
    assert sum(len(ended) for _, _, ended in plain) > 0
    for (a, full, ended_a), (b, _, ended_b) in zip(plain, priv, strict=True):
        np.testing.assert_array_equal(b, np.concatenate([a, full], axis=1))
        for x, y in zip(ended_a, ended_b, strict=True):
            np.testing.assert_array_equal(
                y["terminal_observation"], np.concatenate([x["terminal_observation"], x["terminal_full_deal"]])
            )


@pytest.mark.parametrize("vec_env", ["dummy", "batched"])
def test_a_privileged_run_ships_an_actor_the_policy_player_plays(tmp_path, vec_env):
    cfg = load_config(
        None,
        TINY
        + [
            f"out_dir={tmp_path}",
            "run_name=priv",
            "privileged_critic=true",
            f"vec_env={vec_env}",
            "eval_search_deals=2",
            "eval_search_opponent=pimc:samples=2",
        ],
    )
    summary = train(cfg, log=lambda m: None)
    policy, meta = load_policy(summary["final"])
    assert policy.obs_dim == OBS_SIZE and meta["config"]["privileged_critic"] is True
    progress = (tmp_path / "priv" / "tb" / "progress.csv").read_text().splitlines()[0]
    assert "eval/win_rate_vs_pimc" in progress and "eval/win_rate_vs_rule" in progress
    # The shipped actor decides from the information set only (the critic saw the deal).
    for seed, (a, b) in first_decisions_on_swapped_deals(f"policy:{summary['final']}"):
        assert a == b, seed
