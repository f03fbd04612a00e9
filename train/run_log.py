"""The run folder a training writes: its ``config.yaml`` and a ``train.log``
that every progress line also goes to (shared by the SB3 and RLlib paths)."""
from __future__ import annotations

import time

import yaml

from trappola_env.atomic_file import write_text


def open_run(cfg, log=None):
    """Create ``cfg.run_dir``, write the settings used, and return
    ``(run_dir, say, log_file)``: ``say(msg)`` prints a time-stamped line to
    ``log`` (default ``print``) and to ``train.log``; close ``log_file`` at the end."""
    run_dir = cfg.run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    write_text(run_dir / "config.yaml", yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    log_file = open(run_dir / "train.log", "a")

    def say(msg: str) -> None:
        line = f"{time.strftime('%H:%M:%S')} {msg}"
        print(line, file=log_file, flush=True)
        (log or print)(line)

    return run_dir, say, log_file
