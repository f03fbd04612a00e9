"""The ``policy`` player: loads checkpoints, refuses bad ones, plays legal
moves from its own seat's knowledge only."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from trappola.agents import make_player
from trappola.agents.model_io.checkpoint_format import read_metadata
from trappola.agents.model_io.model_files import shipped_model_path
from trappola.agents.players.policy import PolicyPlayer, pro_view_from_bulka_obs
from trappola.train.run.checkpoint import build_metadata, save_checkpoint, write_metadata
from trappola.train.sb3.config import TrainConfig
from trappola_env.engine import Partie, random_deal
from trappola_env.interface import TurnView
from trappola_env.observation import encode, encode_info
from trappola_env.referee import play_partie

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory):
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from trappola.train.selfplay.env import SelfPlayEnv

    env = DummyVecEnv([lambda: SelfPlayEnv(pool={"random": 1.0}, seed=0)])
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=32,
        batch_size=32,
        seed=0,
        device="cpu",
        policy_kwargs=dict(net_arch=dict(pi=[32], vf=[32]), activation_fn=torch.nn.ReLU),
    )
    path = tmp_path_factory.mktemp("ckpt") / "tiny.zip"
    save_checkpoint(model, path, build_metadata(TrainConfig().to_dict(), 0, 0))
    return path


def test_plays_legal_parties_against_rule(ckpt):
    me = make_player(f"policy:{ckpt}")
    assert isinstance(me, PolicyPlayer) and me.name == f"policy:{ckpt}"
    rule = make_player("rule")
    rng = random.Random(0)
    for g in range(20):
        players = (me, rule) if g % 2 == 0 else (rule, me)
        for p in players:
            p.reset(g)
        record = play_partie(players, random_deal(rng))  # the referee raises on an illegal move
        assert record.result.outcome in ("decided", "tie", "agreed_alifer")


def test_greedy_is_deterministic_and_sampling_is_seeded(ckpt):
    deal = random_deal(random.Random(4))
    greedy = make_player(f"policy:{ckpt},endgame=0")  # the network alone: its endgame search samples layouts
    sampler = make_player(f"policy:{ckpt},sample=true,endgame=0")
    searcher = make_player(f"policy:{ckpt}")

    def moves(player, seed):
        player.reset(seed)
        out = []
        partie = Partie(deal)
        while not partie.terminal:
            a = player.act(TurnView(partie.info_state(partie.to_act)))
            out.append(a)
            partie.apply(a)
        return out

    assert moves(greedy, 1) == moves(greedy, 2)
    assert moves(sampler, 3) == moves(sampler, 3)
    assert moves(searcher, 5) == moves(searcher, 5)
    assert any(moves(sampler, s) != moves(sampler, 3) for s in range(4, 10))


def test_observation_from_info_state_matches_encoder():
    rng = random.Random(3)
    for _ in range(60):
        partie = Partie(random_deal(rng))
        while not partie.terminal:
            for seat in (0, 1):
                np.testing.assert_array_equal(encode_info(partie.info_state(seat)), encode(partie, seat))
            partie.apply(rng.choice(partie.legal_actions()))


def test_refuses_missing_corrupt_and_incompatible(ckpt, tmp_path):
    with pytest.raises(ValueError, match="not found"):
        make_player(f"policy:{tmp_path / 'missing.zip'}")
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"PK\x03\x04 definitely not a checkpoint")
    with pytest.raises(ValueError, match="corrupt"):
        make_player(f"policy:{bad}")
    other = tmp_path / "other.zip"
    other.write_bytes(ckpt.read_bytes())
    meta = read_metadata(other)
    meta["signature"]["observation"]["dim"] = 346
    write_metadata(other, meta)
    with pytest.raises(ValueError, match="incompatible"):
        make_player(f"policy:{other}")


def test_default_model_is_shipped_and_loads():
    assert shipped_model_path().is_file()
    me = make_player("policy")
    assert me.name == "policy"
    assert me.meta["num_timesteps"] > 0


def test_drives_a_bulka_v0_session_from_observations():
    from trappola.agents.pro_learned import ProPolicy
    from trappola_env import bulka_v0

    env = bulka_v0.env(n_players=3, max_parties=25)
    env.reset(seed=3)
    me = make_player("policy:pro=always,endgame=0")  # an observation vector cannot drive the endgame search
    me.reset(1)
    pro_offers = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        action = me.act_observation(obs["observation"], mask)
        assert mask[action]
        if mask[47]:
            pro_offers += 1
            assert action == 47  # pro=always
            # The Bulka read back from the log feature is the session's, in tokens.
            view = pro_view_from_bulka_obs(obs["observation"])
            assert view.bulka == pytest.approx(float(env.unwrapped.session.bulka), rel=1e-4)
            assert ProPolicy.threshold(0).decide(view)
        env.step(action)
    assert pro_offers > 0


def test_player_object_pickles_and_plays_in_worker_processes(ckpt):
    """A ``PolicyPlayer`` object (not a spec) reaches evaluation workers by
    pickling, and plays there exactly as in this process."""
    import pickle

    from trappola.agents.evaluation import head_to_head

    me = make_player(f"policy:{ckpt}")
    copy = pickle.loads(pickle.dumps(me))
    obs = np.random.default_rng(0).random(me.policy.obs_dim).astype(np.float32)
    assert np.array_equal(copy.policy.logits(obs), me.policy.logits(obs))
    serial = head_to_head(me, "rule", 4, duplicate=True, seed=3, workers=1)
    parallel = head_to_head(me, "rule", 4, duplicate=True, seed=3, workers=2, chunk=1)
    assert serial.records == parallel.records
