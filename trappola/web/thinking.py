"""Where the computer players think: a bounded pool of threads shared by
every table.

A table hands the pool one decision at a time (``submit``), and hands the
next only once that one is applied, so tables take turns and a hundred
tables still use ``workers`` threads. A table that closes stops at once:
its queued decisions return without thinking and a decision in progress
is dropped when it returns. One decision is bounded by the settings the
web allows (``opponents``), so nothing runs on for long after a close.
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor


def default_workers() -> int:
    """Half the machine's cores, 1 to 4: the server stays responsive while
    players think."""
    return max(1, min(4, (os.cpu_count() or 2) // 2))


class ThinkingPool:
    """At most ``workers`` threads (default ``default_workers()``) running
    the tables' decisions."""

    def __init__(self, workers: int | None = None):
        self.workers = default_workers() if workers is None else workers
        if isinstance(self.workers, bool) or not isinstance(self.workers, int) or self.workers < 1:
            raise ValueError(f"workers must be a positive integer, got {workers!r}")
        self._executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="trappola-thinking")

    def submit(self, task) -> Future:
        """Run ``task()`` on one of the threads when one is free."""
        return self._executor.submit(task)

    def shutdown(self) -> None:
        """Drop the queued tasks; a task in progress finishes its decision."""
        self._executor.shutdown(wait=False, cancel_futures=True)
