"""Inputs that would change numbers silently are refused: a belief model
with NaN weights, a non-integer action to ``SelfPlayEnv``, an in-place
edit of a cached observation, a YAML key given twice, an oversized zip
member; a checkpoint is read only as far as play needs."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

from trappola.agents.model_io import zip_members
from trappola.agents.model_io.checkpoint_format import CheckpointError, load_policy
from trappola.agents.model_io.model_files import shipped_model_path
from trappola.agents.search.belief import BeliefModel, shipped_belief_path
from trappola.train.run.config_file import load_config
from trappola.train.selfplay.env import SelfPlayEnv
from trappola_env import bulka_v0, trappola_v0


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_belief_model_with_non_finite_weights_is_refused(tmp_path, bad):
    model = BeliefModel.load(shipped_belief_path())
    arrays = {f"{k}{i}": a.copy() for i, layer in enumerate(model.layers) for k, a in zip("wb", layer, strict=True)}
    arrays["w1"][3, 5] = bad
    path = tmp_path / "nan.npz"
    np.savez(path, meta=np.array("{}"), **arrays)  # written around BeliefModel, as a damaged file would be
    with pytest.raises(ValueError, match="non-finite"):
        BeliefModel.load(path)


def test_a_belief_member_over_the_size_limit_is_refused_before_reading(monkeypatch):
    monkeypatch.setattr(zip_members, "MAX_MEMBER_BYTES", 1000)
    with pytest.raises(ValueError, match="over the limit"):
        BeliefModel.load(shipped_belief_path())


def test_a_checkpoint_member_over_the_size_limit_is_refused(monkeypatch):
    monkeypatch.setattr(zip_members, "MAX_MEMBER_BYTES", 1000)
    with pytest.raises(CheckpointError, match="over the limit"):
        load_policy(shipped_model_path())


def test_play_reads_only_the_metadata_and_the_policy_weights(monkeypatch):
    opened = []
    real_open = zipfile.ZipFile.open

    def spy(self, name, *args, **kwargs):
        opened.append(getattr(name, "filename", name))
        return real_open(self, name, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", spy)
    load_policy(shipped_model_path())
    assert set(opened) == {"trappola_meta.json", "policy.pth"}


@pytest.mark.parametrize("action", [2.9, "3", True, 3.0])
def test_selfplay_env_refuses_what_is_not_an_action_id(action):
    env = SelfPlayEnv(pool={"random": 1.0}, seed=0)
    env.reset(seed=0)
    before = list(env.env.partie.history)
    with pytest.raises(ValueError, match="illegal action"):
        env.step(action)
    assert list(env.env.partie.history) == before  # nothing was played


def test_selfplay_env_takes_numpy_integers():
    env = SelfPlayEnv(pool={"random": 1.0}, seed=0)
    _, info = env.reset(seed=0)
    legal = np.flatnonzero(info["action_mask"])
    env.step(np.int64(legal[0]))
    _, info = env.reset(seed=1)
    env.step(np.array([np.flatnonzero(info["action_mask"])[0]]))


@pytest.mark.parametrize("module", [trappola_v0, bulka_v0])
def test_an_in_place_edit_of_an_observation_raises_and_changes_nothing(module):
    env = module.env()
    env.reset(seed=0)
    obs, *_ = env.last()
    keep = {k: v.copy() for k, v in obs.items()}
    for key in ("observation", "action_mask"):
        with pytest.raises(ValueError, match="read-only"):
            obs[key][:] = 1
    again, *_ = env.last()
    for key in keep:
        np.testing.assert_array_equal(again[key], keep[key])


def test_a_yaml_key_given_twice_is_refused(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("seed: 1\nbc: false\nseed: 2\n")
    with pytest.raises(ValueError, match="line 3.*duplicate key 'seed'"):
        load_config(path)
    path.write_text("pool:\n  rule: 0.5\n  rule: 0.7\n")
    with pytest.raises(ValueError, match="duplicate key 'rule'"):
        load_config(path)
