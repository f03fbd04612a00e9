"""A run's settings from a YAML file and command-line overrides.

``load_config(path, overrides)`` reads a YAML file (unknown keys are an
error, so a typo never silently falls back to a default) and then applies
command-line overrides, each either ``key=value`` or ``--key value``
(``--key=value`` too). Nested mappings use dots: ``pool.rule=0.5``. Values
are parsed as YAML scalars/lists (``net_arch=[128,128]``, ``bc=false``) and
checked by the config class (pydantic: types, ranges, then the project's rules).

The file's ``trainer`` key picks the config class (``trainer_of``,
``config_class``): ``sb3`` (the default) is ``trappola.train.sb3.config.TrainConfig``,
``rllib`` is ``trappola.train.rllib.config.RLlibConfig``. The configs in
``configs/`` ship inside the package: ``resolve_config`` finds a
user's file from the working directory, or a shipped config by name
(``ppo_selfplay``, ``demo``, ``rllib_selfplay``) wherever the package is installed.
"""

from __future__ import annotations

import typing
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from trappola.train.expert.config import ExpertConfig
from trappola.train.rllib.config import RLlibConfig
from trappola.train.run.config import RunConfig
from trappola.train.sb3.config import TrainConfig

#: The value of a config's ``trainer`` key -> its config class.
CONFIG_CLASSES = {"sb3": TrainConfig, "rllib": RLlibConfig, "expert": ExpertConfig}
TRAINERS = tuple(CONFIG_CLASSES)
DEFAULT_CONFIG_NAME = "ppo_selfplay"


def config_class(trainer: str) -> type:
    """The config class of a ``trainer`` ("sb3" or "rllib")."""
    if trainer not in CONFIG_CLASSES:
        raise ValueError(f"trainer must be one of {TRAINERS}, got {trainer!r}")
    return CONFIG_CLASSES[trainer]


def config_from_dict(data: dict, base: RunConfig | None = None, cls: type[RunConfig] | None = None) -> RunConfig:
    """A new config: ``base`` (default: the defaults of ``cls``, itself by
    default ``TrainConfig`` or the type of ``base``) updated with ``data``.
    Dotted keys (``pool.rule``) update one entry of a mapping field. Raises
    ``ValueError`` for an unknown key (with its reason for a key the class
    names in ``NOT_CARRIED``) or a bad value."""
    cls = cls or (type(base) if base is not None else TrainConfig)
    values = (base if base is not None else cls()).to_dict()
    known = cls.model_fields
    for key, value in data.items():
        top, _, sub = str(key).partition(".")
        refused = getattr(cls, "NOT_CARRIED", {}).get(top)
        if refused:
            raise ValueError(f"config key {top!r} does not carry over to trainer {cls.TRAINER!r}: {refused}")
        if top not in known:
            close = [n for n in known if n.startswith(top[:3])]
            raise ValueError(f"unknown config key {key!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        if sub:
            if known[top].annotation is not dict:
                raise ValueError(f"config key {top!r} is not a mapping; cannot set {key!r}")
            values[top] = {**values[top], sub: value}
        else:
            values[top] = value
    return cls(**values)


def parse_overrides(argv: typing.Sequence[str]) -> dict:
    """``["a=1", "--b", "2", "--c=x"]`` -> ``{"a": 1, "b": 2, "c": "x"}``,
    values parsed as YAML scalars, dashes in keys read as underscores."""
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
    config, ``ppo_selfplay``. Raises ``FileNotFoundError``."""
    if path is None:
        path = DEFAULT_CONFIG_NAME
    p = Path(path).expanduser()
    if p.is_file():
        return p
    if p.is_dir():
        raise ValueError(f"--config {path} is a directory; give a config file (.yaml) or a shipped config's name")
    shipped = shipped_configs()
    # "configs/NAME.yaml" also names a shipped config (its path in a checkout before installing)
    if p.parent in (Path("."), Path("configs")) and p.stem in shipped and p.suffix in ("", ".yaml"):
        return shipped[p.stem]
    raise FileNotFoundError(f"config file not found: {path} (shipped configs: {', '.join(sorted(shipped))})")


def load_config(path: str | Path | None = None, overrides: typing.Sequence[str] | dict = (), cls: type | None = None):
    """The config of ``path`` (YAML; None = defaults) with ``overrides``
    (``key=value`` strings or a dict), as a ``cls`` (default: the class of
    the file's ``trainer``, ``TrainConfig`` without a file)."""
    data: dict[str, Any] = {}
    if path is not None:
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"config file not found: {path}")
        data = _read_yaml(path) or {}
        if not isinstance(data, dict):
            raise ValueError(f"config file {path} must hold a mapping of settings, got {type(data).__name__}")
    cls = cls or config_class(data.get("trainer", "sb3") if path is not None else "sb3")
    cfg = config_from_dict(data, cls=cls)
    extra = overrides if isinstance(overrides, dict) else parse_overrides(overrides)
    return config_from_dict(extra, cfg) if extra else cfg


def read_settings(path: str | Path) -> dict:
    """The settings a config file sets (its mapping, unchecked)."""
    data = _read_yaml(Path(path)) or {}
    if not isinstance(data, dict):
        raise ValueError(f"config file {path} must hold a mapping of settings, got {type(data).__name__}")
    return data


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
