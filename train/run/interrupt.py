"""Stop signals during a training run, the same for both trainers.

The first SIGINT (Ctrl-C), SIGTERM (``timeout``, ``docker stop``, Slurm,
Kubernetes) or SIGHUP (a closed terminal) asks the run to stop: the
trainer ends what it is doing at its next step (PPO, behaviour cloning,
the final evaluation), saves ``final.zip`` (metadata ``interrupted: true``
and the exact step count) and ``summary.json``, and ``trappola train``
exits with status 128 + the signal's number (130 for SIGINT, 143 for
SIGTERM, 129 for SIGHUP); ``resume=.../final.zip`` continues it. A second
signal exits at once with that status: every file the run writes is
written atomically, so the last complete ones stay (a temporary file it
leaves is removed when a run next opens the folder). Processes forked
from the trainer (its environment workers) ignore them: the trainer stops
them.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading

#: The exit status of a run interrupted by Ctrl-C (128 + SIGINT, as a shell reports it).
INTERRUPTED_STATUS = 130
#: The signals that stop a run, saved.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def exit_status(signal_name: str | None) -> int:
    """The exit status of a run stopped by ``signal_name`` ("SIGTERM"...):
    128 + its number, as a shell reports it (130 when unknown)."""
    try:
        return 128 + int(signal.Signals[signal_name or "SIGINT"])
    except KeyError:
        return INTERRUPTED_STATUS


class Stopped(KeyboardInterrupt):
    """A command stopped by a stop signal after saving what it had; ``status`` is its exit status
    (``exit_status``: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP)."""

    def __init__(self, signal_name: str | None):
        super().__init__(signal_name or "SIGINT")
        self.status = exit_status(signal_name)


class StopOnInterrupt:
    """A context manager catching the stop signals while a run trains
    (module docstring); ``requested`` is True once the first one came,
    ``signal_name`` names it ("SIGINT", "SIGTERM", "SIGHUP"). Inside
    ``raising()`` the first signal also raises ``KeyboardInterrupt`` (so a
    long step with no check of ``requested`` stops at once). Outside the main
    thread, where Python cannot take signals, it does nothing."""

    def __init__(self):
        self.requested = False
        self.signal_name: str | None = None
        self.pid = os.getpid()
        self._previous: dict = {}
        self._raising = False

    def watch(self) -> StopOnInterrupt:
        """Start catching the stop signals; returns itself."""
        if threading.current_thread() is threading.main_thread():
            for sig in STOP_SIGNALS:
                self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def release(self) -> None:
        """Give the signals back to the handlers they had before ``watch``."""
        for sig, previous in self._previous.items():
            signal.signal(sig, previous)
        self._previous = {}

    @contextlib.contextmanager
    def raising(self):
        """A block in which a stop signal raises ``KeyboardInterrupt`` (a
        signal that came before it raises at its start)."""
        if self.requested:
            raise KeyboardInterrupt
        self._raising = True
        try:
            yield
        finally:
            self._raising = False

    def __enter__(self) -> StopOnInterrupt:
        return self.watch()

    def __exit__(self, *exc) -> None:
        self.release()

    def _handle(self, signum, frame) -> None:
        if os.getpid() != self.pid:  # a forked worker: the trainer decides
            return
        name = signal.Signals(signum).name
        if self.requested:
            sys.stderr.write(f"interrupted again ({name}): exiting now; the run's files are as last written\n")
            sys.stderr.flush()
            os._exit(exit_status(name))
        self.requested = True
        self.signal_name = name
        sys.stderr.write(f"interrupted: {name}: saving final.zip at the next step (a second signal exits at once)\n")
        sys.stderr.flush()
        if self._raising:
            self._raising = False
            raise KeyboardInterrupt
