"""Self-play MaskablePPO on ``trappola_v0`` (read top to bottom).

    trappola train --config ppo_selfplay [key=value | --key value ...]
    python -m trappola.train.ppo_selfplay --config ppo_selfplay total_timesteps=20000

The run writes to ``out_dir/run_name/``: ``config.yaml`` (the settings
used), ``train.log``, TensorBoard logs in ``tb/``, ``best.zip`` (best
duplicate score against ``eval_opponent``), ``last.zip`` (periodic) and
``final.zip`` (end of the run). Every checkpoint carries its metadata
(``trappola.train.model_checkpoint``). ``resume=path/to.zip`` continues a run from a
checkpoint (its optimizer state and step count included).

Steps:

1. settings and seeds (``seed`` fixes the deals, roles, opponent draws,
   network initialisation and minibatch order: the same config reproduces
   the same run on the same machine; a run cut by ``max_minutes`` only up
   to where it was cut);
2. ``n_envs`` games (``BatchedSelfPlayVecEnv``; ``vec_env: subproc`` for
   ``SelfPlayEnv`` workers behind ``SubprocVecEnv``);
3. the model: new (its weights from ``init_from`` if given), or loaded
   with ``resume``;
4. optional behaviour cloning on the teacher's moves (``bc=true``; not
   after ``resume`` or ``init_from``);
5. PPO with the opponent pool, evaluation and checkpoint callbacks (and
   league exploiters with ``exploiter_every``, ``trappola.train.exploiters``);
6. final evaluation and ``final.zip``.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import yaml

from trappola.agents.checkpoint_format import CheckpointError
from trappola.evaluation.backend import WorkerLostError
from trappola.atomic_file import describe_os_error, write_text

from .config import TrainConfig, load_config, resolve_config, trainer_of
from .run_log import RunDirError, check_run_dir, open_run


def train(cfg: TrainConfig, log=None, callbacks=(), players: dict | None = None) -> dict:
    """Run the training ``cfg`` describes (steps 1-6 above) and return its
    summary (paths of ``final.zip`` and ``best.zip``, steps, speed, minutes,
    evaluations). ``log``: where progress lines go besides ``train.log``
    (default ``print``); ``callbacks``: further SB3 callbacks, run after
    the run's own; ``players``: pool name -> ``trappola.agents.base.Player`` for
    pool members already built (the batched VecEnv only)."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.utils import set_random_seed

    from . import bc as bc_mod
    from .callbacks import EvalCheckpointCallback, ProgressBarCallback, SelfPlayCallback, TimeLimitCallback
    from .model_checkpoint import build_metadata, load_model, save_checkpoint
    from .networks import activation_class
    from .privileged_policy import PrivilegedCriticPolicy
    from .vec import make_vec_env

    # 1. settings and seeds ---------------------------------------------
    # Refuse an unusable checkpoint or run folder before writing or starting anything.
    if cfg.resume or cfg.init_from:
        from trappola.agents.checkpoint_format import load_policy

        load_policy(cfg.resume or cfg.init_from)
    check_run_dir(cfg)

    t_start = time.time()
    torch.set_num_threads(cfg.torch_threads)
    set_random_seed(cfg.seed)

    # 2. environments ----------------------------------------------------
    venv = make_vec_env(cfg, players=players)

    # 3. model -----------------------------------------------------------
    lr0, frac = cfg.learning_rate, cfg.lr_final_fraction

    def lr_schedule(progress_remaining: float) -> float:  # 1 -> 0 over the run
        return lr0 * (frac + (1 - frac) * progress_remaining)

    activation = activation_class(cfg.activation)
    resumed_from = None
    if cfg.resume:
        model, meta = load_model(cfg.resume, env=venv)
        # A model trained in stages must still say how it was made: its whole lineage travels with it.
        resumed_from = {"path": cfg.resume, **{k: meta.get(k) for k in ("seed", "num_timesteps", "config",
                                                                       "resumed_from")}}
        model.learning_rate = lr_schedule
        model._setup_lr_schedule()
    else:
        policy_class = PrivilegedCriticPolicy if cfg.privileged_critic else "MlpPolicy"
        model = MaskablePPO(
            policy_class, venv, seed=cfg.seed, device="cpu", verbose=0,
            learning_rate=lr_schedule, n_steps=cfg.n_steps, batch_size=cfg.batch_size, n_epochs=cfg.n_epochs,
            gamma=cfg.gamma, gae_lambda=cfg.gae_lambda, clip_range=cfg.clip_range, ent_coef=cfg.ent_coef,
            vf_coef=cfg.vf_coef, max_grad_norm=cfg.max_grad_norm, target_kl=cfg.target_kl or None,
            policy_kwargs=dict(net_arch=dict(pi=list(cfg.net_arch), vf=list(cfg.net_arch)),
                               activation_fn=activation),
        )
        if cfg.init_from:
            from trappola.agents.checkpoint_format import load_state_dict

            try:
                model.policy.load_state_dict(load_state_dict(cfg.init_from))
            except RuntimeError as exc:  # torch: missing, unexpected or differently shaped weights
                raise ValueError(f"init_from {cfg.init_from}: its network is not this config's "
                                 f"(net_arch {cfg.net_arch}, privileged_critic {cfg.privileged_critic}): "
                                 f"{str(exc).splitlines()[0]}") from None
    # The run folder is written only now that the environments and the model are up.
    run_dir, say, log_file = open_run(cfg, log)
    say(f"run {run_dir}: {cfg.total_timesteps:,} steps, {cfg.n_envs} envs, pool {cfg.pool}, "
        f"reward {cfg.reward_mode}, net {cfg.net_arch}, bc={cfg.bc}")
    if resumed_from:
        say(f"resumed from {cfg.resume} at {model.num_timesteps:,} steps")
    if cfg.init_from:
        say(f"network weights from {cfg.init_from}")
    formats = ["csv"] + (["tensorboard"] if cfg.tensorboard else [])
    model.set_logger(configure(str(run_dir / "tb"), formats))

    # 4. behaviour cloning warm start -------------------------------------
    evaluator = EvalCheckpointCallback(cfg, run_dir, log=say, resumed_from=resumed_from)
    evaluator.init_callback(model)
    bc_stats = None
    if cfg.bc and not cfg.resume and not cfg.init_from:
        t0 = time.time()
        data = bc_mod.collect(cfg.bc_teacher, cfg.bc_deals, seed=cfg.seed + 1, reward_mode=cfg.reward_mode,
                              points_scale=cfg.points_scale, tokens_scale=cfg.tokens_scale,
                              points_weight=cfg.points_weight, alifer_value=cfg.alifer_value,
                              workers=cfg.bc_workers, privileged=cfg.privileged_critic)
        say(f"bc: {len(data['action']):,} {cfg.bc_teacher} decisions from {cfg.bc_deals:,} deals "
            f"in {time.time() - t0:.0f}s")
        bc_stats = bc_mod.clone(model, data, cfg.bc_epochs, cfg.bc_batch_size, cfg.bc_learning_rate,
                                cfg.bc_value_coef, seed=cfg.seed, log=say)
        del data
        say(f"bc done in {time.time() - t0:.0f}s")
        if cfg.eval_deals:
            evaluator.evaluate_and_keep_best()

    # 5. PPO with the opponent pool ---------------------------------------
    extra_callbacks = list(callbacks)
    callbacks = [SelfPlayCallback(cfg.snapshot_every, cfg.activation), evaluator, *extra_callbacks]
    if cfg.exploiter_every:
        from .exploiters import ExploiterCallback

        callbacks.append(ExploiterCallback(cfg, log=say))
    if cfg.max_minutes > 0:
        # what is left of the budget after BC; at least a moment, since 0 would mean no limit at all
        left = max(cfg.max_minutes - (time.time() - t_start) / 60.0, 1e-6)
        callbacks.append(TimeLimitCallback(left, log=say))
    if cfg.progress_bar:
        callbacks.append(ProgressBarCallback(cfg.total_timesteps))
    steps_before = model.num_timesteps
    t_learn = time.time()
    lost = None  # a dead opponent worker stops the run; its weights so far are still saved below
    try:
        model.learn(total_timesteps=cfg.total_timesteps, callback=callbacks, reset_num_timesteps=not cfg.resume)
    except WorkerLostError as exc:
        lost = exc
    learn_s = time.time() - t_learn
    steps = model.num_timesteps - steps_before
    say(f"learned {steps:,} steps in {learn_s / 60:.1f} min ({steps / max(learn_s, 1e-9):.0f} steps/s)")

    # 6. final evaluation and checkpoint ----------------------------------
    final_eval = None
    if lost is not None:
        venv.close()
        meta = build_metadata(cfg.to_dict(), cfg.seed, model.num_timesteps, bc=bc_stats, resumed_from=resumed_from,
                              stopped=str(lost))
        final = save_checkpoint(model, run_dir / "final.zip", meta)
        say(f"stopped at {model.num_timesteps:,} steps: {lost}; saved {final} (not evaluated; "
            f"best.zip and last.zip are as the run left them)")
        log_file.close()
        raise lost
    if cfg.eval_deals:
        done_now = evaluator.history and evaluator.history[-1]["timesteps"] == model.num_timesteps
        final_eval = evaluator.history[-1] if done_now else evaluator.evaluate_and_keep_best()
    meta = build_metadata(cfg.to_dict(), cfg.seed, model.num_timesteps, bc=bc_stats, resumed_from=resumed_from,
                          eval={cfg.eval_opponent: final_eval and {k: final_eval[k] for k in
                                                                   ("win_rate", "score", "score_ci", "deals")}})
    final = save_checkpoint(model, run_dir / "final.zip", meta)
    venv.close()
    summary = {
        "run_dir": str(run_dir), "final": str(final),
        "best": str(evaluator.best_path) if evaluator.best_path else str(final),
        # None, not the -1 placeholder, when nothing was evaluated (eval_deals=0).
        "best_score": evaluator.best_score if evaluator.best_path else None, "timesteps": model.num_timesteps,
        "learn_steps_per_second": steps / max(learn_s, 1e-9), "minutes": (time.time() - t_start) / 60.0,
        "evals": [{k: r[k] for k in ("timesteps", "win_rate", "score", "points_diff")} for r in evaluator.history],
    }
    write_text(run_dir / "summary.json", json.dumps(summary, indent=1))
    say(f"done in {summary['minutes']:.1f} min; " + (f"best {summary['best']} (score {evaluator.best_score:.3f})"
                                                     if evaluator.best_path else "no evaluation (eval_deals=0)"))
    log_file.close()
    return summary


USAGE = """usage: trappola train [--config FILE] [key=value | --key value ...]

Self-play MaskablePPO training. Settings: see trappola/train/config.py (TrainConfig)
and trappola/configs/ppo_selfplay.yaml. Examples:
  trappola train --config ppo_selfplay
  trappola train --config ppo_selfplay total_timesteps=200000 run_name=short
  trappola train --config ppo_selfplay resume=runs/ppo_selfplay/last.zip
A config with `trainer: rllib` (trappola/configs/rllib_selfplay.yaml) runs RLlib's PPO
instead (trappola/train/rllib_selfplay.py).
"""


def cli_main(argv=None) -> int:
    """Entry point of ``trappola train`` (argv without the subcommand)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if any(a in ("-h", "--help") for a in argv):
        print(USAGE)
        return 0
    config = None
    rest = []
    i = 0
    while i < len(argv):
        if argv[i] == "--config":
            if i + 1 >= len(argv):
                print("error: --config needs a file", file=sys.stderr)
                return 2
            config = argv[i + 1]
            i += 2
        elif argv[i].startswith("--config="):
            config = argv[i].split("=", 1)[1]
            i += 1
        else:
            rest.append(argv[i])
            i += 1
    try:
        path = resolve_config(config)
        if trainer_of(path) == "rllib":
            from .rllib_selfplay import cli_main as rllib_main

            return rllib_main(path, rest)
        cfg = load_config(path, rest)
    except (ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        summary = train(cfg)
    except (RunDirError, CheckpointError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: {describe_os_error(exc)}", file=sys.stderr)
        return 2
    print(json.dumps({k: summary[k] for k in ("best", "final", "best_score", "timesteps", "minutes")}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(cli_main())
