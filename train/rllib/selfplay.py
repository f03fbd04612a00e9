"""Self-play PPO on RLlib (new API stack), written to the project's checkpoints.

    trappola train --config rllib_selfplay [key=value ...]
    trappola train --config rllib_selfplay address=auto num_env_runners=32   # a Ray cluster

The same run layout as the SB3 path (``trappola.train.sb3.ppo_selfplay``): under
``out_dir/run_name/`` ``config.yaml``, ``train.log``, ``best.zip`` (best
duplicate score against ``eval_opponent``), ``last.zip`` (every
``checkpoint_every`` decisions), ``final.zip`` and ``summary.json``. The
checkpoints are the project's format (``trappola.train.rllib.export``): the
evaluator plays them as ``policy:PATH``.

How the run is put together:

* ``trappola_v0``: the SB3 path's games. Each environment is
  ``trappola.train.rllib.pool_env.PoolEnv``, the SB3 ``SelfPlayEnv`` (one
  learner seat against an opponent drawn per episode from ``pool``: frozen
  snapshots of the learner, ``rule``, ``random``, ``pimc``, any registered
  player; its reward shaping, forced moves and Alifer value). The trained
  module is RLlib's ``default_policy``; a snapshot of it joins every
  environment's pool at the start and every ``snapshot_every`` decisions
  (an env runner that replaces a lost one gets the newest ``pool_size``);
* ``bulka_v0``: sessions (``trappola.train.rllib.env.RLlibTrappolaEnv``) and
  a league: modules ``main`` (trained) and ``snapshot_0`` ..
  ``snapshot_{league_size-1}`` (frozen copies of ``main``; every
  ``snapshot_every`` decisions the oldest is overwritten). Per episode one
  seat (drawn) plays ``main``; every other seat plays ``main`` too with
  probability ``self_play_prob``, else a snapshot drawn uniformly;
* network: ``trappola.train.rllib.module.MaskedActorCritic`` (action masking, the
  SB3 policy's layers); RLlib's pre-check is off (it steps illegal actions);
* start (``trappola.train.rllib.learner_state``): ``resume`` from a lab
  checkpoint of either trainer (weights, optimizer state, step count),
  ``init_from`` (weights), or ``bc`` (behaviour cloning, SB3's code on the
  same network);
* PPO: SB3's settings under their SB3 names, the learning rate decaying
  linearly to ``lr_final_fraction`` (``lr_schedule``); a rollout is
  ``train_batch_size`` decisions;
* scale: ``num_env_runners`` Ray workers collect experience (0: the
  driver), each with ``num_envs_per_env_runner`` environments; on a
  cluster (``address``) they spread over its nodes; a lost one is replaced
  (``restart_failed_env_runners``) and the run goes on; ``num_learners``
  learner actors with ``num_gpus_per_learner`` GPUs each (refused where Ray
  has none: ``check_resources``), or one GPU for ``device`` cuda (auto on a
  GPU machine: ``learner_settings``);
* steps: ``total_timesteps`` counts the decisions sampled (on
  ``trappola_v0`` the learner's, as SB3 counts them; on ``bulka_v0`` all
  seats'), a resumed run's included: it is the run's whole length; the
  run stops at the first PPO iteration that reaches it, or after
  ``max_minutes``; TensorBoard gets, per iteration, the scalars SB3
  logs under the same names (``scalars``: losses, entropy, KL, episode
  reward, speed), ``train.log`` the speed and mean episode return at every
  snapshot.

Evaluation, ``best.zip``, the checkpoints and ``summary.json`` are the run
recorder's (``trappola.train.run.recorder``), as on the SB3 path: every
``eval_every`` decisions a duplicate match of the trained module against
``eval_opponent`` by the project's evaluator; for ``bulka_v0`` runs there
is none (the checkpoints carry the ``bulka_v0`` signature and ``best.zip``
is not written).
"""

from __future__ import annotations

import collections
import contextlib
import functools
import logging
import math
import sys
import time
import zlib
from typing import Any

import numpy as np

from trappola.agents.model_io.checkpoint_format import read_metadata
from trappola.train.devices import resolve_device
from trappola.train.rllib.address import check_reachable
from trappola.train.rllib.config import RLlibConfig
from trappola.train.rllib.learner_state import MAIN, get_optimizer, get_weights, set_weights, start, trained_module
from trappola.train.run.config import load_players
from trappola.train.run.interrupt import StopOnInterrupt
from trappola.train.run.log import check_run_dir
from trappola.train.run.scalars import run_logger, write_row
from trappola_env.atomic_file import describe_os_error


def snapshot_ids(cfg: RLlibConfig) -> list[str]:
    """The module ids of the frozen snapshots of ``main``."""
    return [f"snapshot_{i}" for i in range(cfg.league_size)]


def league_mapping(agent_ids, self_play_prob: float, snapshots: list[str]):
    """The policy mapping function (agent, episode) -> module id; see the
    module docstring. It depends only on the episode's id, so every agent
    of an episode gets a consistent draw."""
    order = list(agent_ids)

    def mapping(agent_id, episode, **kwargs):
        rng = np.random.default_rng(zlib.crc32(str(episode.id_).encode()))
        main_seat = int(rng.integers(len(order)))
        draws = rng.random(len(order))
        picks = rng.integers(len(snapshots), size=len(order))
        i = order.index(agent_id)
        if i == main_seat or draws[i] < self_play_prob:
            return MAIN
        return snapshots[int(picks[i])]

    return mapping


def lr_schedule(cfg: RLlibConfig, done: int) -> list:
    """RLlib's learning-rate schedule (``[[step, lr], ...]``, linear between
    the points, over the steps RLlib counts in this run): SB3's, from
    ``learning_rate`` down to ``lr_final_fraction`` of it over the run's
    ``total_timesteps``; a run resumed at ``done`` steps starts where SB3's
    schedule is at ``done`` and ends with the run."""
    lr0, frac, total = cfg.learning_rate, cfg.lr_final_fraction, cfg.total_timesteps
    remaining = max(total - done, 0)
    start = lr0 * (frac + (1 - frac) * remaining / max(total, 1))
    return [[0, start], [max(remaining, 1), lr0 * frac]]


def learner_settings(device: str, num_learners: int = 0, num_gpus_per_learner: float = 0) -> dict:
    """RLlib's ``learners(...)`` settings for a resolved ``device``: the
    learners asked for (0: one in the driver), each on a GPU for ``cuda``
    unless ``num_gpus_per_learner`` says how much (the env runners' forward
    passes, snapshots included, stay on their CPUs)."""
    gpus = num_gpus_per_learner or (1 if device == "cuda" else 0)
    return {"num_learners": num_learners, "num_gpus_per_learner": gpus}


def build_algorithm(cfg: RLlibConfig, done: int = 0, on_recreated=None):
    """RLlib's PPO for ``cfg`` (new API stack); ``done``: the steps a
    resumed run starts from (they set the learning rate's schedule);
    ``on_recreated``: RLlib's ``on_env_runners_recreated`` callback, called
    in the driver when lost env runners have been replaced, before they
    sample."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from trappola.train.rllib.env import RLlibTrappolaEnv
    from trappola.train.rllib.module import MaskedActorCritic
    from trappola.train.rllib.pool_env import PoolEnv

    league = cfg.env != "trappola_v0"
    env_class = RLlibTrappolaEnv if league else PoolEnv
    probe: Any = env_class(cfg.env_config())  # the league's multi-agent env or the pool's single-agent one
    model_config = {"net_arch": list(cfg.net_arch), "activation": cfg.activation}
    space_of = (lambda s: s[probe.agents[0]]) if league else (lambda s: s)
    spec = RLModuleSpec(
        module_class=MaskedActorCritic,
        model_config=model_config,
        observation_space=space_of(probe.observation_spaces if league else probe.observation_space),
        action_space=space_of(probe.action_spaces if league else probe.action_space),
    )
    config = (
        PPOConfig()
        .environment(env_class, env_config=cfg.env_config(), disable_env_checking=True)
        .framework("torch", torch_compile_learner=False)
        .env_runners(
            num_env_runners=cfg.num_env_runners,
            num_envs_per_env_runner=cfg.num_envs_per_env_runner,
            num_cpus_per_env_runner=1,
        )
        .learners(**learner_settings(resolve_device(cfg.device), cfg.num_learners, cfg.num_gpus_per_learner))
        .fault_tolerance(restart_failed_env_runners=cfg.restart_failed_env_runners)
        .training(
            lr=lr_schedule(cfg, done),
            train_batch_size_per_learner=cfg.train_batch_size // max(cfg.num_learners, 1),
            minibatch_size=cfg.batch_size,
            num_epochs=cfg.n_epochs,
            gamma=cfg.gamma,
            lambda_=cfg.gae_lambda,
            clip_param=cfg.clip_range,
            entropy_coeff=cfg.ent_coef,
            vf_loss_coeff=cfg.vf_coef,
            grad_clip=cfg.max_grad_norm,
            grad_clip_by="global_norm",
            # The KL divergence is computed (TensorBoard's train/approx_kl) but weighs nothing, as in SB3's PPO.
            use_kl_loss=True,
            kl_coeff=0.0,
        )
        .debugging(seed=cfg.seed, log_level="ERROR")
    )
    if on_recreated is not None:
        config = config.callbacks(on_env_runners_recreated=on_recreated)
    if league:
        snapshots = snapshot_ids(cfg)
        config = config.multi_agent(
            policies={MAIN, *snapshots},
            policy_mapping_fn=league_mapping(probe.agents, cfg.self_play_prob, snapshots),
            policies_to_train=[MAIN],
        ).rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={m: spec for m in (MAIN, *snapshots)}))
    else:
        config = config.rl_module(rl_module_spec=spec)
    return config.build_algo()


def set_snapshot(algo, slot: str, weights: dict) -> None:
    """bulka_v0: overwrite a frozen module of the league with ``weights``."""
    set_weights(algo, slot, weights)


def sampled_steps(result: dict) -> int:
    """The decisions sampled so far, from a result of ``algo.train()``."""
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME

    if NUM_ENV_STEPS_SAMPLED_LIFETIME in result:
        return int(result[NUM_ENV_STEPS_SAMPLED_LIFETIME])
    return int(result[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED_LIFETIME])


def scalars(result: dict, module: str) -> dict:
    """TensorBoard scalars of one PPO iteration, under the names SB3 logs
    the same quantities with (so runs of both trainers share charts)."""
    learner = result.get("learners", {}).get(module, {})
    runners = result.get("env_runners", {})
    episode_return = runners.get("module_episode_return_mean", {}).get(module, runners.get("episode_return_mean"))
    out = {
        "train/policy_gradient_loss": learner.get("policy_loss"),
        "train/value_loss": learner.get("vf_loss"),
        "train/entropy_loss": None if learner.get("entropy") is None else -learner["entropy"],
        "train/approx_kl": learner.get("mean_kl_loss"),
        "train/learning_rate": learner.get("default_optimizer_learning_rate"),
        "train/explained_variance": learner.get("vf_explained_var"),
        "rollout/ep_rew_mean": episode_return,
        "rollout/ep_len_mean": runners.get("episode_len_mean"),
    }
    return {k: float(v) for k, v in out.items() if v is not None and math.isfinite(float(v))}


def player_of(cfg: RLlibConfig, weights: dict):
    """The weights of the trained module as a player for the evaluator."""
    from trappola.agents.players.policy import PolicyPlayer

    return PolicyPlayer.from_numpy(numpy_policy(cfg, weights))


def numpy_policy(cfg: RLlibConfig, weights: dict):
    """The actor of ``weights`` as a ``NumpyPolicy``."""
    from trappola.agents.model_io.numpy_policy import NumpyPolicy
    from trappola.train.rllib.export import sb3_state_dict

    return NumpyPolicy.from_state_dict(sb3_state_dict(weights), cfg.activation)


def check_resources(cfg: RLlibConfig, resources: dict) -> None:
    """Refuse what the Ray instance cannot give (RLlib would wait for it
    forever): a CPU per env runner and per learner worker, the GPUs of
    ``num_gpus_per_learner``."""
    cpus, gpus = resources.get("CPU", 0), resources.get("GPU", 0)
    need_gpus = cfg.num_gpus_per_learner * max(cfg.num_learners, 1)
    if need_gpus > gpus:
        raise ValueError(
            f"num_gpus_per_learner={cfg.num_gpus_per_learner:g} needs {need_gpus:g} GPU(s); this Ray instance "
            f"has {gpus:g}: train on the CPU with num_gpus_per_learner=0, or join a cluster with a GPU node"
        )
    need_cpus = cfg.num_env_runners + (cfg.num_learners if not cfg.num_gpus_per_learner else 0)
    if need_cpus > cpus:
        raise ValueError(
            f"num_env_runners={cfg.num_env_runners} and num_learners={cfg.num_learners} need {need_cpus} CPUs, "
            f"the Ray instance has {int(cpus)}; lower them or raise num_cpus"
        )


def _check_before_ray(cfg: RLlibConfig) -> None:
    """Build every player and read every file the run needs, and refuse an
    unusable checkpoint or run folder, before Ray starts or anything is written."""
    load_players(cfg)
    if cfg.resume or cfg.init_from:
        from trappola.agents.model_io.checkpoint_format import load_policy
        from trappola.train.run.resume import check_fixed

        load_policy(cfg.resume or cfg.init_from, env=cfg.env)
        check_fixed(cfg, cfg.resume or cfg.init_from)
    check_run_dir(cfg)
    if cfg.address:
        check_reachable(cfg.address)


def _start_ray(cfg: RLlibConfig) -> bool:
    """Start Ray (joining ``cfg.address`` if given) unless it runs already;
    whether this call started it (and so must shut it down)."""
    import ray

    if ray.is_initialized():
        return False
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR}
    if cfg.address:
        kwargs["address"] = cfg.address
    elif cfg.num_cpus:
        kwargs["num_cpus"] = cfg.num_cpus
    try:
        ray.init(**kwargs)
    except ConnectionError as exc:
        raise ValueError(f"cannot reach a Ray cluster at {cfg.address!r}: {exc}") from None
    return True


def _progress_bar(cfg: RLlibConfig, done: int):
    """The run's progress bar on stderr, from ``done`` steps."""
    from tqdm import tqdm

    return tqdm(
        total=cfg.total_timesteps, initial=done, unit="step", dynamic_ncols=True, mininterval=2.0, file=sys.stderr
    )


def last_save(recorder, steps: int, network, exc: OSError, **meta) -> None:
    """After ``exc`` (a failing disk) stopped the run at ``steps``: a last
    try at ``final.zip`` and one line saying what was saved (the SB3
    path's words)."""
    why = describe_os_error(exc)
    try:
        final = recorder.checkpoint("final.zip", steps, network, stopped=why, **meta)
        recorder.say(
            f"stopped at {steps:,} steps: {why}; saved {final} (not evaluated; "
            f"best.zip and last.zip are as the run left them)"
        )
    except OSError as again:  # the disk is full: the previous final.zip, if any, is kept whole
        with contextlib.suppress(OSError):
            recorder.say(f"stopped at {steps:,} steps: {why}; final.zip not saved: {describe_os_error(again)}")


def train(cfg: RLlibConfig, log=None, callbacks=()) -> dict:
    """Run ``cfg``; returns the summary (also written to ``summary.json``).
    ``log``: where progress lines go besides ``train.log``;
    ``callbacks``: functions called as ``callback(algo, steps)`` after
    every PPO iteration (RLlib's ``Algorithm``, the run's step count).
    A first SIGINT stops the run after the PPO iteration under way, saved
    (``trappola.train.run.interrupt``); the summary then says ``interrupted``."""
    import ray
    import torch

    from trappola.train.rllib.export import save_rllib_checkpoint
    from trappola.train.rllib.pool_env import sync_snapshots
    from trappola.train.run.recorder import RunRecorder

    _check_before_ray(cfg)
    recorder = None
    module = trained_module(cfg)
    state = {"resumed_from": None, "algo": None}

    def save(weights: dict, path, steps: int, **meta):
        optimizer = get_optimizer(state["algo"], module) if state["algo"] is not None else None
        return save_rllib_checkpoint(
            weights,
            path,
            cfg.to_dict(),
            cfg.seed,
            steps,
            cfg.net_arch,
            cfg.activation,
            env=cfg.env,
            optimizer=optimizer,
            resumed_from=state["resumed_from"],
            **meta,
        )

    t_start = time.time()
    torch.set_num_threads(cfg.torch_threads)
    started = _start_ray(cfg)
    algo = None
    bar = None
    logger = None
    stop = StopOnInterrupt().watch()  # after ray.init, which installs handlers of its own
    try:
        check_resources(cfg, ray.cluster_resources())
        done = int(read_metadata(cfg.resume).get("num_timesteps", 0)) if cfg.resume else 0
        # trappola_v0's pool gets snapshots (the newest pool_size, numbered), also a replaced env runner, whose
        # environments start with an empty pool, before it samples. (Only picklable state in this closure:
        # RLlib sends its config, callbacks included, to every env runner.)
        recent: collections.deque = collections.deque(maxlen=cfg.pool_size)
        replaced: list[int] = []

        def on_recreated(env_runner_group, env_runner_indices, **kwargs):
            replaced.extend(env_runner_indices)
            if recent:
                sync = functools.partial(sync_snapshots, snapshots=list(recent))
                env_runner_group.foreach_env_runner(sync, remote_worker_ids=list(env_runner_indices))

        algo = build_algorithm(cfg, done, on_recreated)
        recorder = RunRecorder(cfg, save, lambda w: player_of(cfg, w), log=log, started=t_start, stop=stop)
        say = recorder.say
        # progress.csv and TensorBoard, one row per PPO iteration and per evaluation, as SB3's logger writes them
        logger = run_logger(recorder.run_dir / "tb", cfg.tensorboard, done if cfg.resume else None)
        recorder.scalars = functools.partial(write_row, logger)
        say(
            f"run {recorder.run_dir}: RLlib PPO on {cfg.env}, {cfg.total_timesteps:,} decisions, "
            f"{cfg.num_env_runners} env runners, "
            + (f"pool {cfg.pool}" if cfg.env == "trappola_v0" else f"league of {cfg.league_size}")
            + f", net {cfg.net_arch}, bc={cfg.bc}, learner on {resolve_device(cfg.device)}"
        )
        begun = start(
            cfg, algo, say, stop, lambda values, epoch: write_row(logger, {**values, "bc/epoch": epoch}, epoch, 0)
        )
        state["resumed_from"], state["algo"] = begun["resumed_from"], algo
        done = begun["steps"]
        if begun["bc"] is not None and cfg.evaluates and not stop.requested:
            recorder.evaluate(done, get_weights(algo, module))
        slots = snapshot_ids(cfg)  # bulka_v0's league
        n_snap = n_replaced = 0

        def push_pool() -> None:
            sync = functools.partial(sync_snapshots, snapshots=list(recent))
            algo.env_runner_group.foreach_env_runner(sync, local_env_runner=True)

        def snapshot(weights: dict) -> None:
            nonlocal n_snap
            n_snap += 1
            if cfg.env == "trappola_v0":
                recent.append((n_snap, numpy_policy(cfg, weights).get_weights()))
                push_pool()
            else:
                set_snapshot(algo, slots[(n_snap - 1) % len(slots)], weights)

        if cfg.env == "trappola_v0":
            snapshot(get_weights(algo, module))  # as SB3 does at the start: "self" has an opponent from the first game
        else:
            for slot in slots:
                set_snapshot(algo, slot, get_weights(algo, module))
        if cfg.progress_bar:
            bar = _progress_bar(cfg, done)
        sampled = last_snap = 0
        deadline = t_start + 60.0 * cfg.max_minutes if cfg.max_minutes > 0 else None
        t_learn = time.time()
        try:
            while done + sampled < cfg.total_timesteps and not stop.requested:  # the run's whole length
                result = algo.train()
                new = sampled_steps(result)
                if bar is not None:
                    bar.update(new - sampled)
                sampled = new
                steps = done + sampled
                if len(replaced) > n_replaced:
                    say(f"[{steps:>9,} steps] {len(replaced) - n_replaced} env runner(s) replaced; the run goes on")
                    n_replaced = len(replaced)
                speed = sampled / max(time.time() - t_learn, 1e-9)
                recorder.scalar_row({**scalars(result, module), "time/fps": speed}, steps)
                weights = None
                if cfg.snapshot_every and sampled - last_snap >= cfg.snapshot_every:
                    weights = get_weights(algo, module)
                    snapshot(weights)
                    last_snap = sampled
                    say(
                        f"[{steps:>9,} steps] {speed:.0f} steps/s; snapshot {n_snap}; mean episode return "
                        f"{scalars(result, module).get('rollout/ep_rew_mean', float('nan')):+.3f}"
                    )
                if recorder.due(steps):
                    recorder.step(steps, weights or get_weights(algo, module))
                for callback in callbacks:
                    callback(algo, steps)
                if deadline is not None and time.time() > deadline:
                    say(f"time limit reached after {steps:,} steps; stopping")
                    break
            learn_s = time.time() - t_learn
            if bar is not None:
                bar.close()
                bar = None
            say(
                f"sampled and learned {sampled:,} steps in {learn_s / 60:.1f} min "
                f"({sampled / max(learn_s, 1e-9):.0f} steps/s)"
            )
        except OSError as exc:  # a full disk under the logs or checkpoints: a last try at final.zip, as on SB3
            last_save(recorder, done + sampled, get_weights(algo, module), exc, bc=begun["bc"])
            raise
        summary = recorder.finish(
            done + sampled, get_weights(algo, module), sampled, learn_s, bc=begun["bc"], interrupted=stop.requested
        )
    finally:
        stop.release()
        if bar is not None:
            bar.close()
        if algo is not None:
            algo.stop()
        if started:
            ray.shutdown()
        if logger is not None:
            with contextlib.suppress(OSError):  # a failing disk was reported when a write failed
                logger.close()
        if recorder is not None:
            recorder.close()
    return summary
