"""``OpponentWorkers``: the per-game opponents of ``BatchedSelfPlayVecEnv``
(``pimc``, ``rule``, any ``trappola.agents.base.Player``) played in worker processes.

Such an opponent decides one game at a time, in Python and numba, on one
core: with ``pimc:samples=4`` as half the pool it took about 87% of a
training run's time while the second core idled. Here each of ``n``
workers holds its own copy of every per-game pool member, and a game is
always played by the same worker (``row % n``), so a player that keeps
state between the calls of one turn (``pimc``'s planned card) sees its
games whole. The environment ``submit``s one round's decisions, moves the
snapshot and random opponents meanwhile, and ``gather``s the answers.

Reproducible: worker ``k``'s copy of a member is reset with a seed derived
from the member's seed and ``k``, and each worker answers its games in row
order, so the same seed gives the same games. They are not the games of
the one-process path, whose single copy draws from one random stream.
"""

from __future__ import annotations

import numpy as np

from trappola.agents.evaluation.backend import WorkerLostError, WorkerProcesses, inherited
from trappola.train.selfplay.pool import PlayerOpponent


def worker_seed(seed: int, k: int) -> int:
    """The seed of worker ``k``'s copy of a member whose seed is ``seed``."""
    return int(np.random.SeedSequence([seed, k]).generate_state(1)[0] >> 1)


def _opponents(players: dict, seeds: dict) -> dict:
    """A worker's own copy of every pool member, reset with its seed."""
    opponents = {}
    for name, player in players.items():
        opponents[name] = PlayerOpponent(player, name)
        opponents[name].reset(seeds[name])
    return opponents


def _answer(batch) -> list:
    """In a worker: the actions for a list of (name, info_state, legal_mask)."""
    opponents = inherited()
    return [opponents[name].policy(info, mask) for name, info, mask in batch]


class OpponentWorkers:
    """``n`` processes, each playing ``players`` (pool name -> ``Player``,
    pickled into the worker) seeded from ``seeds`` (pool name -> int); the
    persistent workers of ``trappola.agents.evaluation.backend.WorkerProcesses``."""

    def __init__(self, players: dict, seeds: dict, n: int):
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"the number of opponent workers must be a positive int, got {n!r}")
        self.n = n
        # spawn, not fork: the parent runs torch's thread pool, which a forked child must not inherit.
        self._workers = WorkerProcesses(
            n,
            "spawn",
            initializer=_opponents,
            name="opponent worker",
            per_worker=lambda k: (players, {m: worker_seed(s, k) for m, s in seeds.items()}),
        )
        self._procs = self._workers.procs
        self._pending: tuple[int, list[list[int]]] | None = None  # (decisions, their indices per worker)

    def submit(self, rows, names, infos, masks) -> None:
        """Send one decision per game (its row, pool name, ``InfoState``,
        legal mask); ``gather`` returns the actions in this order."""
        if self._pending is not None:
            raise RuntimeError("gather the previous decisions before submitting more")
        slots: list[list[int]] = [[] for _ in range(self.n)]
        batches: list[list[tuple]] = [[] for _ in range(self.n)]
        for j, (row, name, info, mask) in enumerate(zip(rows, names, infos, masks, strict=True)):
            k = int(row) % self.n
            slots[k].append(j)
            batches[k].append((name, info, mask))
        for k, batch in enumerate(batches):
            if batch:
                try:
                    self._workers.send(k, _answer, batch)
                except WorkerLostError as exc:
                    raise self._lost(exc) from None
        self._pending = (len(rows), slots)

    def gather(self) -> np.ndarray:
        """The actions of the last ``submit``, in its order."""
        if self._pending is None:
            raise RuntimeError("nothing was submitted")
        size, slots = self._pending
        self._pending = None
        out = np.empty(size, np.int64)
        errors, lost = [], []
        for k, slot in enumerate(slots):
            if not slot:
                continue
            try:
                out[slot] = self._workers.recv(k)
            except WorkerLostError:
                lost.append(k)
            except Exception as exc:  # the player's error, raised here with the worker's traceback
                errors.append(str(exc.__cause__ or exc))
        if lost:
            raise self._lost(self._workers.lost(lost))
        if errors:
            raise RuntimeError("an opponent worker failed:\n" + "\n".join(errors))
        return out

    @staticmethod
    def _lost(exc: WorkerLostError) -> WorkerLostError:
        """The error for dead workers: the games they held cannot go on."""
        return WorkerLostError(f"{exc}: the opponent games it held are lost")

    def close(self) -> None:
        """Stop the workers; returns once they are gone."""
        self._workers.close()
        self._procs = self._workers.procs
