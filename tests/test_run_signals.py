"""Every stop signal saves, through the real ``trappola`` command and real
signals: SIGTERM and SIGHUP as the first Ctrl-C (``final.zip`` interrupted
at its exact step, ``summary.json``, exit 128 + the signal, a resume hint
naming a file that exists); a signal during behaviour cloning stops it
within seconds and keeps the cloned network, which a resume does not clone
again; one during the final evaluation ends it, said; a Ctrl-C to the
whole process group with opponent worker processes exits cleanly; a
Ctrl-C while the command starts prints no traceback; ``trappola exploit``
stops without an evaluation, saying how long it trained, and takes a
fresh run folder each time."""

from __future__ import annotations

import collections
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from trappola.agents.model_io.checkpoint_format import read_metadata

#: Seconds from a signal to the command's exit: the save and the interpreter's exit take up to ~15 s on a
#: loaded 2-core machine; the work each test interrupts would go on for minutes (or hours) unstopped.
STOPS_WITHIN = 30

TINY = [
    "n_envs=2",
    "vec_env=dummy",
    "n_steps=32",
    "batch_size=64",
    "n_epochs=1",
    "net_arch=[16]",
    "bc=false",
    "eval_deals=0",
    "snapshot_every=64",
    "checkpoint_every=0",
    "progress_bar=false",
    "max_minutes=0",
    "torch_threads=1",
]


def start(*args, group: bool = False) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "trappola.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=group,
    )


def wait_for(proc, path, text: str, timeout: float = 180) -> None:
    """Until the file ``path`` holds ``text`` (the process still running);
    "ROW": a row under a CSV header."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        assert proc.poll() is None, proc.communicate()
        if path.is_file() and (len(path.read_text().splitlines()) > 1 if text == "ROW" else text in path.read_text()):
            return
        time.sleep(0.1)
    raise AssertionError(f"no {text!r} in {path}")


def finish(proc, timeout: float = 60) -> tuple[str, str, float]:
    """(stdout, stderr, seconds it took to end)."""
    t0 = time.time()
    out, err = proc.communicate(timeout=timeout)
    return out, err, time.time() - t0


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_save_like_a_first_ctrl_c(tmp_path, sig):
    run = tmp_path / "a"
    argv = ["train", *TINY, "total_timesteps=1000000", f"out_dir={tmp_path}", "run_name=a"]
    proc = start(*argv)
    wait_for(proc, run / "tb" / "progress.csv", "ROW")  # a first rollout's row
    proc.send_signal(sig)
    _, err, _ = finish(proc)
    assert proc.returncode == 128 + sig and "Traceback" not in err, err
    meta = read_metadata(run / "final.zip")
    summary = json.loads((run / "summary.json").read_text())
    assert meta["interrupted"] is True and summary["interrupted"] is True
    assert summary["signal"] == sig.name and summary["timesteps"] == meta["num_timesteps"] > 0
    hint = [line for line in (run / "train.log").read_text().splitlines() if "resume=" in line][-1]
    named = hint.split("resume=")[1].split()[0]
    assert named == str(run / "final.zip") and os.path.isfile(named)
    # the same command again: refused, naming a checkpoint that exists
    again = subprocess.run([sys.executable, "-m", "trappola.cli", *argv], capture_output=True, text=True, timeout=120)
    assert again.returncode == 2 and f"resume={run / 'final.zip'}" in again.stderr


def test_a_signal_during_behaviour_cloning_stops_it_and_keeps_the_cloned_network(tmp_path):
    run = tmp_path / "a"
    cloning = ["bc=true", "bc_deals=300", "bc_workers=1", "bc_epochs=100000", "bc_batch_size=64"]
    proc = start("train", *TINY, *cloning, "total_timesteps=1000", f"out_dir={tmp_path}", "run_name=a")
    wait_for(proc, run / "train.log", "bc epoch 1/")
    proc.send_signal(signal.SIGINT)
    _, err, took = finish(proc)
    assert proc.returncode == 130 and took < STOPS_WITHIN and "Traceback" not in err, err
    meta = read_metadata(run / "final.zip")
    assert meta["interrupted"] is True and meta["num_timesteps"] == 0
    assert meta["bc"]["stopped"] is True and meta["bc"]["acc"] > 0  # cloned for at least an epoch, and kept
    assert "bc stopped in epoch" in (run / "train.log").read_text()
    # a resume continues from the cloned network and does not clone again
    resumed = subprocess.run(
        [sys.executable, "-m", "trappola.cli", "train", f"resume={run / 'final.zip'}", "total_timesteps=128"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "bc epoch" not in resumed.stdout and read_metadata(run / "final.zip")["num_timesteps"] >= 128


def test_a_signal_while_collecting_the_teachers_games_stops_at_once(tmp_path):
    run = tmp_path / "a"
    proc = start("train", *TINY, "bc=true", "bc_deals=1000000", "bc_workers=2", f"out_dir={tmp_path}", "run_name=a")
    wait_for(proc, run / "train.log", "run ")
    time.sleep(1)
    proc.send_signal(signal.SIGTERM)
    _, err, took = finish(proc)
    assert proc.returncode == 143 and took < STOPS_WITHIN and "Traceback" not in err, err
    assert "nothing cloned" in (run / "train.log").read_text()
    assert read_metadata(run / "final.zip")["interrupted"] is True and (run / "summary.json").is_file()


def test_a_signal_during_the_final_evaluation_ends_it_and_says_so(tmp_path):
    run = tmp_path / "a"
    evaluating = ["eval_deals=100000", "eval_every=0", "eval_search_deals=0", "eval_opponent=rule"]
    proc = start("train", *TINY, *evaluating, "total_timesteps=64", f"out_dir={tmp_path}", "run_name=a")
    wait_for(proc, run / "train.log", "learned 64 steps")
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    _, err, took = finish(proc)
    assert proc.returncode == 130 and took < STOPS_WITHIN and "Traceback" not in err, err
    log = (run / "train.log").read_text()
    assert "stopped by SIGINT: not evaluated" in log and "final evaluation stopped" in log
    summary = json.loads((run / "summary.json").read_text())
    assert summary["interrupted"] is True and summary["evals"] == []
    assert read_metadata(run / "final.zip")["interrupted"] is True


def test_ctrl_c_to_the_process_group_with_opponent_workers_exits_cleanly(tmp_path):
    run = tmp_path / "a"
    workers = ["vec_env=batched", "pool.rule=0.5", "opponent_workers=2"]
    argv = [*TINY, *workers, "total_timesteps=1000000", f"out_dir={tmp_path}", "run_name=a"]
    proc = start("train", *argv, group=True)
    wait_for(proc, run / "tb" / "progress.csv", "ROW")
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: every process of the group gets it
    _, err, _ = finish(proc)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "died" not in err, err
    summary = json.loads((run / "summary.json").read_text())
    assert summary["interrupted"] is True and read_metadata(run / "final.zip")["interrupted"] is True


# From the first line of the package on (a Ctrl-C before it, in the interpreter's own start-up, is Python's).
@pytest.mark.parametrize("delay", [1.0, 2.0, 4.0])
def test_ctrl_c_while_the_command_starts_prints_no_traceback(tmp_path, delay):
    proc = start("train", *TINY, "total_timesteps=1000000", f"out_dir={tmp_path}", "run_name=a")
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, err, _ = finish(proc)
    assert proc.returncode == 130 and "Traceback" not in err, err


def test_exploit_stops_on_a_signal_without_an_evaluation_and_takes_a_fresh_folder(tmp_path):
    argv = ["exploit", "--target", "random", "--minutes", "5", "--warm-start", "none", "n_envs=4", *TINY[2:6]]
    argv += ["checkpoint_every=0", f"out_dir={tmp_path}"]
    folders = []
    for sig, status in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
        before = set(tmp_path.iterdir())
        proc = start(*argv)
        deadline = time.time() + 180
        while not [p for p in set(tmp_path.iterdir()) - before if (p / "tb" / "progress.csv").is_file()]:
            assert time.time() < deadline and proc.poll() is None, proc.communicate()
            time.sleep(0.2)
        time.sleep(1)
        proc.send_signal(sig)
        out, err, _ = finish(proc)
        assert proc.returncode == status and "Traceback" not in err, err
        assert "interrupted after " in out + err and "of 5 min of training" in out + err
        assert "no evaluation" in out + err and "duplicate evaluation:" not in out + err
        (folder,) = set(tmp_path.iterdir()) - before
        folders.append(folder.name)
    assert folders[1] == folders[0] + "-2"  # the same command twice: a fresh folder, not a refusal


def test_inputs_refused_before_the_work(tmp_path):
    folder = subprocess.run(
        [sys.executable, "-m", "trappola.cli", "train", "--config", str(tmp_path)], capture_output=True, text=True
    )
    assert folder.returncode == 2 and "is a directory" in folder.stderr
    t0 = time.time()
    huge = subprocess.run(
        [sys.executable, "-m", "trappola.cli", "train", *TINY, "n_envs=10000000", f"out_dir={tmp_path}"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert huge.returncode == 2 and "GiB of memory" in huge.stderr and "Traceback" not in huge.stderr
    assert len(huge.stderr.strip().splitlines()) == 1 and time.time() - t0 < 60
    assert not (tmp_path / "ppo_selfplay").exists()


@pytest.mark.parametrize("command", [["evaluate", "--players", "random,random", "--deals", "2"], ["exploit"]])
def test_a_full_disk_under_json_is_refused_before_the_work(tmp_path, monkeypatch, capsys, command):
    from trappola.cli.main import main
    from trappola_env import atomic_file

    full = collections.namedtuple("usage", "total used free")(2**30, 2**30 - 1000, 1000)
    monkeypatch.setattr(atomic_file.shutil, "disk_usage", lambda path: full)
    if command == ["exploit"]:
        command = ["exploit", "--target", "random", "--minutes", "1"]
    assert main([*command, "--json", str(tmp_path / "out.json")]) == 2
    out, err = capsys.readouterr()
    assert "No space left on device" in err or "no space left on device" in err
    assert out == "" and not (tmp_path / "out.json").exists()
