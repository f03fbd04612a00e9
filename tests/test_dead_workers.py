"""A worker that dies is one line, never a partial result: an evaluation
pool worker killed mid-run, an opponent worker killed mid-training (the
run then saves a final checkpoint and keeps its last good one); and pool
workers end with the process that started them."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from trappola.agents.evaluation.backend import ProcessBackend, WorkerLostError
from trappola.agents.model_io.checkpoint_format import read_metadata
from trappola.train.run.config_file import load_config
from trappola.train.train_command import cli_main

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree from /proc")


def children() -> dict[int, list[int]]:
    """parent pid -> child pids, of every live (not zombie) process."""
    out: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                out.setdefault(int(fields[1]), []).append(int(d.name))
    return out


def descendants(pid: int) -> list[int]:
    tree, out, todo = children(), [], [pid]
    while todo:
        for c in tree.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_for(cond, seconds: float):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        value = cond()
        if value:
            return value
        time.sleep(0.05)
    return cond()


def env():
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


@pytest.mark.parametrize("context", ["forkserver", "fork"])
def test_a_killed_pool_worker_fails_the_whole_map(context):
    with ProcessBackend(2, context=context) as pool:
        with pytest.raises(WorkerLostError, match="worker process died"):
            pool.map(signal.raise_signal, [signal.SIGCONT] * 3 + [signal.SIGKILL] + [signal.SIGCONT] * 3)
        assert pool.map(abs, [-1, -2]) == [1, 2]  # a new pool for the next map


def test_evaluate_with_a_killed_worker_prints_one_line_and_no_results(tmp_path):
    out = tmp_path / "s.json"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "trappola.cli",
            "evaluate",
            "--players",
            "rule,random",
            "--deals",
            "200000",
            "--workers",
            "2",
            "--no-progress",
            "--json",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
        cwd=tmp_path,
    )
    try:
        # forkserver: the workers are the grandchildren of the command (children of the fork server)
        workers = wait_for(lambda: [g for c in children().get(proc.pid, []) for g in children().get(c, [])], 60)
        assert workers, "no worker started"
        time.sleep(0.5)
        os.kill(workers[0], signal.SIGKILL)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 2
    assert stderr.strip().splitlines() == [stderr.strip()] and "worker process died" in stderr
    assert "Traceback" not in stderr and "win rate" not in stdout and not out.exists()


@pytest.mark.parametrize("context", ["forkserver", "fork"])
def test_pool_workers_end_with_their_parent(context):
    script = (
        "import sys, time\nfrom trappola.agents.evaluation.backend import ProcessBackend\n"
        "ProcessBackend(2, context=sys.argv[1]).map(time.sleep, [60, 60])\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script, context], env=env(), stderr=subprocess.DEVNULL)
    family = []
    try:
        # two sleeping workers (and, for forkserver, the server; maybe a resource tracker)
        need = 3 if context == "forkserver" else 2  # the fork server, then the two workers
        assert wait_for(lambda: len(descendants(proc.pid)) >= need, 60)
        time.sleep(1.0)  # the workers have taken their 60 s tasks
        family = descendants(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        wait_for(lambda: not any(alive(p) for p in family), 5)
        left = [p for p in family if alive(p)]
        assert not left, f"still running 5 s after their parent was killed: {left}"
    finally:  # on a failure, leave nothing running (after the parent's death they are no longer its descendants)
        proc.kill()
        for p in family + descendants(proc.pid):
            if alive(p):
                os.kill(p, signal.SIGKILL)


def test_a_killed_opponent_worker_stops_training_with_a_final_checkpoint(tmp_path, monkeypatch, capsys):
    from trappola.train.selfplay import opponent_workers

    real_gather = opponent_workers.OpponentWorkers.gather
    calls = [0]

    def gather(self):
        calls[0] += 1
        if calls[0] == 40:
            # The opponent workers are this process's children, named as the error message names them.
            (worker,) = (p for p in multiprocessing.active_children() if p.name == "opponent worker-0")
            os.kill(worker.pid, signal.SIGKILL)
            worker.join(timeout=10)
        return real_gather(self)

    monkeypatch.setattr(opponent_workers.OpponentWorkers, "gather", gather)
    argv = [
        "n_envs=4",
        "vec_env=batched",
        "n_steps=16",
        "batch_size=64",
        "n_epochs=1",
        "total_timesteps=4096",
        "net_arch=[16]",
        "bc=false",
        "eval_every=0",
        "eval_deals=0",
        "checkpoint_every=32",
        "opponent_workers=1",
        "pool.self=0.5",
        "pool.rule=0.5",
        "snapshot_every=64",
        "progress_bar=false",
        "tensorboard=false",
        f"out_dir={tmp_path}",
        "run_name=a",
    ]
    load_config(None, argv)  # the settings are valid: what follows is the worker's death
    assert cli_main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.strip().splitlines()[-1].startswith("error: opponent worker 0 died (exit code -9)")
    assert '"best"' not in captured.out  # no summary printed as if the run had finished
    run = tmp_path / "a"
    final, last = read_metadata(run / "final.zip"), read_metadata(run / "last.zip")
    assert "opponent worker 0 died" in final["stopped"]
    assert 0 < last["num_timesteps"] <= final["num_timesteps"] < 4096
    assert "stopped at" in (run / "train.log").read_text()
