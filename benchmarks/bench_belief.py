"""How much reading the opponent's hand is worth in the endgame: the ceiling.

Run:  .venv/bin/python benchmarks/bench_belief.py [--endgame 4] [--deals 1000] [--opponent pimc:samples=32]
                                                   [--seed 0] [--workers 2] [--reveal M] [--samples 32]

``policy:endgame=K`` hands its last ``K`` cards to ``pimc``, which averages
over layouts of the unseen cards: uniform ones, or ones weighted by the
learned belief (``endgame_belief``). This benchmark gives its endgame search
the one layout that is true, the opponent's real hand, as perfect inference
would: the win rate it reaches bounds what any belief model can add to
``policy:endgame=K``. (The search still plays each card as if both hands were
open, so this is a bound on inference, not on play.)

``--reveal M`` measures the way there, how many wins each nat of reading buys:
the search draws its ``--samples`` layouts uniformly from those consistent
with the record *and* with ``M`` cards of the opponent's current hand,
chosen at random at each decision (all of them once it holds ``M`` or
fewer; a fractional ``M`` reveals one more card with the probability of its
fraction). Knowing them raises the probability of the true hand from
``1 / count`` to ``1 / count_M``; the mean of ``log(count / count_M)`` over
the searched decisions is printed, in the nats of
``benchmarks/bench_inference.py``'s log-likelihood of the true hand, so a
reading of ``x`` nats can be set against the win rate a reveal of as many
nats gives. (A model spreads its weight, a reveal is exact, so this is a
yardstick, not an equivalence.) It runs in this process (``--workers`` is
ignored), where the nats are counted.

No player may see the deal; the instrumentation here is benchmark-only. The
referee's ``play_partie`` is wrapped to note the deal being played, and the
worker processes are forked from this one so that they carry the wrapper.
Duplicate deals of ``evaluation.head_to_head``, with its 95% interval.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import trappola_env.referee as referee
from trappola.agents.evaluation import head_to_head
from trappola.agents.evaluation.backend import ProcessBackend, SerialBackend
from trappola.agents.players.pimc import PimcPlayer
from trappola.agents.players.policy import PolicyPlayer
from trappola.agents.search.sampling import constraints_of
from trappola_env.engine.cards import cards_of, mask_of

_DEAL: dict[str, Any] = {}
_play_partie = referee.play_partie


def _noting_play_partie(players, deal, *args, **kwargs):
    _DEAL["now"] = deal
    return _play_partie(players, deal, *args, **kwargs)


def _true_hand(info) -> int:
    opp = 1 - info.seat
    return _DEAL["now"].hands[opp] & ~mask_of(info.played_by(opp))


class TrueHandSearch(PimcPlayer):
    """``pimc`` solving the one true layout (benchmark-only: it reads the deal)."""

    def layouts(self, info):
        return np.array([_true_hand(info)], np.int64), None


class RevealSearch(PimcPlayer):
    """``pimc`` told ``m`` random cards of the opponent's current hand at each
    decision (one more with probability ``m``'s fraction; benchmark-only: it
    reads the deal); ``nats`` collects the information each reveal gave."""

    def __init__(self, m: float, **settings):
        super().__init__(**settings)
        self.m = m
        self.nats: list[float] = []

    def layouts(self, info):
        cons = constraints_of(info)
        hidden = cards_of(_true_hand(info) & ~cons.forced)
        m = int(self.m) + (self.rng.random() < self.m - int(self.m))
        known = cons.holding(mask_of(self.rng.sample(hidden, min(m, len(hidden)))))
        self.nats.append(float(np.log(cons.count() / known.count())))
        return self._weigh(info, known, self._draw(known))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--endgame", type=int, default=4, help="cards left when the search takes over (default 4)")
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--opponent", default="pimc:samples=32")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--reveal",
        type=float,
        default=None,
        metavar="M",
        help="instead of the true hand, reveal M random cards of it at each decision (0: none)",
    )
    ap.add_argument("--samples", type=int, default=32, help="--reveal: layouts solved per decision (default 32)")
    args = ap.parse_args(argv)
    if not 1 <= args.endgame <= 9:
        ap.error("--endgame must be in 1..9")
    if args.deals < 1 or args.workers < 1 or args.samples < 1:
        ap.error("--deals, --workers and --samples must be >= 1")
    if args.reveal is not None and not 0 <= args.reveal <= 9:
        ap.error("--reveal must be in 0..9")
    referee.play_partie = _noting_play_partie
    searchers = []

    def searcher(settings):
        if not settings["endgame"]:
            return None
        searchers.append(
            TrueHandSearch(samples=1) if args.reveal is None else RevealSearch(args.reveal, samples=args.samples)
        )
        return searchers[-1]

    PolicyPlayer._endgame_searcher = staticmethod(searcher)  # type: ignore[method-assign]  # the benchmark's searcher
    backend = SerialBackend() if args.reveal is not None else ProcessBackend(args.workers, context="fork")
    t0 = time.time()
    res = head_to_head(
        f"policy:endgame={args.endgame}",
        args.opponent,
        args.deals,
        duplicate=True,
        seed=args.seed,
        backend=backend,
        progress=True,
    )
    s = res.summary
    lo, hi = s["win_rate_ci"]
    plo, phi = s["mean_point_diff_ci"]
    what = (
        "the opponent's true hand"
        if args.reveal is None
        else f"{args.samples} layouts with {args.reveal} cards of the opponent's hand revealed"
    )
    print(
        f"policy:endgame={args.endgame} searching {what} vs {args.opponent}, "
        f"{args.deals} duplicate deals, seed {args.seed}: win rate {s['win_rate']:.3f} [{lo:.3f}, {hi:.3f}] "
        f"of {s['decided']} decided parties, points {s['mean_point_diff']:+.2f} [{plo:+.2f}, {phi:+.2f}] "
        f"({time.time() - t0:.0f} s)"
    )
    if args.reveal is not None:
        nats = np.concatenate([np.asarray(x.nats) for x in searchers]) if searchers else np.zeros(0)
        print(
            f"information revealed: {nats.mean():.2f} nats per searched decision (median {np.median(nats):.2f}, "
            f"{nats.size} decisions)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
