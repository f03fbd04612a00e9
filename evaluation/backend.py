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
"""
from __future__ import annotations

import multiprocessing as mp
import os
from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Iterable


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
            self._pool = ProcessPoolExecutor(self.workers, mp_context=mp.get_context(self.context))
        out = []
        for r in self._pool.map(fn, tasks):
            out.append(r)
            if progress is not None:
                progress(r)
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
