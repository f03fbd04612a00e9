"""Speed of random legal play: the bare engine and ``trappola_v0``, with
PettingZoo's ``connect_four_v3`` and ``leduc_holdem_v4`` as yardsticks.

    trappola bench [--seconds 15] [--seed 0] [--slice 0.25]
    python benchmarks/bench_env.py [...]      # the same, from a checkout

(a) Bare engine, one process, one core: parties/s and actions/s of uniform
    random legal play (many parties end early by an accepted Alifer; the
    outcome mix is printed) and of random play that never proposes Alifer
    (all 18 cards are played). A partie here is deal + play + settlement;
    the rates are those of the best of 5 stretches (the single-core
    capability on a shared machine).
(b) ``trappola_v0`` steps/s through the standard AEC loop::

        for agent in env.agent_iter():
            obs, r, term, trunc, info = env.last()
            action = None if term or trunc else sample(obs["action_mask"])
            env.step(action)

    with ``env.reset()`` before each partie; every iteration of the loop
    (dead steps included) counts as a step.
(c) The same loop, the same sampler, on ``connect_four_v3`` and
    ``leduc_holdem_v4`` when importable, and the ratios. Those two modules
    import pygame at load time only for rendering; where pygame is not
    installed a stub module stands in (nothing here renders) and the table
    says so.

Every env samples the same way: ``legal = mask.nonzero()[0]`` (what
``np.flatnonzero`` does for a 1-d mask, without its Python wrapper) and a
seeded ``random.Random`` picks one. The machine may be shared, so the
envs take turns in short slices (``--slice`` seconds, whole parties)
until each has had ``--seconds / n_envs``: every env then sees the same
mix of load, and its rate is its total steps over its total time. The
table also shows each env's best and worst slice.
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys
import time
import types
from collections import Counter

import numpy as np

from trappola_env.engine import Partie, cards_of, random_deal
from trappola_env.engine.actions import PROPOSE_ALIFER

NO_PROPOSAL = ~(1 << PROPOSE_ALIFER)


def engine_run(seconds: float, seed: int, alifer: bool, rounds: int) -> dict:
    """Random legal parties on the bare engine for ``seconds``, in
    ``rounds`` stretches; rates are those of the best stretch, counts are
    totals."""
    rng = random.Random(seed)
    parties = actions = 0
    outcomes: Counter[str] = Counter()
    cards_played = 0
    best = (0.0, 0.0)
    for _ in range(rounds):
        n_parties = n_actions = 0
        start = time.perf_counter()
        while True:
            for _ in range(50):  # check the clock once per 50 parties
                p = Partie(random_deal(rng))
                while p.phase != 2:  # DONE
                    mask = p.legal_mask()
                    if not alifer:
                        mask &= NO_PROPOSAL
                    legal = cards_of(mask)
                    p.apply(legal[rng.randrange(len(legal))])
                n_actions += len(p.history)
                cards_played += 18 - p.hands[0].bit_count() - p.hands[1].bit_count()
                outcomes[p.result().outcome] += 1
                n_parties += 1
            elapsed = time.perf_counter() - start
            if elapsed >= seconds / rounds:
                break
        best = max(best, (n_parties / elapsed, n_actions / elapsed))
        parties += n_parties
        actions += n_actions
    return {
        "parties_s": best[0],
        "actions_s": best[1],
        "parties": parties,
        "outcomes": outcomes,
        "actions_per_partie": actions / parties,
        "cards_per_partie": cards_played / parties,
    }


def install_pygame_stub() -> bool:
    """Let the classic envs import without pygame (only their renderers use
    it). Returns True when the stub was installed."""
    try:
        import pygame  # noqa: F401

        return False
    except ModuleNotFoundError:
        pass

    class _Stub(types.ModuleType):
        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return _Stub(f"{self.__name__}.{name}")

    sys.modules["pygame"] = _Stub("pygame")
    return True


def env_makers() -> tuple[dict, list[str]]:
    """The environments to time (``trappola_v0`` and the PettingZoo yardsticks that
    import), and notes on those that could not be imported."""
    from trappola_env import trappola_v0

    makers = {"trappola_v0": trappola_v0.env}
    notes = []
    stub = install_pygame_stub()
    for name in ("leduc_holdem_v4", "connect_four_v3"):
        try:
            module = importlib.import_module(f"pettingzoo.classic.{name}")
            makers[name] = module.env
        except Exception as e:  # an optional yardstick: report and go on
            notes.append(f"{name} not importable: {type(e).__name__}: {e}")
    if stub:
        notes.append("pygame is not installed: a stub module stands in for the classic envs' renderers")
    return makers, notes


def loop_run(env, seconds: float, rng: random.Random) -> tuple[int, float]:
    """Steps through the standard AEC loop for about ``seconds``."""
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset()
        for _agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                legal = obs["action_mask"].nonzero()[0]
                action = int(legal[rng.randrange(len(legal))])
            env.step(action)
            steps += 1
    return steps, time.perf_counter() - start


def main(argv=None) -> int:
    """``trappola bench``: time the engine and the environments and print the rates."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--seconds",
        type=float,
        default=15.0,
        help="total seconds for the env loops (default 15); each engine measurement takes a quarter of it",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--slice", type=float, default=0.25, help="seconds of one turn of an env (default 0.25)")
    args = ap.parse_args(argv)
    if args.seconds <= 0 or args.slice <= 0:
        ap.error("--seconds and --slice must be > 0")

    print(f"Python {sys.version.split()[0]}, numpy {np.__version__}, seed {args.seed}")
    print("\n(a) bare engine, one process, random legal play (deal + play + settle; best of 5 stretches)")
    print(f"  {'policy':<28}{'parties/s':>12}{'actions/s':>12}{'actions/partie':>16}{'cards/partie':>14}")
    engine = {}
    for label, alifer in (("uniform random legal", True), ("random, never proposes Alifer", False)):
        r = engine_run(args.seconds / 4, args.seed, alifer, 5)
        engine[label] = r
        print(
            f"  {label:<28}{r['parties_s']:>12,.0f}{r['actions_s']:>12,.0f}{r['actions_per_partie']:>16.1f}"
            f"{r['cards_per_partie']:>14.1f}"
        )
    for label, r in engine.items():
        mix = ", ".join(f"{k} {100 * v / r['parties']:.1f}%" for k, v in sorted(r["outcomes"].items()))
        print(f"  outcome mix, {label}: {mix} ({r['parties']:,} parties)")

    makers, notes = env_makers()
    envs = {}
    for name, make in makers.items():
        env = make()
        env.reset(seed=args.seed)
        envs[name] = env
    totals = {name: [0, 0.0] for name in envs}  # steps, seconds
    slices: dict[str, list[float]] = {name: [] for name in envs}
    rng = random.Random(args.seed)
    n_slices = max(1, round(args.seconds / (args.slice * len(envs))))
    for _ in range(n_slices):
        for name, env in envs.items():
            steps, elapsed = loop_run(env, args.slice, rng)
            totals[name][0] += steps
            totals[name][1] += elapsed
            slices[name].append(steps / elapsed)
    rates = {name: steps / seconds for name, (steps, seconds) in totals.items()}

    print(f"\n(b, c) standard agent_iter loop, steps/s ({n_slices} turns of {args.slice:g} s per env, interleaved)")
    print(f"  {'env':<18}{'steps/s':>10}{'best slice':>12}{'worst slice':>13}{'trappola_v0 / env':>20}")
    for name, rate in rates.items():
        print(
            f"  {name:<18}{rate:>10,.0f}{max(slices[name]):>12,.0f}{min(slices[name]):>13,.0f}"
            f"{rates['trappola_v0'] / rate:>20.2f}"
        )
    for note in notes:
        print(f"  note: {note}")

    return 0


if __name__ == "__main__":
    sys.exit(main())
