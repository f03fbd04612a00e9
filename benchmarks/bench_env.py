"""Speed of random legal play: the bare engine and ``trappola_v0``, with
PettingZoo's ``connect_four_v3`` and ``leduc_holdem_v4`` as yardsticks.

    .venv/bin/python benchmarks/bench_env.py [--seconds 15] [--seed 0] [--rounds 5]

(a) Bare engine, one process, one core: parties/s and actions/s of uniform
    random legal play (many parties end early by an accepted Alifer; the
    outcome mix is printed) and of random play that never proposes Alifer
    (all 18 cards are played). A partie here is deal + play + settlement;
    the rates are the best of ``--rounds`` stretches, like (b) and (c).
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
envs are measured in ``--rounds`` interleaved rounds of
``--seconds / (rounds * n_envs)`` each, and each env's best round is
reported (with the median), which keeps the ratios fair when the load
changes during the run. Acceptance: bare engine >= 10,000 random
parties/s; trappola_v0 >= 3x leduc_holdem_v4.
"""
from __future__ import annotations

import argparse
import importlib
import random
import statistics
import sys
import time
import types
from collections import Counter

import numpy as np

from trappola_env.engine import Partie, mask_to_actions, random_deal
from trappola_env.engine.actions import PROPOSE_ALIFER

NO_PROPOSAL = ~(1 << PROPOSE_ALIFER)


def engine_run(seconds: float, seed: int, alifer: bool, rounds: int) -> dict:
    """Random legal parties on the bare engine for ``seconds``, in
    ``rounds`` stretches; rates are those of the best stretch, counts are
    totals."""
    rng = random.Random(seed)
    parties = actions = 0
    outcomes = Counter()
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
                    legal = mask_to_actions(mask)
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
    return {"parties_s": best[0], "actions_s": best[1], "parties": parties,
            "outcomes": outcomes, "actions_per_partie": actions / parties,
            "cards_per_partie": cards_played / parties}


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
        for agent in env.agent_iter():
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
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=15.0, help="total seconds for the env loops (default 15); "
                    "each engine measurement takes a quarter of it")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds for the env loops (default 5)")
    args = ap.parse_args(argv)
    if args.seconds <= 0 or args.rounds < 1:
        ap.error("--seconds must be > 0 and --rounds >= 1")

    print(f"Python {sys.version.split()[0]}, numpy {np.__version__}, seed {args.seed}")
    print(f"\n(a) bare engine, one process, random legal play (deal + play + settle; best of {args.rounds} "
          "stretches)")
    print(f"  {'policy':<28}{'parties/s':>12}{'actions/s':>12}{'actions/partie':>16}{'cards/partie':>14}")
    engine = {}
    for label, alifer in (("uniform random legal", True), ("random, never proposes Alifer", False)):
        r = engine_run(args.seconds / 4, args.seed, alifer, args.rounds)
        engine[label] = r
        print(f"  {label:<28}{r['parties_s']:>12,.0f}{r['actions_s']:>12,.0f}{r['actions_per_partie']:>16.1f}"
              f"{r['cards_per_partie']:>14.1f}")
    for label, r in engine.items():
        mix = ", ".join(f"{k} {100 * v / r['parties']:.1f}%" for k, v in sorted(r["outcomes"].items()))
        print(f"  outcome mix, {label}: {mix} ({r['parties']:,} parties)")

    makers, notes = env_makers()
    envs = {}
    for name, make in makers.items():
        env = make()
        env.reset(seed=args.seed)
        envs[name] = env
    rates = {name: [] for name in envs}
    per_round = args.seconds / (args.rounds * len(envs))
    rng = random.Random(args.seed)
    for _ in range(args.rounds):
        for name, env in envs.items():
            steps, elapsed = loop_run(env, per_round, rng)
            rates[name].append(steps / elapsed)

    print(f"\n(b, c) standard agent_iter loop, steps/s ({args.rounds} interleaved rounds of {per_round:.1f} s each)")
    print(f"  {'env':<18}{'best':>10}{'median':>10}{'trappola_v0 / env (best)':>27}")
    best_t = max(rates["trappola_v0"])
    for name, rs in rates.items():
        ratio = best_t / max(rs)
        print(f"  {name:<18}{max(rs):>10,.0f}{statistics.median(rs):>10,.0f}{ratio:>27.2f}")
    for note in notes:
        print(f"  note: {note}")

    parties_s = engine["uniform random legal"]["parties_s"]
    print("\nacceptance")
    print(f"  bare engine >= 10,000 random parties/s: {parties_s:,.0f} -> {'PASS' if parties_s >= 10_000 else 'FAIL'}")
    if "leduc_holdem_v4" in rates:
        ratio = best_t / max(rates["leduc_holdem_v4"])
        print(f"  trappola_v0 >= 3x leduc_holdem_v4: {ratio:.2f}x -> {'PASS' if ratio >= 3 else 'FAIL'}")
    else:
        print("  trappola_v0 >= 3x leduc_holdem_v4: not measured (leduc_holdem_v4 not importable)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
