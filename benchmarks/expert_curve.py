"""The scaling curve of expert iteration: strength against compute, paired with the shipped model.

    python benchmarks/expert_curve.py --shipped --runs runs/exit_s0 runs/exit_s1 --rounds 2 4 last --deals 100
    python benchmarks/expert_curve.py --figure          # docs/results/img/expert_iteration.png from the table
    python benchmarks/expert_curve.py --progress --runs runs/exit_s0 runs/exit_s1   # the runs' rounds

For each run (one seed each) and each budget (a round: its checkpoint
``checkpoints/<labels>.zip``, its wall minutes, labels and learner steps
from ``progress.csv``), the network plays duplicate matches against each
``--vs`` opponent, alone (``policy:PATH,endgame=0``) and with its endgame
search (``policy:PATH``, the shipped player's settings), on the deals of
``--seed`` (not a seed the runs trained on). Budget 0 is the shipped model,
where every run starts; its matches use the same deals, so each budget's
figure is compared with it deal by deal (``paired_difference``): the per
deal score (win 1, Alifer or tie 1/2, loss 0, averaged over the deal's two
parties) of the new network minus the shipped one's, with a 95% Student-t
interval over deals. ``trappola compare A B --vs C`` plays the same games and
pairs the win rate of decided parties; this script keeps its per-deal score
so that a budget's 100-deal match pairs with the first 100 deals of a larger
stored one without replaying it.

Results are kept in ``--out`` (JSON, one entry per match, reused when the
script runs again with more budgets; ``--runs``, ``--rounds``, ``--vs`` and
``--modes`` choose the matches a call plays) and the table of every stored
match is printed: each cell with its n; the pairing uses the deals both
matches played.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

from trappola.agents.evaluation import head_to_head
from trappola.agents.evaluation.stats import mean_ci

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = "default"
MODES = {"alone": ",endgame=0", "endgame": ""}


def deal_scores(records: list[dict]) -> dict[int, float]:
    """Per deal, player A's mean score over its parties (win 1, Alifer or tie 1/2, loss 0)."""
    by_deal: dict[int, list[float]] = {}
    for r in records:
        by_deal.setdefault(r["deal"], []).append(1.0 if r["winner"] == "A" else 0.5 if not r["winner"] else 0.0)
    return {d: sum(v) / len(v) for d, v in by_deal.items()}


def paired_difference(new: list[dict], ref: list[dict]) -> tuple[float, list]:
    """Mean per-deal score of ``new`` minus ``ref`` (match records on the same deals), with its 95% interval."""
    a, b = deal_scores(new), deal_scores(ref)
    return mean_ci(a[d] - b[d] for d in sorted(a) if d in b)


def budgets(run: Path, rounds: list[str]) -> list[dict]:
    """The checkpoints of ``run`` at ``rounds`` (numbers, or ``last``) with their compute."""
    with open(run / "progress.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    out = []
    for r in rounds:
        row = rows[-1] if r == "last" else next((x for x in rows if x["round"] == r), None)
        if row is None:
            continue
        path = run / "checkpoints" / f"{row['labels']}.zip"
        out.append(
            {
                "run": run.name,
                "round": int(row["round"]),
                "labels": int(row["labels"]),
                "learner_steps": int(row["learner_steps"]),
                "minutes": float(row["minutes"]),
                "path": str(path),
            }
        )
    return out


def progress_table(runs: list[str]) -> str:
    """The runs' rounds from their ``progress.csv``: compute, the search's cost, the fit's figures."""
    lines = [
        "| run | round | labels | learner steps | wall minutes | search ms per label | agreement with the search "
        "before the fit | target cross-entropy | KL to the previous network | value error |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for run in runs:
        with open(Path(run) / "progress.csv", newline="") as f:
            for r in csv.DictReader(f):
                ms = 1000 * float(r["search_seconds"]) / int(r["round_labels"])
                lines.append(
                    f"| {Path(run).name} | {r['round']} | {int(r['labels']):,} | {r['learner_steps']} | "
                    f"{float(r['minutes']):.1f} | {ms:.0f} | {float(r['agreement_before']):.3f} | "
                    f"{float(r['loss_target']):.3f} | {float(r['loss_kl']):.3f} | {float(r['loss_value']):.3f} |"
                )
    return "\n".join(lines)


def match(results: dict, model: str, mode: str, vs: str, deals: int, seed: int, workers: int) -> dict:
    """The duplicate match of ``model`` (a path or ``default``) in ``mode`` against ``vs``, from the cache or played."""
    key = f"{model}|{mode}|{vs}|{seed}"
    if key not in results or results[key]["deals"] < deals:
        spec = f"policy:{model}{MODES[mode]}" if model != SHIPPED else f"policy:{MODES[mode][1:]}".rstrip(":")
        t0 = time.time()
        res = head_to_head(spec, vs, deals, duplicate=True, seed=seed, workers=workers)
        s = res.summary
        results[key] = {
            "spec": spec,
            "vs": vs,
            "deals": deals,
            "seed": seed,
            "win_rate": s["win_rate"],
            "win_rate_ci": s["win_rate_ci"],
            "points": s["mean_point_diff"],
            "points_ci": s["mean_point_diff_ci"],
            "records": [{k: r[k] for k in ("deal", "winner")} for r in res.records],
            "seconds": round(time.time() - t0, 1),
        }
        print(f"{spec} vs {vs}: win rate {s['win_rate']:.3f} ({time.time() - t0:.0f} s)", flush=True)
    return results[key]


def fmt(x: float, ci: list, digits: int = 3, sign: bool = False) -> str:
    """``x [low, high]``."""
    f = f"{{:{'+' if sign else ''}.{digits}f}}"
    if ci[0] is None:
        return f.format(x)
    return f"{f.format(x)} [{f.format(ci[0])}, {f.format(ci[1])}]"


def table(results: dict, rows: list[dict], opponents: list[str], deals: int, seed: int) -> str:
    """The page's table: one line per budget and mode, win rate against each opponent and the paired difference."""
    head = ["run", "round", "minutes", "labels", "learner steps", "network"]
    for vs in opponents:
        head += [f"win rate vs {vs}", f"paired score - shipped vs {vs}"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        for mode in MODES:
            cells = [
                row["run"],
                str(row["round"]),
                f"{row['minutes']:.0f}",
                f"{row['labels']:,}",
                f"{row['learner_steps']:,}",
                mode,
            ]
            for vs in opponents:
                m = results.get(f"{row['path']}|{mode}|{vs}|{seed}")
                ref = results.get(f"{SHIPPED}|{mode}|{vs}|{seed}")
                if m is None:
                    cells += ["", ""]
                    continue
                cells.append(f"{fmt(m['win_rate'], m['win_rate_ci'])} (n={m['deals']})")
                if row["path"] == SHIPPED or ref is None:
                    cells.append("")
                else:
                    cells.append(fmt(*paired_difference(m["records"], ref["records"]), sign=True))
            if any(cells[6:]):  # a budget and mode with no match is left out
                lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def figure(results: dict, rows: list[dict], opponents: list[str], deals: int, seed: int, out: Path) -> None:
    """Win rate against each opponent by wall minutes, one line per run and mode, with 95% intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(opponents), figsize=(5.5 * len(opponents), 4), squeeze=False)
    for ax, vs in zip(axes[0], opponents, strict=True):
        for run in sorted({r["run"] for r in rows if r["run"] != "shipped"}):
            for mode, style in (("alone", "-o"), ("endgame", "--s")):
                pts = [r for r in rows if r["run"] in (run, "shipped")]
                xs, ys, lo, hi = [], [], [], []
                for r in sorted(pts, key=lambda r: r["minutes"]):
                    m = results.get(f"{r['path']}|{mode}|{vs}|{seed}")
                    if m is None or m["win_rate_ci"][0] is None:
                        continue
                    xs.append(r["minutes"])
                    ys.append(m["win_rate"])
                    lo.append(m["win_rate"] - m["win_rate_ci"][0])
                    hi.append(m["win_rate_ci"][1] - m["win_rate"])
                if xs:
                    ax.errorbar(xs, ys, yerr=[lo, hi], fmt=style, capsize=3, label=f"{run}, {mode}")
        ax.axhline(0.5, color="grey", lw=0.8)
        ax.set_xlabel("wall minutes of expert iteration (0 = the shipped model)")
        ax.set_ylabel("win rate, decided parties (95% CI)")
        ax.set_title(f"against {vs}")
        ax.legend(fontsize=7)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


def main(argv=None) -> int:
    """The command line of the module docstring; returns the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", nargs="*", default=[], help="run folders of trappola train --config expert_iteration")
    ap.add_argument("--rounds", nargs="+", default=["2", "5", "last"], help="budgets: round numbers or last")
    ap.add_argument("--vs", nargs="+", default=["pimc:samples=32", "rule"])
    ap.add_argument("--modes", nargs="+", default=list(MODES), choices=list(MODES))
    ap.add_argument("--deals", type=int, default=150)
    ap.add_argument("--seed", type=int, default=101, help="the deals' seed (the runs train on seeds 0 and 1)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default=str(ROOT / "docs" / "results" / "expert_iteration.json"))
    ap.add_argument("--progress", action="store_true", help="print the runs' rounds (progress.csv) and stop")
    ap.add_argument("--shipped", action="store_true", help="play the shipped model's matches too")
    ap.add_argument("--figure", action="store_true", help="draw docs/results/img/expert_iteration.png and stop")
    args = ap.parse_args(argv)
    out = Path(args.out)
    stored = json.loads(out.read_text()) if out.is_file() else {"matches": {}, "budgets": []}
    results = stored["matches"]
    shipped = {"run": "shipped", "round": 0, "labels": 0, "learner_steps": 0, "minutes": 0.0, "path": SHIPPED}
    known = {(r["run"], r["round"]) for r in stored["budgets"]}
    playing = [shipped] if args.shipped else []
    for run in args.runs:
        for b in budgets(Path(run), args.rounds):
            playing.append(b)
            if (b["run"], b["round"]) not in known:
                stored["budgets"].append(b)
                known.add((b["run"], b["round"]))
    rows = [shipped, *sorted(stored["budgets"], key=lambda r: (r["run"], r["round"]))]
    if args.progress:
        print(progress_table(args.runs))
        return 0
    if args.figure:
        figure(
            results, rows, args.vs, args.deals, args.seed, ROOT / "docs" / "results" / "img" / "expert_iteration.png"
        )
        return 0
    for vs in args.vs:
        for mode in args.modes:
            for row in playing:
                match(results, str(row["path"]), mode, vs, args.deals, args.seed, args.workers)
                out.write_text(json.dumps(stored, indent=0))
    print(table(results, rows, args.vs, args.deals, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
