"""Every setting of an RLlib self-play run (``configs/rllib_selfplay.yaml``).

``RLlibConfig`` adds to the shared settings (``trappola.train.run.config``:
names shared with the SB3 path mean the same, the opponent pool, behaviour
cloning, the Alifer value, ``resume`` and ``init_from`` included) Ray's,
the learners', the bulka_v0 league's and the environments' (``trappola_v0``,
or ``bulka_v0`` sessions). Read like the SB3 config
(``trappola.train.run.config_file.load_config``: unknown keys are errors,
``key=value`` overrides); the file says ``trainer: rllib``, which is how
``trappola train`` picks this path. The SB3 settings that cannot carry over
are refused with their reason (``NOT_CARRIED``), and so are the shared ones
an environment cannot use (``check``).
"""

from __future__ import annotations

from typing import ClassVar

from trappola.train.run.config import AT_LEAST_1, FRACTION, NON_NEGATIVE, POSITIVE, RunConfig, redefine, setting
from trappola.train.selfplay.reward import TOKENS_SCALE

ENVS = ("trappola_v0", "bulka_v0")


class RLlibConfig(RunConfig):
    """The settings of an RLlib run: ``RunConfig``'s and the fields below."""

    TRAINER = "rllib"
    #: SB3 settings that have no meaning here, with the reason ``load_config`` gives when one is set.
    NOT_CARRIED: ClassVar[dict[str, str]] = {
        "n_envs": "RLlib runs num_env_runners x num_envs_per_env_runner games",
        "n_steps": "RLlib collects train_batch_size decisions per PPO iteration, over all its env runners",
        "vec_env": "RLlib's env runners are its vector environments",
        "opponent_workers": "the pool's players play inside each env runner",
        "target_kl": "RLlib's PPO has no early stop of an update's epochs on the KL divergence",
        "exploiter_every": "league exploiters train best responses in the SB3 learner's process",
        "exploiter_steps": "league exploiters train best responses in the SB3 learner's process",
        "privileged_critic": "the RLlib network reads the trappola_v0 observation only",
    }

    trainer: str = redefine(RunConfig, "trainer", "rllib")
    run_name: str = redefine(RunConfig, "run_name", "rllib_selfplay")
    total_timesteps: int = redefine(
        RunConfig,
        "total_timesteps",
        1_000_000,
        help="Length of the run in decisions sampled: the learner's (trappola_v0, as on SB3), all seats' (bulka_v0).",
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
    bc: bool = redefine(RunConfig, "bc", False)
    # --- Ray ---------------------------------------------------------------
    address: str = setting("", "A Ray cluster to join (auto, HOST:PORT); empty = a local Ray (or RAY_ADDRESS).")
    num_cpus: int = setting(0, "CPUs of a local Ray; 0 = all cores.", bounds=NON_NEGATIVE)
    num_env_runners: int = setting(2, "Ray workers collecting experience; 0 = in the driver.", bounds=NON_NEGATIVE)
    num_envs_per_env_runner: int = setting(1, "Environments of each env runner.", bounds=AT_LEAST_1)
    restart_failed_env_runners: bool = setting(
        True, "An env runner that dies (a lost node, a killed process) is replaced and the run goes on."
    )
    num_learners: int = setting(0, "Learner workers (Ray actors); 0 = the learner in the driver.", bounds=NON_NEGATIVE)
    num_gpus_per_learner: float = setting(
        0.0,
        "GPUs of each learner (with num_learners 0: of the driver's); refused where Ray has none.",
        bounds=(0, 64, "[]"),
    )
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
        "bulka_v0 (trappola_v0 draws from pool): per episode one seat plays main (trained); each other seat plays main "
        "too with this probability, else one of the frozen snapshots.",
        bounds=FRACTION,
    )
    league_size: int = setting(
        4,
        "bulka_v0: frozen snapshots of main, refreshed in turn every snapshot_every decisions.",
        bounds=AT_LEAST_1,
    )

    def check(self) -> None:
        """The shared checks, then: the minibatch fits in a PPO iteration's
        batch, and each environment's own opponents (trappola_v0: the pool;
        bulka_v0: the league of snapshots)."""
        super().check()
        if self.batch_size > self.train_batch_size:
            raise ValueError(
                f"batch_size ({self.batch_size}) must not exceed train_batch_size ({self.train_batch_size})"
            )
        if self.pool.get("exploiter", 0) > 0:
            raise ValueError(
                f"pool member 'exploiter' is not available on RLlib: {self.NOT_CARRIED['exploiter_every']}"
            )
        # A field left at its default is not in use; one set for the other environment is refused.
        default = {name: type(self).model_fields[name].default for name in ("self_play_prob", "league_size")}
        default["pool"] = type(self).model_fields["pool"].get_default(call_default_factory=True)
        if self.env == "trappola_v0":
            for name in ("self_play_prob", "league_size"):
                if getattr(self, name) != default[name]:
                    raise ValueError(f"{name} is bulka_v0's league; a trappola_v0 run draws its opponents from pool")
            return
        if self.pool != default["pool"]:
            raise ValueError("pool is trappola_v0's; a bulka_v0 run plays its league (self_play_prob, league_size)")
        if self.bc:
            raise ValueError("bc clones a teacher's trappola_v0 decisions; a bulka_v0 run cannot start from it")
        if self.alifer_value != "replay":
            raise ValueError("alifer_value: a bulka_v0 session replays an Alifer itself (docs/rules.md section 6)")

    @property
    def evaluates(self) -> bool:
        """Only ``trappola_v0`` runs are evaluated (the evaluator plays parties, not sessions)."""
        return self.env == "trappola_v0" and self.eval_deals > 0

    def env_config(self) -> dict:
        """RLlib's ``env_config``: for ``trappola_v0`` the pool environment's
        (``trappola.train.rllib.pool_env.PoolEnv``, the SB3 path's games), for
        ``bulka_v0`` the league's ``trappola.train.rllib.env.RLlibTrappolaEnv``."""
        if self.env == "trappola_v0":
            return {
                "pool": dict(self.pool),
                "reward_mode": self.reward_mode,
                "points_scale": self.points_scale,
                "tokens_scale": self.tokens_scale,
                "points_weight": self.points_weight,
                "pool_size": self.pool_size,
                "snapshot_latest_prob": self.snapshot_latest_prob,
                "opponent_deterministic": self.opponent_deterministic,
                "alifer_value": self.alifer_value,
                "alifer_ema": self.alifer_ema,
            }
        return {
            "env": "bulka_v0",
            "n_players": self.n_players,
            "max_parties": self.max_parties,
            "tokens_scale": self.bulka_tokens_scale,
            "carry_first_rewards": self.carry_first_rewards,
        }
