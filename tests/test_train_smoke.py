"""A tiny end-to-end training run (a few hundred steps): files, metadata,
best model, resume, and that a fixed seed reproduces the run."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from trappola.agents.model_io.checkpoint_format import load_policy, read_metadata
from trappola.train.run.config_file import load_config
from trappola.train.sb3.ppo_selfplay import train
from trappola.train.train_command import cli_main

TINY = [
    "n_envs=2",
    "vec_env=dummy",
    "n_steps=64",
    "batch_size=64",
    "n_epochs=1",
    "total_timesteps=256",
    "net_arch=[32]",
    "bc_deals=30",
    "bc_epochs=1",
    "bc_batch_size=64",
    "eval_every=128",
    "eval_deals=3",
    "snapshot_every=64",
    "checkpoint_every=128",
    "progress_bar=false",
    "max_minutes=0",
]


def tiny(tmp_path, name, *extra):
    return load_config(None, TINY + [f"out_dir={tmp_path}", f"run_name={name}", *extra])


def weights(path):
    policy, _ = load_policy(path)
    return [w for layer in policy.layers for w in layer] + list(policy.head)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("runs")
    a = train(tiny(tmp, "a"), log=lambda m: None)
    b = train(tiny(tmp, "b"), log=lambda m: None)
    return tmp, a, b


def test_run_writes_checkpoints_logs_and_metadata(runs):
    tmp, a, _ = runs
    run = tmp / "a"
    for name in ("final.zip", "best.zip", "last.zip", "config.yaml", "train.log", "summary.json"):
        assert (run / name).is_file(), name
    assert list((run / "tb").glob("events.out.tfevents.*"))
    meta = read_metadata(run / "final.zip")
    assert meta["num_timesteps"] == a["timesteps"] >= 256
    assert meta["seed"] == 0 and meta["config"]["net_arch"] == [32]
    assert meta["bc"]["acc"] > 0  # behaviour cloning ran and is recorded
    summary = json.loads((run / "summary.json").read_text())
    assert summary["evals"] and summary["best"].endswith("best.zip")
    device = "cuda" if torch.cuda.is_available() else "cpu"  # device=auto, the default
    assert f"bc=True, device {device}" in (run / "train.log").read_text()
    progress = (run / "tb" / "progress.csv").read_text().splitlines()[0]
    for key in ("selfplay/win_rate_vs_", "train/entropy_loss", "selfplay/steps_per_second"):
        assert key in progress


def test_same_seed_reproduces_the_run(runs):
    tmp, _, _ = runs
    for x, y in zip(weights(tmp / "a" / "final.zip"), weights(tmp / "b" / "final.zip"), strict=True):
        np.testing.assert_array_equal(x, y)


def test_resume_continues_from_checkpoint(runs, tmp_path):
    tmp, a, _ = runs
    # total_timesteps is the run's whole length: 128 steps more than a's 256
    cfg = tiny(tmp_path, "resumed", f"resume={tmp / 'a' / 'final.zip'}", "total_timesteps=384", "keep_checkpoints=true")
    out = train(cfg, log=lambda m: None)
    assert a["timesteps"] == 256 and out["timesteps"] == 384
    kept = sorted((tmp_path / "resumed" / "checkpoints").glob("*.zip"))  # the learning curve's checkpoints
    assert kept and all(read_metadata(k)["num_timesteps"] == int(k.stem) > a["timesteps"] for k in kept)
    assert not (tmp / "a" / "checkpoints").exists()  # off by default
    meta = read_metadata(tmp_path / "resumed" / "final.zip")
    assert meta["num_timesteps"] == out["timesteps"]
    parent = read_metadata(tmp / "a" / "final.zip")
    assert meta["resumed_from"]["num_timesteps"] == parent["num_timesteps"] == a["timesteps"]
    assert meta["resumed_from"]["config"] == parent["config"]
    assert meta["resumed_from"]["path"].endswith("final.zip") and meta["resumed_from"]["resumed_from"] is None


def test_cli_rejects_bad_settings(capsys):
    assert cli_main(["--config", "configs/ppo_selfplay.yaml", "no_such_key=1"]) == 2
    assert "unknown config key" in capsys.readouterr().err
    assert cli_main(["--help"]) == 0
