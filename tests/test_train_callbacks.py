"""What training logs from the evaluator: the figures of a duplicate
``head_to_head`` and the pool member an opponent name belongs to."""

from __future__ import annotations

import pytest

from trappola.agents import make_player
from trappola.agents.evaluation import head_to_head
from trappola.train.run.recorder import duplicate_figures
from trappola.train.selfplay.pool import pool_member


def test_duplicate_figures_follow_the_evaluator():
    match = head_to_head(make_player("rule"), "random", 8, duplicate=True, seed=5, workers=1)
    s = match.summary
    res = duplicate_figures(match)
    assert (res["deals"], res["parties"]) == (8, 16)
    assert (res["wins"], res["losses"], res["alifers"]) == (s["wins"], s["losses"], s["alifer"])
    assert res["win_rate"] == s["win_rate"] and res["points_diff"] == s["mean_point_diff"]
    # Every deal has its two parties, so the mean of the per-deal scores is the plain score.
    assert res["score"] == pytest.approx((s["wins"] + 0.5 * s["alifer"]) / s["parties"])
    lo, hi = res["score_ci"]
    assert lo <= res["score"] <= hi
    assert res["score"] > 0.5  # rule beats random


def test_a_single_deal_has_a_score_but_no_interval():
    res = duplicate_figures(head_to_head("rule", "rule", 1, duplicate=True, seed=1, workers=1))
    assert res["score_ci"] == [None, None] and 0.0 <= res["score"] <= 1.0


def test_pool_member_groups_snapshots():
    assert pool_member("self3") == pool_member("self") == "self"
    assert pool_member("rule") == "rule" and pool_member("random") == "random"
