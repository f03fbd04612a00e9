"""Vectorised self-play environments for MaskablePPO.

``make_vec_env`` builds the one a config names: ``batched`` (the default:
every game in this process, ``batched_vec_env.BatchedSelfPlayVecEnv``), or
``subproc`` / ``dummy`` (one ``SelfPlayEnv`` per worker process, or all in
this process one after the other).

``MaskCacheVecEnv`` answers sb3-contrib's per-step
``env_method("action_masks")`` from the masks the workers already sent in
their ``info`` dicts, which saves one inter-process round trip per step
(about a third of the stepping cost with ``SubprocVecEnv``).
"""

from __future__ import annotations

import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnvWrapper, VecMonitor

from trappola.train.selfplay.env import SelfPlayEnv
from trappola.train.selfplay.settings import SelfPlaySettings


class MaskCacheVecEnv(VecEnvWrapper):
    """Serves ``env_method("action_masks")`` from the masks in the infos.

    :param venv: the VecEnv of ``SelfPlayEnv`` workers
    """

    def __init__(self, venv):
        super().__init__(venv)
        self._masks = None

    def reset(self):
        obs = self.venv.reset()
        self._masks = np.stack([info["action_mask"] for info in self.venv.reset_infos])
        return obs

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        masks = []
        for i, (done, info) in enumerate(zip(dones, infos, strict=True)):
            # After an automatic reset the mask of the new episode is in reset_infos.
            masks.append(self.venv.reset_infos[i]["action_mask"] if done else info["action_mask"])
        self._masks = np.stack(masks)
        return obs, rewards, dones, infos

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        if method_name == "action_masks" and not method_args and not method_kwargs and self._masks is not None:
            idx = range(self.num_envs) if indices is None else ([indices] if isinstance(indices, int) else indices)
            return [self._masks[i] for i in idx]
        return self.venv.env_method(method_name, *method_args, indices=indices, **method_kwargs)


def env_kwargs(cfg) -> dict:
    """The self-play adapters' pool and settings from a config.

    :param cfg: the ``TrainConfig``
    :return: ``pool`` and ``settings`` (a ``SelfPlaySettings``), the arguments
        ``SelfPlayEnv`` and ``BatchedSelfPlayVecEnv`` share
    """
    settings = SelfPlaySettings(
        reward_mode=cfg.reward_mode,
        points_scale=cfg.points_scale,
        tokens_scale=cfg.tokens_scale,
        points_weight=cfg.points_weight,
        pool_size=cfg.pool_size,
        snapshot_latest_prob=cfg.snapshot_latest_prob,
        opponent_deterministic=cfg.opponent_deterministic,
        alifer_value=cfg.alifer_value,
        alifer_ema=cfg.alifer_ema,
        privileged=cfg.privileged_critic,
    )
    return dict(pool=dict(cfg.pool), settings=settings)


def _factory(kwargs: dict, seed: int):
    def make():
        return SelfPlayEnv(seed=seed, **kwargs)

    return make


def make_vec_env(
    cfg, seed_offset: int = 0, players: dict | None = None, batch_networks: bool = True, device: str = "cpu"
):
    """``cfg.n_envs`` games, monitored: one ``BatchedSelfPlayVecEnv``
    (``vec_env: batched``, seed ``cfg.seed``), or SelfPlayEnv workers
    (seeds ``cfg.seed + 1000 * i``) behind a mask cache.

    :param cfg: the ``TrainConfig``
    :param seed_offset: added to ``cfg.seed``
    :param players: pool name -> ``trappola.agents.base.Player`` for members already built
    :param batch_networks: see ``BatchedSelfPlayVecEnv``
    :param device: where the batched VecEnv's network opponents run their forward passes
    :return: the monitored VecEnv
    """
    kwargs = env_kwargs(cfg)
    if cfg.vec_env == "batched":
        from trappola.train.sb3.batched_vec_env import BatchedSelfPlayVecEnv

        return VecMonitor(
            BatchedSelfPlayVecEnv(
                cfg.n_envs,
                seed=cfg.seed + seed_offset,
                players=players,
                opponent_workers=cfg.opponent_workers,
                batch_networks=batch_networks,
                device=device,
                env_threads=cfg.env_threads,
                **kwargs,
            )
        )
    if players:
        raise ValueError("players go to the batched VecEnv only (vec_env: batched)")
    fns = [_factory(kwargs, cfg.seed + seed_offset + 1000 * i) for i in range(cfg.n_envs)]
    # fork: workers inherit the imported modules, which makes start-up fast.
    subproc = cfg.vec_env == "subproc" and cfg.n_envs > 1
    venv = SubprocVecEnv(fns, start_method="fork") if subproc else DummyVecEnv(fns)
    return VecMonitor(MaskCacheVecEnv(venv))
