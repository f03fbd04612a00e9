"""Saved sessions (agents/evaluation/session_record.py): every partie of a Bulka
session as a saved-game record with its session around it, written by
``trappola evaluate --session ... --save-games DIR``."""

from __future__ import annotations

import json
from fractions import Fraction

from trappola.agents import make_player
from trappola.agents.evaluation import session_tournament
from trappola.agents.evaluation.game_record import read_games
from trappola.agents.evaluation.session_record import SessionRecorder
from trappola.cli.main import main
from trappola_env.engine.advice import ADVICE_BASE
from trappola_env.engine.session import Session
from trappola_env.referee import play_session

FAST = "rule:answer_rollouts=0,endgame=2"


def recorded(seed: int, advice: bool = False, parties: int = 30):
    names = ["A", "B", "C", "D"]
    players = {
        "A": make_player("rule:pro=always"),
        "B": make_player(FAST),
        "C": make_player("random"),
        "D": make_player("random:pro=always"),
    }
    for i, p in enumerate(players.values()):
        p.reset(seed + i)
    s = Session(names=names, max_parties=parties, seed=seed, advice=advice)
    rec = SessionRecorder(s, {"session": 0})
    play_session(players, session=s, on_partie=rec.on_partie)
    return s, rec.finish()


def test_every_partie_is_a_checked_saved_game_with_its_session():
    s, games = recorded(1)
    assert len(games) == s.parties_played == len(s.history)
    read_games("\n".join(json.dumps(g) for g in games))  # each replays to its recorded result
    for g, h in zip(games, s.history, strict=True):
        assert g["evaluation"] == "session" and g["session"] == 0 and g["partie_index"] == h.index
        assert g["players"] == [h.challenger, h.dealer] and g["queue"] == list(h.queue)
        assert g["pro_declarer"] == h.pro_declarer and g["replay"] == h.replay and g["multiplier"] == h.multiplier
        assert g["bulka"] == h.bulka and g["bulka_won"] == h.bulka_won and g["bulka_in"] == h.bulka_in
        assert g["result"]["tokens"] == [h.challenger_tokens, h.dealer_tokens]
        # The balances after each partie and the Bulka account for every token.
        assert sum(g["balances"].values()) + g["bulka"] == 0
    offers = {o.partie_index: o for o in s.pro_offers}
    assert offers and any(o.declared for o in offers.values())
    for g in games:
        o = offers.get(g["partie_index"])
        assert g["pro_offer"] == (
            None if o is None else {"player": o.player, "streak": o.streak, "declared": o.declared}
        )
    # The last partie carries the split: last balances + share = the final balances.
    last = games[-1]
    assert last["final_share"] == float(s.final_share) and all(g["final_share"] is None for g in games[:-1])
    for name, balance in s.balances.items():
        assert Fraction(last["balances"][name]) + Fraction(s.final_share) == balance


def test_advice_is_recorded_with_the_partie_it_was_given_in():
    s, games = recorded(2, advice=True, parties=40)
    assert s.advice_log
    total = 0
    for g in games:
        advice = g["advice"]
        total += len(advice)
        if advice:
            assert g["pro_declarer"] is not None
        for a in advice:
            assert a["advice"] >= ADVICE_BASE and a["adviser"] in g["queue"] and 0 <= a["step"] < len(g["actions"])
    assert total == len(s.advice_log)


def test_tournament_games_change_no_number():
    kw = dict(sessions=2, parties=8, seed=5, workers=1)
    plain = session_tournament([FAST, "random", "random:alifer=false"], **kw)
    saved = session_tournament([FAST, "random", "random:alifer=false"], record_games=True, **kw)
    assert plain.summary == saved.summary and plain.records == saved.records and not plain.games
    assert [g["session"] for g in saved.games] == sorted(g["session"] for g in saved.games)
    assert {g["session"] for g in saved.games} == {0, 1}
    assert sum(1 for g in saved.games if g["session"] == 0) == saved.records[0]["parties"]
    read_games("\n".join(json.dumps(g) for g in saved.games))


def test_cli_saves_sessions(tmp_path, capsys):
    out = tmp_path / "sessions"
    assert (
        main(
            [
                "evaluate",
                "--session",
                "--players",
                f"{FAST},random",
                "--sessions",
                "2",
                "--parties",
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
    assert "games saved to" in capsys.readouterr().out
    games = read_games((out / "games.jsonl").read_text())
    assert len(games) == 6 and {g["session"] for g in games} == {0, 1}


def test_cli_sessions_with_advice_save_the_advice(tmp_path, capsys):
    out, summary = tmp_path / "advised", tmp_path / "s.json"
    assert (
        main(
            [
                "evaluate",
                "--session",
                "--advice",
                "--players",
                "rule:pro=always,random:pro=always,random",
                "--sessions",
                "6",
                "--parties",
                "12",
                "--workers",
                "1",
                "--no-progress",
                "--save-games",
                str(out),
                "--json",
                str(summary),
            ]
        )
        == 0
    )
    games = read_games((out / "games.jsonl").read_text())
    assert any(a["advice"] >= ADVICE_BASE for g in games for a in g["advice"])
    assert json.loads(summary.read_text())["settings"]["advice"] is True
    assert main(["evaluate", "--advice", "--players", "rule,random", "--deals", "2"]) == 2
    assert "--advice does not apply to a head-to-head" in capsys.readouterr().err
