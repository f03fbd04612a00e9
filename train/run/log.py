"""The run folder a training writes: one folder per run, its ``config.yaml``
and a ``train.log`` that every progress line also goes to (shared by the
SB3 and RLlib paths).

A run never writes into another run's folder by accident: ``check_run_dir``
refuses an existing, non-empty ``out_dir/run_name`` unless the config says
``overwrite=true`` (the old folder is then renamed aside in one step and
deleted, so no file of the old run is mixed into the new one, and an
interruption leaves either the old run whole or none) or the run resumes
from a checkpoint inside that folder (it then continues the folder: its
``train.log`` grows, its ``config.yaml`` stays and the resume's settings go
to ``config.resume-<steps>.yaml`` beside it, each change to the resumed
run's settings a line of ``train.log``, and the best score of its
``best.zip`` is kept when the evaluations play the same deals).
Temporary files that killed writers left anywhere in the folder are
removed when a run opens it. A failed write to ``train.log`` raises an
``OSError`` naming it; later lines then go to the console only.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import threading
import time
from pathlib import Path

import yaml

from trappola.agents.model_io.checkpoint_format import read_metadata
from trappola.train.run.resume import resume_changes
from trappola_env.atomic_file import (
    check_can_write,
    describe_os_error,
    pid_running,
    remove_stale_temps_under,
    write_text,
)

#: The suffix of an old run folder being deleted under ``overwrite=true``.
REMOVING_SUFFIX = ".removing"


class RunDirError(ValueError):
    """A run folder that cannot be used, with the reason."""


def resumes_into(cfg) -> bool:
    """Whether ``cfg`` resumes from a checkpoint inside its own run folder."""
    resume = getattr(cfg, "resume", "")
    if not resume:
        return False
    return Path(resume).expanduser().resolve().is_relative_to(cfg.run_dir.resolve())


def check_run_dir(cfg) -> None:
    """Raise ``RunDirError`` unless ``cfg.run_dir`` can take this run: it
    must not be a file, its nearest existing folder must be writable, and
    an existing non-empty folder needs ``overwrite=true`` or a resume from
    inside it. Writes nothing."""
    run_dir = cfg.run_dir
    try:
        check_can_write(run_dir, folder=True)
    except OSError as exc:
        raise RunDirError(f"cannot write the run to {run_dir}: {describe_os_error(exc)}") from None
    if run_dir.is_dir() and any(run_dir.iterdir()) and not resumes_into(cfg) and not getattr(cfg, "overwrite", False):
        kept = [run_dir / name for name in ("final.zip", "last.zip") if (run_dir / name).is_file()]
        resume = f"continue it with resume={kept[0]}, " if kept else "(it has no checkpoint to continue) "
        raise RunDirError(
            f"run folder {run_dir} already holds a run; choose another run_name, {resume}or replace it with "
            "overwrite=true"
        )


def open_run(cfg, log=None):
    """Check the run folder (``check_run_dir``), create it (removing an old
    one first under ``overwrite=true``), write the settings used, and return
    ``(run_dir, say, log_file)``: ``say(msg)`` prints a time-stamped line to
    ``log`` (default ``print``) and to ``train.log``; close ``log_file`` at the end."""
    check_run_dir(cfg)
    run_dir = cfg.run_dir
    remove_old_runs(run_dir)
    if getattr(cfg, "overwrite", False) and run_dir.is_dir() and not resumes_into(cfg):
        remove_run(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    remove_stale_temps_under(run_dir)
    changed = resume_changes(cfg)
    settings = run_dir / "config.yaml"
    if settings.is_file() and resumes_into(cfg):  # the run's own settings stay; each resume's go beside them
        steps = read_metadata(cfg.resume).get("num_timesteps", 0)
        settings = run_dir / f"config.resume-{steps}.yaml"
    header = "".join(f"# changed on resuming: {line}\n" for line in changed)
    write_text(settings, header + yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    path = run_dir / "train.log"
    try:
        log_file = open(path, "a")  # noqa: SIM115 (open for the whole run; RunRecorder.close closes it)
    except OSError as exc:
        raise naming(exc, path) from None

    def say(msg: str) -> None:
        line = f"{time.strftime('%H:%M:%S')} {msg}"
        if not log_file.closed:
            try:
                print(line, file=log_file, flush=True)
            except OSError as exc:
                # The console still gets the lines: the run's last save and its error say what happened.
                with contextlib.suppress(OSError):
                    log_file.close()
                (log or print)(line)
                raise naming(exc, path) from None
        (log or print)(line)

    if getattr(cfg, "resume", ""):
        say(f"resuming {cfg.resume}: " + (f"{len(changed)} setting(s) changed" if changed else "no setting changed"))
    for line in changed:
        say(f"  {line}")
    return run_dir, say, log_file


def remove_run(run_dir: Path) -> None:
    """Delete the folder ``run_dir``: renamed aside first (one atomic
    step), then removed, so an interruption leaves no half run under its
    name (``remove_old_runs`` finishes the job later)."""
    aside = run_dir.with_name(f".{run_dir.name}.{os.getpid()}.{secrets.token_hex(4)}{REMOVING_SUFFIX}")
    os.rename(run_dir, aside)
    shutil.rmtree(aside)


def remove_old_runs(run_dir: Path) -> None:
    """Finish deleting old folders of ``run_dir`` that an interrupted
    ``remove_run`` left (their process is gone)."""
    prefix = f".{run_dir.name}."
    try:
        entries = list(os.scandir(run_dir.parent))
    except OSError:
        return
    for entry in entries:
        parts = entry.name[len(prefix) : -len(REMOVING_SUFFIX)].split(".")
        if (
            entry.name.startswith(prefix)
            and entry.name.endswith(REMOVING_SUFFIX)
            and parts[0].isdigit()
            and not pid_running(int(parts[0]))
        ):
            shutil.rmtree(entry.path, ignore_errors=True)


def quiet_tensorboard_threads() -> None:
    """Keep TensorBoard's writer threads from printing a traceback when a
    write fails (a full disk): the writer raises the same error at its
    next call in the training thread, where the run reports it in one line
    and saves. Other threads' errors are printed as before."""
    previous = threading.excepthook
    if getattr(previous, "quiets_tensorboard", False):
        return

    def hook(args) -> None:
        if not type(args.thread).__module__.startswith("tensorboard."):
            previous(args)

    hook.quiets_tensorboard = True  # type: ignore[attr-defined]  # a mark read above, so it installs once
    threading.excepthook = hook


def naming(exc: OSError, path: Path) -> OSError:
    """``exc`` naming ``path`` when it names no file (a failed write or
    flush of an open file names none)."""
    if exc.filename is not None or exc.errno is None:
        return exc
    return OSError(exc.errno, exc.strerror, str(path))
