"""``python -m trappola.train.pro.observed``: the Pro decision from what a player can
see (``trappola.agents.pro_learned.ObservedPro``), fitted from rollouts and compared
on held-out 4-player sessions against tables of mixed players whose kinds
it is not told.

Tables: the focal player (``--focal``, its cards; its Pro decision is the
rule under test) and three others drawn per session, uniformly with
replacement, from a pool of kinds, each with its own Pro rule. Training
uses ``TRAIN_POOL``; the comparison ``TEST_POOL``, other players and other
settings than any met in training, on other session seeds.

Fit: in ``--train-sessions`` sessions (the focal player always declares),
every decided partie the focal player deals gives one example: the
``RECORD_FEATURES`` of its challenger as the public history stood before
the partie, and whether it won. A logistic regression (Newton's method,
a small ridge) gives ``ObservedPro``'s weights.

Compare: on ``--test-sessions`` held-out sessions (the same seeds, tables
and deals for every rule: common random numbers) the focal player's tokens
per partie (its final balance, Bulka share included, / parties) under:
the learned rule; always; never; and the name-keyed rule,
``LookaheadPro`` with the focal player's win rates as dealer against the
training kinds, measured by play (``measure_win_rates``), which reads the
kind from the opponent's name (the true one here: its best case; an
unknown kind gets the mean of the rates, which makes it declare). Mean and
95% interval per rule and the paired differences.

    python -m trappola.train.pro.observed --train-sessions 300 --test-sessions 400 --parties 40 --seed 0
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from trappola.agents import make_player
from trappola.agents.evaluation.seeding import derive_seed
from trappola.agents.evaluation.stats import mean_ci
from trappola.agents.evaluation.tournament import unique_labels
from trappola.agents.pro_learned import RECORD_FEATURES, LookaheadPro, ObservedPro, record_features
from trappola.train.pro.bench import FOCAL, per_seed
from trappola.train.pro.lookahead import measure_win_rates
from trappola_env.engine.records import session_records
from trappola_env.engine.session import Session
from trappola_env.referee import play_session
from trappola_env.seat_adapters import WithProRule

# Every random player here declines Alifer: two random players that agree to
# replays double the stakes again and again, and tokens per partie then have
# tails no few hundred sessions can average.
# Strong players (``pimc``: the focal ``rule`` wins about 0.4 of its parties
# as dealer against it, against 0.57-0.71 for the weak ones) make tables where
# declaring against the challenger can cost more than waiting for the next
# one; with weak players alone the lookahead always declares. The test pool
# meets ``pimc`` only at other sample counts and Pro settings than training.
# Few samples keep 700 sessions of 40 parties within minutes.
TRAIN_POOL = (
    "rule",
    "random:alifer=false",
    "rule:declare=never",
    "random:alifer=false,pro=never",
    "pimc:samples=6",
    "pimc:samples=3,pro=never",
)
TEST_POOL = (
    "rule:twos=false,cash=late",
    "rule:alifer=never,pro=always",
    "random:alifer=false,pro=always",
    "rule:declare=no_aces,endgame=0",
    "random:alifer=false,pro=threshold",
    "pimc:samples=4,pro=always",
    "pimc:samples=8,pro_bulka=5",
)


class _Named:
    """A table player shown under its label (``rule#2``): names stay distinct."""

    def __init__(self, player, label):
        self.player, self.name = player, label

    def act(self, view):
        return self.player.act(view)

    def decide_pro(self, view) -> bool:
        return self.player.decide_pro(view)


def table_of(pool, seed: int) -> list[str]:
    """The three specs of a session's table."""
    rng = random.Random(derive_seed(seed, "table"))
    return [rng.choice(pool) for _ in range(3)]


def seated(focal_card: str, pro, pool, seed: int) -> dict:
    """``{name: player}`` of one session, every player reset from ``seed``."""
    specs = table_of(pool, seed)
    players: dict[str, WithProRule | _Named] = {FOCAL: WithProRule(make_player(focal_card), pro, FOCAL)}
    for label, spec in zip(unique_labels(specs), specs, strict=True):
        players[label] = _Named(make_player(spec), label)
    for k, p in enumerate(players.values()):
        p.player.reset(derive_seed(seed, "player", k))
    return players


def dealer_examples(focal_card: str, pool, seeds, parties: int) -> tuple[np.ndarray, np.ndarray]:
    """(features, won) of every decided partie the focal player deals, the
    focal player always declaring Pro."""
    xs, ys = [], []
    for seed in seeds:
        players = seated(focal_card, lambda view: True, pool, seed)
        session = Session(max_parties=parties, seed=seed, names=list(players))

        def on_partie(partie, s=session):
            rec = s.history[-1]
            if rec.dealer != FOCAL or rec.winner is None:
                return
            names = list(s.players)
            before = session_records(s.history[:-1], FOCAL, names)  # as the public record stood
            xs.append(record_features(tuple(before[n] for n in names), names.index(FOCAL), names.index(rec.challenger)))
            ys.append(1.0 if rec.winner == FOCAL else 0.0)

        play_session(players, session=session, on_partie=on_partie)
    return np.array(xs, dtype=float).reshape(-1, len(RECORD_FEATURES)), np.array(ys, dtype=float)


def fit_logistic(X: np.ndarray, y: np.ndarray, ridge: float = 1.0, steps: int = 50) -> np.ndarray:
    """Weights of ``P(y=1) = sigmoid(X w)`` by Newton's method with an L2
    penalty ``ridge`` on the weights but the bias."""
    w = np.zeros(X.shape[1])
    pen = ridge * np.eye(X.shape[1])
    pen[0, 0] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-X @ w))
        grad = X.T @ (p - y) + pen @ w
        hess = X.T @ (X * (p * (1 - p))[:, None]) + pen
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def tokens_per_partie(focal_card: str, pro, pool, seeds, parties: int) -> np.ndarray:
    """The focal player's tokens per partie in the session of each seed."""
    out = []
    for seed in seeds:
        res = play_session(seated(focal_card, pro, pool, seed), max_parties=parties, seed=seed)
        out.append(float(res.balances[FOCAL]) / max(res.parties_played, 1))
    return np.array(out)


def main(argv=None) -> int:
    """The command line: fit the record-reading Pro rule and compare it on held-out tables; the exit code."""
    ap = argparse.ArgumentParser(prog="python -m trappola.train.pro.observed", description=__doc__.split("\n\n")[0])
    ap.add_argument("--focal", default="rule", help="the focal player's card play")
    ap.add_argument("--parties", type=int, default=40, help="parties per session")
    ap.add_argument("--train-sessions", type=int, default=300)
    ap.add_argument("--test-sessions", type=int, default=400)
    ap.add_argument(
        "--rate-parties",
        type=int,
        default=1000,
        help="the name-keyed rule: parties as dealer against each training kind",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args(argv)
    t0 = time.time()
    train_seeds = [derive_seed(args.seed, "train", i) for i in range(args.train_sessions)]
    X, y = dealer_examples(args.focal, TRAIN_POOL, train_seeds, args.parties)
    w = fit_logistic(X, y)
    learned = ObservedPro(tuple(float(v) for v in w))
    print(
        f"fit on {len(y)} parties dealt by {args.focal} in {args.train_sessions} sessions (won {y.mean():.3f}): "
        f"weights {dict(zip(RECORD_FEATURES, np.round(w, 3).tolist(), strict=True))}",
        flush=True,
    )
    kinds = {
        "rule": make_player("rule"),
        "random": make_player("random:alifer=false"),
        "pimc": make_player("pimc:samples=6"),
    }  # the training kinds
    rates = measure_win_rates(make_player(args.focal), kinds, parties=args.rate_parties, seed=args.seed)
    name_keyed = LookaheadPro(rates, default=sum(rates.values()) / len(rates))
    print(f"name-keyed win rates as dealer: {rates}", flush=True)
    rules = {"learned": learned, "always": (lambda v: True), "never": (lambda v: False), "name-keyed": name_keyed}
    test_seeds = [derive_seed(args.seed, "test", i) for i in range(args.test_sessions)]
    vals = {}
    for name, rule in rules.items():
        vals[name] = per_seed(
            lambda chunk, rule=rule: tokens_per_partie(args.focal, rule, TEST_POOL, chunk, args.parties),
            test_seeds,
            args.workers,
        )
        m, (lo, hi) = mean_ci(vals[name])
        print(
            f"{name:<11} {m:+.3f} [{lo:+.3f}, {hi:+.3f}] tokens per partie ({len(vals[name])} held-out sessions)",
            flush=True,
        )
    for other in ("always", "never", "name-keyed"):
        m, (lo, hi) = mean_ci(vals["learned"] - vals[other])
        print(f"learned minus {other:<10} {m:+.3f} [{lo:+.3f}, {hi:+.3f}]")
    print(f"learned Pro policy {learned.to_dict()}; {(time.time() - t0) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
