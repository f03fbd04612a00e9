"""A player declares itself once, on its class: a throwaway player shows up in
the registry, in ``policy``'s endgame searches, in the web's opponents and in
``trappola players``; looking up ``random`` or ``rule`` imports no numba or
torch; a player class in a user's own file plays from the command line."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from trappola.agents import REGISTRY, make_player, registry
from trappola.agents.players.pimc import PimcPlayer
from trappola.agents.settings import Setting
from trappola.cli.main import main

THROWAWAY = "throwaway_rows_player"


class ThrowawayPlayer(PimcPlayer):
    """A ``pimc`` under another name, declared only here."""

    kind = "throwaway"
    HELP = "a player declared once, in a test"
    SETTINGS = {**PimcPlayer.SETTINGS, "greed": Setting(int, 2, "how greedy", low=0, high=5)}
    ENDGAME = {"throwaway_search": {"greed": 3}}
    WEB = {"samples": (1, 4), "greed": (0, 3)}


@pytest.fixture
def throwaway():
    module = type(sys)(THROWAWAY)
    module.ThrowawayPlayer = ThrowawayPlayer  # type: ignore[attr-defined]
    ThrowawayPlayer.__module__ = THROWAWAY
    sys.modules[THROWAWAY] = module
    registry.add_module(THROWAWAY)
    yield
    registry.remove_module(THROWAWAY)
    del sys.modules[THROWAWAY]


def test_a_throwaway_player_is_in_all_four_places(throwaway, capsys):
    from trappola.web.opponents import WEB_SETTINGS, check_web_spec

    assert REGISTRY["throwaway"].help == "a player declared once, in a test"
    assert make_player("throwaway:greed=4").name == "throwaway:greed=4"
    policy = make_player("policy:endgame_search=throwaway_search,endgame=2")
    assert type(policy.endgame_searcher) is ThrowawayPlayer and policy.endgame_searcher.settings["greed"] == 3
    assert dict(WEB_SETTINGS["throwaway"]) == {"samples": (1, 4), "greed": (0, 3)}
    assert check_web_spec("throwaway:greed=3") == "throwaway:greed=3"
    with pytest.raises(Exception, match="0 to 3"):
        check_web_spec("throwaway:greed=4")
    assert main(["players"]) == 0
    out = capsys.readouterr().out
    assert "throwaway" in out and "a player declared once, in a test" in out and "greed=2" in out
    registry.remove_module(THROWAWAY)
    assert "throwaway" not in REGISTRY and "throwaway" not in WEB_SETTINGS


def test_the_web_offers_the_same_players_and_bounds_as_before():
    from trappola.web.opponents import WEB_SETTINGS

    assert list(WEB_SETTINGS) == ["random", "rule", "pimc", "policy", "ismcts"]
    assert WEB_SETTINGS["pimc"]["samples"] == (1, 128) and WEB_SETTINGS["ismcts"]["simulations"] == (1, 400)
    assert WEB_SETTINGS["policy"]["endgame_belief"] == ("", "default")
    assert WEB_SETTINGS["rule"]["advice_worlds"] == (0, 64) and WEB_SETTINGS["random"]["pro_bulka"] == (0, 100)


def test_endgame_searches_are_the_rows_of_the_search_players():
    assert list(registry.endgame_searches()) == ["pimc", "vecpimc1", "vecpimc2", "alphamu", "infopimc"]


@pytest.mark.parametrize("name", ["random", "rule"])
def test_random_and_rule_import_no_numba_or_torch(name):
    code = (
        "import sys\n"
        "from trappola.agents import make_player\n"
        f"make_player({name!r}).reset(0)\n"
        "print(sorted(m for m in ('numba', 'torch', 'pyspiel') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    assert out.stdout.strip() == "[]"


USER_PLAYER = '''
from trappola.agents.base import Player


class HighCard(Player):
    """Plays its highest legal action id."""

    kind = "highcard"

    def act(self, view):
        return view.legal_mask.bit_length() - 1
'''


@pytest.mark.parametrize("guard", [True, False])
def test_a_player_in_a_users_file_plays_through_evaluate(tmp_path, guard):
    text = USER_PLAYER
    if guard:
        text += '\n\nif __name__ == "__main__":\n    raise SystemExit("the guarded script ran")\n'
    else:
        text += '\n\nprint("module level ran")\n'
    (tmp_path / "highcard.py").write_text(text)
    out_json = tmp_path / "r.json"
    proc = subprocess.run(
        [sys.executable, "-m", "trappola.cli", "evaluate", "--players", "highcard.py:HighCard,rule", "--deals", "6"]
        + ["--duplicate", "--workers", "2", "--no-progress", "--json", str(out_json)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(out_json.read_text())
    assert summary["players"] == ["highcard.py:HighCard", "rule"] and summary["parties"] == 12


def test_a_bad_class_in_a_users_file_says_what_the_file_holds(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(textwrap.dedent(USER_PLAYER))
    with pytest.raises(ValueError, match="no Player subclass 'LowCard' .*HighCard"):
        make_player(f"{path}:LowCard")
    player = make_player(f"{path}:HighCard")
    assert player.name == f"{path}:HighCard" and make_player(player.name).name == player.name


@pytest.mark.parametrize("guard", [True, False])
def test_a_player_in_a_users_file_is_a_train_pool_entry(tmp_path, guard):
    import numpy as np

    from trappola.train.run.config_file import load_config
    from trappola.train.sb3.batched_vec_env import BatchedSelfPlayVecEnv

    text = USER_PLAYER + ('\n\nif __name__ == "__main__":\n    raise SystemExit(1)\n' if guard else "")
    path = tmp_path / f"pool_player_{guard}.py"
    path.write_text(text)
    spec = f"{path}:HighCard"
    cfg = load_config(overrides={"pool": {spec: 1.0}, "total_timesteps": 1000})
    assert cfg.pool == {spec: 1.0}
    env = BatchedSelfPlayVecEnv(2, pool=dict(cfg.pool), seed=0)
    env.reset()
    rng = np.random.default_rng(0)
    ended = 0
    while ended < 4:
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
        _, _, dones, infos = env.step(acts)
        ended += int(dones.sum())
    assert {info.get("opponent") for info in infos if "opponent" in info} <= {spec}


def _name_of(player) -> str:
    return player.name


def test_a_worker_that_cannot_unpickle_a_player_says_why(tmp_path):
    from trappola.agents.evaluation.backend import ProcessBackend, WorkerTaskError

    module = type(sys)("made_up_here")  # exists in this process only
    cls = type("Ghost", (ThrowawayPlayer,), {"__module__": "made_up_here", "kind": "ghost"})
    module.Ghost = cls  # type: ignore[attr-defined]
    sys.modules["made_up_here"] = module
    try:
        with ProcessBackend(1, context="spawn") as pool:
            with pytest.raises(WorkerTaskError, match="No module named 'made_up_here'"):
                pool.map(_name_of, [cls()])
            assert pool.map(_name_of, [make_player("rule")]) == ["rule"]  # the worker lives on
    finally:
        del sys.modules["made_up_here"]


def test_an_installed_package_adds_players_through_entry_points(tmp_path, monkeypatch):
    from importlib.metadata import EntryPoint

    (tmp_path / "plugin_players.py").write_text(USER_PLAYER)
    monkeypatch.syspath_prepend(str(tmp_path))
    found = [EntryPoint(name="highest", value="plugin_players:HighCard", group=registry.ENTRY_POINT_GROUP)]
    monkeypatch.setattr(registry, "entry_points", lambda group: found if group == registry.ENTRY_POINT_GROUP else [])
    with registry.fresh():  # entry points are read once, by a fresh process's registry
        player = make_player("highest")
        assert type(player).__name__ == "HighCard" and player.name == "highest"
        assert "highest" in REGISTRY and make_player(player.name).name == "highest"
