"""Does honest advice help a weak defender against a Pro declarer?

Each deal is one Pro partie of a 3-player session (docs/rules.md section
8): the dealer (``--declarer``) starts with a streak of 2 and declares Pro,
the challenger (a weak ``--defenders`` player with ``heed=true``) defends,
and the one waiting player (``--adviser``, honest: ``trappola.agents.advice``)
advises the defender before each of its decisions. The defender plays the
advice whenever it is legal for it. The same deal is played again without
advice (``Session(advice=False)``), where the defender decides alone. Alifer
replays of the Pro partie are played out, so every partie ends decided.

Printed per defender: its win rate (the Pro declarer loses) with and
without advice over the same deals, each with a Wilson 95% interval, and
the paired difference per deal (mean of with - without, Student-t 95%
interval); how often the advice was legal and followed; seconds per advice.

    .venv/bin/python benchmarks/bench_advice.py --deals 300 --defenders random,rule \\
        --declarer rule --adviser pimc:samples=8,advice_worlds=8 --seed 0
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from trappola.agents import make_player
from trappola.agents.evaluation.seeding import derive_seed
from trappola.agents.evaluation.stats import mean_ci, wilson
from trappola_env.engine.session import Session
from trappola_env.referee import play_session

NAMES = ("defender", "declarer", "adviser")


class Counting:
    """Wraps the defender to count the decisions on which advice was legal."""

    def __init__(self, player):
        self.player = player
        self.name = player.name
        self.advised = self.legal = 0

    def act(self, view):
        if view.advice:
            self.advised += 1
            self.legal += any(a is not None and view.is_legal(a) for _, a in view.advice)
        return self.player.act(view)

    def decide_pro(self, view):
        return self.player.decide_pro(view)


class Timed:
    """Wraps the adviser to time its advice."""

    def __init__(self, player):
        self.player = player
        self.name = player.name
        self.seconds = 0.0
        self.count = 0

    def act(self, view):
        return self.player.act(view)

    def decide_pro(self, view):
        return self.player.decide_pro(view)

    def advise(self, view):
        t = time.perf_counter()
        out = self.player.advise(view)
        self.seconds += time.perf_counter() - t
        self.count += 1
        return out


def pro_partie(seed: int, players: dict, advice: bool) -> bool:
    """Play one Pro partie (and its replays); whether the defender won."""
    for i, name in enumerate(NAMES):
        players[name].player.reset(derive_seed(seed, "player", i))
    s = Session(
        names=list(NAMES),
        seating={"dealer": "declarer", "challenger": "defender", "queue": ["adviser"]},
        streaks={"declarer": 2},
        max_parties=1,
        seed=seed,
        advice=advice,
    )
    s.decide_pro(True)
    play_session(players, session=s)
    (pro,) = s.pro_declarations
    return pro["result"] == "lost"


def measure(defender: str, declarer: str, adviser: str, deals: int, seed: int) -> dict:
    players: dict[str, Any] = {
        "defender": Counting(make_player(defender)),
        "declarer": Timed(make_player(declarer)),
        "adviser": Timed(make_player(adviser)),
    }
    with_advice, without = [], []
    for d in range(deals):
        deal_seed = derive_seed(seed, "deal", d)
        with_advice.append(pro_partie(deal_seed, players, True))
        without.append(pro_partie(deal_seed, players, False))
    diff = mean_ci([int(a) - int(b) for a, b in zip(with_advice, without, strict=True)])
    adv = players["adviser"]
    counting = players["defender"]
    return {
        "defender": defender,
        "deals": deals,
        "with": (sum(with_advice) / deals, wilson(sum(with_advice), deals)),
        "without": (sum(without) / deals, wilson(sum(without), deals)),
        "difference": diff,
        "legal_share": counting.legal / max(counting.advised, 1),
        "seconds_per_advice": adv.seconds / max(adv.count, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--defenders", default="random,rule", help="comma-separated weak defenders (heed=true added)")
    ap.add_argument("--declarer", default="rule")
    ap.add_argument("--adviser", default="pimc:samples=8,advice_worlds=8")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(f"Pro declarer {args.declarer}, adviser {args.adviser}, {args.deals} deals, seed {args.seed}")
    for kind in args.defenders.split(","):
        spec = kind + (",heed=true" if ":" in kind else ":heed=true")
        t = time.perf_counter()
        r = measure(spec, args.declarer, args.adviser, args.deals, args.seed)
        (w, wci), (n, nci), (d, dci) = r["with"], r["without"], r["difference"]
        print(
            f"{spec:<20} defender wins with advice {w:.3f} [{wci[0]:.3f}, {wci[1]:.3f}]  "
            f"without {n:.3f} [{nci[0]:.3f}, {nci[1]:.3f}]  paired difference {d:+.3f} "
            f"[{dci[0]:+.3f}, {dci[1]:+.3f}]  advice legal at {r['legal_share']:.0%} of decisions  "
            f"{r['seconds_per_advice'] * 1000:.0f} ms per advice  ({time.perf_counter() - t:.0f} s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
