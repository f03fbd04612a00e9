"""The logs hold every evaluation, through the real ``trappola train``:
the evaluation after behaviour cloning, every periodic one and the final
one are in TensorBoard's event files and in ``progress.csv`` at the very
step they were made (not the next rollout's), and behaviour cloning's
``bc/*`` scalars are there. (The RLlib trainer's: ``tests/test_rllib.py``.)"""

from __future__ import annotations

import csv
import json
import subprocess
import sys

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator


def scalar_steps(folder) -> dict[str, list[int]]:
    """Tag -> the steps of its values, over every event file in ``folder``."""
    out: dict[str, list[int]] = {}
    for f in sorted(folder.glob("events.out.tfevents.*")):
        acc = EventAccumulator(str(f))
        acc.Reload()
        for tag in acc.Tags()["scalars"]:
            out.setdefault(tag, []).extend(e.step for e in acc.Scalars(tag))
    return out


def csv_steps(path, column: str) -> list[int]:
    """The step of each row of ``progress.csv`` with a value in ``column``."""
    with open(path, newline="") as f:
        return [int(float(r["time/total_timesteps"])) for r in csv.DictReader(f) if r.get(column)]


def test_every_evaluation_and_behaviour_cloning_reach_tensorboard_and_progress_csv(tmp_path):
    settings = [
        "n_envs=2",
        "vec_env=dummy",
        "n_steps=40",  # a rollout is 80 steps: evaluations at 64 and 128 fall inside rollouts
        "batch_size=80",
        "n_epochs=1",
        "net_arch=[16]",
        "bc=true",
        "bc_deals=20",
        "bc_epochs=2",
        "bc_workers=1",
        "eval_deals=2",
        "eval_every=64",
        "eval_search_deals=0",
        "checkpoint_every=0",
        "progress_bar=false",
        "torch_threads=1",
        "total_timesteps=160",
        f"out_dir={tmp_path}",
        "run_name=a",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "trappola.cli", "train", *settings], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    run = tmp_path / "a"
    evaluated = [e["timesteps"] for e in json.loads((run / "summary.json").read_text())["evals"]]
    assert evaluated == [0, 64, 128, 160]  # after cloning, two periodic ones, the final one
    tags = scalar_steps(run / "tb")
    for key in ("eval/score_vs_rule", "eval/win_rate_vs_rule", "eval/points_diff_vs_rule"):
        assert tags[key] == evaluated, key
        assert csv_steps(run / "tb" / "progress.csv", key) == evaluated, key
    for key in ("bc/ce", "bc/v", "bc/acc"):
        assert tags[key] == [1, 2], key  # one point per epoch
    assert csv_steps(run / "tb" / "progress.csv", "bc/acc") == [0, 0]  # before the first PPO step
    assert tags["time/fps"] == [80, 160]  # the rollouts' rows, unchanged
