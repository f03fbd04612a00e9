"""Every setting of an RLlib self-play run (``trappola/configs/rllib_selfplay.yaml``).

Read like the SB3 config (``trappola.train.config.load_config(path, overrides,
cls=RLlibConfig)``: unknown keys are errors, ``key=value`` overrides);
names shared with the SB3 path mean the same (``total_timesteps``,
``out_dir``, ``run_name``, ``net_arch``, ``learning_rate``, ...). The file
says ``trainer: rllib``, which is how ``trappola train`` picks this path.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

from .config import check_run_settings
from .networks import check_activation
from .selfplay.reward import POINTS_SCALE, POINTS_WEIGHT, TOKENS_SCALE, check_reward_mode

ENVS = ("trappola_v0", "bulka_v0")


@dataclass
class RLlibConfig:
    trainer: str = "rllib"
    # --- run -------------------------------------------------------------
    run_name: str = "rllib_selfplay"
    out_dir: str = "runs"  # the run writes to out_dir/run_name/
    overwrite: bool = False  # replace an existing out_dir/run_name (else refused)
    seed: int = 0
    total_timesteps: int = 1_000_000  # decisions sampled, all seats together
    max_minutes: float = 0.0  # wall-clock cap; 0 = none
    progress_bar: bool = True
    # --- Ray ---------------------------------------------------------------
    address: str = ""  # a Ray cluster to join ("auto", "HOST:PORT"); "" = a local Ray (or RAY_ADDRESS)
    num_cpus: int = 0  # CPUs of a local Ray; 0 = all cores
    num_env_runners: int = 2  # Ray workers collecting experience; 0 = in the driver
    num_envs_per_env_runner: int = 1
    torch_threads: int = 1
    # --- environment -------------------------------------------------------
    env: str = "trappola_v0"  # or bulka_v0 (multi-agent sessions)
    reward_mode: str = "mixed"  # trappola_v0, as in the SB3 config
    points_scale: float = POINTS_SCALE
    tokens_scale: float = TOKENS_SCALE  # trappola_v0 "tokens"; bulka_v0 rewards are tokens / bulka_tokens_scale
    points_weight: float = POINTS_WEIGHT
    n_players: int = 2  # bulka_v0
    max_parties: int = 20  # bulka_v0
    bulka_tokens_scale: float = 10.0
    carry_first_rewards: bool = True  # bulka_v0: see trappola/train/rllib_env.py
    # --- network and PPO -------------------------------------------------
    net_arch: list = field(default_factory=lambda: [256, 256])
    activation: str = "relu"
    learning_rate: float = 3e-4
    train_batch_size: int = 4000  # decisions per PPO iteration
    batch_size: int = 500  # minibatch
    n_epochs: int = 4
    gamma: float = 1.0
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    # --- league ------------------------------------------------------------
    # Per episode one seat is "main" (trained); each other seat is main too
    # with probability self_play_prob, else one of league_size frozen
    # snapshots of main, refreshed in turn every snapshot_every decisions.
    self_play_prob: float = 0.5
    league_size: int = 4
    snapshot_every: int = 100_000
    # --- evaluation and checkpoints (trappola_v0) -------------------------
    eval_every: int = 200_000
    eval_deals: int = 400
    eval_opponent: str = "rule"
    checkpoint_every: int = 500_000

    def __post_init__(self):
        self.validate()

    def validate(self) -> None:
        if self.trainer != "rllib":
            raise ValueError(f"trainer must be 'rllib' in an RLlib config, got {self.trainer!r}")
        if self.env not in ENVS:
            raise ValueError(f"env must be one of {ENVS}, got {self.env!r}")
        check_reward_mode(self.reward_mode)
        check_activation(self.activation)
        if self.n_players not in (2, 3, 4):
            raise ValueError(f"n_players must be 2, 3 or 4, got {self.n_players!r}")
        for name in ("num_envs_per_env_runner", "train_batch_size", "batch_size", "n_epochs", "league_size",
                     "torch_threads", "max_parties"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)!r}")
        for name in ("total_timesteps", "num_env_runners", "num_cpus", "snapshot_every", "eval_every",
                     "eval_deals", "checkpoint_every"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)!r}")
        if self.batch_size > self.train_batch_size:
            raise ValueError(f"batch_size ({self.batch_size}) must not exceed train_batch_size "
                             f"({self.train_batch_size})")
        if not 0.0 <= self.self_play_prob <= 1.0:
            raise ValueError(f"self_play_prob must be in [0, 1], got {self.self_play_prob!r}")
        check_run_settings(self)

    @property
    def run_dir(self) -> Path:
        return Path(self.out_dir) / self.run_name

    def to_dict(self) -> dict:
        return asdict(self)

    def env_config(self) -> dict:
        """RLlib's ``env_config`` for ``trappola.train.rllib_env.RLlibTrappolaEnv``."""
        if self.env == "trappola_v0":
            return {"env": "trappola_v0", "reward_mode": self.reward_mode, "points_scale": self.points_scale,
                    "tokens_scale": self.tokens_scale, "points_weight": self.points_weight}
        return {"env": "bulka_v0", "n_players": self.n_players, "max_parties": self.max_parties,
                "tokens_scale": self.bulka_tokens_scale, "carry_first_rewards": self.carry_first_rewards}
