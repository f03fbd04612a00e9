"""Every player and file a run uses is loaded before its first step: a bad
one is refused in one line with nothing written, for both trainers; and
``final.zip`` is written before the final evaluation, so a failing
evaluation loses no training."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import pytest

from trappola.agents.model_io.checkpoint_format import read_metadata
from trappola.train.rllib.config import RLlibConfig
from trappola.train.run.config_file import load_config
from trappola.train.sb3.ppo_selfplay import train

TINY = [
    "n_envs=2",
    "vec_env=dummy",
    "n_steps=64",
    "batch_size=64",
    "n_epochs=1",
    "total_timesteps=128",
    "net_arch=[16]",
    "bc=false",
    "eval_deals=2",
    "snapshot_every=64",
    "checkpoint_every=128",
    "progress_bar=false",
    "max_minutes=0",
    "tensorboard=false",
]


@pytest.fixture()
def bad_belief(tmp_path):
    path = tmp_path / "bad.npz"
    path.write_bytes(b"not a belief model")
    return path


def test_a_bad_eval_opponent_file_is_refused_in_seconds_with_nothing_written(tmp_path):
    out = tmp_path / "runs"
    t0 = time.time()
    done = subprocess.run(
        [sys.executable, "-m", "trappola.cli", "train", *TINY, "eval_every=0", "eval_opponent=policy:missing.zip"]
        + [f"out_dir={out}", "run_name=a"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert time.time() - t0 < 10
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "eval_opponent 'policy:missing.zip'" in done.stderr and "not found" in done.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    "setting, key, spec",
    [
        ("eval_opponent", "eval_opponent", "pimc:samples=2,belief={belief}"),
        ("eval_search_opponent", "eval_search_opponent", "pimc:samples=2,belief={belief}"),
        ("eval_search_opponent", "eval_search_opponent", "pimc:samples=2,infer={missing}"),
        ("pool member 'policy:{missing}'", "pool.policy:{missing}", 0.5),
        ("bc_teacher", "bc_teacher", "policy:{missing}"),
    ],
)
def test_every_player_of_the_sb3_run_is_loaded_first(tmp_path, bad_belief, monkeypatch, setting, key, spec):
    from trappola.train.sb3 import vec

    def refuse(*args, **kwargs):
        raise AssertionError("the run started")

    monkeypatch.setattr(vec, "make_vec_env", refuse)
    missing = tmp_path / "missing.zip"
    fill = {"belief": bad_belief, "missing": missing}
    overrides = {
        key.format(**fill): spec.format(**fill) if isinstance(spec, str) else spec,
        "eval_search_deals": 2,
        "bc": True,
        "out_dir": str(tmp_path),
        "run_name": "a",
    }
    cfg = load_config(None, [*TINY, "eval_every=0"])
    cfg = load_config(None, {**cfg.to_dict(), **overrides})
    with pytest.raises(ValueError, match="^" + re.escape(setting.format(**fill))):
        train(cfg, log=lambda m: None)
    assert not (tmp_path / "a").exists()


def test_players_the_run_does_not_use_are_not_loaded(tmp_path, bad_belief):
    cfg = load_config(
        None,
        [
            *TINY,
            f"eval_search_opponent=pimc:belief={bad_belief}",
            "eval_search_deals=0",
            f"bc_teacher=policy:{bad_belief}",
        ],
    )
    assert set(cfg.players()) == {"eval_opponent", "pool member 'random'"}


def test_the_rllib_run_loads_its_players_before_ray_starts(tmp_path, bad_belief):
    ray = pytest.importorskip("ray")
    from trappola.train.rllib.selfplay import train as train_rllib

    cfg = RLlibConfig(out_dir=str(tmp_path), eval_opponent=f"pimc:belief={bad_belief}")
    with pytest.raises(ValueError, match=f"^eval_opponent 'pimc:belief={bad_belief}'.*not a belief model"):
        train_rllib(cfg, log=lambda m: None)
    assert not ray.is_initialized() and list(tmp_path.iterdir()) == [bad_belief]


def test_final_zip_is_written_before_the_final_evaluation(tmp_path, monkeypatch):
    from trappola.agents import evaluation

    def broken(*args, **kwargs):
        raise RuntimeError("the evaluation broke")

    monkeypatch.setattr(evaluation, "head_to_head", broken)
    cfg = load_config(None, [*TINY, "eval_every=0", f"out_dir={tmp_path}", "run_name=a"])
    with pytest.raises(RuntimeError, match="the evaluation broke"):
        train(cfg, log=lambda m: None)
    for name in ("final.zip", "last.zip"):  # the training is kept; only the figures are missing
        meta = read_metadata(tmp_path / "a" / name)
        assert meta["num_timesteps"] == 128 and not meta.get("eval")
