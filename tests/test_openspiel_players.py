"""OpenSpiel's bots as players: ``ismcts`` in the registry and the
``BotPlayer`` adapter (agents/players/openspiel_bots.py)."""

from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("pyspiel")

import pyspiel

from trappola.agents import check_spec, make_player
from trappola.agents.players.openspiel_bots import BotPlayer
from trappola_env.engine import Partie, cards_of, random_deal
from trappola_env.openspiel.partie_game import state_from_info
from trappola_env.referee import play_partie


def test_ismcts_plays_whole_parties_legally_and_reproducibly():
    histories = []
    for _ in range(2):
        player, rule = make_player("ismcts:simulations=20"), make_player("rule")
        player.reset(5)
        rule.reset(6)
        rec = play_partie([player, rule], random_deal(random.Random(11)))
        assert rec.result.outcome in ("decided", "tie", "agreed_alifer")
        histories.append(rec.history)
    assert histories[0] == histories[1]


@pytest.mark.parametrize(
    "spec", ["ismcts:simulations=0", "ismcts:simulations=100001", "ismcts:uct_c=101", "ismcts:final_policy=best"]
)
def test_ismcts_settings_are_bounded(spec):
    with pytest.raises(ValueError, match=spec.split(":")[1].split("=")[0]):
        check_spec(spec)


def test_every_final_policy_is_offered_and_the_name_rebuilds_the_player():
    for name in ("max_visit_count", "normalized_visited_count", "max_value"):
        player = make_player(f"ismcts:final_policy={name},simulations=50")
        assert player.settings["final_policy"] == name
        assert make_player(player.name).settings == player.settings


class RecordingBot(pyspiel.Bot):
    """Always the lowest legal action; records what it is told and the states it steps in."""

    def __init__(self, player_id):
        super().__init__()
        self.player_id = player_id
        self.seen = []
        self.told = []  # (player, action) per inform_action, ("restart",) per restart, ("step", a) per step

    def restart(self):
        self.told.append(("restart",))

    def inform_action(self, state, player, action):
        assert action in state.legal_actions()  # told before the action is applied
        self.told.append((player, action))

    def step(self, state):
        assert state.current_player() == self.player_id
        self.seen.append(state.clone())
        action = state.legal_actions()[0]
        self.told.append(("step", action))
        return action


def _recording_player():
    bots = {}

    def factory(game, player_id, seed):
        bots[player_id] = RecordingBot(player_id)
        return bots[player_id]

    return BotPlayer.wrapping(factory, kind="first")(), bots


def test_the_adapter_plays_any_bot_from_a_state_the_seat_cannot_tell_apart():
    player, bots = _recording_player()
    rule = make_player("rule")
    player.reset(1)
    rule.reset(2)
    deal = random_deal(random.Random(4))
    rec = play_partie([player, rule], deal)
    assert set(bots) == {0} and bots[0].seen
    for state in bots[0].seen:
        # The bot's state holds the seat's own cards and the record, but never the true hidden cards
        # in general: the opponent's dealt hand is a draw, consistent with everything seat 0 knows.
        assert state.partie.dealt[0] == deal.hands[0]
        assert state.partie.history == list(rec.history[: len(state.partie.history)])
    # The hidden cards are drawn afresh for each decision: they are not the true ones.
    assert any(state.partie.dealt[1] != deal.hands[1] for state in bots[0].seen)


@pytest.mark.parametrize("seat", [0, 1])
def test_the_bot_is_told_every_action_its_seat_sees_once_in_order(seat):
    player, bots = _recording_player()
    rule = make_player("rule")
    player.reset(3)
    rule.reset(4)
    deal = random_deal(random.Random(9))
    rec = play_partie([player, rule] if seat == 0 else [rule, player], deal)
    told = bots[seat].told
    assert told[0] == ("restart",) and told.count(("restart",)) == 1
    chance = [a for who, *rest in told if who == pyspiel.PlayerId.CHANCE for a in rest]
    # Its own nine cards and the face-up card, nothing else of the deal.
    assert sorted(chance) == sorted([*cards_of(deal.hands[seat]), deal.stock[-1]])
    record = [(who, rest[0]) for who, *rest in told if who != "restart" and who != pyspiel.PlayerId.CHANCE]
    # Every action of the record once, in order: the bot's own steps where it chose, and an
    # inform_action for the rest (the opponent's, and its own forced moves), up to its last step.
    replayed = [(seat, a) if who == "step" else (who, a) for who, a in record]
    assert replayed == list(rec.history[: len(replayed)])
    assert sum(who == "step" for who, _ in record) == len(bots[seat].seen)


def test_a_uniform_random_bot_bound_to_seat_1_plays_whole_parties_against_rule():
    seats_built = []

    def factory(game, player_id, seed):
        seats_built.append(player_id)
        return pyspiel.make_uniform_random_bot(player_id, seed)

    player = BotPlayer.wrapping(factory)()
    rule = make_player("rule")
    player.reset(7)
    rule.reset(8)
    outcomes = []
    for k in range(6):
        rec = play_partie([rule, player], random_deal(random.Random(100 + k)))
        outcomes.append(rec.result.outcome)
        assert any(seat == 1 for seat, _ in rec.history)
    assert set(outcomes) <= {"decided", "tie", "agreed_alifer"}
    # Seated first, the same player builds another bot for seat 0.
    rec = play_partie([player, rule], random_deal(random.Random(99)))
    assert rec.result.outcome in ("decided", "tie", "agreed_alifer")
    assert set(seats_built) == {0, 1}  # a bot of its own for each seat it sat in


def test_without_the_extra_ismcts_is_a_one_line_error_naming_it():
    code = (
        "import sys; sys.modules['pyspiel'] = None\n"
        "from trappola.cli.main import main\n"
        "sys.exit(main(['evaluate', '--players', 'ismcts,rule', '--deals', '1']))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "openspiel extra" in proc.stderr, proc.stderr


def test_importing_the_environments_never_imports_pyspiel():
    code = (
        "import sys, trappola_env, trappola_env.trappola_v0, trappola_env.bulka_v0, trappola_env.referee\n"
        "import trappola.agents\n"
        "assert 'pyspiel' not in sys.modules, 'pyspiel imported'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_trappola_evaluate_takes_ismcts_in_duplicate(tmp_path, capsys):
    from trappola.cli.main import main

    out = tmp_path / "h2h.json"
    assert (
        main(
            ["evaluate", "--players", "ismcts:simulations=8,rule", "--deals", "2", "--duplicate"]
            + ["--workers", "1", "--json", str(out)]
        )
        == 0
    )
    import json

    summary = json.loads(out.read_text())
    assert summary["parties"] == 4 and summary["players"][0] == "ismcts:simulations=8"


def test_the_web_table_offers_ismcts_within_its_bounds():
    from trappola.web.errors import WebError
    from trappola.web.opponents import web_player

    assert web_player("ismcts:simulations=50").settings["simulations"] == 50
    with pytest.raises(WebError, match="1 to 400"):
        web_player("ismcts:simulations=5000")


def test_a_trained_openspiel_policy_plays_through_the_adapter(tmp_path):
    from trappola.train.openspiel.policy_gradient import main as train_main

    path = tmp_path / "pg.pt"
    assert (
        train_main(["--out", str(path), "--episodes", "20", "--minutes", "5", "--hidden", "16", "--report", "1000"])
        == 0
    )
    player, rule = make_player(f"openspiel:{path}"), make_player("rule")
    player.reset(1)
    rule.reset(2)
    rec = play_partie([rule, player], random_deal(random.Random(8)))
    assert rec.result.outcome in ("decided", "tie", "agreed_alifer")
    # The adapter's bot chose each of its moves from the network: the most likely legal action.
    game = player.game(rec.infos[1])
    bot = player.make_bot(game, 1, 0)
    replay = Partie(rec.deal)
    for seat, action in rec.history:
        if seat == 1 and len(replay.legal_actions()) > 1:
            state = state_from_info(game, replay.info_state(1), random.Random(0))
            assert action == int(np.argmax(bot.policy(state)))
        replay.apply(action)


def test_a_file_that_is_not_a_policy_is_refused_naming_it(tmp_path):
    bad = tmp_path / "x.pt"
    bad.write_bytes(b"not a policy")
    with pytest.raises(ValueError, match="x.pt"):
        make_player(f"openspiel:{bad}")
    with pytest.raises(ValueError, match="needs a policy file"):
        make_player("openspiel")


def test_openspiels_python_mcts_a_perfect_information_bot_plays_on_a_fresh_guess_each_decision():
    from open_spiel.python.algorithms import mcts

    seen = []

    class Watching(mcts.MCTSBot):
        def step(self, state):
            seen.append(state.partie.hands[1 - state.current_player()])
            return super().step(state)

    def factory(game, player_id, seed):
        evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed))
        return Watching(game, 2.0, 10, evaluator, random_state=np.random.RandomState(seed))

    player, rule = BotPlayer.wrapping(factory, kind="mcts")(), make_player("rule")
    player.reset(1)
    rule.reset(2)
    deal = random_deal(random.Random(21))
    rec = play_partie([rule, player], deal)
    assert rec.result.outcome in ("decided", "tie", "agreed_alifer")
    # It searched open hands, but the opponent's hand it saw was a guess drawn afresh at each decision.
    assert len(seen) >= 2 and len(set(seen)) > 1
