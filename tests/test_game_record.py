"""Saved games (agents/evaluation/game_record.py): what evaluate --save-games
writes replays to the same results, and a damaged file is refused with the
line and the defect named."""

import json

import pytest

from trappola.agents.evaluation import head_to_head
from trappola.agents.evaluation.game_record import FORMAT, read_games, write_games
from trappola.cli.main import main


@pytest.fixture(scope="module")
def rule_random():
    return head_to_head("rule", "random", 4, duplicate=True, seed=5, workers=1, record_games=True)


def test_recording_changes_no_number_and_matches_the_rows(rule_random):
    plain = head_to_head("rule", "random", 4, duplicate=True, seed=5, workers=1)
    assert plain.summary == rule_random.summary and plain.records == rule_random.records
    assert plain.games == []
    games = rule_random.games
    assert len(games) == 8
    for g, row in zip(games, rule_random.records, strict=True):
        assert g["format"] == FORMAT and (g["deal_index"], g["game"]) == (row["deal"], row["game"])
        a = 0 if row["a_seat"] == "challenger" else 1
        assert g["players"][a] == "rule" and g["players"][1 - a] == "random"
        assert (g["result"]["tokens"][a], g["result"]["tokens"][1 - a]) == (row["tokens_a"], row["tokens_b"])
        assert g["result"]["scores"][a][3] == row["points_a"]
    # Duplicate: both games of a deal hold the same cards, seats swapped.
    assert games[0]["deal"] == games[1]["deal"]


def test_written_file_reads_back(rule_random, tmp_path):
    path = write_games(rule_random.games, tmp_path / "out")
    assert path.name == "games.jsonl"
    assert read_games(path.read_text()) == rule_random.games


def _damaged(games, change):
    games = json.loads(json.dumps(games))
    change(games[1])
    return "\n".join(json.dumps(g) for g in games)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda g: g["actions"][0].update(action=47), "line 2, action 1: illegal action 47"),  # Pro: never in a partie
        (
            lambda g: (
                g["result"]["tokens"].reverse()
                if g["result"]["tokens"][0] != g["result"]["tokens"][1]
                else g["result"].update(tokens=[1, 2])
            ),
            "line 2: the recorded result differs",
        ),
        (lambda g: g["actions"].pop(), "line 2: the actions stop before the partie is over"),
        (lambda g: g.update(format="other/2"), "line 2: format 'other/2'"),
        (lambda g: g["deal"]["stock"].pop(), "line 2: deal['stock'] must have 18 cards"),
        (lambda g: g["actions"][0].update(seat=1), "line 2, action 1: seat 1 acts, but it is seat 0's turn"),
        (lambda g: g.pop("players"), "line 2: missing field 'players'"),
    ],
)
def test_damaged_records_are_refused_naming_the_line(rule_random, change, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("[", r"\[")):
        read_games(_damaged(rule_random.games, change))


def test_not_json_and_empty_files_are_refused():
    with pytest.raises(ValueError, match="line 1: not JSON"):
        read_games("{nope")
    with pytest.raises(ValueError, match="no games"):
        read_games("\n\n")


def test_pimc_games_carry_the_values_of_the_cards_it_considered():
    pytest.importorskip("numba")
    res = head_to_head("pimc:samples=8", "rule", 2, duplicate=True, seed=3, workers=1, record_games=True)
    searched = 0
    for g in res.games:
        pimc_seat = g["players"].index("pimc:samples=8")
        for step in g["actions"]:
            values = step.get("values")
            if values is None:
                continue
            searched += 1
            assert step["seat"] == pimc_seat and step["action"] < 36
            # It played a card of the best mean value (values are rounded to 4 digits).
            assert values[step["name"][len("play ") :]][0] >= max(v[0] for v in values.values()) - 1e-3
            assert all(-1 <= v[1] <= 1 for v in values.values())
        # The rule player reports no search.
        assert not any("values" in s for s in g["actions"] if s["seat"] != pimc_seat)
    assert searched > 0
    read_games("\n".join(json.dumps(g) for g in res.games))


def test_cli_save_games(tmp_path, capsys):
    out = tmp_path / "games"
    assert (
        main(
            [
                "evaluate",
                "--players",
                "rule,random",
                "--deals",
                "3",
                "--workers",
                "1",
                "--no-progress",
                "--save-games",
                str(out),
            ]
        )
        == 0
    )
    lines = (out / "games.jsonl").read_text().splitlines()
    assert len(lines) == 3 and "games saved to" in capsys.readouterr().out
    (tmp_path / "file").write_text("")
    assert main(["evaluate", "--players", "rule,random", "--deals", "1", "--save-games", str(tmp_path / "file")]) == 2
    assert "not a directory" in capsys.readouterr().err
