"""The ``trappola`` command: evaluate end to end on tiny budgets, play with
scripted input, demo, and clean errors (status 2, no traceback)."""

import io
import json
import subprocess
import sys

import pytest

from trappola.agents.evaluation.duplicate import SUMMARY_KEYS
from trappola.cli.main import main

FAST = "rule:answer_rollouts=0,endgame=2"


def test_evaluate_head_to_head_writes_json_and_csv(tmp_path, capsys):
    out_json, out_csv = tmp_path / "s.json", tmp_path / "r.csv"
    code = main(
        [
            "evaluate",
            "--players",
            f"{FAST},random",
            "--deals",
            "4",
            "--duplicate",
            "--seed",
            "3",
            "--workers",
            "1",
            "--json",
            str(out_json),
            "--csv",
            str(out_csv),
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "win rate of rule" in text and "duplicate" in text
    summary = json.loads(out_json.read_text())
    assert set(summary) == {*SUMMARY_KEYS, "player_specs"} and summary["parties"] == 8
    assert summary["settings"]["seed"] == 3 and summary["players"] == [FAST, "random"]
    assert len(out_csv.read_text().splitlines()) == 9


def test_evaluate_json_is_identical_for_1_and_2_workers(tmp_path):
    paths = []
    for workers in ("1", "2"):
        path = tmp_path / f"w{workers}.json"
        assert (
            main(
                [
                    "evaluate",
                    "--players",
                    f"{FAST},random",
                    "--deals",
                    "10",
                    "--duplicate",
                    "--seed",
                    "8",
                    "--workers",
                    workers,
                    "--json",
                    str(path),
                ]
            )
            == 0
        )
        paths.append(path.read_bytes())
    assert paths[0] == paths[1]


def test_evaluate_session_and_ratings_modes(tmp_path, capsys):
    path = tmp_path / "t.json"
    assert (
        main(
            [
                "evaluate",
                "--session",
                "--players",
                f"{FAST},random,random:alifer=false",
                "--sessions",
                "6",
                "--parties",
                "6",
                "--workers",
                "1",
                "--json",
                str(path),
            ]
        )
        == 0
    )
    assert "Bulka sessions" in capsys.readouterr().out
    assert json.loads(path.read_text())["kind"] == "session_tournament"
    assert main(["evaluate", "--ratings", "--players", f"{FAST},random", "--deals", "5", "--workers", "1"]) == 0
    assert "Ratings" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["evaluate", "--players", "rule,nobody", "--deals", "2"], "unknown player 'nobody'"),
        (["evaluate", "--players", "rule", "--deals", "2"], "exactly 2 players"),
        (["evaluate", "--players", "rule:depth=2,random", "--deals", "2"], "no setting depth"),
        (["evaluate", "--session", "--players", "rule,random,rule,random,rule"], "2 to 4 players"),
        (
            ["evaluate", "--players", "rule,random", "--deals", "2", "--json", "/no/such/dir/x.json"],
            "no such directory",
        ),
        (["evaluate", "--players", "rule,random", "--deals", "0"], "positive integer"),
        (["evaluate", "--players", "rule,random", "--workers", "many"], "positive integer"),
        (["play", "--opponent", "human"], "computer player"),
        (["play", "--seat", "north"], "invalid choice"),
        (["fly"], "invalid choice"),
        (["demo", "--minutes", "-1"], "positive number"),
        (["demo", "--minutes", "soon"], "positive number"),
    ],
)
def test_bad_arguments_give_a_clear_message_and_status_2(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_help_everywhere(capsys):
    for argv in (["--help"], ["play", "--help"], ["evaluate", "--help"], ["bench", "--help"], ["demo", "--help"]):
        assert main(argv) == 0
    text = capsys.readouterr().out
    assert "--duplicate" in text and "--opponent" in text and "rule" in text


def test_play_with_scripted_input(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("nonsense\n" + "1\n" * 80))
    assert main(["play", "--opponent", "rule:alifer=never", "--seed", "5", "--seat", "dealer"]) == 0
    out = capsys.readouterr().out
    assert "you are the dealer" in out and "is not one of your moves" in out
    assert "Partie over" in out and "Your tokens over 1 partie" in out and "held:" in out


def test_play_quits_cleanly(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    assert main(["play", "--seed", "1"]) == 0
    assert "bye" in capsys.readouterr().out


def test_players_and_demo(capsys):
    assert main(["players"]) == 0
    assert "alifer_margin" in capsys.readouterr().out
    assert main(["demo", "--quick", "--deals", "8"]) == 0
    out = capsys.readouterr().out
    assert "Partie 1" in out and "win rate of rule" in out and "Bulka sessions" in out


def test_module_entry_point_exits_2_without_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "trappola.cli", "evaluate", "--players", "rule,nope"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "unknown player" in proc.stderr and "Traceback" not in proc.stderr


def _closed_stream():
    stream = io.StringIO()
    stream.close()
    return stream


@pytest.mark.parametrize(
    "stdin, reason",
    [(None, "standard input is closed"), (_closed_stream(), "cannot read"), (io.StringIO(""), "end of input")],
)
def test_play_without_input_says_bye(monkeypatch, capsys, stdin, reason):
    monkeypatch.setattr(sys, "stdin", stdin)
    assert main(["play", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert f"bye ({'no input: ' if stdin is None else ''}{reason}" in out


def test_evaluate_with_a_human_at_end_of_input_stops_in_one_line(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["evaluate", "--players", "human,random", "--deals", "3"]) == 1
    err = capsys.readouterr().err
    assert err.strip() == "trappola evaluate: stopped, no results: the human player stopped (end of input)"


def test_play_with_stdin_closed_in_a_real_process():
    import os

    proc = subprocess.run(
        [sys.executable, "-m", "trappola.cli", "play", "--seed", "2"],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: os.close(0),
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    assert "bye (no input: standard input is closed)" in proc.stdout


@pytest.mark.parametrize("option", ["--json", "--csv"])
def test_output_into_a_directory_is_refused_before_the_run(tmp_path, monkeypatch, capsys, option):
    from trappola.agents import evaluation

    def no_run(*args, **kwargs):
        raise AssertionError("the run started")

    monkeypatch.setattr(evaluation, "head_to_head", no_run)
    assert main(["evaluate", "--players", "rule,random", "--deals", "2", option, str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"cannot write {tmp_path}: it is a directory" in err and "Traceback" not in err


@pytest.mark.parametrize("flag, expect", [(None, "lines"), ("--progress", "bar"), ("--no-progress", "none")])
def test_evaluate_progress_when_stderr_is_not_a_terminal(capsys, flag, expect):
    argv = ["evaluate", "--players", f"{FAST},random", "--deals", "20", "--workers", "1"]
    assert main(argv + ([flag] if flag else [])) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("rule:answer_rollouts=0,endgame=2 vs random: ")]
    if expect == "lines":  # blocks of 3 deals: one line per block, each a further tenth
        assert [line.split(": ", 1)[1].split(",")[0] for line in lines] == [
            "3/20 deals (15%)",
            "6/20 deals (30%)",
            "9/20 deals (45%)",
            "12/20 deals (60%)",
            "15/20 deals (75%)",
            "18/20 deals (90%)",
            "20/20 deals (100%)",
        ]
        assert "%|" not in err
    elif expect == "bar":
        assert "/20 [" in err and "%|" in err and "deals (" not in err  # tqdm's bar, not the plain lines
    else:
        assert err == ""
