"""The Pro chart checked where it decides: real sessions of real card players, not coin parties.

    python -m trappola.train.pro.chart_check --focal rule:alifer=never --strong policy \\
        --weak random:alifer=false --parties 12 --sessions 100 --seed 0 --records runs/chart.jsonl
    python -m trappola.train.pro.chart_check --summary runs/chart.jsonl [more record files, pooled]

A 3-player table: the focal card player, a ``--strong`` one and a ``--weak`` one, every Pro rule but the
focal player's ``always`` (as the chart assumes). At each Pro offer of the focal player the session is played
to its end twice, declaring and waiting, with the same deals and seeds (``rollouts.pro_advantages``'s pairing),
the focal player declaring at every later offer; the difference of its final balance (stakes, its Bulka share
included) is the measured advantage of declaring there. The chart's prediction for the same offer is
``pro_equity.SessionModel(win, parties, focal="always").advantage(order, bulka, played)``: the equity model
with the win matrix ``win`` measured on the main lines of the same sessions (dealer ``i`` against challenger
``j``, decided parties only), so the chart's ``p`` and ``q`` come from the very opponents it is checked
against.

The summary pools every record file given (a rerun adds to the sessions, it never replaces them) and reports,
for the offers where the chart says wait (predicted advantage below 0) and where it says declare: the number of
offers, the measured and predicted mean advantage, and measured minus predicted with a 95% interval clustered
by session; the slope of measured on predicted over all offers (1 where the chart's differences are the real
ones), with a bootstrap over sessions; the sd of one offer's paired difference (all offers, and those where the
chart says wait); and the number of offers and sessions a check would need to tell the chart's mean difference
in the waiting cells from 0 (two-sided 5%, power 80%).
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import numpy as np

from trappola.agents.evaluation.stats import cluster_mean
from trappola.agents.pro_rules import ProRule
from trappola.train.pro.bench import FOCAL, SessionBench
from trappola_env.atomic_file import write_text
from trappola_env.engine.session import PRO_DECISION, ProDecision, Session
from trappola_env.referee import Referee, play_session

NAMES = (FOCAL, "strong", "weak")
Z95, Z80 = 1.959964, 0.841621


def bench_of(focal: str, strong: str, weak: str, parties: int) -> SessionBench:
    """The check's table: the focal card player (its Pro rule is the rollouts'), the others always declaring."""
    always = ProRule("always")
    return SessionBench([(FOCAL, focal, None), ("strong", strong, always), ("weak", weak, always)], parties)


def session_record(bench: SessionBench, seed: int) -> dict:
    """One session: its main line's parties (dealer, challenger, winner) and, at each focal offer, the state and
    the focal player's final balance in stakes after declaring and after waiting."""
    always = lambda decision: True  # noqa: E731 - the focal player's rule at every later offer
    main = bench.seated(always, seed, "main", 0)
    session = Session(max_parties=bench.max_parties, seed=seed, names=bench.names)
    unit = 10 * session.stake_multiple
    offers: list[dict] = []
    referee = Referee.for_session(main, session)
    while not referee.over:
        if session.phase == PRO_DECISION and session.dealer == FOCAL:
            decision = session.pending
            assert isinstance(decision, ProDecision)  # the phase is PRO_DECISION
            value = {}
            for declare in (True, False):
                branch = copy.deepcopy(session)
                branch.decide_pro(declare)
                res = play_session(bench.seated(always, seed, "branch", len(offers)), session=branch)
                value[declare] = float(res.balances[FOCAL]) / unit
            offers.append(
                {
                    "challenger": decision.challenger,
                    "next": decision.next_challenger,
                    "bulka": decision.bulka / decision.extra_stake,
                    "played": bench.max_parties - decision.parties_left,
                    "declare": value[True],
                    "wait": value[False],
                }
            )
            main = bench.seated(always, seed, "main", len(offers))
            referee = Referee.for_session(main, session)
        referee.answer(referee.ask(referee.turn()))
    parties = [(r.dealer, r.challenger, r.winner) for r in session.history]
    return {"seed": seed, "parties": parties, "offers": offers}


def win_matrix(records: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """(dealer ``i``'s share of decided parties won against challenger ``j``, the decided counts), over the main
    lines; 0.5 where a pair never met."""
    won = np.zeros((3, 3))
    n = np.zeros((3, 3))
    for rec in records:
        for dealer, challenger, winner in rec["parties"]:
            if winner is None:
                continue
            i, j = NAMES.index(dealer), NAMES.index(challenger)
            n[i, j] += 1
            won[i, j] += winner == dealer
    return np.where(n > 0, won / np.maximum(n, 1), 0.5), n


def session_mean(values: np.ndarray, sessions: np.ndarray) -> tuple[float, float, float]:
    """(mean, low, high): ``values`` with the evaluator's 95% interval clustered by session
    (``stats.cluster_mean``; offers of one session are not independent); NaN where there is none."""
    m, (lo, hi) = cluster_mean(values, sessions)
    return tuple(math.nan if v is None else float(v) for v in (m, lo, hi))  # type: ignore[return-value]


def session_slope(x: np.ndarray, y: np.ndarray, clusters: np.ndarray, reps: int = 2000) -> tuple[float, float, float]:
    """Least-squares slope of ``y`` on ``x`` with a 95% percentile bootstrap over the clusters (sessions)."""
    ids, inv = np.unique(clusters, return_inverse=True)
    members = [np.flatnonzero(inv == k) for k in range(len(ids))]
    rng = np.random.default_rng(0)

    def fit(idx):
        xs, ys = x[idx], y[idx]
        return float(np.polyfit(xs, ys, 1)[0]) if xs.std() > 0 else math.nan

    draws = [fit(np.concatenate([members[k] for k in rng.integers(len(ids), size=len(ids))])) for _ in range(reps)]
    lo, hi = np.nanpercentile(draws, [2.5, 97.5])
    return fit(np.arange(len(x))), float(lo), float(hi)


def summary(records: list[dict], parties: int, print_=print) -> dict:
    """The pooled check (see the module docstring), printed and returned."""
    from trappola.agents.evaluation.pro_equity import SessionModel

    win, n = win_matrix(records)
    model = SessionModel(win, parties, focal="always")
    rows = []
    for k, rec in enumerate(records):
        for o in rec["offers"]:
            order = (0, NAMES.index(o["challenger"]), NAMES.index(o["next"]))
            b = min(int(round(o["bulka"])), model.bmax - 1)
            rows.append((k, model.advantage(order, b, o["played"]), o["declare"] - o["wait"], o["challenger"]))
    out: dict = {
        "sessions": len(records),
        "parties": parties,
        "win": win.tolist(),
        "decided": n.tolist(),
        "offers": len(rows),
    }
    print_(f"{len(records)} sessions of {parties} parties, {len(rows)} focal Pro offers")
    for i, name in enumerate(NAMES):
        cells = ", ".join(f"{NAMES[j]} {win[i, j]:.3f} (n {int(n[i, j])})" for j in range(3) if j != i)
        print_(f"  {name} as dealer wins against: {cells}")
    if not rows:
        return out
    session = np.array([r[0] for r in rows])
    pred = np.array([r[1] for r in rows])
    meas = np.array([r[2] for r in rows])
    sd = float(meas.std(ddof=1)) if len(meas) > 1 else math.nan
    out["sd_offer"] = sd
    for label, sel in (("chart says wait", pred < 0), ("chart says declare", pred >= 0)):
        if not sel.any():
            print_(f"{label}: no offers")
            continue
        m = session_mean(meas[sel], session[sel])
        d = session_mean(meas[sel] - pred[sel], session[sel])
        group = {
            "offers": int(sel.sum()),
            "sessions_with": int(len(np.unique(session[sel]))),
            "predicted": float(pred[sel].mean()),
            "measured": m,
            "measured_minus_predicted": d,
        }
        out[label] = group
        print_(
            f"{label}: {group['offers']} offers in {group['sessions_with']} sessions; advantage of declaring, "
            f"stakes per session: predicted {group['predicted']:+.3f}, measured {m[0]:+.3f} [{m[1]:+.3f}, {m[2]:+.3f}]"
            f"; measured - predicted {d[0]:+.3f} [{d[1]:+.3f}, {d[2]:+.3f}]"
        )
    if len(np.unique(session)) > 2 and pred.std() > 0:
        slope = session_slope(pred, meas, session)
        out["slope"] = slope
        print_(
            f"measured on predicted, over all offers: slope {slope[0]:.2f} [{slope[1]:.2f}, {slope[2]:.2f}] "
            f"(1: the chart's differences are the real ones; bootstrap over sessions)"
        )
    wait = out.get("chart says wait")
    if wait and wait["offers"] > 1:
        # the spread of the offers the check is about: those where the chart says wait
        sd = float(meas[pred < 0].std(ddof=1))
        wait["sd_offer"] = sd
        need = ((Z95 + Z80) * sd / abs(wait["predicted"])) ** 2
        per_session = wait["offers"] / len(records)
        out["power"] = {"offers_needed": need, "wait_offers_per_session": per_session}
        out["power"]["sessions_needed"] = need / per_session if per_session else math.inf
        print_(
            f"sd of one waiting-cell offer's paired difference {sd:.2f} stakes; to tell the chart's mean difference "
            f"in its "
            f"waiting cells ({wait['predicted']:+.3f}) from 0 (5%, power 80%) a check needs {need:,.0f} such offers,"
            f" about {out['power']['sessions_needed']:,.0f} sessions at {per_session:.2f} a session"
        )
    return out


def _load(paths) -> list[dict]:
    out = []
    for p in paths:
        if Path(p).exists():
            out += [json.loads(line) for line in Path(p).read_text().splitlines() if line.strip()]
    return out


def main(argv=None) -> int:
    """The command line: play sessions into ``--records`` (resuming), or summarise record files."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m trappola.train.pro.chart_check", description=__doc__.split("\n")[0])
    ap.add_argument("--focal", default="rule:alifer=never")
    ap.add_argument("--strong", default="policy")
    ap.add_argument("--weak", default="random:alifer=false")
    ap.add_argument("--parties", type=int, default=12)
    ap.add_argument("--sessions", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--records", help="one JSON line per session, appended; sessions already in it are kept")
    ap.add_argument("--summary", nargs="+", metavar="RECORDS", help="summarise (pool) these record files")
    ap.add_argument("--json", help="write the summary here")
    args = ap.parse_args(argv)
    if args.summary:
        records = _load(args.summary)
    else:
        if not args.records:
            ap.error("--records is required to play sessions")
        records = _load([args.records])
        done = {r["seed"] for r in records}
        bench = bench_of(args.focal, args.strong, args.weak, args.parties)
        seeds = [int(s) for s in np.random.default_rng(args.seed).integers(1 << 30, size=args.sessions)]
        for i, seed in enumerate(seeds):
            if seed in done:
                continue
            rec = session_record(bench, seed)
            rec["table"] = [args.focal, args.strong, args.weak]
            rec["session_parties"] = args.parties
            records.append(rec)
            with open(args.records, "a") as f:
                f.write(json.dumps(rec) + "\n")
            if (i + 1) % 10 == 0:
                print(f"{i + 1}/{len(seeds)} sessions", flush=True)
    lengths = {r.get("session_parties", args.parties) for r in records}
    if len(lengths) > 1:
        ap.error(f"the records mix session lengths {sorted(lengths)}: summarise them apart")
    report = summary(records, lengths.pop() if lengths else args.parties)
    if args.json:
        write_text(args.json, json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
