"""How much reading the opponent's hand is worth in the endgame: the ceiling.

Run:  .venv/bin/python benchmarks/bench_belief.py [--endgame 4] [--deals 1000] [--opponent pimc:samples=32]
                                                   [--seed 0] [--workers 2]

``policy:endgame=K`` hands its last ``K`` cards to ``pimc``, which averages
over layouts of the unseen cards: uniform ones, or ones weighted by the
learned belief (``endgame_belief``). This benchmark gives its endgame search
the one layout that is true, the opponent's real hand, as perfect inference
would: the win rate it reaches bounds what any belief model can add to
``policy:endgame=K``. (The search still plays each card as if both hands were
open, so this is a bound on inference, not on play.)

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

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import trappola.envs.referee as referee  # noqa: E402
from trappola.agents.pimc import PimcPlayer  # noqa: E402
from trappola.agents.policy_player import PolicyPlayer  # noqa: E402
from trappola.evaluation import head_to_head  # noqa: E402
from trappola.evaluation.backend import ProcessBackend  # noqa: E402
from trappola.engine.cards import mask_of  # noqa: E402

_DEAL = {}
_play_partie = referee.play_partie


def _noting_play_partie(players, deal, *args, **kwargs):
    _DEAL["now"] = deal
    return _play_partie(players, deal, *args, **kwargs)


class TrueHandSearch(PimcPlayer):
    """``pimc`` solving the one true layout (benchmark-only: it reads the deal)."""

    def layouts(self, info):
        opp = 1 - info.seat
        return np.array([_DEAL["now"].hands[opp] & ~mask_of(info.played_by(opp))], np.int64), None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--endgame", type=int, default=4, help="cards left when the search takes over (default 4)")
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--opponent", default="pimc:samples=32")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    if not 1 <= args.endgame <= 9:
        ap.error("--endgame must be in 1..9")
    referee.play_partie = _noting_play_partie
    PolicyPlayer._endgame_searcher = staticmethod(
        lambda settings: TrueHandSearch(samples=1) if settings["endgame"] else None)
    t0 = time.time()
    res = head_to_head(f"policy:endgame={args.endgame}", args.opponent, args.deals, duplicate=True,
                       seed=args.seed, backend=ProcessBackend(args.workers, context="fork"), progress=True)
    s = res.summary
    lo, hi = s["win_rate_ci"]
    print(f"policy:endgame={args.endgame} searching the opponent's true hand vs {args.opponent}, "
          f"{args.deals} duplicate deals, seed {args.seed}: win rate {s['win_rate']:.3f} [{lo:.3f}, {hi:.3f}] "
          f"of {s['decided']} decided parties ({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
