"""Per-game opponents played in worker processes (``opponent_workers``)."""

from __future__ import annotations

import multiprocessing

import numpy as np
import pytest
from scripted import Lowest

from trappola.train.sb3.batched_vec_env import BatchedSelfPlayVecEnv
from trappola.train.sb3.config import TrainConfig
from trappola.train.selfplay.opponent_workers import OpponentWorkers, worker_seed


class Broken(Lowest):
    def act(self, view):
        raise ValueError("this player is broken")


def play(workers: int, pool: dict, players: dict | None = None, steps: int = 60, seed: int = 4):
    env = BatchedSelfPlayVecEnv(12, pool=pool, players=players, seed=seed, opponent_workers=workers)
    rng = np.random.default_rng(1)
    out = [env.reset().tobytes()]
    try:
        for _ in range(steps):
            obs, r, d, infos = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()]))
            out.append(
                (
                    obs.tobytes(),
                    r.tobytes(),
                    d.tobytes(),
                    [(i.get("opponent"), i.get("result"), i.get("points_diff")) for i in infos],
                )
            )
    finally:
        env.close()
    return out


def opponent_workers_alive() -> list:
    """This process's live opponent workers, found by the name their error messages use."""
    return [p for p in multiprocessing.active_children() if p.name.startswith("opponent worker")]


def test_workers_play_the_same_games_as_this_process_for_a_deterministic_player():
    # ``Lowest`` draws nothing at random, so where the games are played must not matter.
    pool, players = {"lowest": 1.0, "random": 1.0}, {"lowest": Lowest()}
    here = play(0, pool, players)
    assert play(2, pool, players) == here
    assert sum(d.count(b"\x01") for _, _, d, _ in here[1:]) > 5  # episodes ended (and were dealt again)


def test_workers_are_reproducible_with_a_random_player():
    pool = {"rule": 1.0, "random": 0.5}
    first = play(2, pool, steps=40)
    assert play(2, pool, steps=40) == first
    assert play(2, pool, steps=40, seed=5) != first


def test_a_worker_error_is_raised_with_its_traceback():
    env = BatchedSelfPlayVecEnv(4, pool={"broken": 1.0}, players={"broken": Broken()}, seed=0, opponent_workers=2)
    try:
        with pytest.raises(RuntimeError, match="this player is broken"):
            env.reset()  # the dealer's opponent moves before the learner's first choice
            for _ in range(40):
                env.step(np.array([np.flatnonzero(m)[0] for m in env.action_masks()]))
    finally:
        env.close()
    assert not opponent_workers_alive()


def test_close_stops_the_processes_and_seeds_differ_per_worker():
    workers = OpponentWorkers({"lowest": Lowest()}, {"lowest": 7}, 2)
    procs = opponent_workers_alive()
    assert len(procs) == 2 and all(p.is_alive() for p in procs)
    workers.close()
    assert not any(p.is_alive() for p in procs) and not opponent_workers_alive()
    assert worker_seed(7, 0) != worker_seed(7, 1) and worker_seed(7, 0) == worker_seed(7, 0)
    with pytest.raises(RuntimeError, match="nothing was submitted"):
        workers.gather()


@pytest.mark.parametrize("bad", [-1, 1.5, True])
def test_bad_worker_counts_are_refused(bad):
    with pytest.raises(ValueError, match="opponent_workers"):
        BatchedSelfPlayVecEnv(2, pool={"random": 1.0}, opponent_workers=bad)
    with pytest.raises(ValueError, match="opponent workers"):
        OpponentWorkers({}, {}, 0)


def test_config_refuses_workers_without_the_batched_env():
    with pytest.raises(ValueError, match="opponent_workers needs vec_env: batched"):
        TrainConfig(vec_env="subproc", opponent_workers=2)
    with pytest.raises(ValueError, match="opponent_workers must be >= 0"):
        TrainConfig(opponent_workers=-1)
