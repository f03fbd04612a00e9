"""``make demo``'s function, shrunk to seconds: it trains, then prints the
Bulka-session table of the new checkpoint, the shipped one, rule and random."""

from __future__ import annotations

from trappola.train.demo import run_demo

TINY = {
    "bc_deals": 30,
    "bc_epochs": 1,
    "total_timesteps": 256,
    "n_envs": 2,
    "vec_env": "dummy",
    "n_steps": 64,
    "batch_size": 64,
    "n_epochs": 1,
    "net_arch": [32],
    "eval_every": 256,
    "eval_deals": 3,
    "snapshot_every": 128,
    "checkpoint_every": 256,
    "progress_bar": False,
    "tensorboard": False,
}


def test_demo_trains_then_prints_the_session_table(tmp_path, capsys):
    out = run_demo(sessions=2, parties=6, workers=1, out_dir=str(tmp_path), overrides=TINY)
    printed = capsys.readouterr().out
    new = f"policy:{tmp_path / 'demo' / 'best.zip'}"
    assert out["train"]["best"] == str(tmp_path / "demo" / "best.zip")
    assert set(out["sessions"]["per_player"]) == {new, "policy", "rule", "random"}
    for label in ("rule", "random", "best.zip"):
        assert label in printed
    # Every token is accounted for: the balances of a session sum to zero.
    total = sum(p["tokens_per_partie"] for p in out["sessions"]["per_player"].values())
    assert abs(total) < 1e-9
