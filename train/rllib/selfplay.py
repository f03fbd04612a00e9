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

* environment: ``trappola.train.rllib.env.RLlibTrappolaEnv`` (``trappola_v0``, or
  ``bulka_v0`` sessions), RLlib's pre-check off (it steps illegal actions);
* network: ``trappola.train.rllib.module.MaskedActorCritic`` (action masking, the
  SB3 policy's layers);
* league: modules ``main`` (trained) and ``snapshot_0`` ..
  ``snapshot_{league_size-1}`` (frozen copies of ``main``, all equal to it
  at the start; every ``snapshot_every`` decisions the oldest is
  overwritten with ``main``). The policy mapping, per episode: one seat
  (drawn) plays ``main``; every other seat plays ``main`` too with
  probability ``self_play_prob`` (both seats then train the one shared
  policy), else a snapshot drawn uniformly;
* scale: ``num_env_runners`` Ray workers collect experience (0: the
  driver), each with ``num_envs_per_env_runner`` environments; on a
  cluster (``address``) they spread over its nodes; the learner runs in
  the driver, on a GPU with ``device`` cuda (or auto on a GPU machine:
  ``learner_settings``);
* steps: ``total_timesteps`` counts the decisions sampled, all seats
  together (the SB3 path counts the learner's only); the run stops at the
  first PPO iteration that reaches it, or after ``max_minutes``;
  ``train.log`` notes the speed and ``main``'s mean episode return at
  every snapshot.

Evaluation, ``best.zip``, the checkpoints and ``summary.json`` are the run
recorder's (``trappola.train.run_recorder``), as on the SB3 path: every
``eval_every`` decisions a duplicate match of ``main`` against
``eval_opponent`` by the project's evaluator; for ``bulka_v0`` runs there
is none (the checkpoints carry the ``bulka_v0`` signature and ``best.zip``
is not written).
"""

from __future__ import annotations

import logging
import sys
import time
import zlib

import numpy as np

from trappola.train.devices import resolve_device
from trappola.train.rllib.config import RLlibConfig
from trappola.train.run_log import check_run_dir

MAIN = "main"


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


def learner_settings(device: str) -> dict:
    """RLlib's ``learners(...)`` settings for a resolved ``device``: one
    learner in the driver, on a GPU for ``cuda`` (the env runners' forward
    passes, snapshots included, stay on their CPUs)."""
    return {"num_learners": 0, "num_gpus_per_learner": 1 if device == "cuda" else 0}


def build_algorithm(cfg: RLlibConfig):
    """RLlib's PPO for ``cfg`` (new API stack)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from trappola.train.rllib.env import RLlibTrappolaEnv
    from trappola.train.rllib.module import MaskedActorCritic

    probe = RLlibTrappolaEnv(cfg.env_config())
    snapshots = snapshot_ids(cfg)
    model_config = {"net_arch": list(cfg.net_arch), "activation": cfg.activation}
    spec = RLModuleSpec(
        module_class=MaskedActorCritic,
        model_config=model_config,
        observation_space=probe.observation_spaces[probe.agents[0]],
        action_space=probe.action_spaces[probe.agents[0]],
    )
    config = (
        PPOConfig()
        .environment(RLlibTrappolaEnv, env_config=cfg.env_config(), disable_env_checking=True)
        .framework("torch", torch_compile_learner=False)
        .env_runners(
            num_env_runners=cfg.num_env_runners,
            num_envs_per_env_runner=cfg.num_envs_per_env_runner,
            num_cpus_per_env_runner=1,
        )
        .learners(**learner_settings(resolve_device(cfg.device)))
        .training(
            lr=cfg.learning_rate,
            train_batch_size_per_learner=cfg.train_batch_size,
            minibatch_size=cfg.batch_size,
            num_epochs=cfg.n_epochs,
            gamma=cfg.gamma,
            lambda_=cfg.gae_lambda,
            clip_param=cfg.clip_range,
            entropy_coeff=cfg.ent_coef,
            vf_loss_coeff=cfg.vf_coef,
            grad_clip=cfg.max_grad_norm,
            grad_clip_by="global_norm",
            use_kl_loss=False,
        )
        .multi_agent(
            policies={MAIN, *snapshots},
            policy_mapping_fn=league_mapping(probe.agents, cfg.self_play_prob, snapshots),
            policies_to_train=[MAIN],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={m: spec for m in (MAIN, *snapshots)}))
        .debugging(seed=cfg.seed, log_level="ERROR")
    )
    return config.build_algo()


def main_state(algo) -> dict:
    """The trained module's weights (numpy), from the learner."""
    state = algo.learner_group.get_state(components="learner/rl_module/" + MAIN)
    return state["learner"]["rl_module"][MAIN]


def set_snapshot(algo, slot: str, weights: dict) -> None:
    """Overwrite a frozen module with ``weights``, in the learner and in
    every env runner. (RLlib's weight sync would skip the env runners: it
    sends weights only when their sequence number has grown.)"""
    algo.learner_group.set_state({"learner": {"rl_module": {slot: weights}}})

    def load(env_runner):
        env_runner.module[slot].set_state(weights)

    algo.env_runner_group.foreach_env_runner(load, local_env_runner=True)


def sampled_steps(result: dict) -> int:
    """The decisions sampled so far, from a result of ``algo.train()``."""
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME

    if NUM_ENV_STEPS_SAMPLED_LIFETIME in result:
        return int(result[NUM_ENV_STEPS_SAMPLED_LIFETIME])
    return int(result[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED_LIFETIME])


def player_of(cfg: RLlibConfig, weights: dict):
    """The weights of ``main`` as a player for the evaluator."""
    from trappola.agents.model_io.numpy_policy import NumpyPolicy
    from trappola.agents.policy_player import PolicyPlayer
    from trappola.train.rllib.export import sb3_state_dict

    return PolicyPlayer.from_numpy(NumpyPolicy.from_state_dict(sb3_state_dict(weights), cfg.activation))


def train(cfg: RLlibConfig, log=None) -> dict:
    """Run ``cfg``; returns the summary (also written to ``summary.json``)."""
    import ray
    import torch

    from trappola.train.rllib.export import save_rllib_checkpoint
    from trappola.train.run_recorder import RunRecorder

    check_run_dir(cfg)  # before Ray starts; the folder is written once the algorithm is built
    recorder = None

    def save(weights: dict, path, steps: int, **meta):
        return save_rllib_checkpoint(
            weights, path, cfg.to_dict(), cfg.seed, steps, cfg.net_arch, cfg.activation, env=cfg.env, **meta
        )

    t_start = time.time()
    torch.set_num_threads(cfg.torch_threads)
    started = not ray.is_initialized()
    if started:
        kwargs = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR}
        if cfg.address:
            kwargs["address"] = cfg.address
        elif cfg.num_cpus:
            kwargs["num_cpus"] = cfg.num_cpus
        ray.init(**kwargs)
    algo = None
    bar = None
    try:
        cpus = int(ray.cluster_resources().get("CPU", 0))
        if cfg.num_env_runners > cpus:
            # Each env runner holds one CPU; RLlib would wait for the missing ones forever.
            raise ValueError(
                f"num_env_runners={cfg.num_env_runners} needs as many CPUs, the Ray instance has "
                f"{cpus}; lower num_env_runners or raise num_cpus"
            )
        algo = build_algorithm(cfg)
        snapshots = snapshot_ids(cfg)
        weights = main_state(algo)
        for slot in snapshots:
            set_snapshot(algo, slot, weights)
        recorder = RunRecorder(cfg, save, lambda w: player_of(cfg, w), log=log, started=t_start)
        say = recorder.say
        run_dir = recorder.run_dir
        say(
            f"run {run_dir}: RLlib PPO on {cfg.env}, {cfg.total_timesteps:,} decisions, "
            f"{cfg.num_env_runners} env runners, league of {cfg.league_size}, net {cfg.net_arch}, "
            f"learner on {resolve_device(cfg.device)}"
        )
        if cfg.progress_bar:
            from tqdm import tqdm

            bar = tqdm(total=cfg.total_timesteps, unit="step", dynamic_ncols=True, mininterval=2.0, file=sys.stderr)
        steps = last_snap = 0
        n_snap = 0
        deadline = t_start + 60.0 * cfg.max_minutes if cfg.max_minutes > 0 else None
        t_learn = time.time()
        while steps < cfg.total_timesteps:
            result = algo.train()
            new = sampled_steps(result)
            if bar is not None:
                bar.update(new - steps)
            steps = new
            weights = None
            if cfg.snapshot_every and steps - last_snap >= cfg.snapshot_every:
                weights = main_state(algo)
                set_snapshot(algo, snapshots[n_snap % len(snapshots)], weights)
                n_snap += 1
                last_snap = steps
                returns = result.get("env_runners", {}).get("module_episode_returns_mean", {})
                say(
                    f"[{steps:>9,} steps] {steps / max(time.time() - t_learn, 1e-9):.0f} steps/s; snapshot "
                    f"{n_snap} into {snapshots[(n_snap - 1) % len(snapshots)]}; mean episode return of main "
                    f"{float(returns.get(MAIN, float('nan'))):+.3f}"
                )
            if recorder.due(steps):
                recorder.step(steps, weights or main_state(algo))
            if deadline is not None and time.time() > deadline:
                say(f"time limit reached after {steps:,} steps; stopping")
                break
        learn_s = time.time() - t_learn
        if bar is not None:
            bar.close()
            bar = None
        say(f"sampled and learned {steps:,} steps in {learn_s / 60:.1f} min ({steps / max(learn_s, 1e-9):.0f} steps/s)")
        summary = recorder.finish(steps, main_state(algo), steps, learn_s)
    finally:
        if bar is not None:
            bar.close()
        if algo is not None:
            algo.stop()
        if started:
            ray.shutdown()
        if recorder is not None:
            recorder.close()
    return summary
