"""Intervals that say no more than the data: the minimum count, the score interval on changed
outcomes, ``trappola compare``'s paired interval, and every result naming what played."""

from __future__ import annotations

import json
import random

import pytest

from trappola.agents.evaluation.compare import compare
from trappola.agents.evaluation.declarations import analyze_declarations
from trappola.agents.evaluation.players import describe_player, sha256_of
from trappola.agents.evaluation.stats import MIN_PAIRS, outcome_difference, paired_mean, ratio_difference
from trappola.agents.model_io.model_files import shipped_model_path
from trappola.agents.search.belief import BeliefModel, load_belief
from trappola.cli.main import main

FAST = "rule:answer_rollouts=0,endgame=2"


def test_no_interval_from_fewer_than_the_minimum_pairs():
    few, enough = MIN_PAIRS - 1, MIN_PAIRS
    values = [float(i % 3) for i in range(few)]
    assert paired_mean(values, list(range(few)))[1] == [None, None]
    assert "no interval" in paired_mean(values, list(range(few)))[2]
    assert outcome_difference([1] * few, list(range(few)))[1] == [None, None]
    assert ratio_difference([1] * few, [2] * few, [0] * few, [2] * few)[1] == [None, None]
    # Many decision points in few deals: the deals count, not the points.
    assert paired_mean(values * 10, list(range(few)) * 10)[1] == [None, None]
    lo, hi = paired_mean([float(i % 3) for i in range(enough)], list(range(enough)))[1]
    assert lo < hi


@pytest.mark.parametrize("n", [MIN_PAIRS, 30, 60])
def test_no_changed_outcome_is_not_a_zero_width_interval(n):
    mean, (lo, hi), note, changed = outcome_difference([0] * n, list(range(n)))
    assert mean == 0 and changed == 0 and note is None
    # No change in n pairs still allows a change rate up to Wilson's upper limit (0.16 at 20 pairs).
    assert lo < -0.1 and hi > 0.1
    # And a measure that is the same in every pair (a declaration's own payment) gets no interval.
    assert paired_mean([5.0] * n, list(range(n)))[1] == [None, None]


def test_outcome_interval_keeps_its_coverage_when_changes_are_rare():
    # Pairs change outcome with probability 0.05, in one direction: the true mean difference is 0.05.
    rng = random.Random(0)
    n, trials, covered = 30, 400, 0
    for _ in range(trials):
        d = [1 if rng.random() < 0.05 else 0 for _ in range(n)]
        _, (lo, hi), _, _ = outcome_difference(d, list(range(n)))
        covered += lo <= 0.05 <= hi
    assert covered / trials >= 0.93


def test_compare_pairs_the_deals_and_its_interval_is_narrower(tmp_path):
    res = compare(FAST, "rule:answer_rollouts=0,endgame=2,declare=never", "random", 40, seed=0, workers=1)
    s = res.summary
    a, b = s["a"], s["b"]
    width = s["win_rate_diff_ci"][1] - s["win_rate_diff_ci"][0]
    assert s["win_rate_diff"] == pytest.approx(a["win_rate"] - b["win_rate"])
    assert width > 0
    assert width < a["win_rate_ci"][1] - a["win_rate_ci"][0]
    assert width < b["win_rate_ci"][1] - b["win_rate_ci"][0]
    assert width < s["unpaired_win_rate_diff_ci"][1] - s["unpaired_win_rate_diff_ci"][0]
    assert 0 <= s["deals_different"] <= 40 and s["parties_different"] >= s["deals_different"]
    # The same deals: each row's records hold the same deal indices.
    assert {r["deal"] for r in res.records["a"]} == {r["deal"] for r in res.records["b"]} == set(range(40))


def test_compare_command_names_what_played(tmp_path, capsys):
    out = tmp_path / "c.json"
    argv = ["compare", "policy:endgame=0", FAST, "--vs", "random", "--deals", "3", "--workers", "1"]
    assert main([*argv, "--no-progress", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "player policy:endgame=0: policy:path=default" in text and "no interval" in text
    s = json.loads(out.read_text())
    assert s["kind"] == "compare" and s["win_rate_diff_ci"] == [None, None]
    spec = s["player_specs"][0]
    assert spec["settings"]["endgame"] == 0 and spec["settings"]["endgame_search"] == "pimc"
    assert spec["files"][0]["role"] == "model" and spec["files"][0]["sha256"] == sha256_of(shipped_model_path())
    assert [d["spec"] for d in s["player_specs"]] == ["policy:endgame=0", FAST, "random"]


def test_evaluate_json_names_each_players_spec_and_files(tmp_path, capsys):
    out = tmp_path / "e.json"
    argv = ["evaluate", "--players", "policy:endgame=0,random", "--deals", "2", "--workers", "1"]
    assert main([*argv, "--json", str(out)]) == 0
    specs = json.loads(out.read_text())["player_specs"]
    assert specs[0]["settings"]["path"] == "default" and specs[0]["settings"]["pro"] == "learned"
    assert {f["role"] for f in specs[0]["files"]} == {"model", "belief"}
    assert specs[1]["spec"] == "random" and specs[1]["files"] == [] and specs[1]["warnings"] == []
    assert "player policy:endgame=0" in capsys.readouterr().out


def test_a_belief_fitted_on_another_models_games_is_warned(tmp_path):
    other = shipped_model_path().parent / "opponent_pimc.zip"  # a real checkpoint, not the shipped policy
    # The shipped belief does not record the model's hash: a checkpoint other than the shipped one is warned.
    assert "does not record" in describe_player(f"policy:{other}")["warnings"][0]
    assert describe_player("policy")["warnings"] == []
    # A belief that records another model's hash.
    path = tmp_path / "b.npz"
    shipped = load_belief("default")
    BeliefModel(shipped.layers, {"model_sha256": {"policy:x": "0" * 64}}).save(path)
    warned = describe_player(f"policy:endgame_belief={path}")["warnings"]
    assert len(warned) == 1 and "fitted on games of policy:x" in warned[0]
    mine = tmp_path / "mine.npz"
    BeliefModel(shipped.layers, {"model_sha256": {"policy": sha256_of(shipped_model_path())}}).save(mine)
    assert describe_player(f"policy:endgame_belief={mine}")["warnings"] == []


def test_a_player_that_never_declares_shows_no_declarations():
    res = analyze_declarations([FAST, f"{FAST},declare=never"], 3, seed=2, condition="figura", alifer=False, workers=1)
    groups = res.summary["groups"]
    assert {g["decider_index"] for g in groups} == {0, 1}
    for g in groups:
        if g["kind"] in ("figura", "blans", "aces", "bianka"):
            declared = g["taken"].get("now", 0) + g["taken"].get("later", 0)
            assert (declared == 0) == (g["decider_index"] == 1), g
    # The conditioned hand is the challenger's in both games: each player holds it once per deal.
    figura = {(r["unit"], r["game"]) for r in res.rows if r["kind"] == "figura" and r["seat"] == 0 and r["turn"] == 1}
    assert figura == {(f"deal {i}", game) for i in range(3) for game in (0, 1)}


@pytest.mark.parametrize(
    "argv, message",
    [
        (["evaluate", "--players", "rule,random", "--sessions", "3"], "--sessions does not apply to a head-to-head"),
        (["evaluate", "--session", "--players", "rule,random", "--deals", "3"], "--deals does not apply to --session"),
        (["evaluate", "--session", "--players", "rule,random", "--duplicate"], "--duplicate does not apply"),
        (["evaluate", "--ratings", "--players", "rule,random", "--duplicate"], "always duplicate"),
        (["analyze", "declarations", "--players", "rule,rule", "--parties", "5"], "--parties applies"),
        (["analyze", "declarations", "--players", "rule,rule", "--decider", "nobody"], "--decider"),
    ],
)
def test_a_flag_that_does_not_apply_is_refused_in_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def _group(kind, turn, contrast, n, ci, points=1.0):
    g = {"kind": kind, "turn": turn, "contrast": contrast, "n": n, "units": n, "decider_index": 0}
    for m in ("points", "wl", "tokens"):
        value = points if m == "points" else 0.5
        g[m], g[m + "_ci"] = value, list(ci) if value is not None else [None, None]
        g[m + "_note"] = None if ci[0] is not None else "5 < 20 units: no interval"
    return g


def test_figures_draw_rows_without_intervals_and_measures_a_kind_lacks(tmp_path):
    from trappola.agents.evaluation.declaration_figures import write_figures

    groups = [
        _group("figura", None, "now - never", 40, (0.2, 1.8)),
        _group("pro", None, "declare - wait", 30, (0.1, 0.9), points=None),
        _group("aces", None, "later - now", 5, (None, None)),
        _group("aces", 1, "later - now", 5, (None, None)),
        _group("aces", 2, "later - now", 25, (-0.5, 2.5)),
    ]
    summary = {"players": ["rule", "rule"], "min_units": MIN_PAIRS, "groups": groups}
    paths = write_figures(summary, tmp_path)
    assert [p.name for p in paths] == ["declarations.png", "waiting.png"]
    assert all(p.stat().st_size > 1000 for p in paths)
