"""Training speed and policy decision time on this machine.

    .venv/bin/python benchmarks/bench_train.py                 # both
    .venv/bin/python benchmarks/bench_train.py --what env      # raw wrapper steps/s per opponent
    .venv/bin/python benchmarks/bench_train.py --what ppo --steps 20000 n_envs=4
    .venv/bin/python benchmarks/bench_train.py --what decide --model models/default.zip

* env: ``SelfPlayEnv`` steps per second with uniformly random learner
  moves, per opponent (the ceiling that PPO cannot exceed);
* ppo: MaskablePPO learner steps per second (rollouts + updates) under the
  default config, overridable with ``key=value`` (no BC, no evaluation);
* decide: ``policy`` player decision time (median / p90 over the decisions
  of 200 parties against ``rule``, one core, one thread).

Figures depend on the load: other processes on the 2 cores slow them down.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.policy_player import shipped_model_path  # noqa: E402


def bench_env(seconds: float = 3.0) -> None:
    import numpy as np

    from train.selfplay_env import SelfPlayEnv

    for opp in ("random", "rule"):
        env = SelfPlayEnv(pool={opp: 1.0}, seed=1)
        rng = np.random.default_rng(0)
        env.reset()
        n = eps = 0
        t = time.perf_counter()
        while time.perf_counter() - t < seconds:
            _, _, done, _, _ = env.step(rng.choice(np.flatnonzero(env.action_masks())))
            n += 1
            if done:
                eps += 1
                env.reset()
        dt = time.perf_counter() - t
        print(f"env vs {opp:<6}: {n / dt:8.0f} learner steps/s, {eps / dt:6.0f} parties/s (forced moves skipped)")


def bench_ppo(steps: int, overrides: list[str]) -> None:
    import torch
    from sb3_contrib import MaskablePPO

    from train.config import load_config
    from train.callbacks import SelfPlayCallback
    from train.vec import make_vec_env

    root = Path(__file__).resolve().parents[1]
    cfg = load_config(root / "configs" / "ppo_selfplay.yaml", ["bc=false", "eval_deals=0"] + overrides)
    torch.set_num_threads(cfg.torch_threads)
    venv = make_vec_env(cfg)
    act = {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[cfg.activation]
    model = MaskablePPO("MlpPolicy", venv, seed=0, device="cpu", n_steps=cfg.n_steps, batch_size=cfg.batch_size,
                        n_epochs=cfg.n_epochs, policy_kwargs=dict(net_arch=dict(pi=cfg.net_arch, vf=cfg.net_arch),
                                                                  activation_fn=act))
    steps = max(steps, cfg.n_steps * cfg.n_envs)
    t = time.perf_counter()
    model.learn(steps, callback=SelfPlayCallback(cfg.snapshot_every, cfg.activation))
    dt = time.perf_counter() - t
    venv.close()
    print(f"ppo: {model.num_timesteps / dt:8.0f} learner steps/s  ({model.num_timesteps:,} steps in {dt:.1f}s; "
          f"n_envs={cfg.n_envs} {cfg.vec_env}, n_steps={cfg.n_steps}, batch={cfg.batch_size}, "
          f"epochs={cfg.n_epochs}, net={cfg.net_arch}, pool={cfg.pool})")


def bench_decide(model: str, parties: int = 200) -> None:
    import random

    import torch

    from agents import make_player
    from trappola_env.engine import Partie, random_deal
    from trappola_env.referee import seat_policy

    torch.set_num_threads(1)
    me, rule = seat_policy(make_player(f"policy:{model}")), seat_policy(make_player("rule"))
    rng = random.Random(0)
    times, choice_times = [], []
    for g in range(parties):
        partie = Partie(random_deal(rng))
        players = (me, rule) if g % 2 == 0 else (rule, me)
        while not partie.terminal:
            seat = partie.to_act
            info, mask = partie.info_state(seat), partie.legal_mask()
            t = time.perf_counter()
            a = players[seat](info, mask)
            dt = time.perf_counter() - t
            if players[seat] is me:
                times.append(dt)
                if mask & (mask - 1):
                    choice_times.append(dt)
            partie.apply(a)
    for label, ts in (("all decisions", times), ("with a choice", choice_times)):
        ts.sort()
        print(f"decide: policy decision median {1e3 * statistics.median(ts):.3f} ms, "
              f"p90 {1e3 * ts[int(0.9 * len(ts))]:.3f} ms over {len(ts)} {label} ({model})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--what", choices=("all", "env", "ppo", "decide"), default="all")
    ap.add_argument("--steps", type=int, default=20_000)
    ap.add_argument("--model", default=str(shipped_model_path()))
    ap.add_argument("overrides", nargs="*", help="config overrides key=value for --what ppo")
    args = ap.parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):  # one core, one thread
        os.environ.setdefault(var, "1")
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.2f}")
    if args.what in ("all", "env"):
        bench_env()
    if args.what in ("all", "ppo"):
        bench_ppo(args.steps, args.overrides)
    if args.what in ("all", "decide"):
        bench_decide(args.model)


if __name__ == "__main__":
    main()
