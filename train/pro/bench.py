"""Simulated 4-player Bulka sessions for training and comparing Pro rules.

``SessionBench`` plays sessions of the session engine in which the focal
player's cards are played by the trained policy and its Pro decision by the
rule under test; the other players use their fixed ``ProRule``. Every
session, player reset and coin depends on the session seed only
(``derive_seed``), so Pro rules are compared on the same deals and
seatings (common random numbers) and any number of workers gives the same
values.
"""

from __future__ import annotations

import random

import numpy as np

from trappola.agents import make_player
from trappola.agents.evaluation.backend import ProcessBackend
from trappola.agents.evaluation.seeding import derive_seed
from trappola.agents.pro_rules import ProRule
from trappola_env.referee import play_session
from trappola_env.seat_adapters import WithProRule

FOCAL = "focal"


def map_interleaved(fn, seeds: list, workers: int) -> list:
    """``fn(chunk)`` for the ``2 * workers`` interleaved chunks ``seeds[i::k]``
    (long and short sessions spread over the workers), in forked processes:
    ``fn`` may be a closure, which the children inherit. The results in
    chunk order."""
    k = workers * 2
    with ProcessBackend(workers, context="fork") as pool:
        return pool.map(fn, [seeds[i::k] for i in range(k)])


def per_seed(fn, seeds: list, workers: int) -> np.ndarray:
    """``fn(seeds)``, one value per seed, computed by ``workers`` forked
    processes (in this one with a single worker or seed), in seed order."""
    if workers <= 1 or len(seeds) <= 1:
        return np.asarray(fn(seeds), dtype=float)
    k = workers * 2
    out = np.empty(len(seeds))
    for i, part in enumerate(map_interleaved(fn, seeds, workers)):
        out[i::k] = part
    return out


def default_table(focal_card: str = "policy") -> list[tuple]:
    """(name, card player spec, Pro rule) of the 4-player table: the focal
    player (its Pro rule is the one under test: ``None`` here), rule, rule
    and random with their players' default Pro rules (``rule``: threshold
    at 3 base stakes; ``random``: a coin). Names follow the evaluator's
    labels (``rule#2``), so ``trappola.agents.pro_learned.opponent_kind`` reads the
    kind."""
    return [
        (FOCAL, focal_card, None),
        ("rule", "rule", ProRule("threshold", 3.0)),
        ("rule#2", "rule", ProRule("threshold", 3.0)),
        ("random", "random", ProRule("random")),
    ]


class SessionBench:
    """Plays 4-player sessions with fixed seeds so that Pro rules are
    compared on the same deals and seatings (common random numbers)."""

    def __init__(self, table=None, max_parties: int = 60, focal_card: str = "policy", workers: int = 1):
        self.table = table or default_table(focal_card)
        self.max_parties = max_parties
        self.workers = workers
        self.save_dir: str | None = None  # where the rollouts method saves its data (features, advantages)
        self.players = {name: make_player(spec) for name, spec, _ in self.table}

    @property
    def names(self) -> list[str]:
        """The players' names, in table order."""
        return [name for name, _, _ in self.table]

    def seated(self, focal_pro, seed: int, *tag) -> dict:
        """``{name: player}`` (its moves, the Pro rule of the table) for one session (or one branch of
        it, named by ``tag``): every player reset and every Pro coin seeded
        from ``derive_seed(seed, *tag, ...)``."""
        out = {}
        for k, (name, _, pro) in enumerate(self.table):
            self.players[name].reset(derive_seed(seed, *tag, "player", k))
            rule = focal_pro if name == FOCAL else pro.with_rng(random.Random(derive_seed(seed, *tag, "pro", k)))
            out[name] = WithProRule(self.players[name], rule)
        return out

    def tokens_per_partie(self, focal_pro, seeds) -> np.ndarray:
        """Focal player's tokens per partie (its final balance, Bulka share
        included, / parties played), one value per session seed."""
        return per_seed(lambda chunk: self._tokens(focal_pro, chunk), [int(s) for s in seeds], self.workers)

    def _tokens(self, focal_pro, seeds) -> np.ndarray:
        out = np.empty(len(seeds))
        for i, seed in enumerate(seeds):
            res = play_session(self.seated(focal_pro, seed, "session"), max_parties=self.max_parties, seed=seed)
            out[i] = float(res.balances[FOCAL]) / max(res.parties_played, 1)
        return out
