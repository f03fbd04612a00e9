"""Callbacks of the self-play run (see ``ppo_selfplay.py`` for the order).

* ``SelfPlayCallback``: pushes a frozen snapshot of the learner into every
  environment worker's opponent pool every ``snapshot_every`` steps (and
  one at the start), and logs per pool member the learner's win rate,
  its mean points difference and the episode count, plus steps/second.
* ``EvalCheckpointCallback``: every ``eval_every`` steps a duplicate match
  against ``eval_opponent`` by the evaluator (``evaluation.head_to_head``,
  same deals each time, so evaluations are comparable); the best score so
  far is saved as ``best.zip``; every ``checkpoint_every`` steps
  ``last.zip`` is overwritten (and, with ``keep_checkpoints``, a copy kept
  as ``checkpoints/<steps>.zip``).
* ``ProgressBarCallback``: a plain tqdm bar (SB3's own needs ``rich``).
* ``TimeLimitCallback``: stops learning after ``max_minutes``.
"""
from __future__ import annotations

import time
from collections import defaultdict

from stable_baselines3.common.callbacks import BaseCallback

from trappola.agents.checkpoint_format import CheckpointError, read_metadata
from trappola.agents.numpy_policy import NumpyPolicy
from trappola.evaluation.stats import mean_ci

from .model_checkpoint import build_metadata, save_checkpoint
from .run_log import resumes_into
from .selfplay.pool import pool_member


def snapshot_weights(model, activation: str) -> dict:
    return NumpyPolicy.from_sb3(model.policy, activation).get_weights()


class SelfPlayCallback(BaseCallback):
    def __init__(self, snapshot_every: int, activation: str):
        super().__init__()
        self.snapshot_every = snapshot_every
        self.activation = activation
        self.last_snapshot = 0
        self.n_snapshots = 0
        self.stats = defaultdict(lambda: [0, 0, 0, 0.0])  # wins, losses, alifers, points diff sum
        self.t0 = time.time()
        self.steps0 = 0

    def push_snapshot(self) -> None:
        self.training_env.env_method("add_snapshot", snapshot_weights(self.model, self.activation))
        self.last_snapshot = self.num_timesteps
        self.n_snapshots += 1

    def _on_training_start(self) -> None:
        self.push_snapshot()
        self.t0, self.steps0 = time.time(), self.num_timesteps

    def _on_step(self) -> bool:
        for done, info in zip(self.locals["dones"], self.locals["infos"]):
            if done and "opponent" in info:
                s = self.stats[pool_member(info["opponent"])]
                s[{"win": 0, "loss": 1}.get(info["result"], 2)] += 1
                s[3] += info["points_diff"]
        if self.snapshot_every and self.num_timesteps - self.last_snapshot >= self.snapshot_every:
            self.push_snapshot()
        return True

    def _on_rollout_end(self) -> None:
        for name, (w, l, a, pts) in self.stats.items():
            n = w + l + a
            if n:
                self.logger.record(f"selfplay/win_rate_vs_{name}", w / max(w + l, 1))
                self.logger.record(f"selfplay/points_diff_vs_{name}", pts / n)
                self.logger.record(f"selfplay/episodes_vs_{name}", n)
        self.stats.clear()
        now = time.time()
        self.logger.record("selfplay/steps_per_second", (self.num_timesteps - self.steps0) / max(now - self.t0, 1e-9))
        self.logger.record("selfplay/snapshots", self.n_snapshots)
        self.t0, self.steps0 = now, self.num_timesteps


class EvalCheckpointCallback(BaseCallback):
    def __init__(self, cfg, run_dir, log=print, resumed_from: dict | None = None):
        super().__init__()
        self.cfg = cfg
        self.resumed_from = resumed_from  # the parent run, recorded in every checkpoint of a resumed run
        self.run_dir = run_dir
        self.log = log
        self.last_eval = 0
        self.last_ckpt = 0
        # A run resumed inside its own folder competes with the best.zip it already has.
        self.best_score, self.best_path = kept_best(run_dir / "best.zip", cfg.eval_opponent) \
            if resumes_into(cfg) else (-1.0, None)
        self.history = []

    def evaluate(self) -> dict:
        """A duplicate match of the learner against ``eval_opponent`` by the
        project's evaluator (in this process), as ``duplicate_figures``;
        with ``eval_search_deals``, also a small one against
        ``eval_search_opponent`` (under the key ``"search"``), so that the
        progress against search shows during the run."""
        cfg = self.cfg
        res = self._duplicate(cfg.eval_opponent, cfg.eval_deals)
        if cfg.eval_search_deals:
            res["search"] = self._duplicate(cfg.eval_search_opponent, cfg.eval_search_deals)
        res["timesteps"] = self.num_timesteps
        self.history.append(res)
        return res

    def _duplicate(self, opponent: str, deals: int) -> dict:
        from trappola.agents.policy_player import PolicyPlayer
        from trappola.evaluation import head_to_head

        cfg = self.cfg
        me = PolicyPlayer.from_numpy(NumpyPolicy.from_sb3(self.model.policy, cfg.activation))
        return duplicate_figures(head_to_head(me, opponent, deals, duplicate=True, seed=cfg.seed + 777,
                                              workers=1))

    def meta(self, **extra) -> dict:
        return build_metadata(self.cfg.to_dict(), self.cfg.seed, self.num_timesteps,
                              resumed_from=self.resumed_from, **extra)

    def evaluate_and_keep_best(self) -> dict:
        res = self.evaluate()
        lo, hi = res["score_ci"]
        ci = "" if lo is None else f" [{lo:.3f}, {hi:.3f}]"  # no interval from a single deal
        self.log(f"[eval {self.num_timesteps:>9,} steps] vs {self.cfg.eval_opponent} in duplicate: "
                 f"win rate {res['win_rate']:.3f}, score {res['score']:.3f}{ci}, "
                 f"points diff {res['points_diff']:+.1f}")
        search = res.get("search")
        if search:
            lo, hi = search["win_rate_ci"] or (None, None)
            ci = "" if lo is None else f" [{lo:.3f}, {hi:.3f}]"
            self.log(f"[eval {self.num_timesteps:>9,} steps] vs {self.cfg.eval_search_opponent} in duplicate "
                     f"({self.cfg.eval_search_deals} deals): win rate {search['win_rate']:.3f}{ci}")
        if self.logger is not None:
            for name, figures in ((self.cfg.eval_opponent, res), (self.cfg.eval_search_opponent, search)):
                if figures:
                    tag = name.split(":")[0]
                    self.logger.record(f"eval/win_rate_vs_{tag}", figures["win_rate"])
                    self.logger.record(f"eval/score_vs_{tag}", figures["score"])
                    self.logger.record(f"eval/points_diff_vs_{tag}", figures["points_diff"])
        if res["score"] > self.best_score:
            self.best_score = res["score"]
            self.best_path = save_checkpoint(self.model, self.run_dir / "best.zip",
                                             self.meta(eval={self.cfg.eval_opponent: short_figures(res)}))
        return res

    def _on_step(self) -> bool:
        cfg = self.cfg
        if cfg.eval_every and cfg.eval_deals and self.num_timesteps - self.last_eval >= cfg.eval_every:
            self.last_eval = self.num_timesteps
            self.evaluate_and_keep_best()
        if cfg.checkpoint_every and self.num_timesteps - self.last_ckpt >= cfg.checkpoint_every:
            self.last_ckpt = self.num_timesteps
            save_checkpoint(self.model, self.run_dir / "last.zip", self.meta())
            if cfg.keep_checkpoints:  # the learning curve, for evaluation after the run
                save_checkpoint(self.model, self.run_dir / "checkpoints" / f"{self.num_timesteps}.zip", self.meta())
        return True


def kept_best(path, opponent: str) -> tuple[float, object]:
    """(score, path) of an existing ``best.zip`` against ``opponent``, from
    its metadata; (-1.0, None) when there is none, or none against that
    opponent, or the file is unusable."""
    if not path.is_file():
        return -1.0, None
    try:
        score = read_metadata(path).get("eval", {}).get(opponent, {}).get("score")
    except (CheckpointError, AttributeError):
        return -1.0, None
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        return -1.0, None
    return float(score), path


def duplicate_figures(match) -> dict:
    """The figures training logs from a duplicate ``evaluation.head_to_head``
    result, for the learner (player A):

    * ``win_rate`` (0.5 when no partie was decided) and ``win_rate_ci``;
    * ``score``: (wins + 0.5 * Alifers) / parties, averaged per deal over
      its two parties, with ``score_ci``, its 95% Student-t interval over
      deals (the deal is the unit: its two parties share the cards);
    * ``points_diff``: the mean points difference per partie, with
      ``points_diff_ci``;
    * the counts ``deals``, ``parties``, ``wins``, ``losses``, ``alifers``.
    """
    s = match.summary
    by_deal: dict[int, list[float]] = {}
    for r in match.records:
        by_deal.setdefault(r["deal"], []).append(1.0 if r["winner"] == "A" else 0.5 if not r["winner"] else 0.0)
    score, score_ci = mean_ci(sum(v) / len(v) for v in by_deal.values())
    return {"deals": s["settings"]["deals"], "parties": s["parties"], "wins": s["wins"], "losses": s["losses"],
            "alifers": s["alifer"], "win_rate": 0.5 if s["win_rate"] is None else s["win_rate"],
            "win_rate_ci": s["win_rate_ci"], "score": score, "score_ci": score_ci,
            "points_diff": s["mean_point_diff"], "points_diff_ci": s["mean_point_diff_ci"]}


def short_figures(res: dict) -> dict:
    """The figures of an evaluation kept in a checkpoint's metadata."""
    keys = ("deals", "wins", "losses", "alifers", "win_rate", "score", "score_ci", "points_diff", "timesteps")
    return {k: res[k] for k in keys if k in res}


class ProgressBarCallback(BaseCallback):
    def __init__(self, total: int):
        super().__init__()
        self.total = total
        self.bar = None

    def _on_training_start(self) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=self.total, initial=0, unit="step", dynamic_ncols=True, mininterval=2.0)

    def _on_step(self) -> bool:
        self.bar.update(self.training_env.num_envs)
        return True

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()


class TimeLimitCallback(BaseCallback):
    def __init__(self, minutes: float, log=print):
        super().__init__()
        self.deadline = time.time() + 60.0 * minutes if minutes > 0 else None
        self.log = log

    def _on_step(self) -> bool:
        if self.deadline is not None and time.time() > self.deadline:
            self.log(f"time limit reached after {self.num_timesteps:,} steps; stopping")
            return False
        return True
