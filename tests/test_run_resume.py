"""A resume continues the run it resumes and trains with what it records,
through the real ``trappola train`` command: without ``--config`` the
resumed run's own settings (reward mode, network, evaluation deals), its
``config.yaml`` kept; every PPO setting asked for is the one the saved
model holds (SB3's own stored hyperparameters, read back from the zip);
each change to the resumed run's settings one printed line naming its
source; a changed network refused in one line naming both shapes; a
``best.zip`` only ever chosen on one deal set."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
import yaml
from stable_baselines3.common.save_util import load_from_zip_file

from trappola.agents.model_io.checkpoint_format import read_metadata

TINY = [
    "n_envs=2",
    "vec_env=dummy",
    "n_steps=16",
    "batch_size=32",
    "n_epochs=1",
    "net_arch=[32]",
    "bc=false",
    "eval_deals=4",
    "eval_search_deals=0",
    "eval_every=64",
    "snapshot_every=64",
    "checkpoint_every=64",
    "progress_bar=false",
    "max_minutes=0",
    "torch_threads=1",
    "reward_mode=points",
]
#: The PPO settings a resume may change, with values other than TINY's and the defaults'.
CHANGED = {
    "n_steps": 32,
    "batch_size": 64,
    "n_epochs": 2,
    "ent_coef": 0.02,
    "vf_coef": 0.4,
    "gamma": 0.98,
    "gae_lambda": 0.9,
    "max_grad_norm": 0.4,
    "learning_rate": 0.001,
}


def trappola(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "trappola.cli", *args], capture_output=True, text=True, timeout=300, cwd=cwd
    )


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A finished tiny run (points reward, a 32-unit network, 4 evaluation deals), 128 steps."""
    out = tmp_path_factory.mktemp("runs")
    done = trappola("train", *TINY, "total_timesteps=128", f"out_dir={out}", "run_name=a")
    assert done.returncode == 0, done.stderr
    return out / "a"


def copy_of(run, tmp_path):
    shutil.copytree(run, tmp_path / "a")
    return tmp_path / "a"


def stored(path) -> dict:
    """The hyperparameters SB3 stored in a checkpoint (what the learner really used)."""
    data, _, _ = load_from_zip_file(path)
    return data


def test_a_resume_without_config_continues_its_run_and_keeps_its_config(trained, tmp_path):
    run = copy_of(trained, tmp_path)
    original = (run / "config.yaml").read_bytes()
    done = trappola("train", f"resume={run / 'final.zip'}", "total_timesteps=192")
    assert done.returncode == 0, done.stderr
    meta = read_metadata(run / "final.zip")
    cfg = meta["config"]
    assert cfg["reward_mode"] == "points" and cfg["net_arch"] == [32] and cfg["eval_deals"] == 4
    assert meta["policy_arch"]["net_arch"]["pi"] == [32] and meta["num_timesteps"] >= 192
    assert (run / "config.yaml").read_bytes() == original  # the run's own settings, never written over
    resumed = yaml.safe_load((run / "config.resume-128.yaml").read_text())
    assert resumed["total_timesteps"] == 192 and resumed["reward_mode"] == "points"
    changes = [line.split()[1] for line in done.stdout.splitlines() if "(resumed run) ->" in line]
    assert changes == ["out_dir:", "total_timesteps:"]  # the run was copied here: it continues where it is now
    assert "total_timesteps: 128 (resumed run) -> 192 (command line)" in done.stdout
    assert f"-> {tmp_path} (the checkpoint's folder)" in done.stdout
    assert (run / "best.zip").is_file() and not (run / "best.other-deals.zip").exists()  # the same 4 deals


def test_a_resume_trains_with_every_ppo_setting_it_asks_for(trained, tmp_path):
    run = copy_of(trained, tmp_path)
    before = stored(run / "final.zip")
    assert (before["n_steps"], before["batch_size"], before["n_epochs"], before["ent_coef"]) == (16, 32, 1, 0.01)
    settings = [f"{k}={v}" for k, v in CHANGED.items()]
    done = trappola("train", f"resume={run / 'final.zip'}", "total_timesteps=256", "clip_range=0.3", *settings)
    assert done.returncode == 0, done.stderr
    recorded = yaml.safe_load((run / "config.resume-128.yaml").read_text())
    after = stored(run / "final.zip")
    for key, value in CHANGED.items():
        if key != "learning_rate":
            assert recorded[key] == value and after[key] == value, key
        old = yaml.safe_load((run / "config.yaml").read_text())[key]
        assert f"{key}: {old} (resumed run) -> {value} (command line)" in done.stdout, key
    assert after["clip_range"](1.0) == pytest.approx(0.3)  # a schedule in SB3, the config's value
    # the learning rate decays from the config's, over the run's whole length (lr_final_fraction of TINY: 0.2)
    assert after["learning_rate"](1.0) == pytest.approx(0.001)
    assert read_metadata(run / "final.zip")["config"] == recorded
    assert after["num_timesteps"] == read_metadata(run / "final.zip")["num_timesteps"] >= 256


def test_a_config_file_changes_are_printed_and_best_zip_stays_on_one_deal_set(trained, tmp_path):
    run = copy_of(trained, tmp_path)
    kept = (run / "best.zip").read_bytes()
    settings = dict(item.split("=", 1) for item in TINY)
    settings.update(reward_mode="mixed", eval_deals="6", total_timesteps="192", out_dir=str(tmp_path), run_name="a")
    (tmp_path / "stage2.yaml").write_text("".join(f"{k}: {v}\n" for k, v in settings.items()))
    done = trappola("train", "--config", str(tmp_path / "stage2.yaml"), f"resume={run / 'final.zip'}")
    assert done.returncode == 0, done.stderr
    assert "reward_mode: points (resumed run) -> mixed (stage2.yaml)" in done.stdout
    assert "eval_deals: 4 (resumed run) -> 6 (stage2.yaml)" in done.stdout
    assert read_metadata(run / "final.zip")["config"]["reward_mode"] == "mixed"
    log = (run / "train.log").read_text()
    assert "reward_mode: points (resumed run) -> mixed (stage2.yaml)" in log
    # best.zip was chosen on 4 deals: kept aside, and best.zip is chosen again on this run's 6
    assert (run / "best.other-deals.zip").read_bytes() == kept
    assert read_metadata(run / "best.zip")["eval"]["rule"]["deals"] == 6


def test_a_changed_network_is_refused_in_one_line_naming_both(trained, tmp_path):
    run = copy_of(trained, tmp_path)
    done = trappola("train", f"resume={run / 'final.zip'}", "net_arch=[64]")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "net_arch" in line and "[32]" in line and "[64]" in line
    assert not list(run.glob("config.resume-*"))  # refused before anything was written


def test_init_from_follows_the_checkpoints_network_when_none_is_asked(trained, tmp_path):
    settings = [s for s in TINY if not s.startswith("net_arch")]
    argv = [*settings, f"init_from={trained / 'final.zip'}", "total_timesteps=64", f"out_dir={tmp_path}", "run_name=i"]
    done = trappola("train", *argv)
    assert done.returncode == 0, done.stderr
    meta = read_metadata(tmp_path / "i" / "final.zip")
    assert meta["config"]["net_arch"] == [32] and meta["policy_arch"]["net_arch"]["pi"] == [32]
