"""Where work runs: ``Backend.map(fn, tasks)`` returns ``[fn(t) for t in
tasks]`` in task order; ``WorkerProcesses`` is the one mechanism that runs
work in other processes.

``SerialBackend`` runs the tasks in this process; ``ProcessBackend`` in
``WorkerProcesses`` (``forkserver`` where available, else ``spawn``: no fork
of a process that may hold threads; the fork server loads ``PRELOAD`` first,
so that workers start warm; ``fn`` must then be a module-level
function and tasks picklable). ``ProcessBackend(context="fork")`` forks its
workers for each new ``fn``, which they inherit: closures and unpicklable
players work there (the Pro benches), only tasks and results are pickled.
Results come back in order whatever the workers' speed, and the callers
derive all randomness from the task itself (``seeding.derive_seed``), so
the backend never changes a number. ``ray_backend.RayBackend`` runs them
as Ray tasks, on this machine or a cluster.

The evaluators take ``backend=`` as a ``Backend`` or a name, resolved by
``backend_choice.make_backend``.

``WorkerProcesses`` are persistent workers with one pipe each: a caller
that needs work pinned to one worker (``train``'s ``OpponentWorkers``: each
game always by the same worker, which keeps that game's state) calls
``send(k, fn, arg)`` / ``recv(k)`` on them directly. A worker that dies
(killed, out of memory) raises ``WorkerLostError``: a ``map`` then fails
whole, no result list with a hole is ever returned. Every worker calls
``end_with_parent`` first, so that killing the main process does not leave
workers computing for nobody.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from multiprocessing.connection import wait
from typing import Any

from trappola_env.atomic_file import pid_running

#: The module the fork server imports before forking workers (``trappola.agents.evaluation.preload``).
PRELOAD = "trappola.agents.evaluation.preload"


class WorkerLostError(ChildProcessError):
    """A worker process died before returning its results (killed, out of
    memory): the work it held is lost, and nothing partial is reported.
    An ``OSError``, so the ``trappola`` command reports it in one line."""


class WorkerTaskError(RuntimeError):
    """A task raised in a worker and its exception could not be sent back
    as it was; the message holds the worker's traceback."""


_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def end_with_parent(main_pid: int | None = None) -> None:
    """Make this (worker) process end when ``main_pid`` (default: its
    parent) does; ``WorkerProcesses`` call it first in every worker.

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


_INHERITED = None  # what a worker's initializer left for its calls (a forked map's fn, opponents' state)


def inherited():
    """In a worker: what its ``initializer`` returned (see ``WorkerProcesses``)."""
    return _INHERITED


def _call_inherited(task):
    return _INHERITED(task)


def _serve(conn, main_pid: int, initializer, initargs) -> None:
    """A worker: answers ``(fn, arg)`` messages with ``("ok", fn(arg))`` or
    ``("error", exception, traceback)`` until it receives ``None``. Stop
    signals are the parent's to act on (a Ctrl-C or a job's SIGTERM reaches
    the whole process group): the worker ignores them and the parent ends it."""
    global _INHERITED
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    end_with_parent(main_pid)
    if initializer is not None:
        _INHERITED = initializer(*initargs)
    while True:
        try:
            msg = conn.recv()
        except (EOFError, KeyboardInterrupt):
            return
        except Exception:  # a task that does not unpickle here (a class this process cannot import)
            conn.send(("error", None, traceback.format_exc()))
            continue
        if msg is None:
            return
        fn, arg = msg
        try:
            reply: tuple[Any, ...] = ("ok", fn(arg))
        except Exception as exc:  # the caller raises it, with this traceback
            reply = ("error", exc, traceback.format_exc())
        try:
            conn.send(reply)
        except Exception:  # an exception or result that does not pickle
            conn.send(("error", None, traceback.format_exc()))


class WorkerProcesses:
    """``n`` persistent worker processes of start method ``context``, each
    with its own pipe. ``initializer(*initargs)`` runs first in each worker
    (``initargs`` may depend on the worker: pass ``per_worker(k) ->
    initargs`` instead); what it returns is the worker's ``inherited()``.
    With ``fork`` nothing of it is pickled. ``send(k, fn, arg)`` asks worker
    ``k`` for ``fn(arg)``, ``recv(k)`` returns it (or raises what ``fn``
    raised); a dead worker raises ``WorkerLostError``."""

    def __init__(self, n: int, context: str, initializer=None, initargs=(), per_worker=None, name="worker"):
        self.n = n
        self.name = name
        ctx: Any = mp.get_context(context)  # typeshed's BaseContext has no Process; each start method's has
        self.conns, self.procs = [], []
        main = os.getpid()
        try:
            for k in range(n):
                parent, child = ctx.Pipe()
                args = per_worker(k) if per_worker is not None else initargs
                proc = ctx.Process(
                    target=_serve, name=f"{name}-{k}", daemon=True, args=(child, main, initializer, args)
                )
                proc.start()
                child.close()
                self.conns.append(parent)
                self.procs.append(proc)
        except BaseException:
            self.close()
            raise

    def send(self, k: int, fn, arg) -> None:
        """Ask worker ``k`` for ``fn(arg)``."""
        try:
            self.conns[k].send((fn, arg))
        except OSError:  # a broken pipe: the worker is gone
            raise self.lost([k]) from None

    def recv(self, k: int):
        """Worker ``k``'s answer to its last ``send``."""
        try:
            reply = self.conns[k].recv()
        except (EOFError, OSError):
            raise self.lost([k]) from None
        if reply[0] == "ok":
            return reply[1]
        _, exc, tb = reply
        if exc is None:
            raise WorkerTaskError(f"{self.name} {k} failed:\n{tb}")
        raise exc from WorkerTaskError(f"in {self.name} {k}:\n{tb}")

    def ready(self, ks) -> list[int]:
        """Which of workers ``ks`` have an answer (or died), waiting for one."""
        by_conn = {self.conns[k]: k for k in ks}
        return sorted(by_conn[c] for c in wait(list(by_conn)))

    def lost(self, ks) -> WorkerLostError:
        """The error for dead workers ``ks``."""
        for k in ks:
            self.procs[k].join(timeout=1)
        dead = "; ".join(f"{self.name} {k} died (exit code {self.procs[k].exitcode})" for k in ks)
        return WorkerLostError(dead)

    def close(self, wait_s: float = 5.0) -> None:
        """Stop every worker and return once they are gone."""
        for conn in self.conns:
            with contextlib.suppress(OSError):  # a worker already gone
                conn.send(None)
        for proc in self.procs:
            proc.join(timeout=wait_s)
            if proc.is_alive():  # busy with a task, or stuck: workers ignore SIGTERM, so SIGKILL
                proc.kill()
                proc.join()
        for conn in self.conns:
            conn.close()
        self.conns, self.procs = [], []


class Backend:
    """Where ``map`` runs its tasks (see the module docstring)."""

    workers = 1

    def map(self, fn: Callable, tasks: Iterable, progress: Callable | None = None) -> list:
        """``[fn(t) for t in tasks]``; ``progress(result)`` is called as
        each result arrives (in order)."""
        raise NotImplementedError

    def close(self) -> None:
        """Free what the backend holds (workers, a Ray instance)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class SerialBackend(Backend):
    """Runs every task here, in order."""

    def map(self, fn, tasks, progress=None):
        out = []
        for t in tasks:
            r = fn(t)
            out.append(r)
            if progress is not None:
                progress(r)
        return out


class ProcessBackend(Backend):
    """``workers`` ``WorkerProcesses``, started on first use and kept until
    ``close()`` (or the ``with`` block ends); with ``context="fork"``,
    started afresh for each new ``fn``, which they inherit."""

    def __init__(self, workers: int | None = None, context: str | None = None):
        workers = default_workers() if workers is None else workers
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be a positive int, got {workers!r}")
        self.workers = workers
        methods = mp.get_all_start_methods()
        self.context = context or ("forkserver" if "forkserver" in methods else "spawn")
        if self.context not in methods:
            raise ValueError(f"start method {self.context!r} not available here; choose from {methods}")
        self._pool: WorkerProcesses | None = None
        self._forked_fn = None
        if self.context == "forkserver":
            # Workers then start with the imports and compiled code loaded (preload's docstring).
            # Ignored if this process's fork server is already running.
            mp.get_context("forkserver").set_forkserver_preload([PRELOAD])

    def _workers_for(self, fn):
        """The workers and the function to send them for ``fn``."""
        if self.context != "fork":
            if self._pool is None:
                self._pool = WorkerProcesses(self.workers, self.context, name="worker process")
            return fn
        if self._pool is None or self._forked_fn is not fn:
            self.close()
            self._pool = WorkerProcesses(self.workers, "fork", initializer=lambda: fn, name="worker process")
            self._forked_fn = fn
        return _call_inherited

    def map(self, fn, tasks, progress=None):
        tasks = list(tasks)
        if not tasks:
            return []
        call = self._workers_for(fn)
        pool = self._pool
        results: dict[int, object] = {}
        busy: dict[int, int] = {}  # worker -> task index
        queued = iter(range(len(tasks)))
        out = []
        try:
            for k in range(min(pool.n, len(tasks))):
                i = next(queued)
                pool.send(k, call, tasks[i])
                busy[k] = i
            while busy:
                for k in pool.ready(list(busy)):
                    results[busy.pop(k)] = pool.recv(k)
                    i = next(queued, None)
                    if i is not None:
                        pool.send(k, call, tasks[i])
                        busy[k] = i
                while len(out) in results:
                    r = results.pop(len(out))
                    out.append(r)
                    if progress is not None:
                        progress(r)
        except WorkerLostError as exc:
            self._discard()
            raise WorkerLostError(
                f"a worker process died (killed, or out of memory) after {len(out)} of "
                f"{len(tasks)} tasks ({exc}); no results are reported"
            ) from None
        except BaseException:
            self._discard()  # Ctrl-C or a task's error: no worker left computing for nobody
            raise
        return out

    def _discard(self) -> None:
        if self._pool is not None:
            self._pool.close(wait_s=0)
            self._pool = None
            self._forked_fn = None

    def close(self, wait_s: float = 5.0):
        """Stop the workers, each given ``wait_s`` seconds to finish its task."""
        if self._pool is not None:
            self._pool.close(wait_s)
            self._pool = None
            self._forked_fn = None

    def __exit__(self, exc_type, *exc):
        # An exception (a Ctrl-C included) ends the block: the workers' tasks are not waited for.
        self.close(0.0 if exc_type is not None else 5.0)


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)
