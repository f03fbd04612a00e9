"""Cost of the session layer: the fast runner (``trappola_env.referee``)
with random players vs the same number of parties played bare (deal,
play, ``result()``) with the same random policy, called the same way
(an ``InfoState`` and the legal mask per action). The difference is what
seating, stakes, settlement, streaks, Pro, rotation and history cost.

Also: a random 4-player session of 1,000 parties through ``bulka_v0``
with the ledger checked after every step (skipped when the env is absent
or with --no-env).

    .venv/bin/python benchmarks/bench_session.py [--parties 1000] [--rounds 15] [--no-env]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from trappola.agents.evaluation.seeding import derive_seed
from trappola_env.engine import DEFAULT_CONFIG, InfoState, Partie, cards_of, random_deal
from trappola_env.engine.partie import DONE
from trappola_env.referee import play_session
from trappola_env.seat_adapters import PolicySeat


class RandomPlayer:
    """Uniform over the legal actions; declares Pro with probability 1/2."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def act(self, info_state, legal_mask):
        acts = cards_of(legal_mask)
        return acts[int(self.rng.random() * len(acts))]

    def decide_pro(self, decision):
        return self.rng.random() < 0.5


def play_out(partie, policies) -> None:
    """The bare loop: ``policies[seat](info_state, legal_mask)`` to the end, nothing else."""
    while partie.phase != DONE:
        seat = partie.to_act
        partie.apply(policies[seat](InfoState(partie, seat), partie.legal_mask()))


def run_session(n_players, parties, seed):
    players = [RandomPlayer(derive_seed(seed, "player", i)) for i in range(n_players)]
    t = time.process_time()
    res = play_session([PolicySeat(p.act, p.decide_pro) for p in players], max_parties=parties, seed=seed)
    return time.process_time() - t, res.parties_played


def run_bare(parties, seed):
    player = RandomPlayer(seed)
    rng = random.Random(seed)
    pols = (player.act, player.act)
    t = time.process_time()
    for _ in range(parties):
        partie = Partie(random_deal(rng), DEFAULT_CONFIG)
        play_out(partie, pols)
        partie.result()
    return time.process_time() - t


def bench_overhead(n_players, parties, rounds):
    """Median over ``rounds`` of (session time / bare time) per partie.
    Each round plays a fresh session and then the same number of bare
    parties back to back, in alternating order, so that other processes on
    a shared machine slow both sides of a round alike."""
    ratios, per_s, per_b = [], [], []
    for r in range(rounds):
        if r % 2 == 0:
            dt_s, played = run_session(n_players, parties, seed=r + 1)
            dt_b = run_bare(played, seed=r + 1)
        else:
            dt_b = run_bare(parties, seed=r + 1)
            dt_s, played = run_session(n_players, parties, seed=r + 1)
            dt_b *= played / parties  # a live Pro partie may add a few parties
        ratios.append(dt_s / dt_b)
        per_s.append(dt_s / played)
        per_b.append(dt_b / played)
    ratios.sort()
    over = 100 * (statistics.median(ratios) - 1)
    print(
        f"{n_players} players: session runner {min(per_s) * 1e6:6.1f} us/partie, bare {min(per_b) * 1e6:6.1f} "
        f"us/partie (best rounds); overhead median {over:+5.1f} % (rounds {100 * (ratios[0] - 1):+.1f} "
        f"to {100 * (ratios[-1] - 1):+.1f} %; {rounds} rounds of {parties} parties)"
    )
    return over


def bench_env(parties, seed=0):
    try:
        from trappola_env import bulka_v0
    except ImportError:
        print("bulka_v0 not available; env run skipped")
        return
    import numpy as np

    env = bulka_v0.env(n_players=4, max_parties=parties)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    session = env.unwrapped.session
    steps = 0
    t = time.process_time()
    for _agent in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        session.check()
        steps += 1
    dt = time.process_time() - t
    print(
        f"bulka_v0, 4 random players: {session.parties_played} parties, {steps} steps in {dt:.1f} s "
        f"({dt / steps * 1e6:.0f} us/step); ledger exact after every step; final balances "
        f"{ {n: float(v) for n, v in session.balances.items()} }"
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parties", type=int, default=1000, help="parties per round")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--no-env", action="store_true")
    args = ap.parse_args()
    worst = max(bench_overhead(n, args.parties, args.rounds) for n in (2, 3, 4))
    print(f"worst overhead {worst:+.1f} %")
    if not args.no_env:
        bench_env(1000)


if __name__ == "__main__":
    main()
