"""Every setting of an SB3 self-play run (``trappola.train.sb3.ppo_selfplay``).

``TrainConfig`` adds to the shared settings (``trappola.train.run.config``)
the vector environment, the opponent pool, behaviour cloning, resuming and
SB3's PPO settings. The defaults here are those of
``configs/ppo_selfplay.yaml`` except the run's length and evaluation
schedule (``total_timesteps``, ``max_minutes``, ``eval_every``,
``eval_search_deals``), which the file sets; the YAML file exists so that a
run is reproducible from a file on disk. Reading it:
``trappola.train.run.config_file.load_config``.
"""

from __future__ import annotations

from trappola.train.run.config import (
    AT_LEAST_1,
    NON_NEGATIVE,
    RunConfig,
    redefine,
    setting,
)

VEC_ENVS = ("batched", "subproc", "dummy")


class TrainConfig(RunConfig):
    """The settings of an SB3 run: ``RunConfig``'s and the fields below."""

    TRAINER = "sb3"

    run_name: str = redefine(RunConfig, "run_name", "ppo_selfplay")
    total_timesteps: int = redefine(
        RunConfig,
        "total_timesteps",
        2_000_000,
        help="Length of the run in learner decisions (env steps of the wrapper); a resumed run "
        "continues up to this total (it does not add to it).",
    )
    max_minutes: float = redefine(
        RunConfig, "max_minutes", 0.0, help="Wall-clock cap on the whole run (BC included); 0 = none."
    )
    torch_threads: int = redefine(
        RunConfig,
        "torch_threads",
        2,
        help="Torch threads: the update and every forward pass (2: both cores of the reference machine).",
    )
    # --- environments ------------------------------------------------------
    n_envs: int = setting(1024, "Games advanced together.", bounds=AT_LEAST_1)
    vec_env: str = setting(
        "batched",
        "batched: all games in one process (trappola.train.sb3.batched_vec_env); "
        "subproc: one SelfPlayEnv per worker process; dummy: in this process.",
        choices=VEC_ENVS,
    )
    env_threads: int = setting(
        1,
        "vec_env batched only: cores the batched engine deals, steps and encodes the games on "
        "(0 = every core); the games are the same with any number.",
        bounds=NON_NEGATIVE,
    )
    opponent_workers: int = setting(
        0,
        "vec_env batched only: processes for the pool members that play one game at a time (pimc, rule); 0 = here.",
        bounds=NON_NEGATIVE,
    )
    tensorboard: bool = redefine(
        RunConfig, "tensorboard", True, help="Write TensorBoard logs to the run's tb/ (progress.csv is always written)."
    )
    privileged_critic: bool = setting(
        False,
        "The critic also reads the whole deal (trappola.train.sb3.privileged_policy);"
        " the actor still reads only the trappola_v0 observation.",
    )
    # --- PPO -----------------------------------------------------------------
    n_steps: int = setting(16, "Steps per env in each rollout.", bounds=AT_LEAST_1)
    target_kl: float = setting(0.0, "Stop an update's epochs past this KL divergence; 0 = none.", bounds=NON_NEGATIVE)
    # --- opponent pool -----------------------------------------------------
    exploiter_every: int = setting(
        0,
        "League exploiters (trappola.train.sb3.exploiters): learner decisions between "
        "best responses joining the pool member exploiter (give it a weight: "
        "pool.exploiter=0.2); 0 = never. Batched VecEnv only.",
        bounds=NON_NEGATIVE,
    )
    exploiter_steps: int = setting(
        250_000, "Training steps of each exploiter against the learner.", bounds=NON_NEGATIVE
    )

    def check(self) -> None:
        """The checks across SB3 settings: workers and exploiters need the
        batched VecEnv, the pool's members and weights, rollout size a
        multiple of the minibatch; first the shared checks (``RunConfig.check``)."""
        super().check()
        if self.env_threads != 1 and self.vec_env != "batched":
            raise ValueError(
                f"env_threads needs vec_env: batched (got {self.vec_env!r}); "
                "the subproc workers already step their games in parallel"
            )
        if self.opponent_workers and self.vec_env != "batched":
            raise ValueError(
                f"opponent_workers needs vec_env: batched (got {self.vec_env!r}); "
                "the subproc workers already play their games in parallel"
            )
        exploiters = self.pool.get("exploiter", 0) > 0
        if exploiters != (self.exploiter_every > 0):
            raise ValueError(
                "league exploiters need both exploiter_every > 0 and a pool weight for 'exploiter' "
                f"(got exploiter_every={self.exploiter_every}, pool={self.pool})"
            )
        if exploiters and (self.vec_env != "batched" or self.privileged_critic):
            raise ValueError("league exploiters need vec_env: batched and no privileged_critic")
        if exploiters and not any(w > 0 for k, w in self.pool.items() if k != "exploiter"):
            raise ValueError("the pool needs a member besides 'exploiter' until the first exploiter exists")
        if (self.n_steps * self.n_envs) % self.batch_size:
            raise ValueError(
                f"n_steps * n_envs ({self.n_steps * self.n_envs}) must be a multiple of batch_size ({self.batch_size})"
            )
