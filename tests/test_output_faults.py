"""File-system faults give one line naming the path and the cause, exit
status 2, and leave no partial file: a read-only output folder is refused
before the run; a full disk during a write keeps the old file."""

from __future__ import annotations

import errno
import os

import pytest

from trappola.cli.main import main

FAST = "rule:answer_rollouts=0,endgame=2"


@pytest.fixture()
def read_only(monkeypatch):
    """Make every file creation under the returned folder fail with EROFS,
    as a read-only file system does (it refuses even root, so chmod cannot
    stand in for it)."""
    real_open = os.open
    roots = []

    def fake_open(path, flags, *args, **kwargs):
        if flags & os.O_CREAT and any(str(path).startswith(str(r)) for r in roots):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), path)
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", fake_open)
    return roots


def no_run(monkeypatch):
    from trappola.agents import evaluation

    def refuse(*args, **kwargs):
        raise AssertionError("the evaluation started")

    monkeypatch.setattr(evaluation, "head_to_head", refuse)


@pytest.mark.parametrize("option", ["--json", "--csv", "--save-games"])
def test_a_read_only_output_is_refused_before_the_evaluation(tmp_path, monkeypatch, capsys, read_only, option):
    read_only.append(tmp_path)
    no_run(monkeypatch)
    target = tmp_path / ("games" if option == "--save-games" else "out")
    assert main(["evaluate", "--players", f"{FAST},random", "--deals", "2", option, str(target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"cannot write {target}" in err and "Read-only file system" in err
    assert list(tmp_path.iterdir()) == []


def test_save_games_into_a_file_is_refused_before_the_evaluation(tmp_path, monkeypatch, capsys):
    (tmp_path / "f").write_text("")
    no_run(monkeypatch)
    target = tmp_path / "f" / "g"
    assert main(["evaluate", "--players", "rule,random", "--deals", "2", "--save-games", str(target)]) == 2
    assert "not a directory" in capsys.readouterr().err


def test_a_full_disk_while_writing_the_json_keeps_the_old_file(tmp_path, monkeypatch, capsys):
    out = tmp_path / "s.json"
    out.write_text('{"old": true}\n')

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    assert main(["evaluate", "--players", f"{FAST},random", "--deals", "1", "--workers", "1", "--json", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == f"trappola evaluate: error: {out}: No space left on device"
    assert "Traceback" not in err
    assert out.read_text() == '{"old": true}\n' and sorted(tmp_path.iterdir()) == [out]


def test_a_full_disk_during_training_is_one_line_and_leaves_no_temporary_file(tmp_path, monkeypatch, capsys):
    from trappola.train.run import checkpoint as checkpoint

    def full(path, data):
        # the temporary file is written, then the disk fills at its fsync
        import trappola_env.atomic_file as atomic_file

        with pytest.MonkeyPatch.context() as m:
            m.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space left on device")))
            return atomic_file.write_bytes(path, data)

    monkeypatch.setattr(checkpoint, "write_bytes", full)
    argv = [
        "train",
        "n_envs=2",
        "vec_env=dummy",
        "n_steps=64",
        "batch_size=64",
        "n_epochs=1",
        "total_timesteps=64",
        "net_arch=[8]",
        "bc=false",
        "eval_deals=0",
        "checkpoint_every=0",
        "progress_bar=false",
        "tensorboard=false",
        f"out_dir={tmp_path}",
        "run_name=a",
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == f"error: {tmp_path / 'a' / 'final.zip'}: No space left on device"
    assert "Traceback" not in err
    left = sorted(p.name for p in (tmp_path / "a").rglob("*"))
    assert "final.zip" not in left and not [n for n in left if n.endswith(".tmp")], left
