"""One folder per run: an existing run is refused unless ``overwrite=true``
or resumed from inside it (keeping its best score); bad settings and
failed start-ups write nothing."""

from __future__ import annotations

import errno
import json
import os
import shutil

import pytest

from trappola.agents.model_io.checkpoint_format import read_metadata
from trappola.train.rllib.config import RLlibConfig
from trappola.train.run.checkpoint import write_metadata
from trappola.train.run.config import field_help
from trappola.train.run.config_file import load_config
from trappola.train.run.log import RunDirError, check_run_dir, open_run
from trappola.train.sb3.config import TrainConfig
from trappola.train.sb3.ppo_selfplay import train
from trappola.train.train_command import cli_main

TINY = [
    "n_envs=2",
    "vec_env=dummy",
    "n_steps=64",
    "batch_size=64",
    "n_epochs=1",
    "total_timesteps=128",
    "net_arch=[16]",
    "bc=false",
    "eval_every=128",
    "eval_deals=2",
    "snapshot_every=64",
    "checkpoint_every=128",
    "progress_bar=false",
    "max_minutes=0",
    "tensorboard=false",
]


def tiny(tmp_path, name, *extra):
    return load_config(None, TINY + [f"out_dir={tmp_path}", f"run_name={name}", *extra])


def quiet(msg):
    pass


@pytest.fixture(scope="module")
def run_a(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("runs")
    return tmp, train(tiny(tmp, "a"), log=quiet)


def test_a_second_run_into_the_same_folder_is_refused_and_changes_nothing(run_a):
    tmp, _ = run_a
    before = {p.name: p.read_bytes() for p in (tmp / "a").iterdir() if p.is_file()}
    with pytest.raises(RunDirError, match="already holds a run"):
        train(tiny(tmp, "a", "seed=1"), log=quiet)
    assert {p.name: p.read_bytes() for p in (tmp / "a").iterdir() if p.is_file()} == before


def test_the_cli_refuses_it_in_one_line(run_a, capsys):
    tmp, _ = run_a
    assert cli_main(TINY + [f"out_dir={tmp}", "run_name=a"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "overwrite=true" in err and str(tmp / "a") in err


def test_overwrite_replaces_the_old_run_whole(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "train.log").write_text("the old run's log\n")
    (tmp_path / "a" / "stale.zip").write_text("x")
    summary = train(tiny(tmp_path, "a", "overwrite=true", "eval_deals=0", "checkpoint_every=0"), log=quiet)
    assert not (tmp_path / "a" / "stale.zip").exists()
    log = (tmp_path / "a" / "train.log").read_text()
    assert "the old run" not in log
    assert (tmp_path / "a" / "final.zip").is_file()
    # eval_deals=0: no evaluation, reported as such (it printed "score -1.000", or crashed with eval_every set)
    assert not (tmp_path / "a" / "best.zip").exists() and summary["best_score"] is None and not summary["evals"]
    assert "no evaluation" in log and "-1.000" not in log


def test_a_resume_inside_the_folder_continues_it_and_keeps_its_best_score(run_a):
    tmp, first = run_a
    best = tmp / "a" / "best.zip"
    meta = read_metadata(best)
    meta["eval"]["rule"]["score"] = 1.0  # the top score: no evaluation of the resumed run can beat it
    write_metadata(best, meta)
    kept = best.read_bytes()
    # total_timesteps is the run's whole length: the resumed run trains the 128 steps left of 256
    summary = train(tiny(tmp, "a", f"resume={tmp / 'a' / 'last.zip'}", "total_timesteps=256"), log=quiet)
    assert first["timesteps"] == 128 and summary["timesteps"] == 256 and summary["evals"]
    assert best.read_bytes() == kept and summary["best_score"] == 1.0 and summary["best"] == str(best)
    assert json.loads((tmp / "a" / "summary.json").read_text())["timesteps"] == summary["timesteps"]


def test_a_resume_from_another_folder_into_an_existing_run_is_refused(run_a, tmp_path):
    tmp, _ = run_a
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "best.zip").write_text("someone's")
    with pytest.raises(RunDirError):
        check_run_dir(tiny(tmp_path, "b", f"resume={tmp / 'a' / 'final.zip'}"))


@pytest.mark.parametrize(
    "bad",
    [
        "run_name=",
        "run_name=../x",
        "run_name=a/b",
        "run_name=..",
        "seed=-5",
        "seed=4294967296",
        "net_arch=[256, true]",
        "net_arch=[0]",
        "overwrite=1",
    ],
)
def test_bad_settings_are_refused_before_anything_is_written(tmp_path, capsys, bad):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "config.yaml").write_text("the old run's\n")
    assert cli_main(TINY + [f"out_dir={tmp_path}", "run_name=a", "overwrite=true", bad]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert (tmp_path / "a" / "config.yaml").read_text() == "the old run's\n"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a", "config.yaml"]


def test_the_rllib_config_shares_the_checks():
    for bad in ({"run_name": "../x"}, {"seed": -5}, {"net_arch": [256, True]}):
        with pytest.raises(ValueError):
            RLlibConfig(**bad)


def test_a_failed_start_up_writes_no_run_folder(tmp_path, monkeypatch):
    from trappola.train.sb3 import vec

    def broken(cfg, **kwargs):
        raise RuntimeError("the environments did not start")

    monkeypatch.setattr(vec, "make_vec_env", broken)
    with pytest.raises(RuntimeError):
        train(tiny(tmp_path, "a"), log=quiet)
    assert not (tmp_path / "a").exists()


def test_an_out_dir_that_is_a_file_or_read_only_is_refused_before_the_run(tmp_path, monkeypatch, capsys):
    (tmp_path / "f").write_text("")
    with pytest.raises(RunDirError, match="not a directory"):
        check_run_dir(tiny(tmp_path / "f", "a"))
    real_open = os.open

    def read_only(path, flags, *args):  # a read-only file system refuses even root
        if flags & os.O_CREAT:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), path)
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", read_only)
    assert cli_main(TINY + [f"out_dir={tmp_path / 'ro'}", "run_name=a"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Read-only file system" in err and str(tmp_path) in err
    assert sorted(tmp_path.iterdir()) == [tmp_path / "f"]


def test_stale_temporary_files_anywhere_in_the_run_folder_are_removed_at_start(tmp_path):
    run = tmp_path / "a"
    (run / "checkpoints").mkdir(parents=True)
    (run / "final.zip").write_bytes(b"a checkpoint to resume from")
    dead = 2**22 + 1  # above Linux's largest pid: no process has it
    stale = [run / "checkpoints" / f".640.zip.{dead}.0a1b2c3d.tmp", run / "tb" / f".progress.csv.{dead}.00ff00ff.tmp"]
    stale[1].parent.mkdir()
    live = run / f".best.zip.{os.getpid()}.12345678.tmp"  # a writer at work: kept
    for path in [*stale, live]:
        path.write_bytes(b"half a file")
    _, _, log_file = open_run(tiny(tmp_path, "a", f"resume={run / 'final.zip'}"), log=quiet)
    log_file.close()
    assert not any(p.exists() for p in stale) and live.exists()


def test_overwrite_renames_the_old_run_aside_before_deleting_it(tmp_path, monkeypatch):
    run = tmp_path / "a"
    run.mkdir()
    (run / "train.log").write_text("the old run's log\n")
    (run / "final.zip").write_text("the old run's")

    def interrupted(path, *args, **kwargs):
        raise KeyboardInterrupt  # Ctrl-C while the old run is deleted

    monkeypatch.setattr(shutil, "rmtree", interrupted)
    with pytest.raises(KeyboardInterrupt):
        open_run(tiny(tmp_path, "a", "overwrite=true"), log=quiet)
    # no half run under the run's name: the old one is whole, aside
    assert not run.exists()
    (aside,) = tmp_path.iterdir()
    assert sorted(p.name for p in aside.iterdir()) == ["final.zip", "train.log"]
    monkeypatch.undo()
    # a later run finishes deleting what a process that is gone left aside
    left = tmp_path / f".a.{2**22 + 1}.0a1b2c3d.removing"
    aside.rename(left)
    _, _, log_file = open_run(tiny(tmp_path, "a"), log=quiet)
    log_file.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a"]


def test_total_timesteps_is_the_run_length_in_the_help_and_on_resume():
    # on resume it is the total the run reaches, not steps added (tested by the resume above)
    for cls in (TrainConfig, RLlibConfig):
        assert "Length of the run" in field_help(cls, "total_timesteps")
    assert "continues up to this total" in field_help(TrainConfig, "total_timesteps")
