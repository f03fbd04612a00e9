"""``trappola analyze pro``: the Pro decision as a take-point chart, checked against simulated sessions.

1. The chart (``pro_chart.png``): on a 3-player table where the focal player deals with a streak of 2
   against a challenger it beats with probability ``p`` and the player next in the queue with ``q``
   (the other two even, everyone else always declaring), a third into the session, the least Bulka
   at which declaring Pro is worth waiting (``pro_equity.SessionModel.threshold``, the focal player
   playing optimally after).
   An offer always finds at least 4 stakes in the Bulka (two parties' stakes since it was last
   emptied), so waiting pays somewhere only where the threshold exceeds 4. The lab's players are
   marked at their measured win probabilities; a second panel gives the threshold against ``p`` for
   a few ``q``, as a take-point chart.
2. The check (``pro_check.png``): the model's session equity against coin sessions of the session
   engine (``coin_sessions``) on a grid of ``(p, q)``, for the focal player always declaring and
   playing the model's optimal rule, with 95% intervals.
3. The learned rule: ``ObservedPro`` fitted (logistic, ``trappola.train.pro.observed.fit_logistic``)
   on coin sessions of a table, then compared with ``always`` on other sessions (same seeds), on a
   table where the chart says waiting pays and on one where it says declaring pays.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

# (label, p against the strongest challenger, q against the weakest next one, where measured)
LAB_PLAYERS = (
    ("rule: pimc now, random next", 0.402, 0.710, "train/README.md, as dealer"),
    ("policy:endgame=0: pimc now, random next", 0.512, 0.767, "train/README.md, as dealer"),
    ("random: pimc now, random next", 0.270, 0.5, "trappola evaluate, duplicate; q = 0.5 by symmetry"),
)
GRID = (0.3, 0.5, 0.7)
WAIT_TABLE = (0.3, 0.8)  # a strong challenger now, a weak one next: the chart's waiting region
DECLARE_TABLE = (0.5, 0.5)
LAB_TABLE = (0.402, 0.710)  # rule's measured chances: at the edge of the waiting region


def model_rule(model, parties: int):
    """The model's optimal Pro decision for player "0" of a 3-player coin session, as a ProView rule."""

    def rule(view) -> bool:
        order = (0, int(view.opponent), int(view.next_opponent))
        b = int(round(view.bulka / (view.base_stake * view.stake_multiple)))
        return model.advantage(order, b, parties - view.parties_left) >= 0

    return rule


def _sessions(win, parties, rule, seeds) -> np.ndarray:
    from trappola.agents.evaluation.coin_sessions import coin_session

    return np.array([coin_session(win, parties, [rule, "always", "always"], s)["balance"] for s in seeds])


def chart(parties: int, folder: Path) -> dict:
    """The threshold map and the take-point panel; returns the figures' numbers."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from trappola.agents.evaluation.pro_equity import SessionModel, three_player_win
    from trappola_env.atomic_file import atomic_write

    played = parties // 3  # the chart's offers: a third into the session
    ps = np.round(np.arange(0.05, 0.96, 0.05), 2)
    thr = np.zeros((len(ps), len(ps)))
    for i, q in enumerate(ps):
        for j, p in enumerate(ps):
            thr[i, j] = SessionModel(three_player_win(p, q), parties).threshold((0, 1, 2), played)
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(13, 5.2))
    shown = np.clip(np.where(np.isinf(thr), 3 * parties, thr), 0, 20)
    im = ax.imshow(shown, origin="lower", extent=(0.025, 0.975, 0.025, 0.975), cmap="viridis", vmin=0, vmax=20)
    ax.contour(ps, ps, thr, levels=[4.5], colors="white", linewidths=2)
    fig.colorbar(im, ax=ax, label="least Bulka (stakes) at which declaring pays (20: 20 or more)")
    players = []
    for label, p, q, source in LAB_PLAYERS:
        t = SessionModel(three_player_win(p, q), parties).threshold((0, 1, 2), played)
        ax.plot(p, q, "o", color="red", ms=8)
        ax.annotate(f"{label.split(':')[0]} ({t:g})", (p, q), textcoords="offset points", xytext=(6, 4), color="red")
        players.append({"label": label, "p": p, "q": q, "threshold": t, "source": source})
    ax.plot(*WAIT_TABLE, "s", color="orange", ms=8)
    ax.annotate("demo table", WAIT_TABLE, textcoords="offset points", xytext=(6, -12), color="orange")
    ax.set_xlabel("p: focal dealer's chance against the challenger now")
    ax.set_ylabel("q: its chance against the next challenger")
    ax.set_title(f"Pro take point ({parties}-partie session, offer after {played}); white: threshold 4.5")
    for q in (0.5, 0.6, 0.7, 0.8, 0.9):
        i = int(np.argmin(np.abs(ps - q)))
        ax2.plot(ps, np.where(np.isinf(thr[i]), np.nan, thr[i]), "o-", ms=3, label=f"q = {q}")
    ax2.axhline(4, color="black", lw=0.8, ls="--")
    ax2.text(0.06, 4.3, "least Bulka at an offer (4)", fontsize=8)
    ax2.set_ylim(0, 25)
    ax2.set_xlabel("p")
    ax2.set_ylabel("declare when the Bulka holds at least (stakes)")
    ax2.legend()
    ax2.set_title("Take-point curves: wait below, declare above")
    fig.tight_layout()
    with atomic_write(folder / "pro_chart.png", "wb") as f:
        fig.savefig(f, format="png", dpi=110)
    plt.close(fig)
    waits = [(float(p), float(q)) for i, q in enumerate(ps) for j, p in enumerate(ps) if thr[i, j] > 4]
    return {"p": ps.tolist(), "threshold": thr.tolist(), "players": players, "waiting_cells": len(waits)}


def check(parties: int, sessions: int, seed: int, folder: Path) -> list[dict]:
    """The model against coin sessions on ``GRID`` x ``GRID``, focal always and optimal."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from trappola.agents.evaluation.pro_equity import SessionModel, three_player_win
    from trappola.agents.evaluation.seeding import derive_seed
    from trappola.agents.evaluation.stats import mean_ci
    from trappola_env.atomic_file import atomic_write

    rows = []
    seeds = [derive_seed(seed, "check", i) for i in range(sessions)]
    for p in GRID:
        for q in GRID:
            win = three_player_win(p, q)
            for focal in ("always", "optimal"):
                model = SessionModel(win, parties, focal=focal)
                rule = "always" if focal == "always" else model_rule(model, parties)
                m, ci = mean_ci(_sessions(win, parties, rule, seeds))
                rows.append({"p": p, "q": q, "focal": focal, "model": model.value(), "sim": m, "sim_ci": ci})
    fig, ax = plt.subplots(figsize=(6, 5.5))
    for focal, marker in (("always", "o"), ("optimal", "s")):
        sel = [r for r in rows if r["focal"] == focal]
        err = [[r["sim"] - r["sim_ci"][0] for r in sel], [r["sim_ci"][1] - r["sim"] for r in sel]]
        ax.errorbar([r["model"] for r in sel], [r["sim"] for r in sel], yerr=err, fmt=marker, capsize=3, label=focal)
    lo = min(r["sim_ci"][0] for r in rows)
    hi = max(r["sim_ci"][1] for r in rows)
    ax.plot([lo, hi], [lo, hi], color="black", lw=0.8)
    ax.set_xlabel("model: focal player's session equity (stakes)")
    ax.set_ylabel(f"simulated, {sessions} coin sessions (95% CI)")
    ax.set_title(f"Equity model vs session engine, p, q in {GRID}")
    ax.legend(title="focal Pro rule")
    fig.tight_layout()
    with atomic_write(folder / "pro_check.png", "wb") as f:
        fig.savefig(f, format="png", dpi=110)
    plt.close(fig)
    return rows


def learned(table, parties: int, sessions: int, seed: int) -> dict:
    """ObservedPro fitted on coin sessions of ``table`` (p, q), compared with always on others."""
    from trappola.agents.evaluation.coin_sessions import coin_session, dealer_examples
    from trappola.agents.evaluation.pro_equity import SessionModel, three_player_win
    from trappola.agents.evaluation.seeding import derive_seed
    from trappola.agents.evaluation.stats import mean_ci
    from trappola.agents.pro_learned import ObservedPro
    from trappola.train.pro.observed import fit_logistic

    win = three_player_win(*table)
    xs, ys = [], []
    train = [derive_seed(seed, "fit", i) for i in range(sessions)]
    for s in train:  # the focal player's dealt parties: features before the partie, and who won
        res = dealer_examples(win, parties, s)
        for x, y in res:
            xs.append(x)
            ys.append(y)
    w = fit_logistic(np.array(xs), np.array(ys))
    rule = ObservedPro(tuple(float(v) for v in w))
    test = [derive_seed(seed, "test", i) for i in range(sessions)]
    got: dict[str, list[float]] = {name: [] for name in ("learned", "always")}
    waits = 0
    for s in test:
        a = coin_session(win, parties, [rule, "always", "always"], s)
        b = coin_session(win, parties, ["always", "always", "always"], s)
        got["learned"].append(a["balance"])
        got["always"].append(b["balance"])
        waits += a["offers"] - a["declared"]
    diff = np.array(got["learned"]) - np.array(got["always"])
    m, ci = mean_ci(diff)
    optimal = SessionModel(win, parties).value() - SessionModel(win, parties, focal="always").value()
    return {
        "table": list(table),
        "weights": [float(v) for v in w],
        "sessions": sessions,
        "waits": waits,
        "learned_minus_always": m,
        "ci": ci,
        "model_optimal_gain": optimal,
    }


def run_pro_chart(args, check_writable) -> int:
    """The command: chart, check, learned rule; prints the figures' numbers and writes the files."""
    from trappola_env.atomic_file import write_text

    check_writable(args.figures, True)
    if args.json:
        check_writable(args.json, False)
    folder = Path(args.figures)
    folder.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    out = {"parties": args.parties, "sessions": args.sessions, "learn_sessions": args.learn_sessions, "seed": args.seed}
    out["chart"] = chart(args.parties, folder)
    for pl in out["chart"]["players"]:
        print(f"{pl['label']:<42} p {pl['p']:.3f} q {pl['q']:.3f}: declare from {pl['threshold']:g} stakes")
    print(f"cells of the chart where waiting pays at some offer (threshold > 4): {out['chart']['waiting_cells']}")
    out["check"] = check(args.parties, args.sessions, args.seed, folder)
    for r in out["check"]:
        lo, hi = r["sim_ci"]
        inside = "inside" if lo <= r["model"] <= hi else "OUTSIDE"
        print(
            f"p {r['p']} q {r['q']} focal {r['focal']:<7}: model {r['model']:+.3f}, "
            f"simulated {r['sim']:+.3f} [{lo:+.3f}, {hi:+.3f}] ({inside})"
        )
    out["learned"] = []
    for table in (WAIT_TABLE, LAB_TABLE, DECLARE_TABLE):
        res = learned(table, args.parties, args.learn_sessions, args.seed)
        out["learned"].append(res)
        lo, hi = res["ci"]
        print(
            f"table p {table[0]} q {table[1]}: ObservedPro waited at {res['waits']} offers of {res['sessions']} "
            f"sessions; learned minus always {res['learned_minus_always']:+.4f} [{lo:+.4f}, {hi:+.4f}] stakes per "
            f"session (the model's optimal rule gains {res['model_optimal_gain']:+.4f})"
        )
    print(f"figures in {folder} ({time.perf_counter() - t0:.0f} s)")
    if args.json:
        write_text(args.json, json.dumps(out, indent=2, default=float) + "\n")
    return 0
