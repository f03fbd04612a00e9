"""Every numeric player setting has an upper bound, enforced where specs
are parsed and shown by ``trappola players``: a spec cannot ask for
gigabytes (``pimc:samples=1000000000`` allocated 8 GB and never moved)."""

from __future__ import annotations

import pytest

from trappola.agents import REGISTRY, check_spec, describe_players, make_player, player_class
from trappola.cli.main import main


def registered_settings():
    out = []
    for name in REGISTRY:
        try:
            cls = player_class(name)
        except ValueError:  # an optional dependency missing: nothing of it can be built either
            continue
        out += [(name, key, s) for key, s in cls.SETTINGS.items()]
    return out


@pytest.mark.parametrize("name, key, setting", registered_settings(), ids=lambda x: x if isinstance(x, str) else "")
def test_every_numeric_setting_declares_both_bounds(name, key, setting):
    if setting.type in (int, float):
        assert setting.low is not None and setting.high is not None, f"{name}:{key} needs low= and high="
        assert setting.low <= setting.default <= setting.high
        assert f"[{setting.bounds()}]" in describe_players()


@pytest.mark.parametrize(
    "spec",
    [
        "pimc:samples=1000000000",
        "pimc:samples=1000000000000",
        "pimc:exact=10000000",
        "pimc:belief_draws=100000000",
        "rule:samples=100000",
        "rule:endgame=10",
        "rule:answer_rollouts=1000000",
        "policy:endgame_samples=100000",
    ],
)
def test_an_oversized_setting_is_refused_when_the_spec_is_read(spec):
    with pytest.raises(ValueError, match="from .* to"):
        check_spec(spec)
    with pytest.raises(ValueError, match="from .* to"):
        make_player(spec)


def test_the_largest_allowed_value_is_accepted():
    assert make_player("pimc:samples=4096,belief_draws=65536").settings["samples"] == 4096


def test_the_cli_refuses_it_in_one_line_and_lists_the_bounds(capsys):
    assert main(["evaluate", "--players", "pimc:samples=1000000000,random", "--deals", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "samples" in err and "4096" in err
    assert main(["players"]) == 0
    assert "samples=32" in (out := capsys.readouterr().out) and "[1..4096]" in out
