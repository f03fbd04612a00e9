"""Callbacks of the self-play run (see ``ppo_selfplay.py`` for the order).

* ``SelfPlayCallback``: pushes a frozen snapshot of the learner into every
  environment worker's opponent pool every ``snapshot_every`` steps (and
  one at the start), and logs per pool member the learner's win rate,
  its mean points difference and the episode count, plus steps/second.
* ``RecorderCallback``: hands the step count to the run's recorder
  (``trappola.train.run.recorder``: evaluation, ``best.zip``, ``last.zip``).
* ``ProgressBarCallback``: a plain tqdm bar (SB3's own needs ``rich``).
* ``TimeLimitCallback``: stops learning after ``max_minutes``.
* ``StopCallback``: stops learning at the step after a Ctrl-C
  (``trappola.train.run.interrupt``).
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

from trappola.agents.model_io.numpy_policy import NumpyPolicy
from trappola.train.selfplay.pool import pool_member


def snapshot_weights(model, activation: str) -> dict:
    """The learner's actor as numpy weights (``NumpyPolicy.get_weights``), for the pool."""
    return NumpyPolicy.from_sb3(model.policy, activation).get_weights()


class SelfPlayCallback(BaseCallback):
    """Snapshots of the learner into the opponent pools every
    ``snapshot_every`` steps, and the per-opponent figures (module docstring)."""

    def __init__(self, snapshot_every: int, activation: str):
        super().__init__()
        self.snapshot_every = snapshot_every
        self.activation = activation
        self.last_snapshot = 0
        self.n_snapshots = 0
        # wins, losses, alifers, points diff sum
        self.stats: defaultdict[str, list[float]] = defaultdict(lambda: [0, 0, 0, 0.0])
        self.t0 = time.time()
        self.steps0 = 0

    def push_snapshot(self) -> None:
        """Add a frozen copy of the learner to every environment's pool."""
        self.training_env.env_method("add_snapshot", snapshot_weights(self.model, self.activation))
        self.last_snapshot = self.num_timesteps
        self.n_snapshots += 1

    def _on_training_start(self) -> None:
        self.push_snapshot()
        self.t0, self.steps0 = time.time(), self.num_timesteps

    def _on_step(self) -> bool:
        for done, info in zip(self.locals["dones"], self.locals["infos"], strict=True):
            if done and "opponent" in info:
                s = self.stats[pool_member(info["opponent"])]
                s[{"win": 0, "loss": 1}.get(info["result"], 2)] += 1
                s[3] += info["points_diff"]
        if self.snapshot_every and self.num_timesteps - self.last_snapshot >= self.snapshot_every:
            self.push_snapshot()
        return True

    def _on_rollout_end(self) -> None:
        for name, (won, lost, alifer, pts) in self.stats.items():
            n = won + lost + alifer
            if n:
                self.logger.record(f"selfplay/win_rate_vs_{name}", won / max(won + lost, 1))
                self.logger.record(f"selfplay/points_diff_vs_{name}", pts / n)
                self.logger.record(f"selfplay/episodes_vs_{name}", n)
        self.stats.clear()
        now = time.time()
        self.logger.record("selfplay/steps_per_second", (self.num_timesteps - self.steps0) / max(now - self.t0, 1e-9))
        self.logger.record("selfplay/snapshots", self.n_snapshots)
        self.t0, self.steps0 = now, self.num_timesteps


class RecorderCallback(BaseCallback):
    """The SB3 side of the run's ``trappola.train.run.recorder.RunRecorder``:
    at each step it hands the step count and the model to ``recorder``,
    which evaluates, keeps the best and writes checkpoints when due."""

    def __init__(self, recorder):
        super().__init__()
        self.recorder = recorder

    def _on_step(self) -> bool:
        if self.recorder.due(self.num_timesteps):
            self.recorder.step(self.num_timesteps, self.model)
        return True


class ProgressBarCallback(BaseCallback):
    """A tqdm bar over ``total`` steps, starting at ``initial`` (a resumed run's)."""

    def __init__(self, total: int, initial: int = 0):
        super().__init__()
        self.total = total
        self.initial = initial
        self.bar: Any = None  # a tqdm bar once training starts

    def _on_training_start(self) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=self.total, initial=self.initial, unit="step", dynamic_ncols=True, mininterval=2.0)

    def _on_step(self) -> bool:
        self.bar.update(self.training_env.num_envs)
        return True

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()


class TimeLimitCallback(BaseCallback):
    """Stops learning after ``minutes`` (0: never), saying so through ``log``."""

    def __init__(self, minutes: float, log=print):
        super().__init__()
        self.deadline = time.time() + 60.0 * minutes if minutes > 0 else None
        self.log = log

    def _on_step(self) -> bool:
        if self.deadline is not None and time.time() > self.deadline:
            self.log(f"time limit reached after {self.num_timesteps:,} steps; stopping")
            return False
        return True


class StopCallback(BaseCallback):
    """Stops learning once ``stop.requested`` (a
    ``trappola.train.run.interrupt.StopOnInterrupt``), saying so through ``log``."""

    def __init__(self, stop, log=print):
        super().__init__()
        self.stop = stop
        self.log = log

    def _on_step(self) -> bool:
        if self.stop.requested:
            self.log(f"interrupted after {self.num_timesteps:,} steps; stopping")
            return False
        return True
