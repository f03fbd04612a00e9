"""The Pro decision from the session records (trappola.agents.pro_learned.ObservedPro)
and its fit (trappola.train.pro.observed)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from trappola.agents.pro_learned import ObservedPro, lookahead_values, pro_policy_from_dict, record_features
from trappola.train.pro.observed import TEST_POOL, TRAIN_POOL, fit_logistic, main, table_of
from trappola_env.engine.records import Record
from trappola_env.interface import ProView


def logit(k, n):
    r = (k + 1) / (n + 2)
    return math.log(r / (1 - r))


def view(records, bulka=60.0, parties_left=20, opponent="B", next_opponent="C"):
    return ProView(
        player=0,
        players=("A", "B", "C", "D"),
        balances=(0.0,) * 4,
        streaks=(2, 0, 0, 0),
        bulka=bulka,
        opponent=opponent,
        parties_left=parties_left,
        next_opponent=next_opponent,
        records=records,
    )


RECORDS = (Record(0, 0, 7, 3), Record(1, 4, 2, 8, 1, 0), Record(3, 0, 6, 1, 2, 2), Record())


def test_record_features_are_shrunk_log_odds():
    assert record_features(RECORDS, 0, 1) == pytest.approx((1.0, logit(2, 10), logit(4, 5), logit(7, 10)))
    assert record_features(RECORDS, 0, 3) == pytest.approx((1.0, 0.0, 0.0, logit(7, 10)))


def test_win_chance_and_the_lookahead():
    rule = ObservedPro((0.5, -1.0, 0.5, 0.5))
    v = view(RECORDS)
    x = record_features(RECORDS, 0, 1)
    p = 1 / (1 + math.exp(-(0.5 - x[1] + 0.5 * x[2] + 0.5 * x[3])))
    assert rule.win_chance(v, "B") == pytest.approx(p)
    # C has beaten A three times and wins most: a weaker chance than against B.
    assert rule.win_chance(v, "C") < rule.win_chance(v, "B")
    q = rule.win_chance(v, "C")
    assert rule.values(v) == pytest.approx(lookahead_values(6.0, p, q))
    # Waiting pays when the next challenger is easier: facing C now, B next.
    now, wait = rule.values(view(RECORDS, bulka=40.0, opponent="C", next_opponent="B"))
    assert rule.decide(view(RECORDS, bulka=40.0, opponent="C", next_opponent="B")) == (now >= wait)
    assert wait > now
    assert rule.decide(view(RECORDS, bulka=40.0, opponent="C", next_opponent="B", parties_left=1))


def test_round_trip_and_errors():
    rule = ObservedPro((0.1, -0.2, 0.3, 0.4))
    assert pro_policy_from_dict(rule.to_dict()) == rule
    with pytest.raises(ValueError, match="4 weights"):
        ObservedPro((1.0,))
    with pytest.raises(ValueError, match="records"):
        rule.decide(view(()))


def test_fit_logistic_recovers_known_weights():
    rng = np.random.default_rng(0)
    X = np.column_stack([np.ones(20000), rng.normal(size=(20000, 3))])
    w = np.array([0.3, -1.0, 0.5, 0.0])
    y = (rng.random(20000) < 1 / (1 + np.exp(-X @ w))).astype(float)
    assert fit_logistic(X, y, ridge=0.0) == pytest.approx(w, abs=0.06)


def test_held_out_tables_use_other_players():
    assert not set(TRAIN_POOL) & set(TEST_POOL)
    # Both pools hold a strong player (pimc), met in the test only at other settings.
    strong = [{s for s in pool if s.split(":", 1)[0] == "pimc"} for pool in (TRAIN_POOL, TEST_POOL)]
    assert all(strong) and not strong[0] & strong[1]
    assert table_of(TEST_POOL, 3) == table_of(TEST_POOL, 3) and len(table_of(TEST_POOL, 3)) == 3


def test_the_command_runs_on_a_tiny_budget(capsys):
    assert main(["--train-sessions", "3", "--test-sessions", "2", "--parties", "6", "--rate-parties", "10"]) == 0
    out = capsys.readouterr().out
    assert "learned minus always" in out and "name-keyed win rates" in out
