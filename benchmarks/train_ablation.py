"""Training ablation: the same wall-clock budget per arm and seed, then the
strength of each run's final model against ``rule`` and against ``pimc``.

    .venv/bin/python benchmarks/train_ablation.py --minutes 10 --seeds 0 1 \\
        --arm "batched=" --arm "privileged=privileged_critic=true" \\
        [--rule-deals 1000] [--pimc-deals 300] [--pimc pimc:samples=8] [--out runs/ablation]
    .venv/bin/python benchmarks/train_ablation.py --table runs/ablation/ablation.json [more.json ...]

An arm is ``NAME=key=value;key=value`` (overrides of ``configs/ppo_selfplay.yaml``;
empty for the default). Every run gets ``max_minutes`` = ``--minutes`` (behaviour
cloning included), ``seed``, and its own ``run_name``. Each final model then
plays duplicate matches (the same deals for every model) against ``rule`` and
``--pimc``. The script prints one row per run (win rates with their
deal-clustered 95% intervals) and one per arm: the decided parties of its
seeds pooled, with a plain Wilson interval (which ignores that the seeds play
the same deals, so it is somewhat narrower than a clustered one), and writes
the rows to ``<out>/ablation.json`` after every run. ``--table`` prints the
per-arm table again from such files (several runs of the script together:
a run repeated alone replaces the row of the same arm and seed).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from trappola.agents.evaluation import head_to_head
from trappola.agents.evaluation.stats import wilson
from trappola.train.run.config_file import load_config, resolve_config
from trappola.train.sb3.ppo_selfplay import train
from trappola_env.atomic_file import write_text


def parse_arm(text: str) -> tuple[str, list[str]]:
    name, _, rest = text.partition("=")
    if not name:
        raise SystemExit(f"error: an arm needs a name: {text!r} (NAME=key=value;key=value)")
    return name, [kv for kv in rest.split(";") if kv]


def strength(player: str, opponent: str, deals: int, workers: int) -> dict:
    s = head_to_head(player, opponent, deals, duplicate=True, seed=12345, workers=workers).summary
    return {"wins": s["wins"], "decided": s["decided"], "win_rate": s["win_rate"], "win_rate_ci": s["win_rate_ci"]}


def fmt(r: dict) -> str:
    if r["win_rate"] is None:
        return "n/a"
    lo, hi = r["win_rate_ci"]
    return f"{r['win_rate']:.3f} [{lo:.3f}, {hi:.3f}]"


def print_table(rows: list[dict], pimc: str) -> None:
    print(f"\n| arm | seeds | learner steps (mean) | vs rule | vs {pimc} |\n|---|---|---|---|---|")
    for r in rows:
        if "seed" not in r:
            print(f"| {r['arm']} | | | {fmt(r['rule'])} | {fmt(r['pimc'])} |")
    for name in dict.fromkeys(r["arm"] for r in rows if "seed" in r):
        mine = [r for r in rows if r["arm"] == name and "seed" in r]
        pooled = {}
        for key in ("rule", "pimc"):
            wins, decided = sum(r[key]["wins"] for r in mine), sum(r[key]["decided"] for r in mine)
            pooled[key] = {"win_rate": wins / decided if decided else None, "win_rate_ci": wilson(wins, decided)}
        steps = sum(r["timesteps"] for r in mine) / len(mine)
        print(f"| {name} | {len(mine)} | {steps:,.0f} | {fmt(pooled['rule'])} | {fmt(pooled['pimc'])} |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arm", action="append", default=[], help="NAME=key=value;key=value")
    ap.add_argument("--table", nargs="+", metavar="JSON", help="only print the table of these ablation.json files")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--rule-deals", type=int, default=1000)
    ap.add_argument("--pimc-deals", type=int, default=300)
    ap.add_argument("--pimc", default="pimc:samples=8")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default="runs/ablation")
    ap.add_argument(
        "--reference",
        action="append",
        default=[],
        help="a player spec evaluated on the same deals, e.g. policy (the shipped model)",
    )
    args = ap.parse_args(argv)
    if args.table:
        merged: dict[tuple, dict] = {}
        for path in args.table:
            data = json.loads(Path(path).read_text())
            for r in data["rows"]:
                merged[(r["arm"], r.get("seed"))] = r
        print_table(list(merged.values()), data["args"]["pimc"])
        return 0
    if not args.arm and not args.reference:
        ap.error("give at least one --arm or --reference (or --table)")
    arms = [parse_arm(a) for a in args.arm]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for model in args.reference:
        ref = {
            "arm": f"reference {model}",
            "model": model,
            "rule": strength(model, "rule", args.rule_deals, args.workers),
            "pimc": strength(model, args.pimc, args.pimc_deals, args.workers),
        }
        rows.append(ref)
        print(f"reference {model}: vs rule {fmt(ref['rule'])}  vs {args.pimc} {fmt(ref['pimc'])}", flush=True)
    for seed in args.seeds:  # seed-major: a cut run still has every arm once
        for name, overrides in arms:
            cfg = load_config(
                resolve_config(None),
                overrides
                + [
                    f"seed={seed}",
                    f"max_minutes={args.minutes}",
                    f"out_dir={out}",
                    f"run_name={name}-s{seed}",
                    "progress_bar=false",
                ],
            )
            t0 = time.time()
            summary = train(cfg, log=lambda m: None)
            row = {
                "arm": name,
                "seed": seed,
                "overrides": overrides,
                "timesteps": summary["timesteps"],
                "learn_steps_per_second": summary["learn_steps_per_second"],
                "minutes": (time.time() - t0) / 60,
                "model": summary["final"],
                "rule": strength(f"policy:{summary['final']},endgame=0", "rule", args.rule_deals, args.workers),
                "pimc": strength(f"policy:{summary['final']},endgame=0", args.pimc, args.pimc_deals, args.workers),
            }
            rows.append(row)
            print(
                f"{name:<14} seed {seed}: {row['timesteps']:>9,} steps ({row['learn_steps_per_second']:,.0f}/s)  "
                f"vs rule {fmt(row['rule'])}  vs {args.pimc} {fmt(row['pimc'])}",
                flush=True,
            )
            write_text(out / "ablation.json", json.dumps({"args": vars(args), "rows": rows}, indent=1))
    print_table(rows, args.pimc)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
