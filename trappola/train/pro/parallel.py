"""A process pool for closures: ``fork_imap``.

The Pro benches run players and lambdas that need not be picklable; forked
workers inherit them, and only the chunks of work and their results cross
process boundaries. (The evaluator's ``trappola.evaluation.backend`` uses
``forkserver``/``spawn`` instead and needs picklable tasks.)
"""
from __future__ import annotations

import multiprocessing

_FORKED = None  # the function forked workers run: inherited, so lambdas and players need no pickling


def _run_forked(chunk):
    return _FORKED(chunk)


def fork_imap(fn, chunks, workers: int):
    """``fn(chunk)`` for each chunk, in order, computed by ``workers``
    forked processes (``fn`` and what it refers to are inherited, only the
    chunks and results are pickled)."""
    global _FORKED
    _FORKED = fn
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        yield from pool.imap(_run_forked, chunks)
