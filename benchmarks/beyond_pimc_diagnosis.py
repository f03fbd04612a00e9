"""Where PIMC loses on Trappola: Long et al.'s properties, the cost of strategy fusion, the price of a declaration.

    nice -n 10 .venv/bin/python benchmarks/beyond_pimc_diagnosis.py --positions 200 --tricks-left 3 --seed 0 \
        --records runs/diag3.jsonl [--fusion-limit 120] [--declarations 60] [--json out.json]
    .venv/bin/python benchmarks/beyond_pimc_diagnosis.py --summary runs/diag3.jsonl [--json out.json]

Positions: random deals (``random_deal`` seeded by ``--seed`` and the deal index) played by ``rule:alifer=never``
against itself; a coin drawn before the deal picks the seat, and the position is that seat's first decision with
more than one legal card once ``--tricks-left`` tricks remain (see ``late_positions``). Nothing about the outcome
chooses a position. Each position is one JSON line of ``--records`` (appended as it is measured, so a run that
stops resumes where it stopped); ``--summary`` prints the figures of record files with their intervals: the
three properties with a percentile bootstrap over positions (the position is the unit: its nodes, leaves and
cards are not independent), every "k of n" with its exact Clopper-Pearson interval.

1. Long, Sturtevant, Buro and Furtak (AAAI 2010) properties, on the perfect-information subtree of each position
   (both hands open, every line played to the end). A leaf is the start of trick 9 (its play is forced), valued
   by the sign of the final difference (win, tie, loss). Leaf correlation: the share of pre-leaf nodes (a choice
   of two or more cards, each leading to a leaf with no further choice) whose children all have one value.
   Bias: the share of leaves won by the seat to act at the position (ties counted apart). Disambiguation: along
   the line ``rule:alifer=never`` played, for the seat at the position, the mean share of its consistent layouts
   that each card of the opponent rules out (0: a card tells nothing, 1: it reveals the hand).
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
import signal
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
from trappola_env.engine.actions import BLANS, CARD_ACTIONS, FIGURA_RE, FIGURA_TWOS, PROPOSE_ALIFER
from trappola_env.interface import TurnView

_PROPOSE = 1 << PROPOSE_ALIFER
# The line to the position: ``rule`` that never proposes an Alifer, so no partie ends early by agreement
# (``rule`` proposes when it is losing clearly, which would drop close deals from the sample).
_LINE = "rule:alifer=never"
_FIRST_DECLS = tuple(range(FIGURA_RE, FIGURA_TWOS + 1)) + (BLANS,)


def late_positions(n: int, tricks_left: int, seed: int, start: int = 0):
    """(index, partie, seat) of deals ``start``, ``start + 1``, ... until ``n`` positions are found.

    The seat is drawn by a coin of ``(seed, index)`` before the deal is played, so nothing about the
    outcome chooses it; the position is that seat's first decision with more than one legal card and
    nothing else open but proposing an Alifer, once ``tricks_left`` tricks remain. (Requiring no Alifer
    proposal to be open, as this script once did, kept mostly the seats that had proposed one already,
    which ``rule`` does when behind: most of those positions were lost.) A deal where that seat has no such choice
    to the end is skipped (a property of the hands, not of the outcome; counted in ``skipped``)."""
    players = [make_player(_LINE), make_player(_LINE)]
    i = start
    found = 0
    while found < n:
        partie = Partie(random_deal(random.Random(seed * 1_000_003 + i)))
        chosen = random.Random(seed * 7_919 + i * 2 + 1).randrange(2)
        for s, p in enumerate(players):
            p.reset(seed * 1_000_003 + i + s)
        index = i
        i += 1
        while not partie.terminal:
            seat = partie.to_act
            info = partie.info_state(seat)
            cards = info.legal_mask & CARD_ACTIONS
            late = info.trick >= 9 - tricks_left
            if late and seat == chosen and cards & (cards - 1) and not info.legal_mask & ~cards & ~_PROPOSE:
                yield index, partie, seat
                found += 1
                break
            partie.apply(players[seat].act(TurnView(info)))
        else:
            yield index, None, chosen


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
    players = [make_player(_LINE), make_player(_LINE)]
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


# ------------------------------------------------------------ one position, recorded
class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout


def measure(index: int, partie: Partie, seat: int, table, max_front: int, fusion_limit: float) -> dict:
    """One position's record: Long et al.'s counts, the opponent's disambiguation shares, the double-dummy
    value, and the fusion figures (``"fusion": None`` when it ran past ``fusion_limit`` seconds, 0: skipped)."""
    info = partie.info_state(seat)
    pub = public_of(PimcPlayer().solver_args(info, seat))
    hands = (partie.hands[0], partie.hands[1])
    t0 = time.process_time()
    pre, corr, leaves, won, tied = subtree_stats(pub, hands, table, seat)
    dd = solve_raw(np.int64(hands[0]), np.int64(hands[1]), *pub.raw(), table)
    rec = {
        "index": index,
        "seat": seat,
        "trick": info.trick,
        "pre": pre,
        "corr": corr,
        "leaves": leaves,
        "won": won,
        "tied": tied,
        "dd_sign": int(np.sign(dd if seat == 0 else -dd)),
        "dis": disambiguation(partie, seat),
        "seconds_subtree": time.process_time() - t0,
        "fusion_limit": fusion_limit,
    }
    if not fusion_limit:
        rec["fusion"] = 0
        return rec
    t0 = time.process_time()
    signal.signal(signal.SIGPROF, _alarm)
    signal.setitimer(signal.ITIMER_PROF, fusion_limit)  # CPU time: the same limit on a loaded machine
    try:
        rec["fusion"] = fusion(partie, seat, table, max_front)
    except _Timeout:
        rec["fusion"] = None
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
    rec["seconds_fusion"] = time.process_time() - t0
    return rec


# ------------------------------------------------------------ intervals
def clopper_pearson(k: int, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """The exact (Clopper-Pearson) interval of a binomial rate ``k`` of ``n``, by bisection on its tails."""

    def tail_ge(p: float) -> float:  # P(X >= k)
        return 1.0 - sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k))

    def tail_le(p: float) -> float:  # P(X <= k)
        return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1))

    def solve(f, target: float, increasing: bool) -> float:
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = (lo + hi) / 2
            if (f(mid) < target) == increasing:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    low = 0.0 if k == 0 else solve(tail_ge, alpha / 2, True)
    high = 1.0 if k == n else solve(tail_le, alpha / 2, False)
    return low, high


def bootstrap_ratio(num, den, reps: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """sum(num) / sum(den) with a 95% percentile bootstrap over positions (the positions are the units)."""
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    keep = den > 0
    if not keep.any():
        return math.nan, math.nan, math.nan
    rng = np.random.default_rng(seed)
    idx = rng.integers(len(num), size=(reps, len(num)))
    sums = den[idx].sum(axis=1)
    ratios = num[idx].sum(axis=1)[sums > 0] / sums[sums > 0]
    lo, hi = np.percentile(ratios, [2.5, 97.5])
    return float(num.sum() / den.sum()), float(lo), float(hi)


def _rate(k: int, n: int) -> str:
    lo, hi = clopper_pearson(k, n)
    return f"{k} of {n} = {k / n:.3f} [{lo:.3f}, {hi:.3f}]" if n else "0 of 0"


def summary(records: list[dict]) -> dict:
    """The figures of the recorded positions, printed (each rate with its 95% interval) and returned."""
    pos = [r for r in records if "pre" in r]
    out: dict = {"positions": len(pos), "skipped": len(records) - len(pos)}
    if not pos:
        print("no positions")
        return out
    print(f"{len(pos)} positions ({out['skipped']} deals skipped: the drawn seat had no choice of card)")
    undecided = [r for r in pos if 0 < r["won"] + r["tied"] < r["leaves"]]
    for name, sel in (("all positions", pos), ("undecided positions (leaves of both kinds)", undecided)):
        if not sel:
            continue
        lc = bootstrap_ratio([r["corr"] for r in sel], [r["pre"] for r in sel])
        bw = bootstrap_ratio([r["won"] for r in sel], [r["leaves"] for r in sel])
        bt = bootstrap_ratio([r["tied"] for r in sel], [r["leaves"] for r in sel])
        dis = bootstrap_ratio([sum(r["dis"]) for r in sel], [len(r["dis"]) for r in sel])
        key = "all" if sel is pos else "undecided"
        out[key] = {
            "positions": len(sel),
            "leaf_correlation": lc,
            "pre_leaf_nodes": sum(r["pre"] for r in sel),
            "bias_won": bw,
            "bias_tied": bt,
            "leaves": sum(r["leaves"] for r in sel),
            "disambiguation": dis,
            "opponent_cards": sum(len(r["dis"]) for r in sel),
        }
        print(f"-- {name}: {len(sel)}")
        print(f"leaf correlation {lc[0]:.3f} [{lc[1]:.3f}, {lc[2]:.3f}] ({out[key]['pre_leaf_nodes']} pre-leaf nodes)")
        print(
            f"bias: leaves won by the seat to act {bw[0]:.3f} [{bw[1]:.3f}, {bw[2]:.3f}], tied {bt[0]:.3f} "
            f"[{bt[1]:.3f}, {bt[2]:.3f}] ({out[key]['leaves']} leaves)"
        )
        print(f"disambiguation {dis[0]:.3f} [{dis[1]:.3f}, {dis[2]:.3f}] ({out[key]['opponent_cards']} opponent cards)")
    dd = [r["dd_sign"] for r in pos]
    out["dd"] = {"won": dd.count(1), "tied": dd.count(0), "lost": dd.count(-1)}
    print(
        f"double-dummy value for the seat to act: won {_rate(dd.count(1), len(dd))}, "
        f"lost {_rate(dd.count(-1), len(dd))}; undecided subtrees {_rate(len(undecided), len(pos))}"
    )
    print(f"subtree seconds per position: median {np.median([r['seconds_subtree'] for r in pos]):.2f}")
    tried = [r for r in pos if r["fusion"] != 0]
    if not tried:
        return out
    fus = [r["fusion"] for r in tried if r["fusion"] is not None]
    n, unsolved = len(fus), len(tried) - len(fus)
    secs = [r["seconds_fusion"] for r in tried]
    out["fusion"] = {"tried": len(tried), "solved": n, "limit": tried[0]["fusion_limit"]}
    print(
        f"-- strategy fusion: {n} of {len(tried)} positions solved within {tried[0]['fusion_limit']:g} s each "
        f"(seconds per position: median {np.median(secs):.1f}, max {max(secs):.1f}; "
        f"{np.mean([f['layouts'] for f in fus]) if fus else 0:.0f} layouts on average)"
    )
    if not fus:
        return out
    for key, label in (
        ("sign_loss", "PIMC (objective=win) card worse in the information-set game, wins-losses"),
        ("points_loss", "PIMC (objective=points) card worse, points (fronts bounded)"),
        ("played_sign_loss", "pimc as it plays (blend) worse, judged in wins-losses"),
        ("played_blend_loss", "pimc as it plays worse, judged in its own objective"),
    ):
        k = sum(f[key] > 1e-9 for f in fus)
        lo, hi = clopper_pearson(k, n)
        out["fusion"][key] = {"worse": k, "of": n, "ci": [lo, hi], "mean_loss": mean_ci([f[key] for f in fus])}
        if unsolved:
            out["fusion"][key]["all_tried_bounds"] = [k / len(tried), (k + unsolved) / len(tried)]
        loss = _ci(f[key] for f in fus)
        if key.endswith("sign_loss") and k < 20:
            # a position's loss in wins-losses lies in [0, 2] and is 0 unless PIMC's card is worse: with few
            # such positions the exact interval of their share bounds the mean, where a t interval would not
            loss = f"{np.mean([f[key] for f in fus]):+.3f}, within [0, {2 * hi:.3f}]"
            out["fusion"][key]["loss_bound"] = [0.0, 2 * hi]
        tried_note = f" (over all {len(tried)} tried: {k / len(tried):.3f} to {(k + unsolved) / len(tried):.3f})"
        print(f"{label}: {_rate(k, n)}{tried_note if unsolved else ''}; loss per position {loss}")
    for key in ("illusion_sign", "illusion_points", "illusion_blend"):
        out["fusion"][key] = mean_ci([f[key] for f in fus])
        print(f"{key}: {_ci(f[key] for f in fus)}")
    capped = sum(f["capped"] for f in fus)
    out["fusion"]["capped"] = capped
    print(f"points/blend fronts bounded at the cap in {capped} of {n} positions (sign: exact)")
    return out


def _load(paths) -> list[dict]:
    out = []
    for p in paths:
        if Path(p).exists():
            out += [json.loads(line) for line in Path(p).read_text().splitlines() if line.strip()]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--tricks-left", type=int, default=3, choices=(2, 3, 4, 5, 6))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--start", type=int, default=0, help="first deal index (to split a run into parts)")
    ap.add_argument("--declarations", type=int, default=0, help="first-card declarations priced (0: none)")
    ap.add_argument(
        "--max-front",
        type=int,
        default=16,
        help="bound on a points front (sign fronts are unbounded); hits are counted",
    )
    ap.add_argument(
        "--fusion-limit",
        type=float,
        default=120.0,
        help="CPU seconds the information-set game may take per position (0: not solved); a position past it "
        "is recorded as unsolved, and the summary bounds the rates over all tried positions",
    )
    ap.add_argument("--records", help="append one JSON line per position here; positions already in it are kept")
    ap.add_argument("--summary", nargs="+", metavar="RECORDS", help="summarise record files instead of measuring")
    ap.add_argument("--json")
    args = ap.parse_args()
    if args.summary:
        report = summary(_load(args.summary))
        if args.json:
            write_text(args.json, json.dumps(report, indent=1))
        return
    done = _load([args.records]) if args.records else []
    records = list(done)
    start = max((r["index"] + 1 for r in done), default=args.start)
    todo = args.positions - sum("pre" in r for r in done)
    table = new_table()
    for index, partie, seat in late_positions(max(todo, 0), args.tricks_left, args.seed, start):
        rec = (
            {"index": index, "seat": seat}
            if partie is None
            else measure(index, partie, seat, table, args.max_front, args.fusion_limit)
        )
        records.append(rec)
        if args.records:
            with open(args.records, "a") as f:
                f.write(json.dumps(rec) + "\n")
        if sum("pre" in r for r in records) % 20 == 0 and partie is not None:
            summary(records)
    report = summary(records)
    report.update(tricks_left=args.tricks_left, seed=args.seed)
    if args.declarations:
        start_t = time.perf_counter()
        prices = declaration_prices(args.declarations, args.seed)
        report["declaration_minus_hold"] = mean_ci(prices)
        report["hold_better"] = float(np.mean([p < 0 for p in prices]))
        report["declarations"] = len(prices)
        print(
            f"first-card Figura/Blans: declaring minus holding back {_ci(prices)} (pimc objective, {len(prices)} "
            f"decisions; holding back better in {report['hold_better']:.3f}) ({time.perf_counter() - start_t:.0f} s)"
        )
    if args.json:
        write_text(args.json, json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
