"""Checkpoints: round trip with metadata, and each refusal (missing,
corrupt, not ours, incompatible layout or action table)."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest
import torch

from trappola.agents.model_io.checkpoint_format import (
    META_NAME,
    CheckpointError,
    CheckpointNotFoundError,
    MissingMetadataWarning,
    check_compatible,
    load_policy,
    read_metadata,
)
from trappola.agents.model_io.numpy_policy import NumpyPolicy
from trappola.train.run.checkpoint import build_metadata, load_model, save_checkpoint, write_metadata
from trappola.train.sb3.config import TrainConfig


@pytest.fixture(scope="module")
def tiny_model():
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
        policy_kwargs=dict(net_arch=dict(pi=[16, 8], vf=[16])),
    )
    model.num_timesteps = 1234
    return model


@pytest.fixture()
def saved(tiny_model, tmp_path):
    cfg = TrainConfig(net_arch=[16, 8], seed=7)
    meta = build_metadata(cfg.to_dict(), 7, tiny_model.num_timesteps)
    path = save_checkpoint(tiny_model, tmp_path / "m.zip", meta)
    return path


def test_round_trip_metadata_and_weights(tiny_model, saved):
    meta = read_metadata(saved)
    assert meta["seed"] == 7 and meta["num_timesteps"] == 1234
    assert meta["config"]["net_arch"] == [16, 8]
    assert meta["signature"]["actions"]["n_actions"] == 49
    assert meta["signature"]["observation"]["dim"] == 347
    assert meta["package_version"]
    policy, meta2 = load_policy(saved)
    assert meta2 == meta
    rng = np.random.default_rng(0)
    obs = rng.random((5, 347), dtype=np.float32)
    with torch.no_grad():
        feats = tiny_model.policy.extract_features(torch.as_tensor(obs))
        want = tiny_model.policy.action_net(tiny_model.policy.mlp_extractor.forward_actor(feats)).numpy()
    np.testing.assert_allclose(policy.logits(obs), want, rtol=1e-5, atol=1e-5)
    model, _ = load_model(saved)
    for (k, a), (_, b) in zip(tiny_model.policy.state_dict().items(), model.policy.state_dict().items(), strict=True):
        assert torch.equal(a, b), k
    assert model.num_timesteps == 1234


def test_numpy_policy_never_picks_illegal(saved):
    policy, _ = load_policy(saved)
    rng = np.random.default_rng(1)
    for _ in range(200):
        mask = rng.random(49) < 0.1
        mask[rng.integers(49)] = True
        obs = rng.random(347, dtype=np.float32)
        assert mask[policy.act(obs, mask, rng, deterministic=False)]
        assert mask[policy.act(obs, mask)]


def test_missing_file_refused(tmp_path):
    with pytest.raises(CheckpointNotFoundError, match="not found"):
        load_policy(tmp_path / "nope.zip")
    with pytest.raises(FileNotFoundError):
        read_metadata(tmp_path / "nope.zip")


def test_corrupt_files_refused(saved, tmp_path):
    garbage = tmp_path / "garbage.zip"
    garbage.write_bytes(b"this is not a zip file at all")
    with pytest.raises(CheckpointError, match="corrupt"):
        load_policy(garbage)
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(saved.read_bytes()[:2000])
    with pytest.raises(CheckpointError, match="corrupt"):
        load_policy(truncated)
    # Flip bytes inside the compressed policy weights: the CRC check catches it.
    data = bytearray(saved.read_bytes())
    with zipfile.ZipFile(saved) as zf:
        info = zf.getinfo("policy.pth")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra) + 10
    for i in range(start, start + 20):
        data[i] ^= 0xFF
    flipped = tmp_path / "flipped.zip"
    flipped.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="corrupt"):
        load_policy(flipped)


def test_a_plain_sb3_zip_plays_with_a_warning_and_a_foreign_zip_is_refused(tiny_model, tmp_path):
    plain = tmp_path / "plain.zip"
    tiny_model.save(plain)  # an SB3 model without Trappola metadata: a user's own loop saved it
    with pytest.warns(MissingMetadataWarning, match="adopt"):
        policy, meta = load_policy(plain)
    obs = np.random.default_rng(0).random((3, policy.obs_dim), dtype=np.float32)
    expected = tiny_model.policy.mlp_extractor.policy_net(torch.as_tensor(obs))
    logits = tiny_model.policy.action_net(expected).detach().numpy()
    assert np.allclose(policy.logits(obs), logits, atol=1e-5)  # SB3's own actor, read without metadata
    foreign = tmp_path / "foreign.zip"
    with zipfile.ZipFile(foreign, "w") as zf:
        zf.writestr("data", "{}")  # neither a lab checkpoint nor a MaskablePPO policy
    with pytest.raises(CheckpointError, match="not a Trappola checkpoint"):
        load_policy(foreign)


@pytest.mark.parametrize(
    "part, key, value, message",
    [
        ("observation", "dim", 300, "observation layout dim"),
        ("observation", "hash", "0000", "observation layout hash"),
        ("observation", "version", "v9", "observation layout version"),
        ("actions", "hash", "ffff", "action table"),
    ],
)
def test_incompatible_layout_refused(saved, part, key, value, message):
    meta = read_metadata(saved)
    meta["signature"][part][key] = value
    write_metadata(saved, meta)
    with pytest.raises(CheckpointError, match="incompatible") as err:
        load_policy(saved)
    assert message in str(err.value)
    with pytest.raises(CheckpointError, match="incompatible"):
        load_model(saved)


def test_format_version_refused(saved):
    meta = read_metadata(saved)
    meta["format_version"] = 99
    with pytest.raises(CheckpointError, match="format 99"):
        check_compatible(meta, saved)


def test_metadata_entry_replaced_not_duplicated(saved):
    meta = read_metadata(saved)
    meta["note"] = "x"
    write_metadata(saved, meta)
    with zipfile.ZipFile(saved) as zf:
        assert zf.namelist().count(META_NAME) == 1
        assert json.loads(zf.read(META_NAME))["note"] == "x"


def test_numpy_policy_weights_round_trip(saved):
    policy, _ = load_policy(saved)
    again = NumpyPolicy.from_weights(policy.get_weights())
    obs = np.random.default_rng(2).random(347, dtype=np.float32)
    np.testing.assert_array_equal(policy.logits(obs), again.logits(obs))
    with pytest.raises(ValueError, match="activation"):
        NumpyPolicy(policy.layers, policy.head, "gelu")


def test_export_for_play_is_smaller_plays_the_same_and_refuses_resume(saved, tmp_path):
    from trappola.train.run.checkpoint import export_for_play

    out = export_for_play(saved, tmp_path / "play.zip", pro_policy={"kind": "linear"})
    assert out.stat().st_size < saved.stat().st_size
    a, _ = load_policy(saved)
    b, meta = load_policy(out)
    obs = np.random.default_rng(3).random(347, dtype=np.float32)
    np.testing.assert_array_equal(a.logits(obs), b.logits(obs))
    assert meta["optimizer_state"] is False and meta["pro_policy"] == {"kind": "linear"}
    with pytest.raises(CheckpointError, match="cannot be resumed"):
        load_model(out)


def test_command_line_info_and_export(saved, tmp_path, capsys):
    from trappola.train.run.checkpoint import main

    assert main(["info", str(saved)]) == 0
    assert json.loads(capsys.readouterr().out)["seed"] == 7
    assert main(["export", str(saved), str(tmp_path / "x.zip")]) == 0
    assert read_metadata(tmp_path / "x.zip")["optimizer_state"] is False
    assert main(["bogus"]) == 2 and "usage:" in capsys.readouterr().err
    assert main(["--help"]) == 0 and capsys.readouterr().out.startswith("usage:")


def _rewrite_weights(path, change):
    """Apply ``change(state_dict)`` to the policy weights inside the zip."""
    import io

    with zipfile.ZipFile(path) as zf:
        entries = [(i, zf.read(i.filename)) for i in zf.infolist()]
    out = []
    for info, data in entries:
        if info.filename == "policy.pth":
            state = torch.load(io.BytesIO(data), weights_only=True)
            change(state)
            buf = io.BytesIO()
            torch.save(state, buf)
            data = buf.getvalue()
        out.append((info.filename, data))
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in out:
            zf.writestr(name, data)


@pytest.mark.parametrize("signature", ["v1", ["actions", "observation"], {"actions": 49, "observation": {}}])
def test_signature_that_is_not_a_mapping_refused(saved, signature):
    meta = read_metadata(saved)
    meta["signature"] = signature
    write_metadata(saved, meta)
    with pytest.raises(CheckpointError, match="signature .*not a mapping"):
        load_policy(saved)
    with pytest.raises(CheckpointError, match="signature .*not a mapping"):
        check_compatible(meta, saved)


def test_action_head_of_the_wrong_size_refused(saved):
    def drop_last_action(state):
        state["action_net.weight"] = state["action_net.weight"][:48].clone()
        state["action_net.bias"] = state["action_net.bias"][:48].clone()

    _rewrite_weights(saved, drop_last_action)
    with pytest.raises(CheckpointError, match="action head has 48 outputs"):
        load_policy(saved)


@pytest.mark.parametrize(
    "key, value",
    [
        ("action_net.weight", float("nan")),
        ("mlp_extractor.policy_net.0.bias", float("inf")),
        ("value_net.bias", float("nan")),
    ],
)
def test_non_finite_weights_refused(saved, key, value):
    def poison(state):
        state[key].view(-1)[0] = value

    _rewrite_weights(saved, poison)
    if not key.startswith("value_net"):  # the actor for play reads no value head
        with pytest.raises(CheckpointError, match="non-finite"):
            load_policy(saved)
    with pytest.raises(CheckpointError, match="non-finite"):
        load_model(saved)


def test_layers_that_do_not_chain_refused(saved):
    def cut_layer(state):
        state["mlp_extractor.policy_net.2.weight"] = state["mlp_extractor.policy_net.2.weight"][:, :5].clone()

    _rewrite_weights(saved, cut_layer)
    with pytest.raises(CheckpointError, match="do not chain"):
        load_policy(saved)


def test_command_line_refuses_a_bad_checkpoint_in_one_line(saved, capsys, tmp_path, monkeypatch):
    from trappola.cli.main import main

    monkeypatch.chdir(tmp_path)

    _rewrite_weights(saved, lambda state: state["action_net.bias"].fill_(float("nan")))
    assert main(["evaluate", "--players", f"policy:{saved},random", "--deals", "2", "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert "non-finite" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    meta = read_metadata(saved)
    meta["signature"] = "v1"
    write_metadata(saved, meta)
    assert main(["train", "--config", "demo", f"resume={saved}"]) == 2
    err = capsys.readouterr().err
    assert "not a mapping" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "runs").exists()  # refused before the run started
