"""The settings every training run has, whichever trainer runs it.

``RunConfig`` is the base of ``TrainConfig`` (SB3, ``trappola.train.sb3.config``)
and ``RLlibConfig`` (``trappola.train.rllib.config``). Every field is declared
with ``setting(default, help, ...)``: its help text (which ``trappola train
--help`` prints, ``trappola.train.train_command``), its allowed values
(``choices``), its range (``bounds``) and whether it names a computer
player (``player``) travel with it, so ``validate`` checks every field of
every trainer the same way, written once here. A subclass adds its own
fields the same way, changes a shared field's default with ``redefine``,
and adds checks across fields in ``check``.

A name in both trainers means the same thing (``total_timesteps``,
``out_dir``, ``run_name``, ``net_arch``, ``learning_rate``...). Reading a
YAML file and command-line overrides into a config is
``trappola.train.config_file``.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import os
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import ClassVar

from trappola.train.choices import check_choice
from trappola.train.devices import DEVICES, check_device
from trappola.train.networks import ACTIVATIONS
from trappola.train.selfplay.reward import POINTS_SCALE, POINTS_WEIGHT, REWARD_MODES, TOKENS_SCALE

#: Seeds are passed to numpy, torch and Python's random, and offsets are added to them.
MAX_SEED = 2**31 - 1

# (low, high, brackets) of a setting's range: "(]" means low < value <= high.
AT_LEAST_1 = (1, math.inf, "[)")
NON_NEGATIVE = (0, math.inf, "[)")
POSITIVE = (0, math.inf, "()")
FRACTION = (0, 1, "[]")
OPEN_FRACTION = (0, 1, "(]")  # above 0, at most 1

#: The Python type of each annotation a setting may have (``from __future__ import annotations``
#: leaves them as strings).
TYPES = {"str": str, "int": int, "float": float, "bool": bool, "list": list, "dict": dict}


def setting(default, help: str, *, choices: tuple = (), bounds: tuple | None = None, player: bool = False):
    """A config field: ``default`` (a list or dict is copied for each
    config), ``help`` (one or two sentences, shown by ``trappola train
    --help``), ``choices`` (the allowed values), ``bounds`` (``(low, high,
    brackets)``, e.g. ``POSITIVE``) and ``player`` (the value must be a
    registered computer player's spec). Returns a ``dataclasses.field``."""
    meta = {"help": " ".join(help.split()), "choices": tuple(choices), "bounds": bounds, "player": player}
    if isinstance(default, (list, dict)):
        return dataclasses.field(default_factory=lambda: copy.deepcopy(default), metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


def redefine(base: type, name: str, default, **changes):
    """``base``'s field ``name`` with another ``default`` for a subclass
    (its help, choices, bounds kept unless given in ``changes``)."""
    meta = {**base.__dataclass_fields__[name].metadata, **changes}
    return setting(default, meta["help"], choices=meta["choices"], bounds=meta["bounds"], player=meta["player"])


@dataclass
class RunConfig:
    """The settings shared by both trainers; see the module docstring.
    Subclasses set ``TRAINER`` (the value of the ``trainer`` key) and may
    extend ``check``. Constructing one validates it (``ValueError``)."""

    TRAINER: ClassVar[str] = ""

    # --- run -------------------------------------------------------------
    trainer: str = setting(
        "sb3",
        "Which trainer reads this config: sb3 (trappola.train.sb3.config) or rllib (trappola.train.rllib.config).",
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
    total_timesteps: int = setting(2_000_000, "Length of the run in decisions.", bounds=NON_NEGATIVE)
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
        choices=REWARD_MODES,
    )
    points_scale: float = setting(
        POINTS_SCALE, "Divides the points difference (reward_mode points and mixed).", bounds=POSITIVE
    )
    tokens_scale: float = setting(TOKENS_SCALE, "Divides the net tokens (reward_mode tokens).", bounds=POSITIVE)
    points_weight: float = setting(
        POINTS_WEIGHT, "Weight of the points term in reward_mode mixed.", bounds=NON_NEGATIVE
    )
    # --- network and PPO ------------------------------------------------
    net_arch: list = setting([256, 256], "Hidden layer sizes of the actor and of the critic.")
    activation: str = setting("relu", "Activation of the hidden layers.", choices=ACTIVATIONS)
    learning_rate: float = setting(3e-4, "PPO learning rate.", bounds=POSITIVE)
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

    def __post_init__(self):
        self.validate()

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first bad setting: types, the
        trainer, folder and seed rules, finite numbers, choices, ranges,
        player specs, a GPU for ``device=cuda``, then the subclass's ``check``."""
        for f in fields(self):
            setattr(self, f.name, coerce(f.name, getattr(self, f.name), f.type))
        if self.trainer != self.TRAINER:
            raise ValueError(
                f"trainer must be {self.TRAINER!r} in a {type(self).__name__} "
                f"(trappola.train.config_file.load_config reads each trainer's), got {self.trainer!r}"
            )
        name = self.run_name
        if name in ("", ".", "..") or any(c in name for c in ("/", "\\", "\0")) or (os.altsep and os.altsep in name):
            raise ValueError(
                f"run_name must be a folder name without a path separator (the run writes to "
                f"out_dir/run_name), got {name!r}"
            )
        if not self.out_dir:
            raise ValueError(f"out_dir must be a non-empty path, got {self.out_dir!r}")
        arch = self.net_arch
        if not arch or any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in arch):
            raise ValueError(f"net_arch must be a non-empty list of positive ints, got {arch!r}")
        for f in fields(self):
            value, meta = getattr(self, f.name), f.metadata
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError(f"{f.name} must be a finite number, got {value!r}")
            if meta.get("choices"):
                check_choice(f.name, value, meta["choices"])
            if meta.get("bounds") and not in_bounds(value, meta["bounds"]):
                raise ValueError(f"{f.name} must be {describe_bounds(meta['bounds'])}, got {value!r}")
            if meta.get("player"):
                check_player(f.name, value)
        check_device(self.device)
        self.check()

    def check(self) -> None:
        """Checks across fields, for subclasses (the base has none)."""

    @property
    def run_dir(self) -> Path:
        """``out_dir/run_name``, where the run writes."""
        return Path(self.out_dir) / self.run_name

    @property
    def evaluates(self) -> bool:
        """Whether the run evaluates its network (and so keeps a best.zip)."""
        return self.eval_deals > 0

    def to_dict(self) -> dict:
        """The settings as plain data (what ``config.yaml`` and checkpoints hold)."""
        return asdict(self)


def field_help(cls: type, name: str) -> str:
    """The help text of ``cls``'s field ``name``."""
    return cls.__dataclass_fields__[name].metadata.get("help", "")


def coerce(name: str, value, annotation: str):
    """``value`` checked against a field's declared type (raises
    ``ValueError`` naming the field); ints are accepted where floats are
    expected (``lr=1`` means 1.0), integral floats where ints are, and
    None where a string is (as "")."""
    kind = TYPES[annotation]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if kind is int and isinstance(value, float) and value.is_integer():
        return int(value)
    if kind is str and value is None:
        return ""
    if kind is not bool and isinstance(value, bool) or not isinstance(value, kind):
        raise ValueError(f"config key {name!r} expects {annotation}, got {value!r}")
    return value


def in_bounds(value, bounds: tuple) -> bool:
    """Whether ``value`` lies in ``bounds`` = ``(low, high, brackets)``."""
    low, high, closed = bounds
    above = low < value if closed[0] == "(" else low <= value
    below = value < high if closed[1] == ")" else value <= high
    return above and below


def describe_bounds(bounds: tuple) -> str:
    """``bounds`` in words: "> 0", ">= 1", "in (0, 1]"."""
    low, high, closed = bounds
    if high == math.inf:
        return f"{'>' if closed[0] == '(' else '>='} {low}"
    return f"in {closed[0]}{low}, {high}{closed[1]}"


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
