"""``make demo`` (``trappola demo``): a short training run, then a Bulka
session table.

1. Train with ``configs/demo.yaml`` (a few minutes: behaviour cloning on
   the rule player's moves, then self-play PPO) into ``runs/demo/``.
2. Play 4-player Bulka sessions among the new checkpoint, the shipped
   ``agents/models/default.zip``, ``rule`` and ``random`` (the project's session
   tournament: every seating order, same deals per block) and print
   tokens per partie and Bulkas won, with 95% intervals.

``run_demo(minutes=None, sessions=24, parties=40)`` is what the CLI calls;
``minutes`` overrides the training time cap (3 minutes), ``overrides`` any
other setting of ``configs/demo.yaml``.
"""

from __future__ import annotations

import time


def run_demo(
    minutes: float | None = None,
    sessions: int = 24,
    parties: int = 40,
    seed: int = 0,
    workers: int | None = None,
    out_dir: str | None = None,
    overrides: dict | None = None,
) -> dict:
    """Train (``configs/demo.yaml`` + ``overrides``), then play the session
    table; returns both summaries."""
    from trappola.agents.evaluation import session_tournament
    from trappola.agents.evaluation.report import format_tournament
    from trappola.train.run.config_file import load_config, resolve_config
    from trappola.train.sb3.ppo_selfplay import train

    start = time.time()
    overrides = {"seed": seed, **(overrides or {})}
    if minutes is not None:
        overrides["max_minutes"] = float(minutes)
    if out_dir is not None:
        overrides["out_dir"] = out_dir
    cfg = load_config(resolve_config("demo"), overrides)
    print(f"== 1. training for at most {cfg.max_minutes:g} minutes (configs/demo.yaml) ==")
    summary = train(cfg)
    new = summary["best"]
    players = [f"policy:{new}", "policy", "rule", "random"]
    print(
        f"\n== 2. {sessions} Bulka sessions of {parties} parties: new checkpoint ({new}), "
        f"the shipped model (policy), rule, random =="
    )
    res = session_tournament(players, sessions=sessions, parties=parties, seed=seed, workers=workers)
    print(format_tournament(res.summary))
    print(f"\n(demo took {(time.time() - start) / 60:.1f} min; TensorBoard: tensorboard --logdir {cfg.run_dir / 'tb'})")
    return {"train": summary, "sessions": res.summary}
