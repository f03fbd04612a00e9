"""TrainConfig: YAML + overrides, typed, and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from trappola.train.run.config_file import load_config, parse_overrides
from trappola.train.sb3.config import TrainConfig

ROOT = Path(__file__).resolve().parents[1]


def test_default_yaml_loads_and_matches_the_config_fields():
    cfg = load_config(ROOT / "configs" / "ppo_selfplay.yaml")
    assert isinstance(cfg, TrainConfig)
    assert cfg.n_steps * cfg.n_envs % cfg.batch_size == 0
    assert set(cfg.pool) <= {"self", "rule", "random"}


def test_the_second_stage_of_the_shipped_model_loads():
    # `make model` is too long for CI; its second stage's settings are checked here.
    cfg = load_config(ROOT / "configs" / "ppo_vs_search.yaml")
    assert cfg.pool == {"self": 0.4, "random": 0.1, "pimc:samples=4": 0.5}
    assert cfg.bc is False and cfg.reward_mode == "win" and cfg.learning_rate < TrainConfig().learning_rate
    assert cfg.n_steps * cfg.n_envs % cfg.batch_size == 0
    assert "resume=$(MODEL_DIR)/selfplay/final.zip" in (ROOT / "Makefile").read_text()


def test_overrides_both_styles_and_dotted_keys():
    cfg = load_config(
        None,
        ["seed=3", "--total_timesteps", "500", "--net-arch=[64,32]", "pool.rule=0.9", "bc=false", "learning_rate=1"],
    )
    assert cfg.seed == 3 and cfg.total_timesteps == 500 and cfg.net_arch == [64, 32]
    assert cfg.pool["rule"] == 0.9 and cfg.pool["self"] == TrainConfig().pool["self"]
    assert cfg.bc is False
    assert cfg.learning_rate == 1.0 and isinstance(cfg.learning_rate, float)


def test_overrides_win_over_yaml(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text("seed: 5\nn_envs: 4\nn_steps: 128\nbatch_size: 256\n")
    cfg = load_config(f, {"seed": 9})
    assert (cfg.seed, cfg.n_envs, cfg.n_steps) == (9, 4, 128)


@pytest.mark.parametrize(
    "override, message",
    [
        (["sede=1"], "unknown config key 'sede'"),
        (["seed=abc"], "expects int"),
        (["bc=3"], "expects bool"),
        (["reward_mode=elo"], "reward_mode must be one of"),
        (["pool.pimcc=1"], "pool member 'pimcc'"),
        (["pool.human=1"], "must be a computer player"),
        (["seed.x=1"], "not a mapping"),
        (["n_steps=100", "n_envs=3", "batch_size=64"], "multiple of batch_size"),
        (["net_arch=[0]"], "net_arch"),
        (["seed"], "key=value"),
        (["--seed"], "needs a value"),
    ],
)
def test_bad_settings_are_refused(override, message):
    with pytest.raises(ValueError, match=message):
        load_config(None, override)


def test_missing_and_malformed_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="config file not found"):
        load_config(tmp_path / "none.yaml")
    f = tmp_path / "list.yaml"
    f.write_text("- 1\n- 2\n")
    with pytest.raises(ValueError, match="mapping"):
        load_config(f)


def test_parse_overrides_yaml_values():
    assert parse_overrides(["a=1.5", "b=[1, 2]", "c=hello", "d="]) == {"a": 1.5, "b": [1, 2], "c": "hello", "d": ""}


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("seed: 1\nnet_arch: [64, 64\n", 3, "expected ','"),
        ("seed: 1\npool:\n\trule: 1\n", 3, "'\\t'"),
        ("seed: 1\nrun_name: !!python/object/apply:os.system ['true']\n", 2, "python/object/apply"),
    ],
)
def test_yaml_errors_name_the_file_and_line(tmp_path, text, line, message):
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    with pytest.raises(ValueError) as err:
        load_config(f)
    text = str(err.value)
    assert f"{f} line {line}" in text and message in text and "\n" not in text


@pytest.mark.parametrize(
    "override, message",
    [
        ("learning_rate=-1", "learning_rate must be > 0"),
        ("bc_learning_rate=0", "bc_learning_rate must be > 0"),
        ("gamma=1.5", r"gamma must be in \(0, 1\]"),
        ("gamma=0", r"gamma must be in \(0, 1\]"),
        ("gae_lambda=1.1", "gae_lambda"),
        ("clip_range=-0.2", "clip_range must be > 0"),
        ("points_scale=0", "points_scale must be > 0"),
        ("tokens_scale=-3", "tokens_scale must be > 0"),
        ("max_minutes=-5", "max_minutes must be >= 0"),
        ("bc_batch_size=0", "bc_batch_size must be >= 1"),
        ("alifer_ema=0", "alifer_ema"),
        ("snapshot_latest_prob=2", "snapshot_latest_prob"),
        ("ent_coef=-0.1", "ent_coef must be >= 0"),
        ("learning_rate=.nan", "learning_rate must be a finite number"),
        ("max_minutes=.inf", "max_minutes must be a finite number"),
        ("pool.rule=.nan", "pool weights"),
        ("eval_opponent=nobody", "eval_opponent: unknown player 'nobody'"),
        ("eval_opponent=rule:depth=2", "eval_opponent: player 'rule' has no setting depth"),
        ("bc_teacher=chess", "bc_teacher: unknown player 'chess'"),
        ("bc_teacher=human", "bc_teacher must be a computer player"),
        ("resume=no/such/last.zip", "resume checkpoint not found: no/such/last.zip"),
    ],
)
def test_numbers_and_players_are_range_checked(override, message):
    with pytest.raises(ValueError, match=message):
        load_config(None, [override])


def test_zero_means_no_limit_and_player_specs_with_settings_pass(tmp_path):
    ckpt = tmp_path / "last.zip"
    ckpt.write_bytes(b"")
    cfg = load_config(
        None,
        [
            "max_minutes=0",
            "target_kl=0",
            "eval_opponent=rule:alifer=never",
            "bc_teacher=random:alifer=false",
            f"resume={ckpt}",
        ],
    )
    assert cfg.max_minutes == 0.0 and cfg.eval_opponent == "rule:alifer=never" and cfg.resume == str(ckpt)


def test_command_line_refuses_bad_files_and_takes_key_value_options(tmp_path, capsys, monkeypatch):
    from trappola.cli.main import main
    from trappola.train.sb3 import ppo_selfplay

    f = tmp_path / "tabs.yaml"
    f.write_text("seed: 1\npool:\n\trule: 1\n")
    assert main(["train", "--config", str(f)]) == 2
    err = capsys.readouterr().err
    assert f"{f} line 3" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert main(["train", "--gamma", "1.5"]) == 2
    assert "gamma must be in (0, 1]" in capsys.readouterr().err
    seen = []
    monkeypatch.setattr(
        ppo_selfplay,
        "train",
        lambda cfg: seen.append(cfg) or dict.fromkeys(("best", "final", "best_score", "timesteps", "minutes")),
    )
    assert main(["train", "--config", "demo", "--total_timesteps", "64", "--seed=4", "run_name=x"]) == 0
    assert (seen[0].total_timesteps, seen[0].seed, seen[0].run_name) == (64, 4, "x")
