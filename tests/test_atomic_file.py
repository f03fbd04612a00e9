"""``trappola_env.atomic_file``: a file is replaced whole or left as it was."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from trappola_env.atomic_file import atomic_write, is_temp_name, write_bytes, write_text


def test_write_replaces_the_whole_file(tmp_path):
    p = tmp_path / "a.json"
    write_text(p, "old content that is longer")
    write_text(p, "new")
    assert p.read_text() == "new"
    assert os.listdir(tmp_path) == ["a.json"]


def test_an_error_mid_write_keeps_the_old_file_and_leaves_no_temp(tmp_path):
    p = tmp_path / "a.bin"
    write_bytes(p, b"good")
    with pytest.raises(RuntimeError), atomic_write(p, "wb") as f:
        f.write(b"half")
        raise RuntimeError("disk full")
    assert p.read_bytes() == b"good"
    assert os.listdir(tmp_path) == ["a.bin"]


def test_a_failure_before_any_file_exists_creates_nothing(tmp_path):
    with pytest.raises(KeyboardInterrupt), atomic_write(tmp_path / "new.txt") as f:
        f.write("x")
        raise KeyboardInterrupt
    assert os.listdir(tmp_path) == []


def test_permissions_follow_the_umask_like_open(tmp_path):
    old = os.umask(0o022)
    try:
        write_text(tmp_path / "a.txt", "x")
    finally:
        os.umask(old)
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o644


def test_temp_names_are_recognisable_and_bad_modes_refused(tmp_path):
    with atomic_write(tmp_path / "a.txt") as f:
        names = os.listdir(tmp_path)
        f.write("x")
    assert len(names) == 1 and is_temp_name(names[0]) and not is_temp_name("a.txt")
    with pytest.raises(ValueError, match="mode"), atomic_write(tmp_path / "b.txt", "a"):
        pass
    with pytest.raises(FileNotFoundError):
        write_text(tmp_path / "missing" / "c.txt", "x")


def test_every_writer_killed_at_random_points_leaves_complete_files(tmp_path):
    """The checkpoint, ``--json``, ``--csv``, ``--save-games``, belief ``.npz`` and
    ``config.yaml`` writers, SIGKILLed mid-loop 16 times (before atomic writes,
    about two kills in three broke one of them)."""
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run(
        [sys.executable, str(root / "tests" / "writers_under_kill.py"), str(tmp_path), "16", "3"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["kills"] == 16 and report["broken"] == []


def test_a_full_disk_names_the_target_and_leaves_nothing(tmp_path, monkeypatch):
    import errno

    from trappola_env.atomic_file import describe_os_error

    real_fsync = os.fsync

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError) as info:
        write_text(tmp_path / "final.json", "x" * 100)
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert info.value.errno == errno.ENOSPC
    assert describe_os_error(info.value) == f"{tmp_path / 'final.json'}: No space left on device"
    assert os.listdir(tmp_path) == []


def test_a_killed_writers_temporary_file_is_removed_by_the_next_write(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / f".best.zip.{int(dead.stdout)}.0123abcd.tmp"
    live = tmp_path / f".best.zip.{os.getppid()}.0123abcd.tmp"  # a running process's: kept
    other = tmp_path / f".last.zip.{int(dead.stdout)}.0123abcd.tmp"  # another target's: not this write's business
    for p in (stale, live, other):
        p.write_bytes(b"half a checkpoint")
    write_bytes(tmp_path / "best.zip", b"whole")
    assert sorted(os.listdir(tmp_path)) == sorted(["best.zip", live.name, other.name])
