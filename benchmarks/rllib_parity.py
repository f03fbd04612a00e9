"""Learning parity of the two trainers: the same settings and the same learner
steps on SB3 (``configs/ppo_selfplay.yaml``) and on RLlib
(``configs/rllib_selfplay.yaml``), then every final model against ``rule``
on the same duplicate deals; and RLlib's speed with 1, 2 and 4 env runners.

    .venv/bin/python benchmarks/rllib_parity.py train --trainer sb3 --seeds 0 1 [--steps 300000] [--out runs/parity]
    .venv/bin/python benchmarks/rllib_parity.py train --trainer rllib --seeds 0 1 [--env-runners 2]
    .venv/bin/python benchmarks/rllib_parity.py table [--deals 1000] [--out runs/parity] [--runs sb3_s0 ...]
    .venv/bin/python benchmarks/rllib_parity.py speed --env-runners 1 2 4 [--steps 20000]

``train`` runs one training per seed into ``<out>/<trainer>_s<seed>/``; the
settings both trainers share are ``SHARED`` below (the PPO batch, the pool,
no behaviour cloning, one evaluation at the end), each trainer's own only say
how its rollout of 4,096 decisions is collected. ``table`` plays every
``final.zip`` under ``<out>`` against ``rule`` on ``--deals`` duplicate deals
(``trappola evaluate``'s head-to-head, seed 12345 for all) and prints the
table: score with its deal-clustered 95% interval, win rate, wall time and
learner steps/s of the run. ``speed`` times short RLlib runs (no evaluation).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from trappola.agents.evaluation import head_to_head
from trappola.train.run.config_file import load_config, resolve_config
from trappola.train.run.recorder import duplicate_figures

ROLLOUT = 4096
SHARED = [
    "pool={self: 0.8, random: 0.2}",
    "bc=false",
    f"batch_size={ROLLOUT // 8}",
    "n_epochs=4",
    "learning_rate=0.0003",
    "lr_final_fraction=0.2",
    "eval_every=0",
    "eval_deals=100",
    "eval_search_deals=0",
    "checkpoint_every=0",
    "progress_bar=false",
    "overwrite=true",
]
OWN = {
    "sb3": ["n_envs=64", f"n_steps={ROLLOUT // 64}", "torch_threads=2"],
    "rllib": [f"train_batch_size={ROLLOUT}", "num_envs_per_env_runner=8", "torch_threads=1"],
}


def run(trainer: str, seed: int, steps: int, out: str, extra: list[str]) -> dict:
    """One training run; its summary."""
    name = "ppo_selfplay" if trainer == "sb3" else "rllib_selfplay"
    overrides = [*SHARED, *OWN[trainer], *extra, f"seed={seed}", f"total_timesteps={steps}", f"out_dir={out}"]
    cfg = load_config(resolve_config(name), overrides)
    if trainer == "sb3":
        from trappola.train.sb3.ppo_selfplay import train as train_sb3

        return train_sb3(cfg)
    from trappola.train.rllib.selfplay import train as train_rllib

    return train_rllib(cfg)


def main() -> None:
    """The command line (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("train", "table", "speed"))
    ap.add_argument("--trainer", choices=("sb3", "rllib"), default="rllib")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    ap.add_argument("--steps", type=int, default=300_000)
    ap.add_argument("--env-runners", type=int, nargs="+", default=[2])
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default="runs/parity")
    ap.add_argument("--runs", nargs="+", default=None, help="table: only these runs (e.g. sb3_s0), one row each")
    args = ap.parse_args()
    if args.what == "train":
        for seed in args.seeds:
            extra = [f"run_name={args.trainer}_s{seed}"]
            if args.trainer == "rllib":
                extra.append(f"num_env_runners={args.env_runners[0]}")
            s = run(args.trainer, seed, args.steps, args.out, extra)
            print(f"{args.trainer} seed {seed}: {s['timesteps']:,} steps in {s['minutes']:.1f} min", flush=True)
    elif args.what == "speed":
        print("| env runners | learner steps | wall time (min) | learner steps/s |\n|---|---|---|---|")
        for n in args.env_runners:
            # A logical CPU per env runner for the local Ray, even past the physical cores.
            extra = [f"run_name=speed_{n}", f"num_env_runners={n}", "eval_deals=0", f"num_cpus={max(n, 2)}"]
            s = run("rllib", 0, args.steps, args.out, extra)
            print(f"| {n} | {s['timesteps']:,} | {s['minutes']:.1f} | {s['learn_steps_per_second']:.0f} |", flush=True)
    else:
        print(
            f"| run | learner steps | wall time (min) | learner steps/s | score vs rule ({args.deals} duplicate "
            "deals) [95% CI] | win rate |\n|---|---|---|---|---|---|"
        )
        names = args.runs or sorted(p.parent.name for p in Path(args.out).glob("*_s*/summary.json"))
        for summary_file in [Path(args.out) / name / "summary.json" for name in names]:
            s = json.loads(summary_file.read_text())
            match = head_to_head(
                f"policy:{s['final']}", "rule", args.deals, duplicate=True, seed=12345, workers=args.workers
            )
            f = duplicate_figures(match)
            lo, hi = f["score_ci"]
            print(
                f"| {summary_file.parent.name} | {s['timesteps']:,} | {s['minutes']:.1f} | "
                f"{s['learn_steps_per_second']:.0f} | {f['score']:.3f} [{lo:.3f}, {hi:.3f}] | {f['win_rate']:.3f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
