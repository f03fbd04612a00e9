"""Where PIMC loses on Trappola: Long et al.'s properties, the cost of strategy fusion, the price of a declaration.

    nice -n 10 .venv/bin/python benchmarks/beyond_pimc_diagnosis.py --positions 300 --tricks-left 3 --seed 0
        [--declarations 60] [--json out.json]

Positions: random deals (``random_deal`` seeded by ``--seed`` and the deal index) played by ``rule`` against
``rule`` until ``--tricks-left`` tricks remain; the position is the first decision after that with more than one
legal card (the seat to act, leading or following).

1. Long, Sturtevant, Buro and Furtak (AAAI 2010) properties, on the perfect-information subtree of each position
   (both hands open, every line played to the end). A leaf is the start of trick 9 (its play is forced), valued
   by the sign of the final difference (win, tie, loss). Leaf correlation: the share of pre-leaf nodes (a choice
   of two or more cards, each leading to a leaf with no further choice) whose children all have one value.
   Bias: the share of leaves won by the seat to act at the position (ties counted apart). Disambiguation: along
   the line ``rule`` played, for the seat at the position, the mean share of its consistent layouts that each
   card of the opponent rules out (0: a card tells nothing, 1: it reveals the hand).
2. Strategy fusion: every layout consistent with the seat's information is listed (uniform weights, as ``pimc``'s
   exact mode). PIMC's card is ``pimc``'s (its ``blend`` objective, all layouts solved). The exact card comes
   from the information-set game over the same layouts: this seat plays one card per information set, the
   opponent sees every card (alpha-mu to the end without a bound on fronts: the best pure strategy against a
   double-dummy defence). PIMC and the exact game use the same objective: the sign (wins minus losses; PIMC as
   ``pimc:objective=win``) and the points (``objective=points``; fronts bounded by ``--max-front``, counted).
   Reported: how often PIMC's card is worse in that game, what it loses, and how much PIMC's own estimate of its
   card overstates the card's exact value (the fusion illusion); and the same losses for ``pimc`` as it plays
   (its ``blend`` objective), against the exact game in sign, points and in that objective itself.
3. The price of a declaration (free information): at the first card of a seat that may declare a Figura or Blans,
   ``infopimc``'s play-outs value declaring and holding back (8 layouts each, two ``pimc:samples=8`` searchers
   with their own information): the mean difference with its 95% interval, in ``pimc``'s objective.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere, installed or not

import numpy as np

from trappola.agents import make_player
from trappola.agents.evaluation.stats import mean_ci
from trappola.agents.players.infopimc import InfoPimcPlayer
from trappola.agents.players.pimc import PimcPlayer
from trappola.agents.search.sampling import constraints_of
from trappola.agents.search.solver import new_table, solve_raw
from trappola.agents.search.worldtree import Public, WorldTree, legal_cards, play, public_of
from trappola_env.atomic_file import write_text
from trappola_env.engine import Partie, random_deal
from trappola_env.engine.actions import BLANS, CARD_ACTIONS, FIGURA_RE, FIGURA_TWOS
from trappola_env.interface import TurnView

_FIRST_DECLS = tuple(range(FIGURA_RE, FIGURA_TWOS + 1)) + (BLANS,)


def late_positions(n: int, tricks_left: int, seed: int):
    """(partie, seat) at the first decision with a card choice once ``tricks_left`` tricks remain."""
    players = [make_player("rule"), make_player("rule")]
    i = 0
    while n > 0:
        partie = Partie(random_deal(random.Random(seed * 1_000_003 + i)))
        for s, p in enumerate(players):
            p.reset(seed * 1_000_003 + i + s)
        i += 1
        while not partie.terminal:
            seat = partie.to_act
            info = partie.info_state(seat)
            cards = info.legal_mask & CARD_ACTIONS
            if info.trick >= 9 - tricks_left and cards & (cards - 1) and info.legal_mask == cards:
                yield partie, seat
                n -= 1
                break
            partie.apply(players[seat].act(TurnView(info)))


# ------------------------------------------------------------ 1. Long et al.
def subtree_stats(pub: Public, hands: tuple[int, int], table, mover0: int) -> tuple[int, int, int, int, int]:
    """(pre-leaf nodes, of them correlated, leaves, leaves won by ``mover0``, tied leaves) of the open-card tree."""

    def leaf_value(p: Public, h) -> int:
        v = solve_raw(np.int64(h[0]), np.int64(h[1]), *p.raw(), table)
        return int(np.sign(v if mover0 == 0 else -v))

    def walk(p: Public, h) -> tuple[list | None, int, int, int, int, int]:
        """(values reached without a further choice or None, pre, corr, leaves, won, tied)."""
        if p.td >= 8:
            v = leaf_value(p, h)
            return [v], 0, 0, 1, int(v > 0), int(v == 0)
        cards = legal_cards(h[p.to_move], p.lead)
        kids = []
        pre = corr = leaves = won = tied = 0
        for c in cards:
            nh = list(h)
            nh[p.to_move] &= ~(1 << c)
            vals, a, b, lv, w, t = walk(play(p, c), tuple(nh))
            kids.append(vals)
            pre, corr, leaves, won, tied = pre + a, corr + b, leaves + lv, won + w, tied + t
        if len(cards) == 1:
            return kids[0], pre, corr, leaves, won, tied
        singles = [k for k in kids if k is not None and len(k) == 1]
        if len(singles) == len(kids):
            pre += 1
            corr += len({k[0] for k in singles}) == 1
        return None, pre, corr, leaves, won, tied

    _, pre, corr, leaves, won, tied = walk(pub, hands)
    return pre, corr, leaves, won, tied


def disambiguation(partie: Partie, seat: int) -> list[float]:
    """Share of ``seat``'s consistent layouts each opponent card rules out, along ``rule``'s line from here."""
    p = partie.copy()
    players = [make_player("rule"), make_player("rule")]
    out = []
    while not p.terminal:
        mover = p.to_act
        action = players[mover].act(TurnView(p.info_state(mover)))
        if mover != seat and action < 36:
            before = constraints_of(p.info_state(seat)).count()
            p.apply(action)
            if not p.terminal:
                after = constraints_of(p.info_state(seat)).count()
                out.append(1.0 - after / before)
        else:
            p.apply(action)
    return out


# ------------------------------------------------------------ 2. fusion
def fusion(partie: Partie, seat: int, table, max_front: int = 16) -> dict:
    """PIMC's card against the exact information-set card over every consistent layout (see the docstring)."""
    info = partie.info_state(seat)
    pimc = PimcPlayer(exact=100_000)
    pimc.reset(0)
    values = pimc.card_values(info)  # (blend, sign, points) means over every layout

    def pimc_choice(k: int) -> int:
        """PIMC's card when its objective is entry k of the means (0: blend as played, 1: sign, 2: points)."""
        return max(values, key=lambda c: (values[c][k], values[c][2], -c))

    opp, _ = pimc.layouts(info)
    w = np.full(len(opp), 1.0 / len(opp))
    pub = public_of(pimc.solver_args(info, seat))
    cards = sorted(values)
    exact = {}
    capped = False
    for name, score, bound in (
        ("sign", lambda d: np.sign(d).astype(np.float64), 1 << 16),
        ("points", lambda d: d.astype(np.float64), max_front),
        ("blend", pimc._score, max_front),
    ):
        tree = WorldTree(seat, info.hand, opp, w, score, table, max_front=bound)
        exact[name] = tree.root_fronts(pub, cards, info.hand.bit_count())
        capped |= tree.capped
    best_sign = max(exact["sign"].values())
    best_points = max(exact["points"].values())
    win_card, points_card, played = pimc_choice(1), pimc_choice(2), pimc_choice(0)
    return {
        "layouts": len(opp),
        "cards": len(cards),
        "capped": capped,
        "sign_loss": best_sign - exact["sign"][win_card],
        "points_loss": best_points - exact["points"][points_card],
        "illusion_sign": values[win_card][1] - exact["sign"][win_card],
        "illusion_points": values[points_card][2] - exact["points"][points_card],
        "played_sign_loss": best_sign - exact["sign"][played],
        "played_points_loss": best_points - exact["points"][played],
        "played_blend_loss": max(exact["blend"].values()) - exact["blend"][played],
        "illusion_blend": values[played][0] - exact["blend"][played],
    }


# ------------------------------------------------------------ 3. declarations
def declaration_prices(n: int, seed: int) -> list[float]:
    """(declare - hold) in ``pimc``'s objective at first-card Figura/Blans decisions of random deals."""
    infopimc = make_player("infopimc:samples=32")
    assert isinstance(infopimc, InfoPimcPlayer)
    out: list[float] = []
    i = 0
    while len(out) < n and i < 100 * n:
        partie = Partie(random_deal(random.Random(seed * 7_000_001 + i)))
        i += 1
        for seat in (0,):
            info = partie.info_state(seat)
            open_decls = [a for a in _FIRST_DECLS if info.legal_mask >> a & 1]
            if open_decls:
                infopimc.reset(i)
                declare, hold = infopimc.declaration_values(info, open_decls[0])
                out.append(declare - hold)
    return out


def _ci(xs) -> str:
    m, (lo, hi) = mean_ci(list(xs))
    return f"{m:+.3f}" if lo is None else f"{m:+.3f} [{lo:+.3f}, {hi:+.3f}]"


def summary(args, pre, corr, leaves, won, tied, dis, fus, start) -> dict:
    """The figures so far, printed and returned."""
    n = len(fus)
    differs = [f["sign_loss"] > 1e-9 for f in fus]
    differs_pts = [f["points_loss"] > 1e-9 for f in fus]
    report = {
        "positions": n,
        "tricks_left": args.tricks_left,
        "seed": args.seed,
        "leaf_correlation": corr / pre if pre else math.nan,
        "pre_leaf_nodes": pre,
        "bias_won": won / leaves,
        "bias_tied": tied / leaves,
        "leaves": leaves,
        "disambiguation": float(np.mean(dis)) if dis else math.nan,
        "opponent_cards": len(dis),
        "capped": float(np.mean([f["capped"] for f in fus])),
        "mean_layouts": float(np.mean([f["layouts"] for f in fus])),
        "pimc_worse_sign": float(np.mean(differs)),
        "pimc_worse_points": float(np.mean(differs_pts)),
        "sign_loss": mean_ci([f["sign_loss"] for f in fus]),
        "points_loss": mean_ci([f["points_loss"] for f in fus]),
        "illusion_sign": mean_ci([f["illusion_sign"] for f in fus]),
        "illusion_points": mean_ci([f["illusion_points"] for f in fus]),
        "played_sign_loss": mean_ci([f["played_sign_loss"] for f in fus]),
        "played_points_loss": mean_ci([f["played_points_loss"] for f in fus]),
        "played_worse_sign": float(np.mean([f["played_sign_loss"] > 1e-9 for f in fus])),
        "played_worse_blend": float(np.mean([f["played_blend_loss"] > 1e-9 for f in fus])),
        "played_blend_loss": mean_ci([f["played_blend_loss"] for f in fus]),
        "illusion_blend": mean_ci([f["illusion_blend"] for f in fus]),
        "seconds_fusion": time.perf_counter() - start,
    }
    print(f"{n} positions, {args.tricks_left} tricks left, seed {args.seed} ({report['mean_layouts']:.0f} layouts)")
    print(f"leaf correlation {report['leaf_correlation']:.3f} over {pre} pre-leaf nodes")
    print(f"bias: leaves won by the seat to act {report['bias_won']:.3f}, tied {report['bias_tied']:.3f} ({leaves})")
    print(f"disambiguation {report['disambiguation']:.3f} over {len(dis)} opponent cards")
    print(
        f"PIMC's card worse in the information-set game: {report['pimc_worse_sign']:.3f} of positions (sign), "
        f"{report['pimc_worse_points']:.3f} (points)"
    )
    print(
        f"loss per position: wins-losses {_ci(f['sign_loss'] for f in fus)}, "
        f"points {_ci(f['points_loss'] for f in fus)}"
    )
    print(
        f"PIMC's overestimate of its card: wins-losses {_ci(f['illusion_sign'] for f in fus)}, "
        f"points {_ci(f['illusion_points'] for f in fus)}"
    )
    print(
        f"pimc as it plays (blend objective): worse in {report['played_worse_sign']:.3f} of positions (sign); "
        f"loss wins-losses {_ci(f['played_sign_loss'] for f in fus)}, "
        f"points {_ci(f['played_points_loss'] for f in fus)}"
    )
    print(
        f"in its own objective (blend, exact fronts bounded as points): worse in {report['played_worse_blend']:.3f}"
        f" of positions, loss {_ci(f['played_blend_loss'] for f in fus)}, "
        f"overestimate {_ci(f['illusion_blend'] for f in fus)}"
    )
    print(f"points/blend fronts bounded at {args.max_front} in {report['capped']:.3f} of positions (sign: exact)")
    print(f"({report['seconds_fusion']:.0f} s)", flush=True)
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--tricks-left", type=int, default=3, choices=(2, 3, 4))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--declarations", type=int, default=60, help="first-card declarations priced (0: none)")
    ap.add_argument(
        "--max-front",
        type=int,
        default=16,
        help="bound on a points front (sign fronts are unbounded); hits are counted",
    )
    ap.add_argument("--json")
    args = ap.parse_args()
    table = new_table()
    start = time.perf_counter()
    pre = corr = leaves = won = tied = 0
    dis, fus = [], []
    for partie, seat in late_positions(args.positions, args.tricks_left, args.seed):
        info = partie.info_state(seat)
        pimc = PimcPlayer()
        hands = (partie.hands[0], partie.hands[1])
        a, b, lv, w, t = subtree_stats(public_of(pimc.solver_args(info, seat)), hands, table, seat)
        pre, corr, leaves, won, tied = pre + a, corr + b, leaves + lv, won + w, tied + t
        dis += disambiguation(partie, seat)
        fus.append(fusion(partie, seat, table, args.max_front))
        if len(fus) % 10 == 0:
            summary(args, pre, corr, leaves, won, tied, dis, fus, start)
    report = summary(args, pre, corr, leaves, won, tied, dis, fus, start)
    if args.declarations:
        start = time.perf_counter()
        prices = declaration_prices(args.declarations, args.seed)
        report["declaration_minus_hold"] = mean_ci(prices)
        report["hold_better"] = float(np.mean([p < 0 for p in prices]))
        report["declarations"] = len(prices)
        print(
            f"first-card Figura/Blans: declaring minus holding back {_ci(prices)} (pimc objective, {len(prices)} "
            f"decisions; holding back better in {report['hold_better']:.3f}) ({time.perf_counter() - start:.0f} s)"
        )
    if args.json:
        write_text(args.json, json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
