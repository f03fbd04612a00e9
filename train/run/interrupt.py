"""Ctrl-C during a training run, the same for both trainers.

The first SIGINT asks the run to stop: the trainer ends learning at its
next step, saves ``final.zip`` (metadata ``interrupted: true`` and the
exact step count) and ``summary.json``, and ``trappola train`` exits with
status 130; ``resume=.../final.zip`` continues it. A second SIGINT exits
at once with status 130: every file the run writes is written atomically,
so the last complete ones stay (a temporary file it leaves is removed when
a run next opens the folder). Processes forked from the trainer (its
environment workers) ignore both: the trainer stops them.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

#: The exit status of an interrupted run (128 + SIGINT, as a shell reports it).
INTERRUPTED_STATUS = 130


class StopOnInterrupt:
    """A context manager catching SIGINT while a run trains (module
    docstring); ``requested`` is True once the first one came. Outside the
    main thread, where Python cannot take signals, it does nothing."""

    def __init__(self):
        self.requested = False
        self.pid = os.getpid()
        self._previous = None

    def watch(self) -> StopOnInterrupt:
        """Start catching SIGINT; returns itself."""
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def release(self) -> None:
        """Give SIGINT back to the handler it had before ``watch``."""
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None

    def __enter__(self) -> StopOnInterrupt:
        return self.watch()

    def __exit__(self, *exc) -> None:
        self.release()

    def _handle(self, signum, frame) -> None:
        if os.getpid() != self.pid:  # a forked worker: the trainer decides
            return
        if self.requested:
            sys.stderr.write("interrupted again: exiting now; the run's files are as last written\n")
            sys.stderr.flush()
            os._exit(INTERRUPTED_STATUS)
        self.requested = True
        sys.stderr.write("interrupted: saving final.zip at the next step (Ctrl-C again to exit at once)\n")
        sys.stderr.flush()
