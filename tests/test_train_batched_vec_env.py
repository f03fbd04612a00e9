"""BatchedSelfPlayVecEnv: the rewards and infos of SelfPlayEnv (tested the
same way), observations and full deals equal to the reference encoders,
the SB3 VecEnv API with action_masks(), and a short MaskablePPO run."""
from __future__ import annotations

import numpy as np
import pytest

from helpers import make_deal_spec
from test_train_selfplay_env import DEAL, WINNER_POINTS
from trappola.envs.batch import order_of
from trappola.engine import action_id, deal_from_names
from trappola.engine.actions import DECLINE_ALIFER, PROPOSE_ALIFER
from trappola.envs.full_deal import encode_full_deal
from trappola.envs.observation import encode
from trappola.agents.numpy_policy import NumpyPolicy
from trappola.train.batched_vec_env import BatchedSelfPlayVecEnv, TorchActor, sample_masked

ORDER = order_of(deal_from_names(DEAL))


class Lowest:
    """Scripted player: declines Alifer, otherwise plays its lowest legal card."""

    def reset(self, seed=None):
        pass

    def act(self, view):
        mask = view.legal_mask
        if mask >> DECLINE_ALIFER & 1:
            return DECLINE_ALIFER
        cards = mask & ((1 << 36) - 1)
        return (cards & -cards).bit_length() - 1


class Accepts(Lowest):
    def act(self, view):
        accept = action_id("accept Alifer")
        return accept if view.legal_mask >> accept & 1 else super().act(view)


def scripted(mode: str, learner_seat: int, n: int = 3, player=None, first=None):
    env = BatchedSelfPlayVecEnv(n, pool={"lowest": 1.0}, reward_mode=mode, seed=0,
                                players={"lowest": player or Lowest()})
    env.forced_order, env.forced_learner_seat = ORDER, learner_seat
    env.reset()
    steps = 0
    while True:
        masks = env.action_masks()
        acts = masks[:, :36].argmax(axis=1) if first is None or steps else np.full(n, first)
        obs, rewards, dones, infos = env.step(acts)
        steps += 1
        if dones.any():
            assert dones.all()
            return env, rewards, infos, steps
        assert (rewards == 0).all()


@pytest.mark.parametrize("mode, expected", [
    ("win", 1.0), ("points", WINNER_POINTS / 60.0), ("mixed", 1.0 + 0.5 * WINNER_POINTS / 60.0)])
def test_reward_when_opponent_move_ends_partie(mode, expected):
    env, rewards, infos, steps = scripted(mode, learner_seat=0)
    partie = env.mirror[0]  # the new game's reference partie; the finished one ended on the opponent's card
    assert steps == 9
    assert all(i["result"] == "win" and i["points_diff"] == WINNER_POINTS for i in infos)
    assert rewards == pytest.approx(np.full(3, expected))
    assert partie is not None and not partie.history  # dealt again at once


@pytest.mark.parametrize("mode, expected", [
    ("win", -1.0), ("points", -WINNER_POINTS / 60.0), ("mixed", -1.0 - 0.5 * WINNER_POINTS / 60.0)])
def test_reward_when_learner_move_ends_partie(mode, expected):
    env, rewards, infos, _ = scripted(mode, learner_seat=1)
    assert all(i["result"] == "loss" and i["points_diff"] == -WINNER_POINTS for i in infos)
    assert all(i["role"] == "dealer" and i["opponent"] == "lowest" for i in infos)
    assert rewards == pytest.approx(np.full(3, expected))


def test_accepted_alifer_by_opponent_ends_with_zero_win_reward():
    env, rewards, infos, steps = scripted("win", 0, player=Accepts(), first=PROPOSE_ALIFER)
    assert steps == 1 and (rewards == 0).all() and all(i["result"] == "alifer" for i in infos)
    assert all(i["outcome"] == "agreed_alifer" for i in infos)


@pytest.mark.parametrize("opponent", ["random", "rule"])
def test_random_episodes_reward_matches_engine_result(opponent):
    # Against a per-game player each game keeps a reference Partie: the
    # observations and full deals must equal the reference encoders'.
    n = 16
    env = BatchedSelfPlayVecEnv(n, pool={opponent: 1.0}, reward_mode="win", seed=11, alifer_value="zero",
                                full_deal=True)
    rng = np.random.default_rng(0)
    obs = env.reset()
    roles, ends, episodes = set(), set(), 0
    while episodes < 150:
        masks = env.action_masks()
        assert masks.dtype == bool and (masks.sum(axis=1) >= 2).all()  # forced moves are skipped
        assert obs.shape == (n, 347) and obs.dtype == np.float32
        if opponent == "rule":
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
            info = infos[i]
            roles.add(info["role"])
            assert info["opponent"] == opponent
            expected = {"win": 1.0, "loss": -1.0, "alifer": 0.0}[info["result"]]
            assert rewards[i] == expected
            if opponent == "rule":
                result = refs[i].result()
                assert result.outcome == info["outcome"]
                assert expected == (0.0 if result.winner is None else (1.0 if result.winner == seats[i] else -1.0))
                ends.add(refs[i].history[-1][0] == seats[i])
    assert roles == {"challenger", "dealer"}
    if opponent == "rule":
        assert ends == {True, False}  # parties ended by the learner's move and by the opponent's


def test_alifer_is_worth_the_running_value_of_a_replay():
    env = BatchedSelfPlayVecEnv(4, pool={"random": 1.0}, reward_mode="win", seed=4, alifer_ema=0.1)
    rng = np.random.default_rng(0)
    env.reset()
    value, alifers, decided = 0.0, 0, 0
    while alifers + decided < 200:
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
        _, rewards, dones, infos = env.step(acts)
        for i in np.flatnonzero(dones):  # settled in game order
            info = infos[i]
            assert info["replay_value"] == pytest.approx(value)
            if info["result"] == "alifer":
                alifers += 1
                assert rewards[i] == pytest.approx(value)
            else:
                decided += 1
                assert rewards[i] == (1.0 if info["result"] == "win" else -1.0)
                value += 0.1 * (rewards[i] - value)
    assert alifers > 20 and decided > 20 and value != 0.0
    assert env.replay_value == {"random": pytest.approx(value)}
    with pytest.raises(ValueError, match="alifer_value"):
        BatchedSelfPlayVecEnv(2, alifer_value="draw")
    with pytest.raises(ValueError, match="reward_mode"):
        BatchedSelfPlayVecEnv(2, reward_mode="elo")


def test_same_seed_same_episodes():
    def run():
        env = BatchedSelfPlayVecEnv(8, pool={"rule": 1.0, "random": 1.0}, seed=5)
        rng = np.random.default_rng(1)
        out = [env.reset().tobytes()]
        for _ in range(40):
            obs, r, d, infos = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()]))
            out.append((obs.tobytes(), r.tobytes(), [i.get("opponent") for i in infos]))
        return out

    assert run() == run()


def test_snapshots_play_by_weight_and_batched_sampling_follows_the_mask():
    env = BatchedSelfPlayVecEnv(64, pool={"self": 1.0, "random": 1.0}, seed=2, pool_size=2)
    w = {"layers": [], "head": (np.zeros((49, 347), np.float32), np.zeros(49, np.float32)), "activation": "relu"}
    with pytest.raises(RuntimeError, match="no snapshot"):
        BatchedSelfPlayVecEnv(2, pool={"self": 1.0}).reset()
    for _ in range(3):
        env.env_method("add_snapshot", w)
    assert env.snapshots == [2, 3] and set(env._policies) == {2, 3}
    env.reset()
    names = list(env.opp_name)
    rng = np.random.default_rng(0)
    for _ in range(30):
        _, _, dones, infos = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()]))
        names += [infos[i]["opponent"] for i in np.flatnonzero(dones)]
    assert {n for n in names if n.startswith("self")} == {"self2", "self3"}
    share = sum(n.startswith("self") for n in names) / len(names)
    assert 0.35 < share < 0.65
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

    from trappola.train.callbacks import SelfPlayCallback

    venv = VecMonitor(BatchedSelfPlayVecEnv(32, pool={"self": 0.5, "random": 0.5}, seed=0))
    assert is_masking_supported(venv)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=128, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs=dict(net_arch=[32]))
    cb = SelfPlayCallback(snapshot_every=256, activation="tanh")
    model.learn(1024, callback=cb)
    assert model.num_timesteps >= 1024 and cb.n_snapshots >= 2
    masks = get_action_masks(venv)
    assert masks.shape == (32, 49) and masks.dtype == bool
    assert venv.env_is_wrapped(VecMonitor) == [False] * 32


def test_train_runs_on_the_batched_vec_env_by_default(tmp_path):
    from trappola.train.config_file import load_config
    from trappola.train.sb3_config import TrainConfig
    from trappola.train.ppo_selfplay import train
    from trappola.train.vec import make_vec_env

    assert TrainConfig().vec_env == "batched"
    cfg = load_config(None, ["n_envs=8", "n_steps=16", "batch_size=64", "n_epochs=1", "total_timesteps=256",
                             "net_arch=[32]", "bc=false", "eval_every=128", "eval_deals=2", "snapshot_every=64",
                             "checkpoint_every=0", "progress_bar=false", f"out_dir={tmp_path}", "run_name=b"])
    venv = make_vec_env(cfg)
    assert isinstance(venv.venv, BatchedSelfPlayVecEnv) and venv.num_envs == 8
    summary = train(cfg, log=lambda m: None)
    assert summary["timesteps"] >= 256 and (tmp_path / "b" / "final.zip").is_file()


class PerGame:
    """A player shown one game at a time: hides the wrapped player's kind,
    so the environment cannot batch it."""

    def __init__(self, player):
        self.player = player

    def reset(self, seed=None):
        self.player.reset(seed)

    def act(self, view):
        return self.player.act(view)


def test_a_network_alone_is_batched_and_plays_the_games_the_player_would():
    from trappola.agents import make_player

    spec = "policy:endgame=0"
    batched = BatchedSelfPlayVecEnv(32, pool={spec: 1.0}, seed=4)
    per_game = BatchedSelfPlayVecEnv(32, pool={spec: 1.0}, seed=4, players={spec: PerGame(make_player(spec))})
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
