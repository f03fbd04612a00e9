"""The Pro equity model (dynamic programming over a Bulka session) against a hand computation and
against coin sessions of the session engine on a small grid of win probabilities."""

from __future__ import annotations

import json

import pytest

from trappola.agents.evaluation.coin_sessions import coin_session
from trappola.agents.evaluation.pro_equity import SessionModel, three_player_win
from trappola.agents.evaluation.stats import mean_ci
from trappola.cli.main import main

START = {"dealer": 0, "challenger": 1, "queue": [2]}


def test_three_parties_by_hand():
    # Focal (0) deals against 1 (p = 0.4), only it declares Pro. Win, win (q = 0.71), then Pro at a
    # Bulka of 4 against 1: -4 stakes paid, +7 with p, else a third of 7 at the end: 0.2; losing the
    # second partie leaves 6 in the Bulka, a third of it repaying its two stakes: 0. Every line where
    # it loses the first partie nets 0 too. So 0.4 * 0.71 * 0.2 = 0.0568.
    model = SessionModel(three_player_win(0.4, 0.71), 3, rules=["never", "never"], focal="always")
    assert model.value((0, 1, 2), 0, 0, 0) == pytest.approx(0.0568)


@pytest.mark.parametrize(("p", "q"), [(0.3, 0.8), (0.6, 0.4)])
def test_model_matches_coin_sessions(p, q):
    win = three_player_win(p, q)
    for focal in ("always", "never"):
        model = SessionModel(win, 6, focal=focal)
        sim = [coin_session(win, 6, [focal, "always", "always"], s, seating=START)["balance"] for s in range(1000)]
        m, (lo, hi) = mean_ci(sim)
        half = (hi - lo) / 2
        # 1.5 half-widths: three 95% intervals per parameter set, so a plain one would fail by chance.
        assert abs(m - model.value((0, 1, 2), 0, 0, 0)) < 1.5 * half, (p, q, focal, m, lo, hi)


def test_take_point_falls_with_the_chance_now_and_rises_with_the_chance_next():
    def threshold(p, q):
        return SessionModel(three_player_win(p, q), 20).threshold((0, 1, 2), 5)

    assert threshold(0.3, 0.8) > threshold(0.5, 0.8) > threshold(0.7, 0.8)
    assert threshold(0.3, 0.9) > threshold(0.3, 0.6)
    # An even table: declaring pays at any Bulka an offer can hold (at least 4 stakes).
    assert threshold(0.5, 0.5) <= 4


def test_optimal_rule_never_worse_than_always():
    for p, q in ((0.3, 0.8), (0.5, 0.5), (0.2, 0.5)):
        win = three_player_win(p, q)
        assert SessionModel(win, 15).value() >= SessionModel(win, 15, focal="always").value() - 1e-12


def test_bad_models_are_refused():
    with pytest.raises(ValueError, match="square"):
        SessionModel([[0.5, 0.5]], 5)
    with pytest.raises(ValueError, match="parties"):
        SessionModel(three_player_win(0.5, 0.5), 0)
    with pytest.raises(ValueError, match="one Pro rule"):
        SessionModel(three_player_win(0.5, 0.5), 5, rules=["always"])


def test_pro_command_writes_the_chart_the_check_and_the_learned_rule(tmp_path):
    out = tmp_path / "pro.json"
    argv = ["analyze", "pro", "--figures", str(tmp_path), "--json", str(out), "--parties", "6"]
    assert main([*argv, "--sessions", "30", "--learn-sessions", "30"]) == 0
    res = json.loads(out.read_text())
    assert len(res["check"]) == 18 and len(res["learned"]) == 3
    assert (tmp_path / "pro_chart.png").stat().st_size > 1000 and (tmp_path / "pro_check.png").exists()
    # An even table: the chart says declare at every offer, and the learned rule never waits there.
    even = res["learned"][-1]
    assert even["table"] == [0.5, 0.5] and even["waits"] == 0 and even["learned_minus_always"] == 0
