"""``trappola train``: its options are the config's fields, for both
trainers: ``--help`` shows each field's help, a bad value is refused in one
line naming the field, and a removed setting is an unknown key."""

from __future__ import annotations

import pytest

from trappola.cli.main import main
from trappola.train.rllib.config import RLlibConfig
from trappola.train.run.config import field_help
from trappola.train.run.config_file import load_config, resolve_config
from trappola.train.sb3.config import TrainConfig


def help_of(capsys, *argv) -> str:
    assert main(["train", *argv, "--help"]) == 0
    return " ".join(capsys.readouterr().out.split())  # the help is wrapped: compare words


@pytest.mark.parametrize("cls, argv", [(TrainConfig, []), (RLlibConfig, ["--config", "rllib_selfplay"])])
def test_help_lists_every_field_with_its_help(capsys, cls, argv):
    text = help_of(capsys, *argv)
    for name in cls.model_fields:
        assert f"--{name} " in text
        assert field_help(cls, name) and field_help(cls, name) in text, name
    assert "one of win, points, tokens, mixed" in text  # a field's choices
    assert "--gamma FLOAT" in text and "in (0, 1]" in text and "--n_epochs INT" in text  # types and ranges
    name = argv[1] if argv else "ppo_selfplay"
    assert (
        f"({name}: {load_config(resolve_config(name)).total_timesteps}; >= 0)" in text
    )  # the file's value, not the default
    assert ("--league_size" in text) == (cls is RLlibConfig) and ("--n_envs" in text) == (cls is TrainConfig)
    assert "--bc_teacher" in text and "--pool " in text and "--resume " in text  # the self-play core's, in both


def test_a_subclass_changes_a_default_and_keeps_the_help(capsys):
    assert RLlibConfig().run_name == "rllib_selfplay" and TrainConfig().run_name == "ppo_selfplay"
    assert field_help(RLlibConfig, "run_name") == field_help(TrainConfig, "run_name")
    assert "the learner's (trappola_v0, as on SB3)" in field_help(RLlibConfig, "total_timesteps")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--gamma", "1.5"], "gamma must be in (0, 1]"),
        (["--n_envs=0"], "n_envs must be >= 1, got 0"),
        (["seed=abc"], "config key 'seed' expects int, got 'abc'"),
        (["--vec_env", "gpu"], "vec_env must be one of ('batched', 'subproc', 'dummy'), got 'gpu'"),
        (["--config", "rllib_selfplay", "--league_size", "0"], "league_size must be >= 1, got 0"),
        (["--config", "rllib_selfplay", "env=chess"], "env must be one of ('trappola_v0', 'bulka_v0'), got 'chess'"),
        (["--config", "rllib_selfplay", "eval_opponent=nobody"], "eval_opponent: unknown player 'nobody'"),
        (["--config", "rllib_selfplay", "--ent_coef", "-1"], "ent_coef must be >= 0, got -1.0"),
    ],
)
def test_a_bad_value_is_refused_in_one_line_naming_the_field(capsys, argv, message):
    assert main(["train", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_pro_train_is_gone(tmp_path, capsys):
    f = tmp_path / "old.yaml"
    f.write_text("run_name: old\npro_train: false\n")
    with pytest.raises(ValueError, match="unknown config key 'pro_train'"):
        load_config(f)
    assert main(["train", "--config", str(f)]) == 2
    assert "unknown config key 'pro_train'" in capsys.readouterr().err


def test_the_config_class_follows_the_file_and_direct_construction_is_checked():
    assert isinstance(load_config(resolve_config("rllib_selfplay")), RLlibConfig)
    with pytest.raises(ValueError, match="trainer must be 'sb3'"):
        TrainConfig(trainer="rllib")
    with pytest.raises(ValueError, match="config key 'n_envs' expects int"):
        TrainConfig(n_envs="many")
    with pytest.raises(ValueError, match="n_players must be one of"):
        RLlibConfig(n_players=5)
