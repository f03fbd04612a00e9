"""Evaluation workers start warm: the fork server of ``ProcessBackend``
imports ``trappola.agents.evaluation.preload`` (torch, the players, their
compiled search code) once, and every worker is forked from it. The
numbers stay those of one process (``test_evaluate`` compares 1 and 2
workers; here the blocks of a match are checked too)."""

from __future__ import annotations

import multiprocessing
import sys

import pytest

from trappola.agents.evaluation import ProcessBackend, head_to_head
from trappola.agents.evaluation.backend import PRELOAD
from trappola.agents.evaluation.duplicate import BLOCKS_PER_WORKER, block_size


def loaded(name: str) -> bool:
    """In a worker: whether module ``name`` was loaded before any task asked for it."""
    return name in sys.modules


@pytest.mark.skipif("forkserver" not in multiprocessing.get_all_start_methods(), reason="no fork server here")
def test_workers_start_with_torch_and_the_players_loaded():
    with ProcessBackend(2) as backend:
        assert backend.map(loaded, [PRELOAD, "torch", "trappola.agents.players.pimc"] * 2) == [True] * 6


def test_blocks_keep_every_worker_busy_to_the_end():
    assert block_size(400, 16) == 4 and block_size(2000, 16) == 16 and block_size(10**6, 2) == 100
    assert block_size(3, 16) == 1
    for deals in (1, 57, 400, 2000, 12345):
        for workers in (1, 2, 3, 16, 64):
            # the last block holds at most an eighth of a worker's share, plus one deal's rounding
            size = block_size(deals, workers)
            assert 1 <= size <= min(100, deals / (BLOCKS_PER_WORKER * workers) + 1)


def test_same_numbers_in_one_process_and_in_warm_workers():
    kwargs = dict(deals=30, duplicate=True, seed=5)
    one = head_to_head("pimc:samples=2", "rule", workers=1, **kwargs)
    with ProcessBackend(2) as backend:
        two = head_to_head("pimc:samples=2", "rule", backend=backend, **kwargs)
    assert one.summary == two.summary and one.records == two.records
