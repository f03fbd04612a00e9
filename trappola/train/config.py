"""Every setting of a self-play training run, in one dataclass.

``load_config(path, overrides)`` reads a YAML file (unknown keys are an
error, so a typo never silently falls back to a default) and then applies
command-line overrides, each either ``key=value`` or ``--key value``
(``--key=value`` too). Nested mappings use dots: ``pool.rule=0.5``. Values
are parsed as YAML scalars/lists (``net_arch=[128,128]``, ``bc=false``) and
checked against the field's type.

The defaults here are those of ``trappola/configs/ppo_selfplay.yaml`` except the
run's length and evaluation schedule (``total_timesteps``, ``max_minutes``,
``eval_every``, ``eval_search_deals``), which the file sets; the YAML file
exists so that a run is reproducible from a file on disk. The
configs in ``trappola/configs/`` ship inside the package: ``resolve_config`` finds
a user's file from the working directory, or a shipped config by name
(``ppo_selfplay``, ``demo``, ``rllib_selfplay``) wherever the package is installed.

A config with ``trainer: rllib`` is an RLlib run (``trappola.train.rllib_config``,
read by the same functions with ``cls=RLlibConfig``); ``trainer_of`` tells
the two apart.
"""
from __future__ import annotations

import dataclasses
import math
import os
import typing
from dataclasses import asdict, dataclass, field, fields
from importlib import resources
from pathlib import Path

import yaml

from .networks import check_activation
from .selfplay.alifer import check_alifer_value
from .selfplay.reward import POINTS_SCALE, POINTS_WEIGHT, TOKENS_SCALE, check_reward_mode

VEC_ENVS = ("batched", "subproc", "dummy")
TRAINERS = ("sb3", "rllib")


@dataclass
class TrainConfig:
    # --- run -------------------------------------------------------------
    trainer: str = "sb3"  # "rllib" configs are read by trappola.train.rllib_config
    run_name: str = "ppo_selfplay"
    out_dir: str = "runs"  # the run writes to out_dir/run_name/
    overwrite: bool = False  # replace an existing out_dir/run_name (else refused unless resumed from inside it)
    seed: int = 0
    total_timesteps: int = 2_000_000  # learner decisions (env steps of the wrapper)
    max_minutes: float = 0.0  # wall-clock cap on the whole run (BC included); 0 = none
    n_envs: int = 1024
    vec_env: str = "batched"  # batched (all games in one process, trappola.train.batched_vec_env) | subproc | dummy
    torch_threads: int = 2  # both cores of the reference machine: the update and every forward pass
    # batched only: processes for the pool members that play one game at a time (pimc, rule); 0 = here
    opponent_workers: int = 0
    progress_bar: bool = True
    tensorboard: bool = True
    resume: str = ""  # checkpoint .zip to continue from
    # checkpoint .zip whose network (actor and critic) starts the run: a fresh optimizer and step
    # count, unlike resume; its net_arch and activation must be this config's; no BC then
    init_from: str = ""
    # --- environment ----------------------------------------------------
    # win: +1/-1/0; points: (own - opponent total) / points_scale;
    # tokens: net tokens / tokens_scale; mixed: win + points_weight * points.
    reward_mode: str = "mixed"
    points_scale: float = POINTS_SCALE
    tokens_scale: float = TOKENS_SCALE
    points_weight: float = POINTS_WEIGHT
    # An Alifer is replayed (docs/rules.md section 6): "replay" scores it as the running mean
    # reward against that opponent (the value of the replay); "zero" as 0.
    alifer_value: str = "replay"
    alifer_ema: float = 0.01
    # The critic also reads the whole deal (trappola.train.privileged_policy); the actor
    # still reads only the trappola_v0 observation.
    privileged_critic: bool = False
    # --- network and PPO ------------------------------------------------
    net_arch: list = field(default_factory=lambda: [256, 256])
    activation: str = "relu"  # relu | tanh
    learning_rate: float = 3e-4
    lr_final_fraction: float = 0.2  # linear decay to this fraction of learning_rate
    n_steps: int = 16  # per env
    batch_size: int = 2048
    n_epochs: int = 4
    gamma: float = 1.0  # episodic, ~10 learner decisions: no discounting needed
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float = 0.0  # 0 = none
    # --- opponent pool --------------------------------------------------
    # Draw weights per episode: "self" = a frozen snapshot of the learner; any other key is a
    # registered computer player's spec ("rule", "random", "pimc:samples=4", "policy"...).
    pool: dict = field(default_factory=lambda: {"self": 0.8, "random": 0.2})
    snapshot_every: int = 100_000  # learner steps between snapshots added to the pool
    pool_size: int = 8  # most recent snapshots kept
    snapshot_latest_prob: float = 0.5  # else a uniformly drawn older snapshot
    opponent_deterministic: bool = False  # snapshots sample their moves by default
    # League exploiters (trappola.train.exploiters): every exploiter_every learner steps (0 = never) a best
    # response trained exploiter_steps steps against the learner joins the pool member "exploiter"
    # (give it a weight: pool.exploiter=0.2). Batched VecEnv only.
    exploiter_every: int = 0
    exploiter_steps: int = 250_000
    # --- behaviour cloning warm start ------------------------------------
    bc: bool = True
    bc_teacher: str = "rule"
    bc_deals: int = 20_000  # each deal gives both seats' decisions
    bc_workers: int = 4  # processes playing the teacher's games (more than cores helps on a shared machine)
    bc_epochs: int = 8
    bc_batch_size: int = 1024
    bc_learning_rate: float = 1e-3
    bc_value_coef: float = 0.5  # also fit the value head to the teacher games' returns
    # --- evaluation and checkpoints -------------------------------------
    eval_every: int = 200_000  # learner steps
    eval_deals: int = 400  # duplicate: each deal is played twice, seats swapped
    eval_opponent: str = "rule"
    # A second, small duplicate match at each evaluation against a search player,
    # logged to TensorBoard (eval/*_vs_<name>); 0 deals = none. Not used for best.zip.
    eval_search_deals: int = 0
    eval_search_opponent: str = "pimc:samples=4"
    checkpoint_every: int = 500_000
    keep_checkpoints: bool = False  # also keep each as checkpoints/<steps>.zip (a learning curve)
    # --- Pro decision (bulka sessions) -----------------------------------
    pro_train: bool = False  # train the Pro decision after self-play

    def __post_init__(self):
        self.validate()

    def validate(self) -> None:
        if self.trainer != "sb3":
            raise ValueError(f"trainer must be 'sb3' here (an 'rllib' config is read by trappola.train.rllib_config), "
                             f"got {self.trainer!r}")
        check_reward_mode(self.reward_mode)
        check_alifer_value(self.alifer_value)
        if self.vec_env not in VEC_ENVS:
            raise ValueError(f"vec_env must be one of {VEC_ENVS}, got {self.vec_env!r}")
        check_activation(self.activation)
        for name in ("n_envs", "n_steps", "batch_size", "n_epochs", "pool_size", "torch_threads"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)!r}")
        if self.opponent_workers and self.vec_env != "batched":
            raise ValueError(f"opponent_workers needs vec_env: batched (got {self.vec_env!r}); "
                             "the subproc workers already play their games in parallel")
        for name in ("exploiter_every", "exploiter_steps", "total_timesteps", "snapshot_every", "eval_every", "checkpoint_every", "eval_deals",
                     "bc_deals", "eval_search_deals", "opponent_workers"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)!r}")
        check_run_settings(self)
        exploiters = self.pool.get("exploiter", 0) > 0
        if exploiters != (self.exploiter_every > 0):
            raise ValueError("league exploiters need both exploiter_every > 0 and a pool weight for 'exploiter' "
                             f"(got exploiter_every={self.exploiter_every}, pool={self.pool})")
        if exploiters and (self.vec_env != "batched" or self.privileged_critic):
            raise ValueError("league exploiters need vec_env: batched and no privileged_critic")
        if exploiters and not any(w > 0 for k, w in self.pool.items() if k != "exploiter"):
            raise ValueError("the pool needs a member besides 'exploiter' until the first exploiter exists")
        for member in self.pool:
            if member not in ("self", "exploiter"):
                _check_player(f"pool member {member!r}", str(member))
        if any(not isinstance(w, (int, float)) or not 0 <= w < math.inf for w in self.pool.values()):
            raise ValueError(f"pool weights must be numbers >= 0, got {self.pool!r}")
        if sum(self.pool.values()) <= 0:
            raise ValueError(f"pool weights must not all be 0, got {self.pool!r}")
        if (self.n_steps * self.n_envs) % self.batch_size:
            raise ValueError(f"n_steps * n_envs ({self.n_steps * self.n_envs}) must be a multiple of "
                             f"batch_size ({self.batch_size})")
        for name, value in asdict(self).items():
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError(f"{name} must be a finite number, got {value!r}")
        for name, low, high, closed in _RANGES:
            value = getattr(self, name)
            if not (low < value if closed[0] == "(" else low <= value) or \
                    not (value < high if closed[1] == ")" else value <= high):
                want = (f"{'>' if closed[0] == '(' else '>='} {low}" if high == math.inf
                        else f"in {closed[0]}{low}, {high}{closed[1]}")
                raise ValueError(f"{name} must be {want}, got {value!r}")
        for name in ("eval_opponent", "eval_search_opponent", "bc_teacher"):
            _check_player(name, getattr(self, name))
        if self.resume and not Path(self.resume).expanduser().is_file():
            raise ValueError(f"resume checkpoint not found: {self.resume}")
        if self.init_from and not Path(self.init_from).expanduser().is_file():
            raise ValueError(f"init_from checkpoint not found: {self.init_from}")
        if self.init_from and self.resume:
            raise ValueError("init_from and resume exclude each other: resume continues a run, "
                             "init_from starts a new one from a checkpoint's weights")

    @property
    def run_dir(self) -> Path:
        return Path(self.out_dir) / self.run_name

    def to_dict(self) -> dict:
        return asdict(self)


#: Seeds are passed to numpy, torch and Python's random, and offsets are added to them.
MAX_SEED = 2**31 - 1


def check_run_settings(cfg) -> None:
    """The settings both trainers share: ``run_name`` one non-empty folder
    name (so the run stays inside ``out_dir``), ``seed`` in
    [0, ``MAX_SEED``], ``net_arch`` a non-empty list of positive ints."""
    name = cfg.run_name
    if not isinstance(name, str) or name in ("", ".", "..") or any(c in name for c in ("/", "\\", "\0")) \
            or (os.altsep and os.altsep in name):
        raise ValueError(f"run_name must be a folder name without a path separator (the run writes to "
                         f"out_dir/run_name), got {name!r}")
    if not isinstance(cfg.out_dir, str) or not cfg.out_dir:
        raise ValueError(f"out_dir must be a non-empty path, got {cfg.out_dir!r}")
    if isinstance(cfg.seed, bool) or not isinstance(cfg.seed, int) or not 0 <= cfg.seed <= MAX_SEED:
        raise ValueError(f"seed must be an int in [0, {MAX_SEED}], got {cfg.seed!r}")
    arch = cfg.net_arch
    if not isinstance(arch, list) or not arch or any(isinstance(n, bool) or not isinstance(n, int) or n < 1
                                                     for n in arch):
        raise ValueError(f"net_arch must be a non-empty list of positive ints, got {arch!r}")


#: (field, low, high, brackets): "(]" means low < value <= high.
_RANGES = (
    ("lr_final_fraction", 0, 1, "(]"),
    ("learning_rate", 0, math.inf, "()"),
    ("bc_learning_rate", 0, math.inf, "()"),
    ("gamma", 0, 1, "(]"),
    ("gae_lambda", 0, 1, "[]"),
    ("clip_range", 0, math.inf, "()"),
    ("ent_coef", 0, math.inf, "[)"),
    ("vf_coef", 0, math.inf, "[)"),
    ("max_grad_norm", 0, math.inf, "()"),
    ("target_kl", 0, math.inf, "[)"),  # 0 = none
    ("points_scale", 0, math.inf, "()"),
    ("tokens_scale", 0, math.inf, "()"),
    ("points_weight", 0, math.inf, "[)"),
    ("alifer_ema", 0, 1, "(]"),
    ("max_minutes", 0, math.inf, "[)"),  # 0 = none
    ("snapshot_latest_prob", 0, 1, "[]"),
    ("bc_batch_size", 1, math.inf, "[)"),
    ("bc_epochs", 1, math.inf, "[)"),
    ("bc_workers", 1, math.inf, "[)"),
    ("bc_value_coef", 0, math.inf, "[)"),
)


def _check_player(name: str, spec: str) -> None:
    """A training opponent or teacher must be a registered computer player."""
    from trappola.agents import check_spec

    try:
        cls = check_spec(spec)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None
    if cls.interactive:
        raise ValueError(f"{name} must be a computer player, got {spec!r}")


_FIELDS = {f.name: f for f in fields(TrainConfig)}


def _coerce(name: str, value, annotation: str):
    """Check ``value`` against the field's declared type; ints are accepted
    where floats are expected (``lr=1`` means 1.0)."""
    kind = {"str": str, "int": int, "float": float, "bool": bool, "list": list, "dict": dict}[annotation]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if kind is int and isinstance(value, float) and value.is_integer():
        return int(value)
    if kind is str and value is None:
        return ""
    if kind is not bool and isinstance(value, bool) or not isinstance(value, kind):
        raise ValueError(f"config key {name!r} expects {annotation}, got {value!r}")
    return value


def config_from_dict(data: dict, base=None, cls: type | None = None):
    """A new config: ``base`` (default: the defaults of ``cls``, itself by
    default ``TrainConfig`` or the type of ``base``) updated with ``data``.
    Dotted keys (``pool.rule``) update one entry of a mapping field."""
    cls = cls or (type(base) if base is not None else TrainConfig)
    values = asdict(base) if base is not None else asdict(cls())
    known = {f.name: f for f in fields(cls)}
    for key, value in data.items():
        top, _, sub = str(key).partition(".")
        if top not in known:
            close = [n for n in known if n.startswith(top[:3])]
            raise ValueError(f"unknown config key {key!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        annotation = known[top].type
        if sub:
            if annotation != "dict":
                raise ValueError(f"config key {top!r} is not a mapping; cannot set {key!r}")
            values[top] = {**values[top], sub: value}
        else:
            values[top] = _coerce(top, value, annotation)
    return cls(**values)


def parse_overrides(argv: typing.Sequence[str]) -> dict:
    """``["a=1", "--b", "2", "--c=x"]`` -> ``{"a": 1, "b": 2, "c": "x"}``,
    values parsed as YAML scalars."""
    out = {}
    argv = list(argv)
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg.startswith("--"):
            arg = arg[2:]
            if "=" not in arg:
                if i + 1 >= len(argv):
                    raise ValueError(f"option --{arg} needs a value")
                arg = f"{arg}={argv[i + 1]}"
                i += 1
        if "=" not in arg:
            raise ValueError(f"override {arg!r} must be key=value or --key value")
        key, _, raw = arg.partition("=")
        key = key.strip().replace("-", "_")
        try:
            out[key] = yaml.safe_load(raw) if raw.strip() else ""
        except yaml.YAMLError as exc:
            raise ValueError(f"cannot parse the value of {key!r}: {raw!r} ({exc})") from None
        i += 1
    return out


DEFAULT_CONFIG_NAME = "ppo_selfplay"


def shipped_configs() -> dict[str, Path]:
    """name -> path of every config shipped in the package's ``configs``."""
    root = resources.files("trappola.configs")
    return {Path(e.name).stem: Path(str(e)) for e in root.iterdir() if e.name.endswith(".yaml")}


def trainer_of(path: str | Path | None) -> str:
    """The ``trainer`` a config file names ("sb3" when it names none)."""
    if path is None:
        return "sb3"
    data = _read_yaml(Path(path)) or {}
    trainer = data.get("trainer", "sb3") if isinstance(data, dict) else "sb3"
    if trainer not in TRAINERS:
        raise ValueError(f"trainer must be one of {TRAINERS}, got {trainer!r} in {path}")
    return trainer


def resolve_config(path: str | Path | None = None) -> Path:
    """A user's config file (relative to the working directory), or a
    shipped one by name (``demo`` or ``demo.yaml``); None is the default
    config, ``ppo_selfplay``."""
    if path is None:
        path = DEFAULT_CONFIG_NAME
    p = Path(path).expanduser()
    if p.is_file():
        return p
    shipped = shipped_configs()
    # "configs/NAME.yaml" also names a shipped config (its path in a checkout before installing)
    if p.parent in (Path("."), Path("configs")) and p.stem in shipped and p.suffix in ("", ".yaml"):
        return shipped[p.stem]
    raise FileNotFoundError(f"config file not found: {path} (shipped configs: {', '.join(sorted(shipped))})")


def load_config(path: str | Path | None = None, overrides: typing.Sequence[str] | dict = (), cls: type | None = None):
    """The config of ``path`` (YAML; None = defaults) with ``overrides``,
    as a ``cls`` (default ``TrainConfig``)."""
    cls = cls or TrainConfig
    cfg = cls()
    if path is not None:
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"config file not found: {path}")
        data = _read_yaml(path) or {}
        if not isinstance(data, dict):
            raise ValueError(f"config file {path} must hold a mapping of settings, got {type(data).__name__}")
        cfg = config_from_dict(data, cls=cls)
    if isinstance(overrides, dict):
        extra = overrides
    else:
        extra = parse_overrides(overrides)
    return config_from_dict(extra, cfg) if extra else cfg


class _UniqueKeyLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses a key given twice in one mapping
    (plain YAML keeps the last, so a forgotten line would silently win)."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                duplicate = key in seen
            except TypeError:  # an unhashable key: the base class reports it
                break
            if duplicate:
                raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep)


def _read_yaml(path: Path):
    """The file's YAML data (safe types only); a syntax error, a tab
    indent, a Python tag or a key given twice raises ``ValueError`` naming
    the file and line."""
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)
    except UnicodeDecodeError as exc:
        raise ValueError(f"config file {path} is not UTF-8 text ({exc})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        context = getattr(exc, "context", None)
        detail = f"{context}: {problem}" if context and problem != context else problem
        raise ValueError(f"config file {path}{where}: invalid YAML ({' '.join(str(detail).split())})") from None


def replace(cfg: TrainConfig, **changes) -> TrainConfig:
    return dataclasses.replace(cfg, **changes)
