"""Sequences the code pairs element by element must be of equal length: a
mismatch raises ``ValueError`` instead of silently dropping the longer one's tail."""

from __future__ import annotations

import pytest

from trappola.agents.evaluation.report import table
from trappola.agents.evaluation.stats import clustered_rate
from trappola.agents.pro_learned import FEATURES, ProPolicy
from trappola.train.selfplay.opponent_workers import OpponentWorkers


def test_clustered_rate_pairs_each_clusters_wins_with_its_trials():
    assert clustered_rate([1, 2, 0], [2, 3, 1])[0] == pytest.approx(3 / 6)
    with pytest.raises(ValueError):
        clustered_rate([1, 2, 0], [2, 3])  # the third cluster's win would vanish from the variance


def test_a_table_row_wider_than_the_header_is_refused():
    assert table([["a", "1"]], ["name", "n"]).splitlines()[-1].split() == ["a", "1"]
    with pytest.raises(ValueError):
        table([["a", "1", "extra"]], ["name", "n"])


def test_a_pro_policy_needs_one_weight_per_feature_it_scores():
    assert ProPolicy(tuple(0.0 for _ in FEATURES)).weights == (0.0,) * len(FEATURES)
    with pytest.raises(ValueError, match="weights"):
        ProPolicy((1.0,) * (len(FEATURES) + 1))


def test_opponent_workers_refuse_decisions_of_unequal_lengths():
    workers = OpponentWorkers({}, {}, 1)
    try:
        with pytest.raises(ValueError):
            workers.submit([0, 1], ["rule"], [None, None], [1, 1])
    finally:
        workers.close()
