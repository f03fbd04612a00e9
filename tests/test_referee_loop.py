"""The referee's one loop (``trappola_env.referee.Referee``): its
callbacks see exactly the moves played, and stepping it by hand (as the
web table does) plays the same session as running it to the end."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from scripted import Lowest

from trappola.agents import make_player
from trappola_env.engine import Partie, RuleConfig, action_id, deal_from_names
from trappola_env.engine.session import Session
from trappola_env.referee import ACT, PRO, Referee, play_partie, play_session

PLAYTHROUGH = Path(__file__).parent / "playthroughs" / "declarations_manko.json"


class Scripted:
    """Plays the recorded moves of its seat, in order."""

    def __init__(self, name, moves):
        self.name, self.moves = name, list(moves)

    def act(self, view):
        return self.moves.pop(0)


def recorded():
    """(deal, config, [(seat, action)], result) of a recorded partie."""
    rec = json.loads(PLAYTHROUGH.read_text())
    deal = deal_from_names({k: v.split() for k, v in rec["deal"].items()})
    moves = []
    for step in rec["actions"]:
        role, name = step.split(": ", 1)
        moves.append((("challenger", "dealer").index(role), action_id(name)))
    return deal, RuleConfig(**rec["config"]), moves, rec["result"]


def test_callbacks_see_exactly_the_moves_of_a_recorded_partie():
    deal, config, moves, result = recorded()
    players = [Scripted(n, [a for s, a in moves if s == seat]) for seat, n in enumerate(("ch", "de"))]
    seen, ended = [], []

    def on_decision(partie, seat, action):
        assert partie.to_act == seat and partie.legal_mask() >> action & 1  # before the move is applied
        seen.append((seat, action))

    partie = Partie(deal, config)
    Referee.for_partie(players, partie, on_decision=on_decision, on_partie_end=ended.append).run()
    assert seen == moves
    assert ended == [partie] and partie.terminal
    res = partie.result()
    assert (res.outcome, res.winner, list(res.tokens)) == (result["outcome"], 0, result["tokens"])


def test_play_partie_names_an_illegal_move_and_calls_nothing_after_it():
    deal, config, moves, _ = recorded()
    cheat = Scripted("cheat", [47])  # declare Pro: never legal inside a partie
    seen = []
    with pytest.raises(ValueError, match=r"player 'cheat' \(seat 0\): illegal action 47"):
        play_partie([cheat, make_player("rule")], deal, config, on_decision=lambda p, s, a: seen.append(a))
    assert seen == [47]  # the callback saw the attempt; the engine refused it


def test_under_the_forfeit_rule_an_illegal_move_loses_the_partie():
    """The referee leaves an illegal move to the engine: with ``illegal_action="forfeit"``
    the offender forfeits (its opponent wins), nothing is raised and nothing more is asked."""
    deal, config, _, _ = recorded()
    forfeit = dataclasses.replace(config, illegal_action="forfeit")
    cheat = Scripted("cheat", [47])  # declare Pro: never legal inside a partie
    seen = []
    rec = play_partie([cheat, make_player("rule")], deal, forfeit, on_decision=lambda p, s, a: seen.append((s, a)))
    assert (rec.result.outcome, rec.result.winner) == ("forfeit", 1)
    assert seen == [(0, 47)] and rec.history == ((0, 47),)


def test_stepping_by_hand_plays_the_session_run_to_the_end():
    def table():
        players = {n: make_player(spec) for n, spec in zip("ABC", ("rule:pro=always", "random", "rule"), strict=True)}
        for i, p in enumerate(players.values()):
            p.reset(i)
        return players, Session(names=list(players), max_parties=25, seed=7, advice=True)

    players, session = table()
    decisions, moves = [], []
    played = play_session(
        players,
        session=session,
        on_decision=lambda p, s, a: decisions.append((s, a)),
        on_partie=lambda partie: moves.extend(partie.history),
    )
    assert decisions == moves and len(played.history) >= 25

    players, session = table()
    ref = Referee.for_session({**players, "B": None}, session, display={n: n for n in "ABC"})
    kinds = set()
    while not ref.over:
        turn = ref.turn()
        kinds.add(turn.kind)
        answer = (
            players["B"].act(turn.view)
            if turn.who == "B" and turn.kind == ACT
            else players[turn.who].decide_pro(turn.view)
            if turn.who == "B" and turn.kind == PRO
            else ref.ask(turn)
            if turn.who != "B"
            else players["B"].advise(turn.view)
        )
        ref.answer(answer)
    assert {ACT, PRO} <= kinds
    assert session.balances == played.balances and session.history.to_dicts() == played.history.to_dicts()


def test_a_player_answered_from_outside_is_not_asked():
    session = Session(names=["you", "bot"], max_parties=2, seed=1)
    ref = Referee.for_session({"you": None, "bot": make_player("random")}, session)
    while ref.turn().who != "you":
        ref.answer(ref.ask(ref.turn()))
    with pytest.raises(ValueError, match="answered from outside"):
        ref.ask(ref.turn())


def test_an_answer_after_the_session_ended_is_refused_as_such():
    referee = Referee.for_session([Lowest(), Lowest(), Lowest()], Session(max_parties=1, seed=1)).run()
    assert referee.over and referee.partie is None
    with pytest.raises(ValueError, match="session is over"):
        referee.answer(0)
