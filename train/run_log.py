"""The run folder a training writes: one folder per run, its ``config.yaml``
and a ``train.log`` that every progress line also goes to (shared by the
SB3 and RLlib paths).

A run never writes into another run's folder by accident: ``check_run_dir``
refuses an existing, non-empty ``out_dir/run_name`` unless the config says
``overwrite=true`` (the old folder is then removed first, so no file of
the old run is mixed into the new one) or the run resumes from a
checkpoint inside that folder (it then continues the folder: its
``train.log`` grows, and the best score of its ``best.zip`` is kept).
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import yaml

from trappola_env.atomic_file import check_can_write, describe_os_error, write_text


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
        raise RunDirError(
            f"run folder {run_dir} already holds a run; choose another run_name, continue it with "
            f"resume={run_dir / 'last.zip'}, or replace it with overwrite=true"
        )


def open_run(cfg, log=None):
    """Check the run folder (``check_run_dir``), create it (removing an old
    one first under ``overwrite=true``), write the settings used, and return
    ``(run_dir, say, log_file)``: ``say(msg)`` prints a time-stamped line to
    ``log`` (default ``print``) and to ``train.log``; close ``log_file`` at the end."""
    check_run_dir(cfg)
    run_dir = cfg.run_dir
    if getattr(cfg, "overwrite", False) and run_dir.is_dir() and not resumes_into(cfg):
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    write_text(run_dir / "config.yaml", yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    # The log stays open for the whole run and the caller closes it, so no `with` block can hold it.
    log_file = open(run_dir / "train.log", "a")  # noqa: SIM115

    def say(msg: str) -> None:
        line = f"{time.strftime('%H:%M:%S')} {msg}"
        print(line, file=log_file, flush=True)
        (log or print)(line)

    return run_dir, say, log_file
