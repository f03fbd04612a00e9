"""Your own model, your own loop: the public single-agent env passes
Gymnasium's checker with its defaults, and a MaskablePPO zip trained on it
in a plain SB3 loop plays as ``policy:PATH`` (one warning) or becomes a lab
checkpoint by ``adopt``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from trappola.agents import make_player
from trappola.agents.model_io.checkpoint_format import MissingMetadataWarning, read_metadata
from trappola.train.selfplay.single_agent import OpponentPoolEnv


def test_check_env_passes_with_the_defaults():
    check_env(OpponentPoolEnv(seed=0), skip_render_check=True)


def test_rewards_are_win_loss_and_alifer_only():
    env = OpponentPoolEnv({"random": 1.0}, seed=1)
    seen = set()
    for episode in range(30):
        env.reset(seed=episode)
        done = False
        while not done:
            legal = env.action_masks().nonzero()[0]
            _, reward, done, _, info = env.step(int(legal[0]))
        seen.add((info["result"], reward))
    assert seen <= {("win", 1.0), ("loss", -1.0), ("alifer", 0.0)} and len(seen) >= 2


def test_self_play_members_are_refused():
    with pytest.raises(ValueError, match="self"):
        OpponentPoolEnv({"self": 1.0})


def test_a_plain_maskable_ppo_zip_plays_and_is_adopted(tmp_path):
    from sb3_contrib import MaskablePPO

    from trappola.train.run.checkpoint import adopt

    model = MaskablePPO("MlpPolicy", OpponentPoolEnv(seed=0), n_steps=64, batch_size=64, n_epochs=1, seed=0)
    model.learn(64)
    plain = tmp_path / "mine.zip"
    model.save(plain)
    with pytest.warns(MissingMetadataWarning) as caught:
        player = make_player(f"policy:{plain},endgame=0")
    assert len(caught) == 1 and "\n" not in str(caught[0].message)
    assert player.policy.activation == "tanh"  # SB3's default, read from the zip
    lab = adopt(plain, tmp_path / "lab.zip")
    with warnings.catch_warnings():
        warnings.simplefilter("error", MissingMetadataWarning)
        adopted = make_player(f"policy:{lab},endgame=0")
        assert read_metadata(lab)["adopted_from"] == str(plain)
    # The adopted network is the one SB3 trained: the same masked best move at every state of a partie.
    env = OpponentPoolEnv(seed=3)
    obs, _ = env.reset(seed=3)
    done, compared = False, 0
    while not done:
        mask = env.action_masks()
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        ours = adopted.policy.logits(obs[None].astype(np.float32))[0]
        assert int(np.argmax(np.where(mask, ours, -np.inf))) == int(action)
        obs, _, done, _, _ = env.step(int(action))
        compared += 1
    assert compared >= 5
