"""How well layout weights read the opponent's hand: uniform, belief, inference.

Run:  .venv/bin/python benchmarks/bench_inference.py [--deals 200] [--opponents policy:endgame=0,pimc:samples=32,rule]
                                                      [--observer rule] [--draws 128] [--seed 0] [--model policy]
                                                      [--variants T:F,...]

Plays ``--deals`` held-out deals (seeded from ``--seed``; neither model saw
them) of ``--observer`` against each opponent, in both seats, and at every
turn in which the observer chooses among two or more cards it weighs
``--draws`` layouts drawn uniformly from the record (``trappola.agents.search.sampling``) as
``pimc`` would, with

* ``uniform``: every layout the same (plain ``pimc``);
* ``belief``: the learned per-card odds (``trappola.agents.search.belief``, the shipped model);
* ``infer``: the likelihood of the opponent's past decisions under the
  opponent model (``trappola.agents.search.inference``; ``--model``: the shipped network, or a
  checkpoint such as one ``trappola.train.fit.opponent_model`` fits to a player);
* ``both``: the product of the two;
* ``infer t/f`` for each ``--variants t:f``: the inference with temperature
  ``t`` and floor ``f`` (``pimc``'s ``infer_temp`` and ``infer_floor``), the
  knobs that make it robust to an opponent unlike the network.

Two figures per weighting, with 95% intervals over deals:

* **log-likelihood of the true hand**, in nats beyond uniform: the weighting,
  normalised over all consistent layouts, gives the true hand
  ``w(true) / (count * mean w(draws))`` (the mean over uniform draws
  estimates the normaliser), uniform gives ``1 / count``; the figure is the
  log of their ratio, ``log w(true) - log mean w(draws)``, 0 for uniform.
* **effective sample size** of the normalised weights over the draws, as a
  share of them (Kish: ``1 / sum w^2``): 1 when all count the same, small
  when a few layouts carry the weight. A weighting may be sharp and wrong;
  the first figure says whether the weight lands on the truth.

By trick, too: the evidence grows as the opponent plays.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

# One core, one thread: numpy's BLAS threads (the inference's batched products) would time two cores.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from trappola.agents import make_player  # noqa: E402
from trappola.agents.evaluation import derive_seed, stats  # noqa: E402
from trappola.agents.search.belief import load_belief  # noqa: E402
from trappola.agents.search.inference import effective_sample_size, load_inference, normalise  # noqa: E402
from trappola.agents.search.sampling import constraints_of  # noqa: E402
from trappola_env.engine import Partie, random_deal  # noqa: E402
from trappola_env.interface import TurnView  # noqa: E402
from trappola_env.observation import encode_info  # noqa: E402

WEIGHTINGS = ("uniform", "belief", "infer", "both")
_CARDS = (1 << 36) - 1


def _log_mean_exp(x: np.ndarray) -> float:
    top = x.max()
    return float(top + np.log(np.exp(x - top).mean()))


def rows_of_deal(deal, observer, opponent, seat: int, belief, inferences: dict, draws: int, rng) -> list[tuple]:
    """(trick, {weighting: (log-likelihood gain of the true hand, ESS share)})
    at each card choice of the observer, playing ``seat``."""
    p = Partie(deal)
    players = [observer, opponent] if seat == 0 else [opponent, observer]
    out = []
    while not p.terminal:
        info = p.info_state(p.to_act)
        if p.to_act == seat and (info.legal_mask & _CARDS).bit_count() >= 2:
            cons = constraints_of(info)
            true = np.array([p.hands[1 - seat]], np.int64)
            hands = np.concatenate([true, cons.sample_array(rng, draws)])
            obs = encode_info(info)
            z = belief.log_odds(obs).astype(np.float64)
            log_b = ((hands[:, None] >> np.arange(36)) & 1) @ z
            logs = {name: inf.log_likelihood(info, hands) for name, inf in inferences.items()}
            fig = {}
            for name, lw in (
                ("uniform", np.zeros(len(hands))),
                ("belief", log_b),
                ("infer", logs["infer"]),
                ("both", log_b + logs["infer"]),
                *[(k, v) for k, v in logs.items() if k != "infer"],
            ):
                fig[name] = (float(lw[0] - _log_mean_exp(lw[1:])), effective_sample_size(normalise(lw[1:])) / draws)
            out.append((info.trick, fig))
        p.apply(players[p.to_act].act(TurnView(info)))
    return out


def mean_ci(xs) -> tuple[float, float, float]:
    """(mean, low, high): ``trappola.agents.evaluation.stats.mean_ci`` flattened for the table."""
    m, (lo, hi) = stats.mean_ci(xs)
    return m, lo, hi


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--opponents", default="policy:endgame=0,pimc:samples=32,rule")
    ap.add_argument("--observer", default="rule")
    ap.add_argument("--draws", type=int, default=128)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--model",
        default="policy",
        help="the opponent model: 'policy' (the shipped network), 'pimc' (the shipped model of pimc) or a checkpoint",
    )
    ap.add_argument("--variants", default="", help="comma-separated temperature:floor pairs, e.g. 2:0.1,1:0.3")
    args = ap.parse_args(argv)
    if args.deals < 1 or not 1 <= args.draws <= 4096:
        ap.error("--deals must be >= 1 and --draws in 1..4096")
    belief = load_belief("default")
    try:
        inferences = {"infer": load_inference(args.model)}
    except ValueError as e:
        ap.error(str(e))
    try:
        for v in filter(None, args.variants.split(",")):
            t, f = (float(x) for x in v.split(":"))
            inferences[f"infer {t:g}/{f:g}"] = load_inference(args.model, t, f)
    except ValueError as e:
        ap.error(f"--variants: {e}")
    weightings = WEIGHTINGS + tuple(k for k in inferences if k != "infer")
    for opp_spec in args.opponents.split(","):
        t0 = time.time()
        observer, opponent = make_player(args.observer), make_player(opp_spec)
        per_deal: dict[str, tuple[list[float], list[float]]] = {w: ([], []) for w in weightings}
        by_trick: dict[int, dict[str, list]] = {}
        for i in range(args.deals):
            deal = random_deal(random.Random(derive_seed(args.seed, "bench_inference", i)))
            rows = []
            for seat in (0, 1):
                observer.reset(derive_seed(args.seed, "observer", i, seat))
                opponent.reset(derive_seed(args.seed, "opponent", i, seat))
                rng = np.random.default_rng(derive_seed(args.seed, "draws", i, seat))
                rows += rows_of_deal(deal, observer, opponent, seat, belief, inferences, args.draws, rng)
            for trick, fig in rows:
                for w in weightings:
                    by_trick.setdefault(trick + 1, {x: [] for x in weightings})[w].append(fig[w][0])
            if rows:
                for w in weightings:
                    per_deal[w][0].append(np.mean([f[w][0] for _, f in rows]))
                    per_deal[w][1].append(np.mean([f[w][1] for _, f in rows]))
        n_rows = sum(len(v["uniform"]) for v in by_trick.values())
        print(
            f"{args.observer} reading {opp_spec}: {args.deals} deals, both seats, {n_rows} card choices, "
            f"{args.draws} draws each ({time.time() - t0:.0f} s); mean per deal, 95% CI:"
        )
        print(f"  {'weighting':<13} {'log-lik. of true hand (nats vs uniform)':<40} effective sample size (share)")
        for w in weightings:
            m, lo, hi = mean_ci(per_deal[w][0])
            ess, elo, ehi = mean_ci(per_deal[w][1])
            print(f"  {w:<13} {m:+.3f} [{lo:+.3f}, {hi:+.3f}]{'':<17} {ess:.3f} [{elo:.3f}, {ehi:.3f}]")
        print(
            "  by trick, mean log-lik. gain (belief / infer / both): "
            + "  ".join(
                f"{t}: {np.mean(v['belief']):+.2f}/{np.mean(v['infer']):+.2f}/{np.mean(v['both']):+.2f}"
                for t, v in sorted(by_trick.items())
            ),
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
