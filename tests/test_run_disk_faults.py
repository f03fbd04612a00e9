"""A full disk under a run's logs (``progress.csv``, TensorBoard,
``train.log``) stops it with one line naming the file, no traceback (none
from TensorBoard's writer thread either), after a last try at
``final.zip``; when that fails too, the previous ``final.zip`` is kept.
``trappola.train.run.checkpoint export`` onto a full disk is one line as well."""

from __future__ import annotations

import errno
import os
import subprocess
import sys

import pytest

from trappola.agents.model_io.checkpoint_format import read_metadata
from trappola.agents.model_io.model_files import shipped_model_path
from trappola.train.run.checkpoint import main as checkpoint_main
from trappola.train.run.config_file import load_config
from trappola.train.sb3.ppo_selfplay import train

TINY = [
    "n_envs=2",
    "vec_env=dummy",
    "n_steps=64",
    "batch_size=64",
    "n_epochs=1",
    "net_arch=[16]",
    "bc=false",
    "eval_every=128",
    "eval_deals=2",
    "snapshot_every=64",
    "checkpoint_every=0",
    "progress_bar=false",
    "max_minutes=0",
]

# Runs `trappola train ARGS` with the disk full after WRITES writes to the file whose name ends with TARGET
# (print() makes two writes of a line; "tb": TensorBoard's event file, written by its own thread); with
# FSYNC, every atomic write fails from then on too.
FULL_DISK = """
import builtins, errno, os, sys
target, writes, fsync = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "fsync"
full = []


def no_space():
    full.append(True)
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


class Full:
    def __init__(self, f):
        self.f, self.n = f, 0

    def write(self, s):
        self.n += 1
        if self.n > writes:
            no_space()
        return self.f.write(s)

    def __getattr__(self, name):
        return getattr(self.f, name)


real_open, real_fsync = builtins.open, os.fsync
builtins.open = lambda file, mode="r", *a, **k: (
    Full(real_open(file, mode, *a, **k))
    if str(file).endswith(target) and "a" in mode
    else real_open(file, mode, *a, **k)
)
os.fsync = lambda fd: no_space() if fsync and full else real_fsync(fd)
if target == "tb":
    from tensorboard.summary.writer import record_writer

    real_write, n = record_writer.RecordWriter.write, [0]

    def write(self, data):
        n[0] += 1
        if n[0] > writes:
            no_space()
        return real_write(self, data)

    record_writer.RecordWriter.write = write
from trappola.cli.main import main

sys.exit(main(["train", *sys.argv[4:]]))
"""


def full_disk(target: str, writes: int, *argv, fsync: bool = False) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", FULL_DISK, target, str(writes), "fsync" if fsync else "-", *TINY, *argv],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize(
    "target, writes, path",
    [("progress.csv", 1, "tb/progress.csv"), ("train.log", 2, "train.log"), ("tb", 25, "tb")],
)
def test_a_full_disk_under_the_logs_is_one_line_naming_the_file_and_the_run_is_saved(tmp_path, target, writes, path):
    argv = ["total_timesteps=1024", f"tensorboard={target == 'tb'}", f"out_dir={tmp_path}", "run_name=a"]
    done = full_disk(target, writes, *argv)
    run = tmp_path / "a"
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == f"error: {run / path}: No space left on device", done.stderr
    assert "Traceback" not in done.stderr and "Exception in thread" not in done.stderr
    meta = read_metadata(run / "final.zip")  # the last try at saving the weights in memory succeeded
    assert 0 < meta["num_timesteps"] < 1024 and meta["stopped"] == f"{run / path}: No space left on device"
    assert f"saved {run / 'final.zip'}" in done.stdout


def test_when_the_last_save_fails_too_the_previous_final_zip_is_kept(tmp_path):
    run = tmp_path / "a"
    train(load_config(None, [*TINY, "total_timesteps=128", f"out_dir={tmp_path}", "run_name=a"]), log=lambda m: None)
    kept = (run / "final.zip").read_bytes()
    argv = [
        "total_timesteps=1024",
        "tensorboard=false",
        f"out_dir={tmp_path}",
        "run_name=a",
        f"resume={run / 'final.zip'}",
    ]
    done = full_disk("progress.csv", 0, *argv, fsync=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == f"error: {run / 'tb' / 'progress.csv'}: No space left on device"
    assert f"final.zip not saved: {run / 'final.zip'}: No space left on device" in done.stdout
    assert (run / "final.zip").read_bytes() == kept and not list(run.rglob("*.tmp"))


def test_export_onto_a_full_disk_is_one_line(tmp_path, monkeypatch, capsys):
    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    out = tmp_path / "play.zip"
    assert checkpoint_main(["export", str(shipped_model_path()), str(out)]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {out}: No space left on device\n"
    assert list(tmp_path.iterdir()) == []
    assert checkpoint_main(["info", str(tmp_path / "missing.zip")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
