"""Evaluation tasks as Ray tasks: the same ``Backend.map`` on one machine
or a cluster.

    from trappola.agents.evaluation import head_to_head
    from trappola.agents.evaluation.ray_backend import RayBackend
    head_to_head("rule", "random", 10_000, duplicate=True, backend="ray")       # a local Ray
    with RayBackend(address="10.0.0.5:6379") as ray_backend:                  # a running cluster
        head_to_head("rule", "random", 10_000, duplicate=True, backend=ray_backend)

``RayBackend`` connects on first use: to ``address`` when given (``"auto"``
finds a cluster started on this machine with ``ray start --head``),
otherwise ``ray.init()`` does what it always does (``RAY_ADDRESS`` if set,
else a fresh local instance with ``workers`` CPUs, default all cores). If
Ray is already initialised in this process (a test, a notebook), that
instance is used and left running; an instance the backend started is
shut down by ``close()``.

Each task is one ``fn(task)`` on one CPU. A task whose Ray worker dies (a
killed process, a lost node) is played again, up to ``max_retries`` times:
it derives every random number from itself, so the replay gives the same
result and the final numbers are those of an undisturbed run. Past that,
``map`` raises ``WorkerLostError`` (one line in the ``trappola`` command)
and returns nothing partial. Results are taken in task order,
so ``progress`` is called in order as with ``ProcessBackend``, and since the
evaluators derive every random number from the task itself the results
are identical to the local backends'. Ctrl-C cancels the tasks still
queued or running (``ray.cancel(force=True)``) before the
``KeyboardInterrupt`` goes on.

On a cluster every node needs this package installed (the tasks import
``evaluation``), and a ``policy:PATH`` player needs its file at the same
path on every node (a shared filesystem), since specs are rebuilt in the
workers.
"""

from __future__ import annotations

import contextlib
import logging

from trappola.agents.evaluation.backend import Backend, WorkerLostError

#: Replays of a task whose worker died before ``map`` gives up (Ray's own default for tasks).
MAX_RETRIES = 3


def _call(fn, task):
    """One task on a Ray worker (``fn`` arrives pickled, by reference for a
    module-level function)."""
    return fn(task)


class RayBackend(Backend):
    """``Backend.map`` as Ray tasks; see the module docstring.

    ``address``: a cluster to join (``"auto"``, ``"HOST:PORT"`` or
    ``"ray://HOST:PORT"``); None lets ``ray.init`` decide. ``workers``:
    CPUs of a local instance this backend starts (ignored when joining a
    cluster). ``max_retries``: replays of a task whose worker died.
    ``init_kwargs`` go to ``ray.init`` (e.g. ``runtime_env``)."""

    def __init__(
        self, address: str | None = None, workers: int | None = None, max_retries: int = MAX_RETRIES, **init_kwargs
    ):
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
            raise ValueError(f"workers must be a positive int, got {workers!r}")
        if address is not None and (not isinstance(address, str) or not address.strip()):
            raise ValueError(f"address must be a non-empty string like 'auto' or 'HOST:PORT', got {address!r}")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be an int >= 0, got {max_retries!r}")
        self.address = address
        self.max_retries = max_retries
        self._num_cpus = workers
        self._init_kwargs = init_kwargs
        self._started = False
        self._remote = None

    def _connect(self):
        import ray

        if not ray.is_initialized():
            # Quiet: the evaluators' own output is the report; Ray's start-up notes would interleave with it.
            kwargs = {
                "include_dashboard": False,
                "log_to_driver": False,
                "logging_level": logging.ERROR,
                **self._init_kwargs,
            }
            if self.address is not None:
                kwargs["address"] = self.address
            elif self._num_cpus is not None:
                kwargs["num_cpus"] = self._num_cpus
            try:
                ray.init(**kwargs)
            except ConnectionError as exc:
                raise ValueError(f"cannot reach a Ray cluster at {self.address!r}: {exc}") from None
            self._started = True
        return ray

    @property
    def workers(self) -> int:  # type: ignore[override]  # read-only here: the Ray instance has the CPUs it has
        """CPUs of the Ray instance (connects on first use): the evaluators
        size their chunks by it."""
        ray = self._connect()
        return max(1, int(ray.cluster_resources().get("CPU", 1)))

    def map(self, fn, tasks, progress=None):
        tasks = list(tasks)
        if not tasks:
            return []
        ray = self._connect()
        if self._remote is None:
            # Only a dead worker is retried, never a task's own exception (it would raise again).
            self._remote = ray.remote(num_cpus=1, max_retries=self.max_retries, retry_exceptions=False)(_call)
        fn_ref = ray.put(fn)
        refs = [self._remote.remote(fn_ref, t) for t in tasks]
        out = []
        try:
            for ref in refs:
                r = ray.get(ref)
                out.append(r)
                if progress is not None:
                    progress(r)
        except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError, ray.exceptions.ObjectLostError) as exc:
            self._cancel(refs[len(out) :])
            raise WorkerLostError(
                f"a Ray worker died (killed, out of memory or its node lost) after {len(out)} of {len(tasks)} tasks, "
                f"and its task failed {self.max_retries + 1} times ({type(exc).__name__}); no results are reported"
            ) from None
        except BaseException:
            # Ctrl-C or a failed task: nothing left running on the cluster for a result nobody reads.
            self._cancel(refs[len(out) :])
            raise
        return out

    @staticmethod
    def _cancel(refs) -> None:
        import ray

        for ref in refs:
            with contextlib.suppress(Exception):  # already finished or gone
                ray.cancel(ref, force=True)

    def close(self):
        """Drop the remote function and shut down Ray if this backend started it."""
        self._remote = None
        if self._started:
            import ray

            ray.shutdown()
            self._started = False
