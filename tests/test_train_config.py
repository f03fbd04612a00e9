"""TrainConfig: YAML + overrides, typed, and clear errors."""
from __future__ import annotations

from pathlib import Path

import pytest

from train.config import TrainConfig, load_config, parse_overrides

ROOT = Path(__file__).resolve().parents[1]


def test_default_yaml_loads_and_matches_dataclass_fields():
    cfg = load_config(ROOT / "configs" / "ppo_selfplay.yaml")
    assert isinstance(cfg, TrainConfig)
    assert cfg.n_steps * cfg.n_envs % cfg.batch_size == 0
    assert set(cfg.pool) <= {"self", "rule", "random"}


def test_overrides_both_styles_and_dotted_keys():
    cfg = load_config(None, ["seed=3", "--total_timesteps", "500", "--net-arch=[64,32]", "pool.rule=0.9",
                             "bc=false", "learning_rate=1"])
    assert cfg.seed == 3 and cfg.total_timesteps == 500 and cfg.net_arch == [64, 32]
    assert cfg.pool["rule"] == 0.9 and cfg.pool["self"] == TrainConfig().pool["self"]
    assert cfg.bc is False
    assert cfg.learning_rate == 1.0 and isinstance(cfg.learning_rate, float)


def test_overrides_win_over_yaml(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text("seed: 5\nn_envs: 4\nn_steps: 128\nbatch_size: 256\n")
    cfg = load_config(f, {"seed": 9})
    assert (cfg.seed, cfg.n_envs, cfg.n_steps) == (9, 4, 128)


@pytest.mark.parametrize("override, message", [
    (["sede=1"], "unknown config key 'sede'"),
    (["seed=abc"], "expects int"),
    (["bc=3"], "expects bool"),
    (["reward_mode=elo"], "reward_mode must be one of"),
    (["pool.pimc=1"], "unknown members"),
    (["seed.x=1"], "not a mapping"),
    (["n_steps=100", "n_envs=3", "batch_size=64"], "multiple of batch_size"),
    (["net_arch=[0]"], "net_arch"),
    (["seed"], "key=value"),
    (["--seed"], "needs a value"),
])
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
