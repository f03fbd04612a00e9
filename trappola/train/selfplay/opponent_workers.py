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

import multiprocessing as mp
import traceback

import numpy as np

from trappola.evaluation.backend import WorkerLostError, end_with_parent

from .pool import PlayerOpponent


def worker_seed(seed: int, k: int) -> int:
    """The seed of worker ``k``'s copy of a member whose seed is ``seed``."""
    return int(np.random.SeedSequence([seed, k]).generate_state(1)[0] >> 1)


def _serve(conn, players: dict, seeds: dict) -> None:
    """A worker: answers lists of (name, info_state, legal_mask) with
    their actions until it receives ``None``."""
    end_with_parent()
    opponents = {}
    for name, player in players.items():
        opponents[name] = PlayerOpponent(player, name)
        opponents[name].reset(seeds[name])
    while True:
        batch = conn.recv()
        if batch is None:
            return
        try:
            conn.send(("ok", [opponents[name].policy(info, mask) for name, info, mask in batch]))
        except Exception:  # the main process raises it, with the worker's traceback
            conn.send(("error", traceback.format_exc()))


class OpponentWorkers:
    """``n`` processes, each playing ``players`` (pool name -> ``Player``,
    pickled into the worker) seeded from ``seeds`` (pool name -> int)."""

    def __init__(self, players: dict, seeds: dict, n: int):
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"the number of opponent workers must be a positive int, got {n!r}")
        # spawn, not fork: the parent runs torch's thread pool, which a forked child must not inherit.
        ctx = mp.get_context("spawn")
        self.n = n
        self._conns, self._procs = [], []
        for k in range(n):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_serve, name=f"opponent-worker-{k}", daemon=True,
                               args=(child, players, {m: worker_seed(s, k) for m, s in seeds.items()}))
            proc.start()
            child.close()
            self._conns.append(parent)
            self._procs.append(proc)
        self._pending: list | None = None

    def submit(self, rows, names, infos, masks) -> None:
        """Send one decision per game (its row, pool name, ``InfoState``,
        legal mask); ``gather`` returns the actions in this order."""
        if self._pending is not None:
            raise RuntimeError("gather the previous decisions before submitting more")
        slots = [[] for _ in range(self.n)]
        batches = [[] for _ in range(self.n)]
        for j, (row, name, info, mask) in enumerate(zip(rows, names, infos, masks)):
            k = int(row) % self.n
            slots[k].append(j)
            batches[k].append((name, info, mask))
        for k, (conn, batch) in enumerate(zip(self._conns, batches)):
            if batch:
                try:
                    conn.send(batch)
                except OSError:  # a broken pipe: the worker is gone
                    raise self._lost([k]) from None
        self._pending = (len(rows), slots)

    def gather(self) -> np.ndarray:
        """The actions of the last ``submit``, in its order."""
        if self._pending is None:
            raise RuntimeError("nothing was submitted")
        size, slots = self._pending
        self._pending = None
        out = np.empty(size, np.int64)
        errors, lost = [], []
        for k, (conn, slot) in enumerate(zip(self._conns, slots)):
            if not slot:
                continue
            try:
                status, answer = conn.recv()
            except (EOFError, ConnectionResetError):
                lost.append(k)
                continue
            if status == "ok":
                out[slot] = answer
            else:
                errors.append(answer)
        if lost:
            raise self._lost(lost)
        if errors:
            raise RuntimeError("an opponent worker failed:\n" + "\n".join(errors))
        return out

    def _lost(self, workers: list[int]) -> WorkerLostError:
        """The error for dead workers: the games they held cannot go on."""
        for k in workers:
            self._procs[k].join(timeout=1)
        dead = "; ".join(f"opponent worker {k} died (exit code {self._procs[k].exitcode})" for k in workers)
        return WorkerLostError(f"{dead}: the opponent games it held are lost")

    def close(self) -> None:
        for conn in self._conns:
            try:
                conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        for proc in self._procs:
            proc.join(timeout=5)
            if proc.is_alive():
                # terminate() only sends the signal: join again so close() returns with the process gone.
                proc.terminate()
                proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
                proc.join()
        for conn in self._conns:
            conn.close()
        self._conns, self._procs = [], []
