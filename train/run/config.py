"""The settings every training run has, whichever trainer runs it.

``RunConfig`` is the base of ``TrainConfig`` (SB3, ``trappola.train.sb3.config``)
and ``RLlibConfig`` (``trappola.train.rllib.config``): pydantic models, so
pydantic checks the types and the ranges. Every field is declared with
``setting(default, help, ...)``: its help text (which ``trappola train
--help`` prints, ``trappola.train.train_command``), its allowed values
(``choices``), its range (``bounds``, turned into pydantic's ``gt``/``ge``/
``lt``/``le``) and whether it names a computer player (``player``) travel
with it, so every field of every trainer is checked the same way. A
subclass adds its own fields the same way, changes a shared field's default
with ``redefine``, and adds checks across fields in ``check``. A bad value
is one ``ValueError`` line naming the field ("n_envs must be >= 1, got 0").

A name in both trainers means the same thing (``total_timesteps``,
``out_dir``, ``run_name``, ``net_arch``, ``learning_rate``...). Reading a
YAML file and command-line overrides into a config is
``trappola.train.run.config_file``.
"""

from __future__ import annotations

import copy
import math
import os
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator
from pydantic.fields import FieldInfo
from pydantic.json_schema import JsonDict

from trappola.train.devices import DEVICES, check_device
from trappola.train.networks import ACTIVATIONS
from trappola.train.selfplay.alifer import ALIFER_VALUES
from trappola.train.selfplay.reward import POINTS_SCALE, POINTS_WEIGHT, TOKENS_SCALE, TRAINING_REWARD_MODES
from trappola_env.engine.checks import check_choice

#: Seeds are passed to numpy, torch and Python's random, and offsets are added to them.
MAX_SEED = 2**31 - 1

# (low, high, brackets) of a setting's range: "(]" means low < value <= high.
AT_LEAST_1 = (1, math.inf, "[)")
NON_NEGATIVE = (0, math.inf, "[)")
POSITIVE = (0, math.inf, "()")
FRACTION = (0, 1, "[]")
OPEN_FRACTION = (0, 1, "(]")  # above 0, at most 1

# pydantic's error types for a value outside a field's range
_RANGE_ERRORS = ("greater_than", "greater_than_equal", "less_than", "less_than_equal")


def setting(default, help: str, *, choices: tuple = (), bounds: tuple | None = None, player: bool = False) -> Any:
    """A config field: ``default`` (a list or dict is copied for each
    config), ``help`` (one or two sentences, shown by ``trappola train
    --help``), ``choices`` (the allowed values), ``bounds`` (``(low, high,
    brackets)``, e.g. ``POSITIVE``) and ``player`` (the value must be a
    registered computer player's spec). Returns a pydantic ``Field``."""
    limits = {}
    if bounds is not None:
        low, high, closed = bounds
        limits["gt" if closed[0] == "(" else "ge"] = low
        if high != math.inf:
            limits["lt" if closed[1] == ")" else "le"] = high
    # Kept where pydantic keeps a field's extra information (JSON values: lists, not tuples).
    extra: JsonDict = {"choices": list(choices), "bounds": list(bounds) if bounds else None, "player": player}
    if isinstance(default, (list, dict)):
        return Field(
            default_factory=lambda: copy.deepcopy(default),
            description=" ".join(help.split()),
            json_schema_extra=extra,
            **limits,
        )
    return Field(default, description=" ".join(help.split()), json_schema_extra=extra, **limits)


def _extra(info: FieldInfo) -> dict:
    """A field's choices (a tuple), bounds (a tuple or None) and player flag, as ``setting`` stored them."""
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    bounds = extra.get("bounds")
    return {
        "choices": tuple(extra.get("choices") or ()),  # type: ignore[arg-type]  # a list, as setting stores it
        "bounds": tuple(bounds) if isinstance(bounds, list) else None,
        "player": bool(extra.get("player")),
    }


def redefine(base: type[BaseModel], name: str, default, **changes) -> Any:
    """``base``'s field ``name`` with another ``default`` for a subclass
    (its help, choices, bounds kept unless given in ``changes``)."""
    info = base.model_fields[name]
    meta = {"help": info.description or "", **_extra(info), **changes}
    return setting(default, meta["help"], choices=meta["choices"], bounds=meta["bounds"], player=meta["player"])


class RunConfig(BaseModel):
    """The settings shared by both trainers; see the module docstring.
    Subclasses set ``TRAINER`` (the value of the ``trainer`` key) and may
    extend ``check``. Constructing one validates it (``ValueError``)."""

    # strict: no silent conversions (a string is not a number, 1 is not True); ints are still
    # accepted where floats are expected (lr=1 means 1.0)
    model_config = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False, validate_default=True)
    TRAINER: ClassVar[str] = ""

    # --- run -------------------------------------------------------------
    trainer: str = setting(
        "sb3",
        "Which trainer reads this config: sb3 (trappola.train.sb3.config), rllib (trappola.train.rllib.config) "
        "or expert (trappola.train.expert.config).",
    )
    run_name: str = setting("run", "Folder of this run inside out_dir: one name, no path separator.")
    out_dir: str = setting("runs", "The run writes to out_dir/run_name/.")
    overwrite: bool = setting(
        False,
        "Replace an existing out_dir/run_name (else a run there is refused unless "
        "it resumes from a checkpoint inside it).",
    )
    seed: int = setting(
        0,
        "Seeds the deals, roles, opponent draws, network initialisation and minibatch order.",
        bounds=(0, MAX_SEED, "[]"),
    )
    total_timesteps: int = setting(
        2_000_000,
        "Length of the run in decisions; a resumed run continues up to this total (it does not add to it).",
        bounds=NON_NEGATIVE,
    )
    max_minutes: float = setting(0.0, "Wall-clock cap on the whole run; 0 = none.", bounds=NON_NEGATIVE)
    progress_bar: bool = setting(True, "Show a progress bar on stderr.")
    tensorboard: bool = setting(True, "Write TensorBoard logs to the run's tb/.")
    torch_threads: int = setting(2, "Torch threads of the training process.", bounds=AT_LEAST_1)
    device: str = setting(
        "auto",
        "Where the learner and the network opponents' forward passes run: auto (cuda when torch "
        "sees a GPU, else cpu), cpu or cuda (refused on a machine without a GPU).",
        choices=DEVICES,
    )
    # --- reward ------------------------------------------------------------
    reward_mode: str = setting(
        "mixed",
        "win: +1/-1/0; points: (own - opponent total) / points_scale; tokens: net "
        "tokens / tokens_scale; mixed: win + points_weight * points.",
        choices=TRAINING_REWARD_MODES,
    )
    points_scale: float = setting(
        POINTS_SCALE, "Divides the points difference (reward_mode points and mixed).", bounds=POSITIVE
    )
    tokens_scale: float = setting(TOKENS_SCALE, "Divides the net tokens (reward_mode tokens).", bounds=POSITIVE)
    points_weight: float = setting(
        POINTS_WEIGHT, "Weight of the points term in reward_mode mixed.", bounds=NON_NEGATIVE
    )
    # --- network and PPO ------------------------------------------------
    net_arch: list[int] = setting([256, 256], "Hidden layer sizes of the actor and of the critic.")
    activation: str = setting("relu", "Activation of the hidden layers.", choices=ACTIVATIONS)
    learning_rate: float = setting(3e-4, "PPO learning rate.", bounds=POSITIVE)
    lr_final_fraction: float = setting(
        0.2, "The learning rate decays linearly to this fraction of learning_rate.", bounds=OPEN_FRACTION
    )
    batch_size: int = setting(2048, "PPO minibatch size.", bounds=AT_LEAST_1)
    n_epochs: int = setting(4, "PPO epochs over each batch.", bounds=AT_LEAST_1)
    gamma: float = setting(1.0, "Discount; episodic, about 10 decisions: none needed.", bounds=OPEN_FRACTION)
    gae_lambda: float = setting(0.95, "GAE lambda.", bounds=FRACTION)
    clip_range: float = setting(0.2, "PPO clip range.", bounds=POSITIVE)
    ent_coef: float = setting(0.01, "Entropy bonus coefficient.", bounds=NON_NEGATIVE)
    vf_coef: float = setting(0.5, "Value loss coefficient.", bounds=NON_NEGATIVE)
    max_grad_norm: float = setting(0.5, "Gradient clipping (global norm).", bounds=POSITIVE)
    # --- opponents ---------------------------------------------------------
    snapshot_every: int = setting(
        100_000,
        "Decisions between frozen snapshots of the learner added to its opponents; 0 = never.",
        bounds=NON_NEGATIVE,
    )
    pool: dict = setting(
        {"self": 0.8, "random": 0.2},
        "Draw weights per episode: self = a frozen snapshot of the learner, exploiter = the league "
        "exploiters; any other key is a registered computer player's spec (rule, random, "
        "pimc:samples=4, policy...). One entry: pool.rule=0.5.",
    )
    pool_size: int = setting(8, "Most recent snapshots kept.", bounds=AT_LEAST_1)
    snapshot_latest_prob: float = setting(
        0.5, "Probability of drawing the latest snapshot, else a uniformly drawn older one.", bounds=FRACTION
    )
    opponent_deterministic: bool = setting(False, "Snapshots take their most likely move (else they sample).")
    resume: str = setting("", "Checkpoint .zip to continue from (its optimizer state and step count included).")
    init_from: str = setting(
        "",
        "Checkpoint .zip whose network (actor and critic) starts the run, with a fresh "
        "optimizer and step count, unlike resume; its net_arch and activation must be "
        "this config's; no BC then.",
    )
    alifer_value: str = setting(
        "replay",
        "An Alifer is replayed (docs/rules.md section 6): replay scores it as the "
        "running mean reward against that opponent; zero as 0.",
        choices=ALIFER_VALUES,
    )
    alifer_ema: float = setting(0.01, "Rate of that running mean.", bounds=OPEN_FRACTION)
    # --- behaviour cloning warm start ------------------------------------
    bc: bool = setting(True, "Behaviour cloning on the teacher's moves before PPO (not after resume or init_from).")
    bc_teacher: str = setting("rule", "The player whose moves are cloned.", player=True)
    bc_deals: int = setting(20_000, "Teacher deals; each gives both seats' decisions.", bounds=NON_NEGATIVE)
    bc_workers: int = setting(
        4, "Processes playing the teacher's games (more than cores helps on a shared machine).", bounds=AT_LEAST_1
    )
    bc_epochs: int = setting(8, "Epochs of behaviour cloning.", bounds=AT_LEAST_1)
    bc_batch_size: int = setting(1024, "Minibatch size of behaviour cloning.", bounds=AT_LEAST_1)
    bc_learning_rate: float = setting(1e-3, "Learning rate of behaviour cloning.", bounds=POSITIVE)
    bc_value_coef: float = setting(
        0.5, "Also fit the value head to the teacher games' returns, with this weight.", bounds=NON_NEGATIVE
    )
    # --- evaluation and checkpoints -------------------------------------
    eval_every: int = setting(200_000, "Decisions between evaluations; 0 = only at the end.", bounds=NON_NEGATIVE)
    eval_deals: int = setting(
        400,
        "Deals of each evaluation, each played twice with seats swapped (duplicate); "
        "0 = no evaluation and no best.zip.",
        bounds=NON_NEGATIVE,
    )
    eval_opponent: str = setting(
        "rule", "The player evaluations are against; best.zip is the best score against it.", player=True
    )
    eval_search_deals: int = setting(
        0,
        "Deals of a second, small duplicate match at each evaluation, against "
        "eval_search_opponent, logged but not used for best.zip; 0 = none.",
        bounds=NON_NEGATIVE,
    )
    eval_search_opponent: str = setting("pimc:samples=4", "The search player of that second match.", player=True)
    checkpoint_every: int = setting(500_000, "Decisions between writes of last.zip; 0 = never.", bounds=NON_NEGATIVE)
    keep_checkpoints: bool = setting(
        False, "Also keep each periodic checkpoint as checkpoints/<steps>.zip (a learning curve)."
    )

    # Where each setting came from, as the command line read it ("command line", a config file's name):
    # named in the lines a resume says about what it changed (trappola.train.run.resume).
    _setting_sources: dict = PrivateAttr(default_factory=dict)

    def __init__(self, **values):
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise ValueError(_one_line(type(self), exc)) from None

    @field_validator("*", mode="before")
    @classmethod
    def _empty_string(cls, value, info):
        """An empty YAML value (``resume:``) means "" where a string is expected."""
        if value is None and cls.model_fields[info.field_name].annotation in (str, "str"):
            return ""
        return value

    @model_validator(mode="after")
    def _rules(self):
        """What the types and ranges do not say: the trainer, folder names,
        the network's layers, choices, player specs, a GPU for ``device=cuda``,
        then ``check``."""
        if self.trainer != self.TRAINER:
            raise ValueError(
                f"trainer must be {self.TRAINER!r} in a {type(self).__name__} "
                f"(trappola.train.run.config_file.load_config reads each trainer's), got {self.trainer!r}"
            )
        name = self.run_name
        if name in ("", ".", "..") or any(c in name for c in ("/", "\\", "\0")) or (os.altsep and os.altsep in name):
            raise ValueError(
                f"run_name must be a folder name without a path separator (the run writes to "
                f"out_dir/run_name), got {name!r}"
            )
        if not self.out_dir:
            raise ValueError(f"out_dir must be a non-empty path, got {self.out_dir!r}")
        if not self.net_arch or any(n < 1 for n in self.net_arch):
            raise ValueError(f"net_arch must be a non-empty list of positive ints, got {self.net_arch!r}")
        for field, info in type(self).model_fields.items():
            extra, value = _extra(info), getattr(self, field)
            if extra.get("choices"):
                check_choice(field, value, extra["choices"])
            if extra.get("player"):
                check_player(field, value)
        check_device(self.device)
        self.check()
        return self

    def check(self) -> None:
        """Checks across the shared fields (the pool's members and weights,
        the checkpoints to start from); subclasses extend it."""
        if any(
            isinstance(w, bool) or not isinstance(w, (int, float)) or not 0 <= w < float("inf")
            for w in self.pool.values()
        ):
            raise ValueError(f"pool weights must be numbers >= 0, got {self.pool!r}")
        for member in self.pool:
            if member not in ("self", "exploiter"):
                check_player(f"pool member {member!r}", str(member))
        if sum(self.pool.values()) <= 0:
            raise ValueError(f"pool weights must not all be 0, got {self.pool!r}")
        if self.resume and not Path(self.resume).expanduser().is_file():
            raise ValueError(f"resume checkpoint not found: {self.resume}")
        if self.init_from and not Path(self.init_from).expanduser().is_file():
            raise ValueError(f"init_from checkpoint not found: {self.init_from}")
        if self.init_from and self.resume:
            raise ValueError(
                "init_from and resume exclude each other: resume continues a run, "
                "init_from starts a new one from a checkpoint's weights"
            )

    def players(self) -> dict[str, str]:
        """Setting -> spec of every player this run builds: the evaluation
        opponents when they play, the pool's drawn members and the
        behaviour-cloning teacher when it teaches."""
        used = {}
        if self.evaluates:
            used["eval_opponent"] = self.eval_opponent
            if self.eval_search_deals:
                used["eval_search_opponent"] = self.eval_search_opponent
        for member, weight in self.pool.items():
            if member not in ("self", "exploiter") and weight > 0:
                used[f"pool member {member!r}"] = str(member)
        if self.bc and not self.resume and not self.init_from:
            used["bc_teacher"] = self.bc_teacher
        return used

    @property
    def run_dir(self) -> Path:
        """``out_dir/run_name``, where the run writes."""
        return Path(self.out_dir) / self.run_name

    @property
    def evaluates(self) -> bool:
        """Whether the run evaluates its network (and so keeps a best.zip)."""
        return self.eval_deals > 0

    @property
    def setting_sources(self) -> dict[str, str]:
        """Setting -> where its value came from ("command line", a config
        file's name), as ``note_sources`` noted; {} by default."""
        return dict(self._setting_sources)

    def note_sources(self, sources: dict[str, str]) -> None:
        """Note where each setting's value came from (``setting_sources``)."""
        self._setting_sources = dict(sources)

    def to_dict(self) -> dict:
        """The settings as plain data (what ``config.yaml`` and checkpoints hold)."""
        return self.model_dump()


def field_help(cls: type[BaseModel], name: str) -> str:
    """The help text of ``cls``'s field ``name``."""
    return cls.model_fields[name].description or ""


def field_range(cls: type[BaseModel], name: str) -> str:
    """``cls``'s field ``name``'s range in words (">= 1", "in (0, 1]"), or "" without one."""
    bounds = _extra(cls.model_fields[name]).get("bounds")
    return describe_bounds(bounds) if bounds else ""


def field_choices(cls: type[BaseModel], name: str) -> tuple:
    """The values ``cls``'s field ``name`` allows, or () for any of its type."""
    return tuple(_extra(cls.model_fields[name]).get("choices") or ())


def type_name(annotation) -> str:
    """A field's type as ``--help`` shows it: int, float, str, bool, list, dict."""
    return getattr(annotation, "__origin__", annotation).__name__


def _one_line(cls: type[BaseModel], exc: ValidationError) -> str:
    """pydantic's first error as the project's one line: the field, what it must be, the value given."""
    error = exc.errors(include_url=False)[0]
    field = str(error["loc"][0]) if error["loc"] else ""
    value = error.get("input")
    info = cls.model_fields.get(field)
    kind = error["type"]
    if kind == "value_error":  # raised by a check of ours: its message as it is
        return str(error["ctx"]["error"])
    if info is None:
        return f"unknown config key {field!r}" if kind == "extra_forbidden" else error["msg"]
    if kind in _RANGE_ERRORS and _extra(info).get("bounds"):
        shown = float(value) if info.annotation in (float, "float") and isinstance(value, int) else value
        return f"{field} must be {describe_bounds(_extra(info)['bounds'])}, got {shown!r}"
    if kind == "finite_number":
        return f"{field} must be a finite number, got {value!r}"
    if len(error["loc"]) > 1:  # an element of a list or a mapping
        return f"{field}: element {error['loc'][1]!r} must be {type_name(int)}, got {value!r}"
    return f"config key {field!r} expects {type_name(info.annotation)}, got {value!r}"


def describe_bounds(bounds: tuple) -> str:
    """``bounds`` in words: "> 0", ">= 1", "in (0, 1]"."""
    low, high, closed = bounds
    if high == math.inf:
        return f"{'>' if closed[0] == '(' else '>='} {low}"
    return f"in {closed[0]}{low}, {high}{closed[1]}"


def load_players(cfg: RunConfig) -> None:
    """Build every player ``cfg`` will use (``cfg.players()``), reading
    their checkpoints, belief and opponent models now, before a run writes
    or trains anything; a file that is missing or unusable raises
    ``ValueError`` naming the setting."""
    from trappola.agents import make_player

    for name, spec in cfg.players().items():
        try:
            make_player(spec)
        except (ValueError, OSError) as exc:  # CheckpointError is a ValueError
            raise ValueError(f"{name} {spec!r}: {exc}") from None


def check_player(name: str, spec: str) -> None:
    """Raise ``ValueError`` unless ``spec`` is a registered computer
    player (a training opponent, evaluation opponent or teacher)."""
    from trappola.agents import check_spec

    try:
        cls = check_spec(spec)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None
    if cls.interactive:
        raise ValueError(f"{name} must be a computer player, got {spec!r}")
