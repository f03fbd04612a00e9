"""Choosing a backend by name: ``make_backend`` and the evaluators'
``resolve_backend`` (``backend=`` a ``Backend``, a name of ``BACKENDS`` or
None)."""

from __future__ import annotations

from trappola.agents.evaluation.backend import Backend, ProcessBackend, SerialBackend, default_workers

BACKENDS = ("process", "serial", "ray")


def make_backend(workers: int | None = None, kind: str = "process", address: str | None = None) -> Backend:
    """A backend by name: "process" is a ``SerialBackend`` for one worker,
    else a ``ProcessBackend`` (``workers`` None: all cores); "serial";
    "ray" a ``RayBackend`` joining ``address`` (None: ``ray.init``'s
    default; ``workers`` are then the CPUs of a local instance)."""
    if kind not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS} or a Backend, got {kind!r}")
    if address is not None and kind != "ray":
        raise ValueError(f"an address is for the ray backend, not {kind!r}")
    if kind == "ray":
        from trappola.agents.evaluation.ray_backend import RayBackend

        return RayBackend(address=address, workers=workers)
    workers = default_workers() if workers is None else workers
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    return SerialBackend() if workers == 1 or kind == "serial" else ProcessBackend(workers)


def resolve_backend(backend: Backend | str | None, workers: int | None, interactive: bool) -> tuple[Backend, bool]:
    """(the backend an evaluator uses, whether it owns it and must close
    it). ``backend``: a ``Backend`` (used as given), a name of
    ``BACKENDS`` or None ("process"). An interactive player (one at this
    terminal) always plays serially here."""
    if isinstance(backend, Backend):
        return backend, False
    if backend is not None and not isinstance(backend, str):
        raise ValueError(f"backend must be one of {BACKENDS} or a Backend, got {backend!r}")
    if interactive:
        return SerialBackend(), True
    return make_backend(workers, backend or "process"), True


def run_blocks(backend: Backend, own: bool, fn, tasks: list, bar, done_of) -> tuple[list, list]:
    """Play the evaluators' blocks of work on ``backend``: each task's
    ``fn`` returns (rows, saved games). The progress ``bar`` (or None) moves
    by ``done_of(block)`` per finished block; the bar is closed, and the
    backend too when the evaluator owns it, even on failure.

    :return: (every block's rows, every block's saved games), in task order
    """
    try:
        blocks = backend.map(fn, tasks, progress=(lambda block: bar.update(done_of(block))) if bar else None)
    finally:
        if bar:
            bar.close()
        if own:
            backend.close()
    return [row for rows, _ in blocks for row in rows], [g for _, games in blocks for g in games]
