"""Self-play MaskablePPO on ``trappola_v0`` (read top to bottom).

    trappola train --config ppo_selfplay [key=value | --key value ...]
    python -m trappola.cli train --config ppo_selfplay total_timesteps=20000

The run writes to ``out_dir/run_name/``: ``config.yaml`` (the settings
used), ``train.log``, TensorBoard logs in ``tb/``, ``best.zip`` (best
duplicate score against ``eval_opponent``), ``last.zip`` (periodic) and
``final.zip`` (end of the run, or a Ctrl-C: ``trappola.train.run.interrupt``).
Every checkpoint carries its metadata
(``trappola.train.run.checkpoint``); the run's recorder
(``trappola.train.run.recorder``) writes them, evaluates and keeps the best,
as on the RLlib path. ``resume=path/to.zip`` continues a run from a
checkpoint (its optimizer state and step count included) up to
``total_timesteps`` in all, appending to ``tb/progress.csv``
(``trappola.train.run.scalars``). Every player and file the run uses
is loaded before anything is written. A full disk under the logs stops
the run with one line naming the file, after a last try at ``final.zip``.
The command line is ``trappola.train.train_command``.

Steps:

1. settings and seeds (``seed`` fixes the deals, roles, opponent draws,
   network initialisation and minibatch order: the same config reproduces
   the same run on the same machine; a run cut by ``max_minutes`` only up
   to where it was cut);
2. ``n_envs`` games (``BatchedSelfPlayVecEnv``; ``vec_env: subproc`` for
   ``SelfPlayEnv`` workers behind ``SubprocVecEnv``);
3. the model, on ``device`` (``trappola.train.devices``: auto = CUDA when
   torch sees a GPU; its checkpoints load on either device): new (its weights from ``init_from`` if given), or loaded
   with ``resume``;
4. optional behaviour cloning on the teacher's moves (``bc=true``; not
   after ``resume`` or ``init_from``);
5. PPO with the opponent pool, evaluation and checkpoint callbacks (and
   league exploiters with ``exploiter_every``, ``trappola.train.sb3.exploiters``);
6. final evaluation and ``final.zip``.
"""

from __future__ import annotations

import contextlib
import os
import time

from trappola.agents.evaluation.backend import WorkerLostError
from trappola.train.run.config import load_players
from trappola.train.run.interrupt import StopOnInterrupt
from trappola.train.run.log import check_run_dir
from trappola.train.sb3.config import TrainConfig
from trappola_env.atomic_file import describe_os_error


def train(cfg: TrainConfig, log=None, callbacks=(), players: dict | None = None) -> dict:
    """Run the training ``cfg`` describes (steps 1-6 above) and return its
    summary (paths of ``final.zip`` and ``best.zip``, steps, speed, minutes,
    evaluations). ``log``: where progress lines go besides ``train.log``
    (default ``print``); ``callbacks``: further SB3 callbacks, run after
    the run's own; ``players``: pool name -> ``trappola.agents.base.Player`` for
    pool members already built (the batched VecEnv only). A first SIGINT
    stops the run at its next step, saved (``trappola.train.run.interrupt``);
    the summary then says ``interrupted``."""
    # Refuse an unusable checkpoint, player or run folder before writing or starting anything.
    if cfg.resume or cfg.init_from:
        from trappola.agents.model_io.checkpoint_format import load_policy
        from trappola.train.run.resume import check_fixed

        load_policy(cfg.resume or cfg.init_from)
        check_fixed(cfg, cfg.resume or cfg.init_from)
    load_players(cfg)
    check_run_dir(cfg)
    check_memory(cfg)
    with StopOnInterrupt() as stop:
        return _train(cfg, log, list(callbacks), players, stop)


#: Bytes per game held besides the rollout (the batched engine's state, a game's buffers): a generous guess.
GAME_BYTES = 16_384


def memory_estimate(cfg: TrainConfig) -> int:
    """Bytes the run's rollout needs at least: ``n_envs * n_steps`` rows of
    observation, legal mask and PPO's own columns (float32), twice (SB3
    copies the buffer into tensors to train), plus ``GAME_BYTES`` a game."""
    from trappola_env.engine import N_ACTIONS
    from trappola_env.observation import OBS_SIZE

    return cfg.n_envs * cfg.n_steps * (OBS_SIZE + N_ACTIONS + 8) * 4 * 2 + cfg.n_envs * GAME_BYTES


def check_memory(cfg: TrainConfig) -> None:
    """Refuse in one line a run whose ``memory_estimate`` exceeds this
    machine's memory (numpy would fail with a traceback after minutes)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not a POSIX system: nothing to compare with
        return
    need = memory_estimate(cfg)
    if need > total:
        raise ValueError(
            f"n_envs={cfg.n_envs:,} x n_steps={cfg.n_steps:,} needs at least {need / 2**30:,.1f} GiB of memory, "
            f"this machine has {total / 2**30:,.1f} GiB: lower n_envs or n_steps"
        )


def _train(cfg: TrainConfig, log, callbacks: list, players: dict | None, stop: StopOnInterrupt) -> dict:
    """``train`` once its inputs are checked, with ``stop`` watching for SIGINT."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.utils import set_random_seed

    from trappola.agents.model_io.numpy_policy import NumpyPolicy
    from trappola.agents.players.policy import PolicyPlayer
    from trappola.train.devices import resolve_device
    from trappola.train.networks import activation_class
    from trappola.train.run.checkpoint import build_metadata, load_model, save_checkpoint
    from trappola.train.run.recorder import RunRecorder
    from trappola.train.run.scalars import write_row
    from trappola.train.sb3.privileged_policy import PrivilegedCriticPolicy
    from trappola.train.sb3.vec import make_vec_env

    # 1. settings and seeds ---------------------------------------------
    t_start = time.time()
    torch.set_num_threads(cfg.torch_threads)
    set_random_seed(cfg.seed)

    device = resolve_device(cfg.device)

    # 2. environments ----------------------------------------------------
    venv = make_vec_env(cfg, players=players, device=device)

    # 3. model -----------------------------------------------------------
    lr0, frac = cfg.learning_rate, cfg.lr_final_fraction

    def lr_schedule(progress_remaining: float) -> float:  # 1 -> 0 over the run
        return lr0 * (frac + (1 - frac) * progress_remaining)

    activation = activation_class(cfg.activation)
    resumed_from = None
    if cfg.resume:
        # Every PPO setting is the config's, not the checkpoint's: SB3 sets these before it builds the learner.
        model, meta = load_model(cfg.resume, env=venv, device=device, seed=cfg.seed, **ppo_settings(cfg, lr_schedule))
        # A model trained in stages must still say how it was made: its whole lineage travels with it.
        resumed_from = {
            "path": cfg.resume,
            **{k: meta.get(k) for k in ("seed", "num_timesteps", "config", "resumed_from")},
        }
    else:
        policy_class = PrivilegedCriticPolicy if cfg.privileged_critic else "MlpPolicy"
        model = MaskablePPO(
            policy_class,
            venv,
            seed=cfg.seed,
            device=device,
            verbose=0,
            **ppo_settings(cfg, lr_schedule),
            policy_kwargs=dict(net_arch=dict(pi=list(cfg.net_arch), vf=list(cfg.net_arch)), activation_fn=activation),
        )
        if cfg.init_from:
            from trappola.agents.model_io.checkpoint_format import load_state_dict

            try:
                model.policy.load_state_dict(load_state_dict(cfg.init_from))
            except RuntimeError as exc:  # torch: missing, unexpected or differently shaped weights
                raise ValueError(
                    f"init_from {cfg.init_from}: its network is not this config's "
                    f"(net_arch {cfg.net_arch}, privileged_critic {cfg.privileged_critic}): "
                    f"{str(exc).splitlines()[0]}"
                ) from None

    def save(model, path, steps, **meta):
        # A model trained in stages must still say how it was made: every checkpoint names its parent.
        return save_checkpoint(
            model, path, build_metadata(cfg.to_dict(), cfg.seed, steps, resumed_from=resumed_from, **meta)
        )

    def player(model):
        return PolicyPlayer.from_numpy(NumpyPolicy.from_sb3(model.policy, cfg.activation))

    # The run folder is written only now that the environments and the model are up.
    def scalars(values: dict, steps: int) -> None:  # at their exact step, not the next rollout's
        write_row(model.logger, values, steps)

    recorder = RunRecorder(cfg, save, player, log=log, started=t_start, scalars=scalars, stop=stop)
    run_dir, say = recorder.run_dir, recorder.say
    say(
        f"run {run_dir}: {cfg.total_timesteps:,} steps, {cfg.n_envs} envs, pool {cfg.pool}, "
        f"reward {cfg.reward_mode}, net {cfg.net_arch}, bc={cfg.bc}, device {device}"
    )
    if resumed_from:
        say(f"resumed from {cfg.resume} at {model.num_timesteps:,} steps")
    if cfg.init_from:
        say(f"network weights from {cfg.init_from}")
    try:
        return _learn(cfg, model, recorder, callbacks, stop, t_start)
    finally:
        venv.close()
        recorder.close()


def ppo_settings(cfg: TrainConfig, lr_schedule) -> dict:
    """``MaskablePPO``'s settings of ``cfg`` (with the learning-rate
    schedule ``lr_schedule``), for a new model and a resumed one alike."""
    return dict(
        learning_rate=lr_schedule,
        n_steps=cfg.n_steps,
        batch_size=cfg.batch_size,
        n_epochs=cfg.n_epochs,
        gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda,
        clip_range=cfg.clip_range,
        ent_coef=cfg.ent_coef,
        vf_coef=cfg.vf_coef,
        max_grad_norm=cfg.max_grad_norm,
        target_kl=cfg.target_kl or None,
    )


def _learn(cfg: TrainConfig, model, recorder, callbacks: list, stop: StopOnInterrupt, t_start: float) -> dict:
    """Steps 4-6 of ``train``: behaviour cloning, PPO, the end of the run."""
    from trappola.train.run.scalars import run_logger

    resumed_at = model.num_timesteps if cfg.resume else None
    logger = run_logger(recorder.run_dir / "tb", cfg.tensorboard, resumed_at)
    model.set_logger(logger)
    try:
        return _learn_logged(cfg, model, recorder, callbacks, stop, t_start)
    finally:
        with contextlib.suppress(OSError):  # a failing disk was reported when a write failed
            logger.close()


def _learn_logged(cfg: TrainConfig, model, recorder, callbacks: list, stop: StopOnInterrupt, t_start: float) -> dict:
    """``_learn`` once the model's logger is set."""
    from trappola.train.run.scalars import write_row
    from trappola.train.sb3.callbacks import (
        ProgressBarCallback,
        RecorderCallback,
        SelfPlayCallback,
        StopCallback,
        TimeLimitCallback,
    )
    from trappola.train.selfplay import bc as bc_mod

    say = recorder.say

    # 4. behaviour cloning warm start -------------------------------------
    bc_stats = None
    if cfg.bc and not cfg.resume and not cfg.init_from:

        def bc_row(values: dict, epoch: int) -> None:  # TensorBoard's bc/* by epoch, progress.csv's at step 0
            write_row(model.logger, {**values, "bc/epoch": epoch}, epoch, csv_steps=model.num_timesteps)

        bc_stats = bc_mod.warm_start(cfg, model, say, stop, bc_row, privileged=cfg.privileged_critic)
        if cfg.evaluates and not stop.requested:
            recorder.evaluate(model.num_timesteps, model)

    # 5. PPO with the opponent pool ---------------------------------------
    callbacks = [
        StopCallback(stop, log=say),
        SelfPlayCallback(cfg.snapshot_every, cfg.activation),
        RecorderCallback(recorder),
        *callbacks,
    ]
    if cfg.exploiter_every:
        from trappola.train.sb3.exploiters import ExploiterCallback

        callbacks.append(ExploiterCallback(cfg, log=say))
    if cfg.max_minutes > 0:
        # what is left of the budget after BC; at least a moment, since 0 would mean no limit at all
        left = max(cfg.max_minutes - (time.time() - t_start) / 60.0, 1e-6)
        callbacks.append(TimeLimitCallback(left, log=say))
    steps_before = model.num_timesteps
    if cfg.progress_bar:
        callbacks.append(ProgressBarCallback(cfg.total_timesteps, initial=steps_before))
    t_learn = time.time()
    stopped = None  # a dead opponent worker or a failing disk stops the run; its weights are still saved below
    try:
        # total_timesteps is the run's length, so a resumed run learns only what is left of it.
        if not stop.requested:  # a signal during behaviour cloning: its network is saved as it is
            model.learn(
                total_timesteps=max(cfg.total_timesteps - steps_before, 0),
                callback=callbacks,
                reset_num_timesteps=not cfg.resume,
            )
    except (WorkerLostError, OSError) as exc:
        stopped = exc
    learn_s = time.time() - t_learn
    steps = model.num_timesteps - steps_before
    try:
        say(f"learned {steps:,} steps in {learn_s / 60:.1f} min ({steps / max(learn_s, 1e-9):.0f} steps/s)")
    except OSError as exc:  # train.log on a full disk
        stopped = stopped or exc

    # 6. final evaluation and checkpoint ----------------------------------
    if stopped is not None:
        why = describe_os_error(stopped) if isinstance(stopped, OSError) else str(stopped)
        try:
            final = recorder.checkpoint("final.zip", model.num_timesteps, model, bc=bc_stats, stopped=why)
            say(
                f"stopped at {model.num_timesteps:,} steps: {why}; saved {final} (not evaluated; "
                f"best.zip and last.zip are as the run left them)"
            )
        except OSError as exc:  # the disk is full: the previous final.zip, if any, is kept whole
            say(f"stopped at {model.num_timesteps:,} steps: {why}; final.zip not saved: {describe_os_error(exc)}")
        raise stopped
    return recorder.finish(model.num_timesteps, model, steps, learn_s, interrupted=stop.requested, bc=bc_stats)
