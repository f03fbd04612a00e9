"""The Pro chart's check on real sessions (trappola.train.pro.chart_check): the win matrix it reads from the
sessions' main lines, its session-clustered interval, and one real session's paired rollouts."""

from __future__ import annotations

import math

import numpy as np

from trappola.agents.evaluation.pro_equity import SessionModel
from trappola.train.pro.chart_check import bench_of, session_mean, session_record, session_slope, summary, win_matrix


def _record(parties, offers=()):
    return {"seed": 0, "parties": parties, "offers": list(offers)}


def test_win_matrix_counts_decided_parties_by_dealer_and_challenger():
    recs = [
        _record([("focal", "strong", "focal"), ("focal", "strong", "strong"), ("strong", "weak", None)]),
        _record([("focal", "weak", "focal"), ("weak", "focal", "focal")]),
    ]
    win, n = win_matrix(recs)
    assert n[0, 1] == 2 and win[0, 1] == 0.5  # focal dealt twice against strong, won once
    assert n[0, 2] == 1 and win[0, 2] == 1.0
    assert n[2, 0] == 1 and win[2, 0] == 0.0  # weak dealt and lost
    assert n[1, 2] == 0 and win[1, 2] == 0.5  # the tie is not a decided partie; unmet pairs read 0.5


def test_clustered_interval_counts_sessions_not_offers():
    # Two sessions, each with ten identical offers: the offers carry the information of two values.
    values = np.array([1.0] * 10 + [-1.0] * 10)
    sessions = np.array([0] * 10 + [1] * 10)
    m, lo, hi = session_mean(values, sessions)
    naive = 1.959964 * values.std(ddof=1) / math.sqrt(len(values))
    assert m == 0.0 and (hi - lo) / 2 > 3 * naive


def test_summary_puts_each_offer_on_the_side_the_chart_gives_it():
    parties = [("focal", "strong", "strong")] * 7 + [("focal", "strong", "focal")] * 3
    parties += [("focal", "weak", "focal")] * 8 + [("focal", "weak", "weak")] * 2
    offer = {"challenger": "strong", "next": "weak", "bulka": 4.0, "played": 2, "declare": 1.0, "wait": 2.0}
    recs = [_record(parties, [offer]), _record(parties, [dict(offer, bulka=30.0, declare=3.0, wait=1.0)])]
    out = summary(recs, 12, print_=lambda *a: None)
    model = SessionModel(np.array(out["win"]), 12, focal="always")
    assert model.advantage((0, 1, 2), 4, 2) < 0 < model.advantage((0, 1, 2), 30, 2)
    assert out["chart says wait"]["offers"] == 1 and out["chart says wait"]["measured"][0] == -1.0
    assert out["chart says declare"]["measured"][0] == 2.0


def test_real_session_rollouts_are_paired_and_repeatable():
    bench = bench_of("rule:alifer=never", "rule:alifer=never", "random:alifer=false", 8)
    a = session_record(bench, 5)
    assert len(a["parties"]) == 8  # replays count as parties (docs/rules.md section 8)
    assert a == session_record(bench, 5)  # every coin and deal comes from the seed
    for o in a["offers"]:
        assert o["challenger"] in ("strong", "weak") and 0 <= o["played"] < 8
        assert math.isfinite(o["declare"]) and math.isfinite(o["wait"])


def test_a_strong_focal_player_gets_offers_and_the_branches_differ():
    bench = bench_of("rule:alifer=never", "random:alifer=false", "random:alifer=false", 10)
    offers = [o for s in range(4) for o in session_record(bench, s)["offers"]]
    assert offers and any(o["declare"] != o["wait"] for o in offers)


def test_slope_recovers_a_known_scale_and_its_interval_holds_it():
    rng = np.random.default_rng(1)
    x = rng.normal(size=300)
    y = 2.0 * x + rng.normal(scale=0.5, size=300)
    slope, lo, hi = session_slope(x, y, np.arange(300) // 3)
    assert abs(slope - 2.0) < 0.15 and lo < 2.0 < hi and hi - lo < 0.5
