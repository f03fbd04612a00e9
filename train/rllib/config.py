"""Every setting of an RLlib self-play run (``configs/rllib_selfplay.yaml``).

``RLlibConfig`` adds to the shared settings (``trappola.train.run_config``:
names shared with the SB3 path mean the same) Ray's, the league's and the
environments' (``trappola_v0``, or ``bulka_v0`` sessions). Read like the
SB3 config (``trappola.train.config_file.load_config``: unknown keys are
errors, ``key=value`` overrides); the file says ``trainer: rllib``, which is
how ``trappola train`` picks this path.
"""

from __future__ import annotations

from trappola.train.run_config import AT_LEAST_1, FRACTION, NON_NEGATIVE, POSITIVE, RunConfig, redefine, setting
from trappola.train.selfplay.reward import TOKENS_SCALE

ENVS = ("trappola_v0", "bulka_v0")


class RLlibConfig(RunConfig):
    """The settings of an RLlib run: ``RunConfig``'s and the fields below."""

    TRAINER = "rllib"

    trainer: str = redefine(RunConfig, "trainer", "rllib")
    run_name: str = redefine(RunConfig, "run_name", "rllib_selfplay")
    total_timesteps: int = redefine(
        RunConfig, "total_timesteps", 1_000_000, help="Length of the run in decisions sampled, all seats together."
    )
    torch_threads: int = redefine(RunConfig, "torch_threads", 1)
    batch_size: int = redefine(RunConfig, "batch_size", 500)
    tokens_scale: float = redefine(
        RunConfig,
        "tokens_scale",
        TOKENS_SCALE,
        help="Divides the net tokens (trappola_v0, reward_mode tokens); bulka_v0 "
        "rewards are tokens / bulka_tokens_scale.",
    )
    # --- Ray ---------------------------------------------------------------
    address: str = setting("", "A Ray cluster to join (auto, HOST:PORT); empty = a local Ray (or RAY_ADDRESS).")
    num_cpus: int = setting(0, "CPUs of a local Ray; 0 = all cores.", bounds=NON_NEGATIVE)
    num_env_runners: int = setting(2, "Ray workers collecting experience; 0 = in the driver.", bounds=NON_NEGATIVE)
    num_envs_per_env_runner: int = setting(1, "Environments of each env runner.", bounds=AT_LEAST_1)
    # --- environment -------------------------------------------------------
    env: str = setting(
        "trappola_v0",
        "trappola_v0 (one partie; evaluated) or bulka_v0 (multi-agent sessions; not evaluated, no best.zip).",
        choices=ENVS,
    )
    n_players: int = setting(2, "bulka_v0: players at the table.", choices=(2, 3, 4))
    max_parties: int = setting(20, "bulka_v0: parties of a session at most.", bounds=AT_LEAST_1)
    bulka_tokens_scale: float = setting(10.0, "bulka_v0: divides the tokens of a reward.", bounds=POSITIVE)
    carry_first_rewards: bool = setting(
        True, "bulka_v0: pay the first stakes with the agent's first reward (train/rllib/env.py)."
    )
    # --- PPO ---------------------------------------------------------------
    train_batch_size: int = setting(4000, "Decisions per PPO iteration.", bounds=AT_LEAST_1)
    # --- league ------------------------------------------------------------
    self_play_prob: float = setting(
        0.5,
        "Per episode one seat plays main (trained); each other seat plays main "
        "too with this probability, else one of the frozen snapshots.",
        bounds=FRACTION,
    )
    league_size: int = setting(
        4, "Frozen snapshots of main, refreshed in turn every snapshot_every decisions.", bounds=AT_LEAST_1
    )

    def check(self) -> None:
        """The minibatch fits in a PPO iteration's batch."""
        if self.batch_size > self.train_batch_size:
            raise ValueError(
                f"batch_size ({self.batch_size}) must not exceed train_batch_size ({self.train_batch_size})"
            )

    @property
    def evaluates(self) -> bool:
        """Only ``trappola_v0`` runs are evaluated (the evaluator plays parties, not sessions)."""
        return self.env == "trappola_v0" and self.eval_deals > 0

    def env_config(self) -> dict:
        """RLlib's ``env_config`` for ``trappola.train.rllib.env.RLlibTrappolaEnv``."""
        if self.env == "trappola_v0":
            return {
                "env": "trappola_v0",
                "reward_mode": self.reward_mode,
                "points_scale": self.points_scale,
                "tokens_scale": self.tokens_scale,
                "points_weight": self.points_weight,
            }
        return {
            "env": "bulka_v0",
            "n_players": self.n_players,
            "max_parties": self.max_parties,
            "tokens_scale": self.bulka_tokens_scale,
            "carry_first_rewards": self.carry_first_rewards,
        }
