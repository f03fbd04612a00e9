"""BatchedSelfPlayVecEnv's own behaviour (the rewards, the pool and the
Alifer value it shares with the other adapters are tested in
test_selfplay_adapters.py): observations, masks, full deals and results
equal to the reference engine's, the torch forward pass and batched
sampling, the SB3 VecEnv API with action_masks(), a short MaskablePPO run,
and a network opponent batched."""

from __future__ import annotations

import numpy as np
import pytest

from trappola.agents.model_io.numpy_policy import NumpyPolicy
from trappola.train.sb3.batched_vec_env import BatchedSelfPlayVecEnv, TorchActor, sample_masked
from trappola_env.full_deal import encode_full_deal
from trappola_env.observation import encode


def test_games_follow_the_reference_engine():
    # Against a per-game player each game keeps a reference Partie: the
    # observations, masks, full deals and results must equal the reference engine's.
    n = 16
    env = BatchedSelfPlayVecEnv(n, pool={"rule": 1.0}, reward_mode="win", seed=11, alifer_value="zero", full_deal=True)
    rng = np.random.default_rng(0)
    obs = env.reset()
    ends, episodes = set(), 0
    while episodes < 150:
        masks = env.action_masks()
        full = env.full_deals()
        for i in range(n):
            p, s = env.mirror[i], int(env.learner_seat[i])
            assert np.array_equal(obs[i], encode(p, s)) and np.array_equal(full[i], encode_full_deal(p, s))
            assert np.array_equal(masks[i], [p.legal_mask() >> a & 1 for a in range(49)])
        refs = list(env.mirror)
        seats = env.learner_seat.copy()
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = env.step(acts)
        for i in np.flatnonzero(dones):
            episodes += 1
            result = refs[i].result()
            assert result.outcome == infos[i]["outcome"]
            assert rewards[i] == (0.0 if result.winner is None else (1.0 if result.winner == seats[i] else -1.0))
            ends.add(refs[i].history[-1][0] == seats[i])
    assert ends == {True, False}  # parties ended by the learner's move and by the opponent's


def test_batched_sampling_follows_the_mask():
    rng = np.random.default_rng(0)
    masks = np.zeros((2000, 49), bool)
    masks[:, [3, 40]] = True
    picks = sample_masked(np.zeros((2000, 49)), masks, rng, False)
    assert set(picks.tolist()) == {3, 40} and 0.4 < (picks == 3).mean() < 0.6
    assert (sample_masked(np.arange(49.0)[None].repeat(3, 0), masks[:3], rng, True) == 40).all()


@pytest.mark.parametrize("activation", ["relu", "tanh"])
def test_snapshot_forward_pass_in_torch_equals_the_numpy_actor(activation):
    rng = np.random.default_rng(1)
    layers = [(rng.normal(size=(64, 347)), rng.normal(size=64)), (rng.normal(size=(32, 64)), rng.normal(size=32))]
    numpy_actor = NumpyPolicy(layers, (rng.normal(size=(49, 32)), rng.normal(size=49)), activation)
    obs = (rng.random((200, 347)) < 0.2).astype(np.float32)
    want = numpy_actor.logits(obs)
    got = TorchActor(numpy_actor).logits(obs)
    assert got.shape == (200, 49) and np.abs(want).max() > 1
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
    assert (got.argmax(1) == want.argmax(1)).mean() > 0.99


def test_vec_env_api_and_short_maskable_ppo_run(tmp_path):
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecMonitor

    from trappola.train.sb3.callbacks import SelfPlayCallback

    venv = VecMonitor(BatchedSelfPlayVecEnv(32, pool={"self": 0.5, "random": 0.5}, seed=0))
    assert is_masking_supported(venv)
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=16,
        batch_size=128,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs=dict(net_arch=[32]),
    )
    cb = SelfPlayCallback(snapshot_every=256, activation="tanh")
    model.learn(1024, callback=cb)
    assert model.num_timesteps >= 1024 and cb.n_snapshots >= 2
    masks = get_action_masks(venv)
    assert masks.shape == (32, 49) and masks.dtype == bool
    assert venv.env_is_wrapped(VecMonitor) == [False] * 32


def test_train_runs_on_the_batched_vec_env_by_default(tmp_path):
    from trappola.train.run.config_file import load_config
    from trappola.train.sb3.config import TrainConfig
    from trappola.train.sb3.ppo_selfplay import train
    from trappola.train.sb3.vec import make_vec_env

    assert TrainConfig().vec_env == "batched"
    cfg = load_config(
        None,
        [
            "n_envs=8",
            "n_steps=16",
            "batch_size=64",
            "n_epochs=1",
            "total_timesteps=256",
            "net_arch=[32]",
            "bc=false",
            "eval_every=128",
            "eval_deals=2",
            "snapshot_every=64",
            "checkpoint_every=0",
            "progress_bar=false",
            f"out_dir={tmp_path}",
            "run_name=b",
        ],
    )
    venv = make_vec_env(cfg)
    assert isinstance(venv.venv, BatchedSelfPlayVecEnv) and venv.num_envs == 8
    summary = train(cfg, log=lambda m: None)
    assert summary["timesteps"] >= 256 and (tmp_path / "b" / "final.zip").is_file()


def test_a_network_alone_is_batched_and_plays_the_games_the_player_would():
    spec = "policy:endgame=0"
    batched = BatchedSelfPlayVecEnv(32, pool={spec: 1.0}, seed=4)
    per_game = BatchedSelfPlayVecEnv(32, pool={spec: 1.0}, seed=4, batch_networks=False)
    assert set(batched.frozen) == {spec} and not batched.players
    assert not per_game.frozen and set(per_game.players) == {spec}
    searching = BatchedSelfPlayVecEnv(2, pool={"policy:endgame=3": 1.0}, seed=4)
    assert not searching.frozen and set(searching.players) == {"policy:endgame=3"}
    obs_a, obs_b = batched.reset(), per_game.reset()
    ends = 0
    for _ in range(40):
        np.testing.assert_array_equal(obs_a, obs_b)
        np.testing.assert_array_equal(batched.action_masks(), per_game.action_masks())
        acts = batched.action_masks().argmax(axis=1)  # the learner: its first legal action
        obs_a, r_a, d_a, i_a = batched.step(acts)
        obs_b, r_b, d_b, i_b = per_game.step(acts)
        np.testing.assert_array_equal(d_a, d_b)
        np.testing.assert_allclose(r_a, r_b)
        assert all(i_a[k]["opponent"] == spec for k in np.flatnonzero(d_a))
        ends += int(d_a.sum())
    assert ends >= 32  # whole parties were played, the opponent's moves included
