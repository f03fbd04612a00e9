"""The declaration instrument (``trappola analyze declarations``): decision points, forced options,
paired values with known answers, worker invariance, the command's files and errors."""

from __future__ import annotations

import json

import pytest

from trappola.agents.base import Player
from trappola.agents.evaluation.declaration_rollouts import partie_points
from trappola.agents.evaluation.declarations import analyze_declarations, cluster_mean
from trappola.cli.main import main
from trappola_env.engine import deal_from_names

# Challenger: Bianka (no court card, no Ace) and so Blans too; dealer: three Re.
BIANKA_DEAL = {
    "challenger": ["2S", "7S", "8S", "9S", "TS", "2C", "7C", "8C", "9C"],
    "dealer": ["RS", "RC", "RD", "AS", "AC", "BS", "CS", "TC", "2D"],
    "stock": [
        "7D",
        "8D",
        "9D",
        "TD",
        "BD",
        "CD",
        "AD",
        "2B",
        "7B",
        "8B",
        "9B",
        "TB",
        "BB",
        "CB",
        "RB",
        "AB",
        "BC",
        "CC",
    ],
}


class LowestCard(Player):
    """Plays its lowest legal card and never declares: its play cannot depend on any declaration."""

    kind = "lowest"

    def act(self, view) -> int:
        """The lowest legal card id."""
        return min(a for a in view.legal_actions if a < 36)


def _rows():
    return partie_points([LowestCard(), LowestCard()], deal_from_names(BIANKA_DEAL), seed=5)


def test_decision_points_of_a_hand_built_deal():
    rows = _rows()
    kinds = {(r["kind"], r["seat"], r["turn"]) for r in rows}
    # Bianka at each of the challenger's nine turns (it never declares itself), Blans at its first,
    # the dealer's Figura of Re at its first; nobody may ask Manko without a declared Figura.
    assert {("bianka", 0, t) for t in range(1, 10)} <= kinds
    assert ("blans", 0, 1) in kinds and ("figura", 1, 1) in kinds
    assert not any(k == "manko" for k, _, _ in kinds)
    bianka = {r["turn"]: r for r in rows if r["kind"] == "bianka"}
    assert bianka[1]["options"] == ["now", "later", "never"] and bianka[9]["options"] == ["now", "never"]
    assert all(r["taken"] == "never" for r in rows if r["kind"] != "figura" or r["seat"] == 0)


def test_paired_values_differ_by_exactly_the_declaration():
    # The card play ignores declarations, so the branches play the same cards: a declaration
    # changes the decider's points by exactly its value (docs/rules.md section 4).
    rows = _rows()
    for r in rows:
        v = r["values"]
        if r["kind"] == "bianka":
            assert v["now"]["points"] - v["never"]["points"] == 20
            if "later" in v:
                assert v["later"]["points"] == v["now"]["points"]
        elif r["kind"] == "blans":
            assert v["now"]["points"] - v["never"]["points"] == 10
        elif r["kind"] == "figura":
            assert v["now"]["points"] - v["never"]["points"] == 6
    info = {(r["kind"], r["turn"]): r["info_nats"] for r in rows}
    # At the first card Bianka rules out 16 cards, Blans 12 of them, and a Figura fixes 3 cards of a
    # rank; later in the partie the cards played have told the opponent most of it already.
    assert info["bianka", 1] > info["blans", 1] > 0 and info["figura", 1] > 0
    assert info["bianka", 1] > info["bianka", 9] > 0


def test_same_numbers_for_any_worker_count():
    kw = dict(seed=11, sessions=1, parties=5)
    one = analyze_declarations(["rule", "rule:declare=never"], 2, workers=1, **kw)
    two = analyze_declarations(["rule", "rule:declare=never"], 2, workers=2, **kw)
    assert one.summary == two.summary
    assert [r["values"] for r in one.rows] == [r["values"] for r in two.rows]
    assert any(r["kind"] == "pro" for r in one.rows)


def test_cluster_mean_treats_a_deal_as_one_unit():
    m, (lo, hi) = cluster_mean([1.0, 1.0, 3.0, 3.0], ["a", "a", "b", "b"])
    assert m == 2.0 and lo < 2.0 < hi
    # Two units only: the interval is that of two means, wider than four independent values would give.
    m2, (lo2, hi2) = cluster_mean([1.0, 1.0, 3.0, 3.0], ["a", "b", "c", "d"])
    assert hi - lo > hi2 - lo2


def test_command_writes_json_csv_and_figures(tmp_path, capsys):
    out = tmp_path / "d.json"
    rc = main(
        [
            "analyze",
            "declarations",
            "--players",
            "rule,rule",
            "--deals",
            "3",
            "--workers",
            "1",
            "--condition",
            "aces",
            "--no-progress",
            "--json",
            str(out),
            "--csv",
            str(tmp_path / "d.csv"),
            "--figures",
            str(tmp_path / "fig"),
        ]
    )
    assert rc == 0
    summary = json.loads(out.read_text())
    assert any(g["kind"] == "aces" for g in summary["groups"])
    assert [d["spec"] for d in summary["player_specs"]] == ["rule", "rule"]
    assert all(g["decider"] == "rule" and g["wl_ci"] == [None, None] for g in summary["groups"])
    assert (tmp_path / "d.csv").read_text().startswith("kind,turn,contrast,n,")
    assert (tmp_path / "fig" / "declarations.png").stat().st_size > 1000


@pytest.mark.parametrize(
    "argv",
    [
        ["analyze", "declarations", "--players", "rule,nosuchplayer", "--deals", "2"],
        ["analyze", "declarations", "--players", "rule,rule", "--deals", "0"],
    ],
)
def test_command_refuses_bad_input_in_one_line(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err and "Traceback" not in err
