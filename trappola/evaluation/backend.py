"""Where evaluation tasks run: ``Backend.map(fn, tasks)`` returns
``[fn(t) for t in tasks]`` in task order.

``SerialBackend`` runs them in this process; ``ProcessBackend`` in a pool
of worker processes (``forkserver`` where available, else ``spawn``: no
fork of a process that may hold threads). ``fn`` must be a module-level
function and tasks picklable. Results come back in order whatever the
workers' speed, and evaluators derive all randomness from the task itself
(``seeding.derive_seed``), so the backend never changes a number.
``ray_backend.RayBackend`` runs them as Ray tasks, on this machine or a
cluster.

The evaluators take ``backend=`` as a ``Backend`` or a name, resolved by
``backend_choice.make_backend``.

A worker that dies (killed, out of memory) fails the whole ``map`` with a
``WorkerLostError``: no result list with a hole is ever returned. Every
pool worker (here, behaviour cloning's, the opponent workers) calls
``end_with_parent`` first, so that killing the main process does not leave
workers computing for nobody.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Iterable

from trappola.atomic_file import pid_running


class WorkerLostError(ChildProcessError):
    """A worker process died before returning its results (killed, out of
    memory): the work it held is lost, and nothing partial is reported.
    An ``OSError``, so the ``trappola`` command reports it in one line."""


_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def end_with_parent(main_pid: int | None = None) -> None:
    """Make this (worker) process end when ``main_pid`` (default: its
    parent) does; call it first in a worker (a pool's ``initializer``).

    For a direct child, the kernel's parent-death signal (Linux). A worker
    of the ``forkserver`` start method is a child of the fork server, which
    stays up as long as any worker holds its liveness pipe, so neither
    would notice the main process dying: there (and off Linux) a daemon
    thread polls ``main_pid`` twice a second."""
    parent = os.getppid()
    main_pid = parent if main_pid is None else main_pid
    if main_pid == parent and sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
            if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0:
                if os.getppid() != parent:  # the parent died before the signal was armed
                    os._exit(1)
                return
        except (OSError, AttributeError):
            pass

    def watch():
        while os.getppid() == parent and pid_running(main_pid):
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="end-with-parent", daemon=True).start()


class Backend:
    workers = 1

    def map(self, fn: Callable, tasks: Iterable, progress: Callable | None = None) -> list:
        """``[fn(t) for t in tasks]``; ``progress(result)`` is called as
        each result arrives (in order)."""
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class SerialBackend(Backend):
    def map(self, fn, tasks, progress=None):
        out = []
        for t in tasks:
            r = fn(t)
            out.append(r)
            if progress is not None:
                progress(r)
        return out


class ProcessBackend(Backend):
    """A pool of ``workers`` processes, started on first use and kept until
    ``close()`` (or the ``with`` block ends)."""

    def __init__(self, workers: int | None = None, context: str | None = None):
        workers = default_workers() if workers is None else workers
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be a positive int, got {workers!r}")
        self.workers = workers
        methods = mp.get_all_start_methods()
        self.context = context or ("forkserver" if "forkserver" in methods else "spawn")
        if self.context not in methods:
            raise ValueError(f"start method {self.context!r} not available here; choose from {methods}")
        self._pool = None

    def map(self, fn, tasks, progress=None):
        tasks = list(tasks)
        if not tasks:
            return []
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers, mp_context=mp.get_context(self.context),
                                             initializer=end_with_parent, initargs=(os.getpid(),))
        out = []
        try:
            for r in self._pool.map(fn, tasks):
                out.append(r)
                if progress is not None:
                    progress(r)
        except BrokenProcessPool:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
            raise WorkerLostError(f"a worker process died (killed, or out of memory) after {len(out)} of "
                                  f"{len(tasks)} tasks; no results are reported") from None
        return out

    def close(self):
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)
