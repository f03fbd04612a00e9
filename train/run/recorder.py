"""What a training run records, the same for both trainers (SB3 and RLlib).

``RunRecorder`` opens the run folder (``trappola.train.run.log.open_run``:
``config.yaml``, ``train.log``) and, as the trainer reports its step count,

* evaluates the network every ``eval_every`` steps: a duplicate match
  against ``eval_opponent`` by the project's evaluator
  (``evaluation.head_to_head``, same deals each time, so evaluations are
  comparable), and with ``eval_search_deals`` a small one against
  ``eval_search_opponent``; a line in ``train.log``, TensorBoard scalars
  ``eval/*_vs_<opponent>`` (into the trainer's own logger, or with
  ``tensorboard`` a writer of the recorder's in the run's ``tb/``);
* keeps the best: ``best.zip`` is rewritten whenever the score against
  ``eval_opponent`` beats the best so far (a run resumed inside its own
  folder starts from the score of the ``best.zip`` it has);
* writes ``last.zip`` every ``checkpoint_every`` steps (with
  ``keep_checkpoints`` also ``checkpoints/<steps>.zip``);
* at the end: ``final.zip`` and ``last.zip`` first (so an evaluation
  that fails loses nothing), a final evaluation (unless one was just made,
  or the run was interrupted), ``final.zip`` again with its figures, and
  ``summary.json``.

The trainer supplies two functions of its network (an SB3 model, RLlib's
weights...): ``save(network, path, steps, **meta)``, writing a checkpoint
atomically, and ``player(network)``, the network as a player for the
evaluator.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from trappola.agents.evaluation.stats import mean_ci
from trappola.agents.model_io.checkpoint_format import CheckpointError, read_metadata
from trappola.train.run.log import naming, open_run, quiet_tensorboard_threads, resumes_into
from trappola_env.atomic_file import write_text

#: The figures of an evaluation kept in a checkpoint's metadata.
SHORT_KEYS = ("deals", "wins", "losses", "alifers", "win_rate", "score", "score_ci", "points_diff", "timesteps")
#: The figures of each evaluation in ``summary.json``.
SUMMARY_KEYS = ("timesteps", "win_rate", "score", "points_diff")


class RunRecorder:
    """Evaluation, keep-the-best, checkpoints, ``summary.json``, TensorBoard
    scalars and ``train.log`` lines of one run (module docstring).

    ``cfg``: a ``RunConfig``; ``save(network, path, steps, **meta) -> Path``
    and ``player(network) -> Player``: the trainer's; ``log``: where
    progress lines go besides ``train.log`` (default ``print``);
    ``scalars(key, value, steps)``: where TensorBoard scalars go (the
    trainer's logger), or None: then, with ``cfg.tensorboard``, a writer
    of the recorder's into ``run_dir/tb``; ``started``:
    when the run started (``time.time()``; default now). Creating one
    creates the run folder (``RunDirError`` if it cannot be used). Public
    state: ``run_dir``, ``history`` (every evaluation), ``best_score`` and
    ``best_path`` (None until a ``best.zip`` exists)."""

    def __init__(
        self,
        cfg,
        save: Callable,
        player: Callable,
        log=None,
        scalars: Callable | None = None,
        started: float | None = None,
        stop=None,
    ):
        self.cfg = cfg
        self.save = save
        self.player = player
        self.scalars = scalars
        self._writer: Any = None  # the recorder's own TensorBoard writer, made at the first scalar
        self.started = time.time() if started is None else started
        self.stop = stop
        self.run_dir, self.say, self._log_file = open_run(cfg, log)
        # A run resumed inside its own folder competes with the best.zip it already has, if chosen on the same deals.
        self.best_score, self.best_path = -1.0, None
        if resumes_into(cfg):
            self.best_score, self.best_path = kept_best(self.run_dir / "best.zip", cfg.eval_opponent)
            other = other_deals(self.run_dir / "best.zip", cfg) if cfg.evaluates else None
            if other:
                aside = self.run_dir / "best.other-deals.zip"
                (self.run_dir / "best.zip").replace(aside)
                self.best_score, self.best_path = -1.0, None
                self.say(f"best.zip was chosen on {other}, not this run's deals: kept as {aside.name}; best.zip anew")
        self.history: list[dict] = []
        self.last_eval = self.last_checkpoint = 0

    def due(self, steps: int) -> bool:
        """Whether ``step(steps, ...)`` has something to do (so a trainer
        fetches its network only then)."""
        return self._eval_due(steps) or self._checkpoint_due(steps)

    def _eval_due(self, steps: int) -> bool:
        return bool(self.cfg.evaluates and self.cfg.eval_every and steps - self.last_eval >= self.cfg.eval_every)

    def _checkpoint_due(self, steps: int) -> bool:
        return bool(self.cfg.checkpoint_every and steps - self.last_checkpoint >= self.cfg.checkpoint_every)

    def step(self, steps: int, network) -> None:
        """The run is at ``steps``: evaluate and write ``last.zip`` if
        their time has come."""
        if self._eval_due(steps):
            self.evaluate(steps, network)
        if self._checkpoint_due(steps):
            self.last_checkpoint = steps
            self.checkpoint("last.zip", steps, network)
            if self.cfg.keep_checkpoints:  # the learning curve, for evaluation after the run
                self.checkpoint(Path("checkpoints") / f"{steps}.zip", steps, network)

    def checkpoint(self, name: str | Path, steps: int, network, **meta) -> Path:
        """Write ``network`` to ``run_dir/name`` (atomically, by the
        trainer's ``save``) with ``meta`` in its metadata; returns the path."""
        return self.save(network, self.run_dir / name, steps, **meta)

    def evaluate(self, steps: int, network) -> dict | None:
        """Evaluate ``network`` at ``steps`` (``duplicate_figures`` against
        ``eval_opponent``; with ``eval_search_deals`` also against
        ``eval_search_opponent``, under ``"search"``), log it (``train.log``
        and the scalars, at ``steps``), and write ``best.zip`` if it beats
        the best score; returns the figures, or None when a stop signal
        ended the evaluation (it says so)."""
        cfg = self.cfg
        self.last_eval = steps
        try:
            with self.stop.raising() if self.stop is not None else contextlib.nullcontext():
                res = {**self._duplicate(network, cfg.eval_opponent, cfg.eval_deals), "timesteps": steps}
                if cfg.eval_search_deals:
                    res["search"] = self._duplicate(network, cfg.eval_search_opponent, cfg.eval_search_deals)
        except KeyboardInterrupt:
            if self.stop is None:
                raise
            self.say(f"[eval {steps:>9,} steps] stopped by {self.stop.signal_name}: not evaluated")
            return None
        self.history.append(res)
        lo, hi = res["score_ci"]
        ci = "" if lo is None else f" [{lo:.3f}, {hi:.3f}]"  # no interval from a single deal
        self.say(
            f"[eval {steps:>9,} steps] vs {cfg.eval_opponent} in duplicate: win rate {res['win_rate']:.3f}, "
            f"score {res['score']:.3f}{ci}, points diff {res['points_diff']:+.1f}"
        )
        search = res.get("search")
        if search:
            lo, hi = search["win_rate_ci"] or (None, None)
            ci = "" if lo is None else f" [{lo:.3f}, {hi:.3f}]"
            self.say(
                f"[eval {steps:>9,} steps] vs {cfg.eval_search_opponent} in duplicate "
                f"({cfg.eval_search_deals} deals): win rate {search['win_rate']:.3f}{ci}"
            )
        row = {}
        for name, figures in ((cfg.eval_opponent, res), (cfg.eval_search_opponent, search)):
            if figures:
                tag = name.split(":")[0]
                for key in ("win_rate", "score", "points_diff"):
                    row[f"eval/{key}_vs_{tag}"] = figures[key]
        self.scalar_row(row, steps)
        if res["score"] > self.best_score:
            self.best_score = res["score"]
            self.best_path = self.checkpoint("best.zip", steps, network, eval={cfg.eval_opponent: short_figures(res)})
        return res

    def scalar(self, key: str, value: float, steps: int) -> None:
        """A TensorBoard scalar at ``steps`` (nowhere without a sink and
        with ``tensorboard=false``)."""
        self.scalar_row({key: value}, steps)

    def scalar_row(self, values: dict, steps: int) -> None:
        """Scalars at ``steps``: one row of the sink (``progress.csv`` and
        TensorBoard), or the recorder's own TensorBoard writer."""
        if self.scalars is not None:
            self.scalars(values, steps)
            return
        for key, value in values.items():
            self._own_scalar(key, value, steps)

    def _own_scalar(self, key: str, value: float, steps: int) -> None:
        if self.cfg.tensorboard:
            folder = self.run_dir / "tb"
            try:
                if self._writer is None:
                    from torch.utils.tensorboard import SummaryWriter

                    quiet_tensorboard_threads()
                    self._writer = SummaryWriter(str(folder))
                self._writer.add_scalar(key, value, steps)
            except OSError as exc:
                raise naming(exc, folder) from None

    def _duplicate(self, network, opponent: str, deals: int) -> dict:
        from trappola.agents.evaluation import head_to_head

        match = head_to_head(self.player(network), opponent, deals, duplicate=True, seed=self.cfg.seed + 777, workers=1)
        return duplicate_figures(match)

    def finish(
        self, steps: int, network, learned_steps: int, learn_s: float, interrupted: bool = False, **meta
    ) -> dict:
        """The end of the run at ``steps``: ``final.zip`` (its metadata:
        ``meta``, ``interrupted``, and once evaluated the final figures),
        ``last.zip`` if periodic checkpoints are on, a final evaluation
        (unless the last one was at ``steps``, or the run was
        ``interrupted``) and ``summary.json``; ``learned_steps`` in
        ``learn_s`` seconds give the speed. A stop signal (the recorder's
        ``stop``) makes the run ``interrupted``, during the final evaluation
        too: that evaluation then ends, said. Returns the summary."""
        cfg = self.cfg
        interrupted = bool(interrupted or (self.stop is not None and self.stop.requested))
        final = self.checkpoint("final.zip", steps, network, eval={}, interrupted=interrupted, **meta)
        if cfg.checkpoint_every and self.last_checkpoint != steps:
            self.last_checkpoint = steps
            self.checkpoint("last.zip", steps, network)  # resume=.../last.zip continues where the run ended
        final_eval = None
        if cfg.evaluates and not interrupted:
            done_now = self.history and self.history[-1]["timesteps"] == steps
            final_eval = self.history[-1] if done_now else self.evaluate(steps, network)
            if final_eval is None:  # a stop signal during the final evaluation
                interrupted = True
                final = self.checkpoint("final.zip", steps, network, eval={}, interrupted=True, **meta)
                self.say(f"final evaluation stopped; {final} holds the network at {steps:,} steps, not evaluated")
            else:
                figures = {cfg.eval_opponent: short_figures(final_eval)}
                final = self.checkpoint("final.zip", steps, network, eval=figures, interrupted=False, **meta)
        summary = {
            "run_dir": str(self.run_dir),
            "final": str(final),
            "best": str(self.best_path or final),
            # None, not the -1 placeholder, when nothing was evaluated (eval_deals=0).
            "best_score": self.best_score if self.best_path else None,
            "timesteps": steps,
            "learn_steps_per_second": learned_steps / max(learn_s, 1e-9),
            "minutes": (time.time() - self.started) / 60.0,
            "trainer": cfg.trainer,
            "interrupted": interrupted,
            "signal": self.stop.signal_name if interrupted and self.stop is not None else None,
            "evals": [{k: r[k] for k in SUMMARY_KEYS} for r in self.history],
        }
        write_text(self.run_dir / "summary.json", json.dumps(summary, indent=1))
        if interrupted:
            by = f" by {self.stop.signal_name}" if self.stop is not None and self.stop.signal_name else ""
            self.say(f"interrupted at {steps:,} steps{by}: saved {final}; resume={final} continues the run")
        self.say(
            f"done in {summary['minutes']:.1f} min; "
            + (
                f"best {summary['best']} (score {self.best_score:.3f})"
                if self.best_path
                else "no evaluation, no best.zip"
            )
        )
        return summary

    def close(self) -> None:
        """Close ``train.log`` (lines said after this go to ``log`` only)
        and the TensorBoard writer."""
        # A failing disk was reported when the write failed; closing must not hide that error with another.
        if self._writer is not None:
            writer, self._writer = self._writer, None
            with contextlib.suppress(OSError):
                writer.close()
        if not self._log_file.closed:
            with contextlib.suppress(OSError):
                self._log_file.close()


def kept_best(path: Path, opponent: str) -> tuple[float, Path | None]:
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


def other_deals(path: Path, cfg) -> str | None:
    """How the existing ``best.zip`` at ``path`` was evaluated, when its
    deal set (opponent, number of deals, seed) is not ``cfg``'s; None when
    it is the same, or there is no readable ``best.zip``."""
    if not path.is_file():
        return None
    try:
        meta = read_metadata(path)
    except CheckpointError:
        return None
    evals: dict = meta["eval"] if isinstance(meta.get("eval"), dict) else {}
    figures = evals.get(cfg.eval_opponent)
    deals = figures.get("deals") if isinstance(figures, dict) else None
    if figures is not None and deals == cfg.eval_deals and meta.get("seed") == cfg.seed:
        return None
    opponents = ", ".join(evals) or "no opponent"
    return f"{deals or '?'} deals against {opponents} (seed {meta.get('seed')})"


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
    return {
        "deals": s["settings"]["deals"],
        "parties": s["parties"],
        "wins": s["wins"],
        "losses": s["losses"],
        "alifers": s["alifer"],
        "win_rate": 0.5 if s["win_rate"] is None else s["win_rate"],
        "win_rate_ci": s["win_rate_ci"],
        "score": score,
        "score_ci": score_ci,
        "points_diff": s["mean_point_diff"],
        "points_diff_ci": s["mean_point_diff_ci"],
    }


def short_figures(res: dict) -> dict:
    """The figures of an evaluation ``res`` kept in a checkpoint's metadata."""
    return {k: res[k] for k in SHORT_KEYS if k in res}
