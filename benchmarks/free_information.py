"""What the information a declaration gives away costs, against opponents that read it and one that does not.

    nice -n 10 .venv/bin/python benchmarks/free_information.py --deals 200 --seed 0 --records runs/free.jsonl
    .venv/bin/python benchmarks/free_information.py --summary runs/free.jsonl

Two rows that differ only in when they give information away: ``pimc:samples=32`` declares Aces and Bianka at
once, ``pimc:samples=32,declare=last`` holds them back to their last chance (Figura and Blans have one chance
only, so they cannot be delayed). Each row plays the same duplicate deals (each deal twice, seats swapped)
against each opponent: ``pimc:samples=32``, which reads a declaration only as a hard constraint on its
layouts; ``pimc:samples=32,belief=default``, whose layouts are weighted by the shipped belief model, which
reads the whole public record (declarations made and not made); and the shipped ``policy``, whose network
reads the record and whose endgame search is belief-weighted too. Per deal, a row's score is the mean over
its two parties of wins minus losses (+1, -1, 0 for an Alifer) and of the point difference. Reported per
opponent: the paired difference (holding back minus declaring at once) with a 95% interval clustered by deal
(a t interval over the deals' differences for the points; for wins minus losses the lab's interval for a
difference of outcomes, ``stats.outcome_difference``, which stays honest when few outcomes changed), how many
deals ended differently (with its Clopper-Pearson interval), and the difference of those differences between each reader
and ``pimc`` (paired too: every opponent plays the same deals).

Each (row, opponent) match appends its per-partie records to ``--records`` as one JSON line, so a run that
stops keeps its finished matches and resumes with the rest.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere, installed or not

import numpy as np
from beyond_pimc_diagnosis import clopper_pearson  # the exact binomial interval, written once

from trappola.agents.evaluation import head_to_head
from trappola.agents.evaluation.stats import mean_ci, outcome_difference

ROWS = ("pimc:samples=32", "pimc:samples=32,declare=last")
OPPONENTS = ("pimc:samples=32", "pimc:samples=32,belief=default", "policy")


def per_game(records: list[dict]) -> dict[tuple[int, int], int]:
    """(deal, game) -> player A's wins minus losses in that partie (+1, -1, 0 for an Alifer)."""
    return {
        (r["deal"], r["game"]): 0 if r["winner"] not in ("A", "B") else (1 if r["winner"] == "A" else -1)
        for r in records
    }


def per_deal(records: list[dict]) -> dict[int, tuple[float, float]]:
    """deal -> (mean wins minus losses, mean point difference) of player A over the deal's parties."""
    out: dict[int, list] = {}
    for r in records:
        wl = 0.0 if r["winner"] not in ("A", "B") else (1.0 if r["winner"] == "A" else -1.0)
        out.setdefault(r["deal"], []).append((wl, r["points_a"] - r["points_b"]))
    return {d: (float(np.mean([v[0] for v in vs])), float(np.mean([v[1] for v in vs]))) for d, vs in out.items()}


def _fmt(values) -> str:
    m, (lo, hi) = mean_ci(list(values))
    return f"{m:+.3f}" if lo is None else f"{m:+.3f} [{lo:+.3f}, {hi:+.3f}]"


def summary(matches: list[dict]) -> dict:
    """The paired differences of the recorded matches, printed and returned."""
    scores = {(m["row"], m["opponent"]): per_deal(m["records"]) for m in matches}
    games = {(m["row"], m["opponent"]): per_game(m["records"]) for m in matches}
    out: dict = {}
    delta: dict[str, dict[int, tuple[float, float]]] = {}
    for opp in OPPONENTS:
        a, b = scores.get((ROWS[0], opp)), scores.get((ROWS[1], opp))
        if a is None or b is None:
            continue
        deals = sorted(set(a) & set(b))
        d = {k: (b[k][0] - a[k][0], b[k][1] - a[k][1]) for k in deals}
        delta[opp] = d
        changed = sum(1 for k in deals if d[k][0] != 0)
        lo, hi = clopper_pearson(changed, len(deals))
        ga, gb = games[(ROWS[0], opp)], games[(ROWS[1], opp)]
        keys = sorted(set(ga) & set(gb))
        # the lab's interval for differences of outcomes (stats.outcome_difference): honest when few changed
        m, ci, note, _ = outcome_difference([gb[k] - ga[k] for k in keys], [k[0] for k in keys])
        row = {
            "deals": len(deals),
            "diff_wl": [m, ci, note],
            "diff_points": mean_ci([d[k][1] for k in deals]),
            "deals_changed": changed,
            "deals_changed_ci": [lo, hi],
        }
        out[opp] = row
        wl = f"{m:+.3f}" + (f" ({note})" if note else f" [{ci[0]:+.3f}, {ci[1]:+.3f}]")
        print(
            f"against {opp}: {len(deals)} deals; holding back minus declaring at once: wins-losses per partie "
            f"{wl}, points {_fmt(d[k][1] for k in deals)}; deals that ended differently in wins-losses: {changed} of "
            f"{len(deals)} = {changed / len(deals):.3f} [{lo:.3f}, {hi:.3f}] (Clopper-Pearson)"
        )
    base = delta.get(OPPONENTS[0])
    for opp in OPPONENTS[1:]:
        if base is None or opp not in delta:
            continue
        deals = sorted(set(base) & set(delta[opp]))
        moved = sum(1 for k in deals if delta[opp][k][0] != base[k][0])
        g = [games[(r, o)] for o in (opp, OPPONENTS[0]) for r in ROWS]
        keys = sorted(set(g[0]) & set(g[1]) & set(g[2]) & set(g[3]))
        dd = [(g[1][k] - g[0][k]) - (g[3][k] - g[2][k]) for k in keys]
        m, ci, note, _ = outcome_difference(dd, [k[0] for k in keys], bound=4)
        wl = f"{m:+.3f}" + (f" ({note})" if note else f" [{ci[0]:+.3f}, {ci[1]:+.3f}]")
        out[f"{opp} minus pimc"] = {
            "deals_moved": moved,
            "wl": [m, ci, note],
            "deals": len(deals),
            "points": mean_ci([delta[opp][k][1] - base[k][1] for k in deals]),
        }
        print(
            f"  the difference against {opp} minus against pimc:samples=32: wins-losses {wl} "
            f"(deals that differ: {moved}), "
            f"points {_fmt(delta[opp][k][1] - base[k][1] for k in deals)} ({len(deals)} deals)"
        )
    return out


def _load(path) -> list[dict]:
    p = Path(path)
    return [json.loads(line) for line in p.read_text().splitlines() if line.strip()] if p.exists() else []


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--opponents", nargs="+", default=list(OPPONENTS))
    ap.add_argument("--records", required=True, help="one JSON line per finished match; finished ones are kept")
    ap.add_argument("--summary", action="store_true", help="summarise --records only")
    args = ap.parse_args()
    matches = _load(args.records)
    if not args.summary:
        done = {(m["row"], m["opponent"], m["deals"], m["seed"]) for m in matches}
        for opp in args.opponents:
            for row in ROWS:
                if (row, opp, args.deals, args.seed) in done:
                    continue
                res = head_to_head(row, opp, args.deals, duplicate=True, seed=args.seed, workers=args.workers)
                m = {"row": row, "opponent": opp, "deals": args.deals, "seed": args.seed, "records": res.records}
                matches.append(m)
                with open(args.records, "a") as f:
                    f.write(json.dumps(m) + "\n")
                print(f"{row} vs {opp}: win rate {res.summary['win_rate']:.3f}", flush=True)
    summary(matches)


if __name__ == "__main__":
    main()
