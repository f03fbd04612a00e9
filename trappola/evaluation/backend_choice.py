"""Choosing a backend by name: ``make_backend`` and the evaluators'
``resolve_backend`` (``backend=`` a ``Backend``, a name of ``BACKENDS`` or
None)."""
from __future__ import annotations

from .backend import Backend, ProcessBackend, SerialBackend, default_workers


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
        from .ray_backend import RayBackend

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
