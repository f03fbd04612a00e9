"""An RLlib run does what it records, through the real ``trappola train``
(each run its own local Ray): the SB3 zip it writes holds the PPO settings
of its ``config.yaml``; a resume in either direction (RLlib -> SB3,
SB3 -> RLlib) trains with the config's settings, which the saved model
stores; every evaluation and behaviour cloning's figures are in
TensorBoard and ``progress.csv`` at their step; a full disk gets a last try
at ``final.zip`` and one line; an unreachable ``address`` is refused in one
line, quickly. One RLlib run is shared by the assertions; slow (minutes)."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
import yaml

pytest.importorskip("ray.rllib")

from stable_baselines3.common.save_util import load_from_zip_file
from test_run_disk_faults import FULL_DISK
from test_run_logs import csv_steps, scalar_steps

from trappola.agents.model_io.checkpoint_format import read_metadata

pytestmark = pytest.mark.slow

RLLIB = [
    "--config",
    "rllib_selfplay",
    "train_batch_size=150",
    "batch_size=50",
    "n_epochs=1",
    "num_env_runners=0",
    "num_cpus=1",
    "net_arch=[16]",
    "eval_deals=2",
    "eval_every=150",
    "eval_search_deals=0",
    "checkpoint_every=150",
    "snapshot_every=150",
    "progress_bar=false",
    "torch_threads=1",
]
SB3 = [
    "n_envs=2",
    "vec_env=dummy",
    "n_steps=32",
    "batch_size=64",
    "n_epochs=2",
    "eval_deals=2",
    "eval_every=0",
    "checkpoint_every=0",
    "progress_bar=false",
    "torch_threads=1",
]
#: The PPO settings a saved model stores, under SB3's names.
PPO = ("n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "ent_coef", "vf_coef", "max_grad_norm")


def trappola(*args, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "trappola.cli", "train", *args], capture_output=True, text=True, timeout=timeout
    )


def stored_matches(path, config: dict) -> None:
    """The PPO settings SB3 stored in the checkpoint ``path`` are those of
    ``config`` (an RLlib run's rollout, ``train_batch_size``, is SB3's ``n_steps``)."""
    data, _, _ = load_from_zip_file(path)
    for key in PPO:
        want = config["train_batch_size"] if key == "n_steps" and "train_batch_size" in config else config[key]
        assert data[key] == want, key


@pytest.fixture(scope="module")
def rllib_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("rllib")
    cloning = ["bc=true", "bc_deals=4", "bc_epochs=2", "bc_workers=1"]
    done = trappola(*RLLIB, *cloning, "total_timesteps=300", "ent_coef=0.02", f"out_dir={out}", "run_name=r")
    assert done.returncode == 0, done.stderr
    return out / "r"


def test_an_rllib_run_records_what_it_trained_with_and_logs_every_evaluation(rllib_run):
    config = yaml.safe_load((rllib_run / "config.yaml").read_text())
    stored_matches(rllib_run / "final.zip", config)
    evaluated = [e["timesteps"] for e in json.loads((rllib_run / "summary.json").read_text())["evals"]]
    assert evaluated[0] == 0 and evaluated[-1] == read_metadata(rllib_run / "final.zip")["num_timesteps"]
    tags = scalar_steps(rllib_run / "tb")
    assert tags["eval/score_vs_rule"] == evaluated
    assert csv_steps(rllib_run / "tb" / "progress.csv", "eval/score_vs_rule") == evaluated
    assert tags["bc/acc"] == [1, 2] and "time/fps" in tags and "train/entropy_loss" in tags


def test_a_resume_across_trainers_trains_with_the_configs_settings(rllib_run, tmp_path):
    # RLlib -> SB3: the SB3 run's settings, not SB3's defaults, and the run's whole length
    steps = read_metadata(rllib_run / "final.zip")["num_timesteps"]
    sb3 = [*SB3, "net_arch=[16]", f"total_timesteps={steps + 100}", f"out_dir={tmp_path}", "run_name=s"]
    (tmp_path / "sb3.yaml").write_text("".join(f"{a.replace('=', ': ', 1)}\n" for a in sb3))
    done = trappola("--config", str(tmp_path / "sb3.yaml"), f"resume={rllib_run / 'final.zip'}")
    assert done.returncode == 0, done.stderr
    sb3_final = tmp_path / "s" / "final.zip"
    stored_matches(sb3_final, yaml.safe_load((tmp_path / "s" / "config.yaml").read_text()))
    # total_timesteps is the whole run: at most one rollout (2 games x 32 steps) past it
    assert steps + 100 <= read_metadata(sb3_final)["num_timesteps"] < steps + 100 + 64
    # SB3 -> RLlib, with changed settings: the RLlib run's final.zip stores them
    total = read_metadata(sb3_final)["num_timesteps"] + 150
    changed = ["n_epochs=3", "gamma=0.97", "ent_coef=0.03", f"total_timesteps={total}"]
    done = trappola(*RLLIB, *changed, f"resume={sb3_final}", f"out_dir={tmp_path}", "run_name=back")
    assert done.returncode == 0, done.stderr
    config = yaml.safe_load((tmp_path / "back" / "config.yaml").read_text())
    assert (config["n_epochs"], config["gamma"], config["ent_coef"]) == (3, 0.97, 0.03)
    stored_matches(tmp_path / "back" / "final.zip", config)
    assert "n_epochs: 2 (resumed run) -> 3 (command line)" in done.stdout


def test_a_full_disk_under_an_rllib_run_gets_a_last_try_at_final_zip(tmp_path):
    argv = [*RLLIB, "total_timesteps=3000", "eval_deals=0", "bc=false", f"out_dir={tmp_path}", "run_name=a"]
    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK, "progress.csv", "2", "-", *argv],
        capture_output=True,
        text=True,
        timeout=600,
    )
    run = tmp_path / "a"
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    why = f"{run / 'tb' / 'progress.csv'}: No space left on device"
    assert done.stderr.strip().splitlines()[-1] == f"error: {why}"
    meta = read_metadata(run / "final.zip")
    assert meta["stopped"] == why and 0 < meta["num_timesteps"] < 3000
    assert f"saved {run / 'final.zip'}" in done.stdout


def test_an_unreachable_ray_address_is_refused_in_one_line_quickly(tmp_path):
    t0 = time.time()
    done = trappola("--config", "rllib_selfplay", "address=127.0.0.1:1", f"out_dir={tmp_path}", timeout=120)
    assert done.returncode == 2 and time.time() - t0 < 30
    (line,) = done.stderr.strip().splitlines()
    assert "cannot reach a Ray cluster at '127.0.0.1:1'" in line
