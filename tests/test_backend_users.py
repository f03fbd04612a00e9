"""Every user of the one process mechanism (``trappola.agents.evaluation.backend``)
turns a killed worker into ``WorkerLostError``, and forked maps take
closures and keep the task order."""

from __future__ import annotations

import multiprocessing
import os
import signal

import pytest

from trappola.agents import registry
from trappola.agents.evaluation.backend import ProcessBackend, WorkerLostError
from trappola.agents.players.random import RandomPlayer


class DyingSpec(str):
    """A player spec that kills the worker process that receives it: it
    unpickles as ``signal.raise_signal(SIGKILL)``. A task holding one
    reaches a worker only through the backend, so the caller's own
    process is never hit."""

    def __reduce__(self):
        return signal.raise_signal, (signal.SIGKILL,)


class DyingPlayer(RandomPlayer):
    """A ``random`` player that kills its process at its first card
    (registered as ``dying`` by the test that uses it)."""

    kind = "dying"
    HELP = "kills its process at its first card"

    def act(self, view):
        os.kill(os.getpid(), signal.SIGKILL)


def test_a_forked_map_takes_a_closure_and_keeps_the_order():
    offset = 10
    with ProcessBackend(2, context="fork") as pool:
        assert pool.map(lambda x: x + offset, range(7)) == list(range(10, 17))
        assert pool.map(lambda x: -x, [1, 2]) == [-1, -2]  # a new function: forked afresh


def test_a_task_error_is_raised_as_it_was():
    with ProcessBackend(2, context="fork") as pool:
        with pytest.raises(ZeroDivisionError):
            pool.map(lambda x: 1 // x, [1, 0, 2])
        assert pool.map(abs, [-3]) == [3]


def test_behaviour_cloning_data_with_a_killed_worker():
    from trappola.train.selfplay import bc

    with pytest.raises(WorkerLostError, match="worker process died"):
        bc.collect(DyingSpec("rule"), 600, seed=0, workers=2)


def test_belief_data_with_a_killed_worker():
    from trappola.train.fit import belief_fit

    with pytest.raises(WorkerLostError, match="worker process died"):
        belief_fit.collect([(DyingSpec("rule"), "random")], 300, seed=0, workers=2, progress=False)


def test_the_pro_bench_with_a_killed_worker():
    from trappola.train.pro.bench import SessionBench

    # Registered here, so that the forked workers inherit it; a player built here plays there.
    registry.add_module(__name__)
    try:
        bench = SessionBench(focal_card="dying", max_parties=4, workers=2)
        with pytest.raises(WorkerLostError, match="worker process died"):
            bench.tokens_per_partie(lambda view: True, [1, 2, 3, 4])
    finally:
        registry.remove_module(__name__)


def test_opponent_workers_with_a_killed_worker():
    import random

    from scripted import Lowest

    from trappola.train.selfplay.opponent_workers import OpponentWorkers
    from trappola_env.engine import Partie, random_deal

    before = set(multiprocessing.active_children())
    workers = OpponentWorkers({"lowest": Lowest()}, {"lowest": 1}, 2)
    # The workers are this process's children, named after the error messages' "opponent worker k".
    procs = {p.name: p for p in set(multiprocessing.active_children()) - before}
    assert sorted(procs) == ["opponent worker-0", "opponent worker-1"]
    try:
        partie = Partie(random_deal(random.Random(0)))
        info, mask = partie.info_state(partie.to_act), partie.legal_mask()
        workers.submit([0, 1], ["lowest", "lowest"], [info, info], [mask, mask])
        assert len(workers.gather()) == 2
        os.kill(procs["opponent worker-1"].pid, signal.SIGKILL)
        procs["opponent worker-1"].join(timeout=10)
        with pytest.raises(WorkerLostError, match="opponent worker 1 died"):
            workers.submit([0, 1], ["lowest", "lowest"], [info, info], [mask, mask])
            workers.gather()
    finally:
        workers.close()
    assert not any(p.is_alive() for p in procs.values())
