"""Training speed and policy decision time on this machine.

    .venv/bin/python benchmarks/bench_train.py                 # both
    .venv/bin/python benchmarks/bench_train.py --what env      # raw wrapper steps/s per opponent
    .venv/bin/python benchmarks/bench_train.py --what ppo --steps 20000 n_envs=4
    .venv/bin/python benchmarks/bench_train.py --what decide --model agents/models/default.zip
    .venv/bin/python benchmarks/bench_train.py --what compare --steps 65536
    .venv/bin/python benchmarks/bench_train.py --what profile --steps 65536 [key=value ...]
    .venv/bin/python benchmarks/bench_train.py --what workers --steps 131072
    .venv/bin/python benchmarks/bench_train.py --what targets --steps 131072
    .venv/bin/python benchmarks/bench_train.py --what threads --steps 65536 --repeat 3 [--threads T]
    .venv/bin/python benchmarks/bench_train.py --what gpu --steps 262144    # benchmarks/bench_gpu.sh

* env: ``SelfPlayEnv`` steps per second with uniformly random learner
  moves, per opponent (the ceiling that PPO cannot exceed);
* ppo: MaskablePPO learner steps per second (rollouts + updates) under the
  default config, overridable with ``key=value`` (no BC, no evaluation);
* compare: learner steps/s of ``subproc`` (16 ``SubprocVecEnv`` workers,
  pool self 0.4 / rule 0.4 / random 0.2, minibatch 512, one torch thread)
  and of the default config (the batched VecEnv) for the same number of
  steps, of the same PPO settings on a stand-in VecEnv whose steps cost
  nothing, and the bare batched engine's random-play actions/s; the last
  line is the ratio of the two;
* profile: where the default config's training time goes (cProfile);
* workers: learner steps/s with ``configs/ppo_vs_search.yaml``'s pool
  (half the games against ``pimc:samples=4``), its per-game opponents
  played in this process and then in 2 worker processes
  (``opponent_workers``), and the ratio;
* targets: learner steps/s against one frozen opponent of each kind, as
  ``trappola exploit`` trains (pool = that opponent only, no BC, no
  evaluation), self-play measured in the same run: the network alone
  (``policy:endgame=0``) batched in the VecEnv and, for comparison, shown
  one game at a time as before; then the search players (``rule``,
  ``policy`` with its endgame search, ``pimc:samples=8``) in 2 opponent
  worker processes, over a quarter of the steps;
* threads: learner steps/s of the default config with the batched engine
  on one core (``env_threads=1``) and on ``--threads`` (default: every
  core), run in turn ``--repeat`` times; the medians and their ratio;
* gpu: the table of ``benchmarks/bench_gpu.sh``: learner steps/s with the
  CPU and the CUDA learner (``device=``), for the default config and for
  4,096 games with minibatch 8,192 (the CPU with 8 torch threads, the
  CUDA run with the engine on every core), and SB3's stand-in ceiling
  for 4,096 games on CUDA; CUDA cells say "no GPU" without one;
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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from trappola.agents.model_io.model_files import shipped_model_path


def bench_env(seconds: float = 3.0) -> None:
    import numpy as np

    from trappola.train.selfplay.env import SelfPlayEnv

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


# ``subproc``: 16 SelfPlayEnv worker processes, the pool with ``rule``, one torch thread.
SUBPROC_DEFAULT = [
    "vec_env=subproc",
    "n_envs=16",
    "n_steps=256",
    "batch_size=512",
    "torch_threads=1",
    "pool={self: 0.4, rule: 0.4, random: 0.2}",
]


def bench_ppo(
    steps: int, overrides: list[str], label: str = "ppo", stand_in: bool = False, batch_networks: bool = True
) -> float:
    """MaskablePPO learner steps per second under the shipped config with
    ``overrides`` (no BC, no evaluation); ``stand_in`` replaces the games by
    a VecEnv whose steps cost nothing (SB3's own ceiling); ``batch_networks``
    False plays a network opponent one game at a time in the batched VecEnv."""
    import torch
    from sb3_contrib import MaskablePPO

    from trappola.train.devices import resolve_device
    from trappola.train.networks import activation_class
    from trappola.train.run.config_file import load_config
    from trappola.train.sb3.callbacks import SelfPlayCallback
    from trappola.train.sb3.vec import make_vec_env

    root = Path(__file__).resolve().parents[1]
    cfg = load_config(root / "configs" / "ppo_selfplay.yaml", ["bc=false", "eval_deals=0"] + overrides)
    device = resolve_device(cfg.device)
    torch.set_num_threads(cfg.torch_threads)
    venv = (
        _stand_in_class()(cfg.n_envs) if stand_in else make_vec_env(cfg, batch_networks=batch_networks, device=device)
    )
    act = activation_class(cfg.activation)
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        seed=0,
        device=device,
        n_steps=cfg.n_steps,
        batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs,
        policy_kwargs=dict(net_arch=dict(pi=cfg.net_arch, vf=cfg.net_arch), activation_fn=act),
    )
    steps = max(steps, cfg.n_steps * cfg.n_envs)
    t = time.perf_counter()
    model.learn(steps, callback=SelfPlayCallback(cfg.snapshot_every, cfg.activation))
    dt = time.perf_counter() - t
    venv.close()
    rate = model.num_timesteps / dt
    where = "stand-in (steps cost nothing)" if stand_in else cfg.vec_env
    print(
        f"{label}: {rate:8.0f} learner steps/s  ({model.num_timesteps:,} steps in {dt:.1f}s; {device} learner, "
        f"n_envs={cfg.n_envs} {where}, env_threads={cfg.env_threads}, n_steps={cfg.n_steps}, batch={cfg.batch_size}, "
        f"epochs={cfg.n_epochs}, net={cfg.net_arch}, pool={cfg.pool})",
        flush=True,
    )
    return rate


def _stand_in_class():
    import numpy as np
    from gymnasium import spaces
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv

    class StandIn(VecEnv):
        """Fixed observations and masks, an episode end every 10 steps: a
        VecEnv whose steps cost nothing."""

        def __init__(self, n: int):
            self.render_mode = None
            super().__init__(n, spaces.Box(0.0, 1.0, (347,), np.float32), spaces.Discrete(49))
            rng = np.random.default_rng(0)
            self.obs = (rng.random((n, 347)) < 0.1).astype(np.float32)
            self.masks = np.zeros((n, 49), bool)
            self.masks[:, :12] = True
            self.t = np.arange(n) % 10
            self.infos: list[dict[str, Any]] = [{} for _ in range(n)]

        def reset(self):
            return self.obs.copy()

        def step_async(self, actions):
            pass

        def step_wait(self):
            self.t += 1
            dones = self.t % 10 == 0
            return self.obs.copy(), dones.astype(np.float32), dones, self.infos

        def action_masks(self):
            return self.masks

        def add_snapshot(self, weights):
            pass

        def env_method(self, name, *args, indices=None, **kwargs):
            if name == "action_masks":
                return list(self.masks)
            getattr(self, name)(*args, **kwargs)
            return [None] * self.num_envs

        def get_attr(self, name, indices=None):
            return [getattr(self, name)] * self.num_envs

        def set_attr(self, name, value, indices=None):
            setattr(self, name, value)

        def env_is_wrapped(self, wrapper_class, indices=None):
            return [False] * self.num_envs

        def close(self):
            pass

    return StandIn


def bench_engine(seconds: float = 3.0, n: int = 16384) -> float:
    """Actions per second of the bare batched engine playing uniformly
    random parties (compiled, one core)."""
    import numpy as np

    from trappola_env.batch import BatchPartie

    b = BatchPartie(n)
    rng = np.random.default_rng(0)
    BatchPartie.seed_random(0)
    b.deal(rng=rng)
    b.random_playout()  # compiles
    actions, t = 0, time.perf_counter()
    while time.perf_counter() - t < seconds:
        b.deal(rng=rng)
        actions += b.random_playout()
    dt = time.perf_counter() - t
    print(
        f"batched engine, random play: {actions / dt:,.0f} actions/s on one core ({n} parties at a time, "
        f"dealing included)",
        flush=True,
    )
    return actions / dt


def bench_profile(steps: int, overrides: list[str]) -> None:
    """Where the default config's training time goes, from cProfile: the
    batched games (engine, masks, observations, rewards), the per-game
    opponents (``rule``...), the snapshot opponents' forward pass, the
    learner's forward pass while collecting, and the PPO update."""
    import cProfile
    import pstats

    prof = cProfile.Profile()
    prof.enable()
    bench_ppo(steps, overrides, "profiled run (cProfile slows it)")
    prof.disable()
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]  # the raw table pstats keeps (undocumented)

    def cum(file_part: str, func: str) -> float:
        return sum(v[3] for (f, _, name), v in stats.items() if name == func and f.endswith(file_part))

    learn = cum("ppo_mask.py", "learn")
    collect = cum("ppo_mask.py", "collect_rollouts")
    env = cum("batched_vec_env.py", "step_wait")
    players = cum("referee.py", "policy")
    snapshots = cum("batched_vec_env.py", "logits") + cum("batched_vec_env.py", "sample_masked")
    update = cum("ppo_mask.py", "train")
    parts = [
        ("batched games (engine, masks, observations, rewards)", env - players - snapshots),
        ("per-game opponents (registered players: rule...)", players),
        ("snapshot opponents' forward pass", snapshots),
        ("learner forward pass and rollout buffer", collect - env),
        ("PPO update", update),
    ]
    for name, t in parts:
        print(f"  {name:<55} {t:6.1f}s  {100 * t / learn:4.0f}%")
    print(f"  {'total learn()':<55} {learn:6.1f}s")


def bench_compare(steps: int) -> None:
    """``subproc`` (16 SubprocVecEnv workers), the default config (the
    batched VecEnv), the same PPO settings on a stand-in VecEnv, and the
    bare batched engine; the last line compares the first two."""
    b = bench_ppo(steps, SUBPROC_DEFAULT, "subproc")
    a = bench_ppo(steps, [], "batched default")
    ceiling = bench_ppo(steps, [], "stand-in ceiling", stand_in=True)
    print(f"batched default reaches {100 * a / ceiling:.0f}% of the stand-in ceiling")
    bench_engine()
    print(f"batched vs subproc: {a / b:.1f} times the learner steps per second ({a:.0f} vs {b:.0f})")


def bench_threads(steps: int, threads: int, repeat: int) -> None:
    """The default config with the batched engine on one core and on
    ``threads`` cores (0: every core), in turn ``repeat`` times."""
    if threads == 1:
        raise ValueError("--threads must be 0 (every core) or more than 1: it is compared with 1")
    rates: dict[int, list[float]] = {1: [], threads: []}
    for r in range(repeat):
        for t in rates:
            rates[t].append(bench_ppo(steps, [f"env_threads={t}"], f"env_threads={t} (run {r + 1})"))
    one, many = (statistics.median(v) for v in rates.values())
    print(
        f"env_threads={threads} vs 1: median {many:.0f} vs {one:.0f} learner steps/s, "
        f"{many / one:.2f} times (medians of {repeat} runs each, in turn)"
    )


def bench_gpu(steps: int) -> None:
    """The CPU against the CUDA learner (see the module docstring): a
    Markdown table of learner steps/s; CUDA cells say "no GPU" without one."""
    from trappola.train.devices import cuda_available

    gpu = cuda_available()
    big = ["n_envs=4096", "batch_size=8192"]
    rows = [
        ("default config: 1,024 games, batch 2,048", ["device=cpu"], ["device=cuda"], False),
        (
            "4,096 games, batch 8,192 (CPU: 8 torch threads; CUDA: the engine on every core)",
            big + ["device=cpu", "torch_threads=8"],
            big + ["device=cuda", "env_threads=0"],
            False,
        ),
        ("SB3's ceiling, steps that cost nothing, 4,096 games, batch 8,192", None, big + ["device=cuda"], True),
    ]
    table = ["| run (batched self-play, learner steps/s) | CPU learner | CUDA learner |", "|---|---|---|"]
    for label, cpu, cuda, stand_in in rows:
        c = f"{bench_ppo(steps, cpu, label + ', CPU'):,.0f}" if cpu else "—"
        g = f"{bench_ppo(steps, cuda, label + ', CUDA', stand_in=stand_in):,.0f}" if gpu else "no GPU"
        table.append(f"| {label} | {c} | {g} |")
    print("\n".join(table))


def bench_workers(steps: int) -> None:
    """The search pool's per-game opponents here, then in 2 worker processes."""
    import yaml

    from trappola.train.run.config_file import load_config

    search = load_config(Path(__file__).resolve().parents[1] / "configs" / "ppo_vs_search.yaml", [])
    pool = "pool=" + yaml.safe_dump(dict(search.pool), default_flow_style=True, sort_keys=False).strip()
    before = bench_ppo(steps, [pool, "opponent_workers=0"], "pimc in this process (before)")
    after = bench_ppo(steps, [pool, "opponent_workers=2"], "pimc in 2 worker processes (after)")
    print(f"opponent_workers=2: {after / before:.2f} times the learner steps per second ({after:.0f} vs {before:.0f})")


def bench_targets(steps: int) -> None:
    """Learner steps/s against one frozen opponent of each kind (the
    ``trappola exploit`` setting), self-play in the same run."""
    net = "policy:endgame=0"
    rates = {"self-play": bench_ppo(steps, [], "self-play (the default pool: self 0.8, random 0.2)")}
    rates[net] = bench_ppo(steps, [f"pool={{'{net}': 1.0}}", "snapshot_every=0"], f"{net}, batched")
    rates["per game"] = bench_ppo(
        steps // 4, [f"pool={{'{net}': 1.0}}", "snapshot_every=0"], f"{net}, one game at a time", batch_networks=False
    )
    for spec in ("rule", "policy", "pimc:samples=8"):
        rates[spec] = bench_ppo(
            steps // 4,
            [f"pool={{'{spec}': 1.0}}", "snapshot_every=0", "opponent_workers=2"],
            f"{spec}, 2 opponent workers",
        )
    print(
        f"{net}: {rates[net]:.0f} learner steps/s batched, {rates[net] / rates['self-play']:.2f} of self-play "
        f"({rates['self-play']:.0f}), {rates[net] / rates['per game']:.1f} times one game at a time "
        f"({rates['per game']:.0f})"
    )


def bench_decide(model: str, parties: int = 200) -> None:
    import random

    import torch

    from trappola.agents import make_player
    from trappola_env.engine import Partie, random_deal
    from trappola_env.seat_adapters import seat_policy

    torch.set_num_threads(1)
    me, rule = seat_policy(make_player(f"policy:{model},endgame=0")), seat_policy(make_player("rule"))
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
        print(
            f"decide: policy decision median {1e3 * statistics.median(ts):.3f} ms, "
            f"p90 {1e3 * ts[int(0.9 * len(ts))]:.3f} ms over {len(ts)} {label} ({model})"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--what",
        choices=("all", "env", "ppo", "decide", "compare", "profile", "workers", "targets", "threads", "gpu"),
        default="all",
    )
    ap.add_argument("--threads", type=int, default=0, help="--what threads: the engine's cores (0: every core)")
    ap.add_argument("--repeat", type=int, default=3, help="--what threads: runs of each, in turn")
    ap.add_argument(
        "--steps",
        type=int,
        default=None,
        help="learner steps per PPO run (default 20,000; 65,536 for compare; 131,072 for workers)",
    )
    ap.add_argument("--model", default=str(shipped_model_path()))
    ap.add_argument("overrides", nargs="*", help="config overrides key=value for --what ppo and profile")
    args = ap.parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):  # one core, one thread
        os.environ.setdefault(var, "1")
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.2f}")
    if args.what in ("all", "env"):
        bench_env()
    if args.what in ("all", "ppo"):
        bench_ppo(args.steps or 20_000, args.overrides)
    if args.what == "compare":
        bench_compare(args.steps or 65_536)
    if args.what == "workers":
        bench_workers(args.steps or 131_072)
    if args.what == "targets":
        bench_targets(args.steps or 131_072)
    if args.what == "threads":
        bench_threads(args.steps or 65_536, args.threads, args.repeat)
    if args.what == "gpu":
        bench_gpu(args.steps or 262_144)
    if args.what == "profile":
        bench_profile(args.steps or 65_536, args.overrides)
    if args.what in ("all", "decide"):
        bench_decide(args.model)


if __name__ == "__main__":
    main()
