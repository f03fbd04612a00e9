"""Ctrl-C never loses a run: the first SIGINT to a real ``trappola train``
saves ``final.zip`` (``interrupted``, the exact step count) and
``summary.json`` and exits 130; a resume from it continues with nothing
lost (the step count, every ``progress.csv`` row, the weights, TensorBoard's
steps); a second SIGINT exits at once, leaving complete files."""

from __future__ import annotations

import csv
import json
import signal
import subprocess
import sys
import time

import torch
from stable_baselines3.common.callbacks import BaseCallback

from trappola.agents.model_io.checkpoint_format import load_state_dict, read_metadata
from trappola.train.run.config_file import load_config
from trappola.train.run.interrupt import StopOnInterrupt
from trappola.train.sb3.ppo_selfplay import train

TINY = [
    "n_envs=2",
    "vec_env=dummy",
    "n_steps=64",
    "batch_size=64",
    "n_epochs=1",
    "net_arch=[32]",
    "bc=false",
    "eval_deals=0",
    "snapshot_every=64",
    "checkpoint_every=128",
    "progress_bar=false",
    "max_minutes=0",
]
ROLLOUT = 2 * 64  # n_envs * n_steps: steps between two rows of progress.csv


def start(tmp_path, *extra) -> subprocess.Popen:
    argv = [*TINY, "total_timesteps=1000000", f"out_dir={tmp_path}", "run_name=a", *extra]
    return subprocess.Popen(
        [sys.executable, "-m", "trappola.cli", "train", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def rows(path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def wait_for_rows(proc, path, n: int) -> None:
    deadline = time.time() + 120
    while time.time() < deadline:
        assert proc.poll() is None, proc.communicate()
        if path.is_file() and len(path.read_text().splitlines()) > n:
            return
        time.sleep(0.1)
    raise AssertionError(f"no {n} rows in {path}")


def tb_steps(folder) -> list[list[int]]:
    """The steps of the scalar time/fps in each TensorBoard event file, oldest file first."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    out = []
    for f in sorted(folder.glob("events.out.tfevents.*"), key=lambda p: p.stat().st_mtime_ns):
        acc = EventAccumulator(str(f))
        acc.Reload()
        out.append([e.step for e in acc.Scalars("time/fps")] if "time/fps" in acc.Tags()["scalars"] else [])
    return out


class StartingWeights(BaseCallback):
    """Keeps the learner's weights and step count as learning starts."""

    def __init__(self):
        super().__init__()
        self.weights = self.steps = None

    def _on_training_start(self) -> None:
        self.weights = {k: v.clone() for k, v in self.model.policy.state_dict().items()}
        self.steps = self.model.num_timesteps

    def _on_step(self) -> bool:
        return True


def test_ctrl_c_saves_the_run_and_a_resume_continues_it_with_nothing_lost(tmp_path):
    run = tmp_path / "a"
    progress = run / "tb" / "progress.csv"
    proc = start(tmp_path)
    wait_for_rows(proc, progress, 2)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err

    meta = read_metadata(run / "final.zip")
    steps = meta["num_timesteps"]
    summary = json.loads((run / "summary.json").read_text())
    assert meta["interrupted"] is True and summary["interrupted"] is True and summary["timesteps"] == steps
    before = rows(progress)
    logged = [int(r["time/total_timesteps"]) for r in before]
    # the exact step count: past the last full rollout, a multiple of the 2 games stepped together
    assert len(before) >= 2 and logged[-1] <= steps and steps % 2 == 0
    assert f"interrupted at {steps:,} steps" in (run / "train.log").read_text()

    saved = load_state_dict(run / "final.zip")
    total = steps + 300  # the run's length: the resume trains what is left of it, in whole rollouts
    watch = StartingWeights()
    argv = [*TINY, f"total_timesteps={total}", f"out_dir={tmp_path}", "run_name=a", f"resume={run / 'final.zip'}"]
    resumed = train(load_config(None, argv), log=lambda m: None, callbacks=[watch])

    assert watch.steps == steps and watch.weights.keys() == saved.keys()
    for key, value in saved.items():  # the resumed run starts exactly where the interrupted one stopped
        assert torch.equal(watch.weights[key], value), key
    assert resumed["timesteps"] == steps + 3 * ROLLOUT and not resumed["interrupted"]
    after = rows(progress)
    assert after[: len(before)] == before  # the interrupted run's rows, kept whole
    assert [int(r["time/total_timesteps"]) for r in after[len(before) :]] == [steps + k * ROLLOUT for k in (1, 2, 3)]
    old, new = tb_steps(run / "tb")
    assert old == logged and new == [steps + k * ROLLOUT for k in (1, 2, 3)]


def test_a_second_ctrl_c_exits_at_once_leaving_complete_files(tmp_path):
    run = tmp_path / "a"
    # the second Ctrl-C comes while the run stops after the first (it saves, closes its games, exits)
    proc = start(tmp_path, "tensorboard=false")
    deadline = time.time() + 120
    while not ((run / "train.log").is_file() and "run " in (run / "train.log").read_text()):
        assert time.time() < deadline and proc.poll() is None
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    assert proc.stderr.readline().startswith("interrupted: ")  # the first one is handled
    t0 = time.time()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and time.time() - t0 < 5
    assert "interrupted again" in err and "Traceback" not in err, err
    assert not [p for p in run.rglob("*.tmp")]
    if (run / "final.zip").exists():  # written whole before the second signal, or not at all
        assert read_metadata(run / "final.zip")["interrupted"] is True


def test_the_watch_both_trainers_share_notes_a_first_sigint_and_gives_the_signal_back():
    previous = signal.getsignal(signal.SIGINT)
    with StopOnInterrupt() as stop:
        assert not stop.requested
        signal.raise_signal(signal.SIGINT)  # noted, not a KeyboardInterrupt
        assert stop.requested
    assert signal.getsignal(signal.SIGINT) is previous
