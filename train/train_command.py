"""``trappola train``: the command line of both trainers.

    trappola train [--config FILE|NAME] [key=value | --key value ...]
    trappola train [--config FILE|NAME] --help

The config file's ``trainer`` picks the trainer (``sb3``:
``trappola.train.sb3.ppo_selfplay``; ``rllib``: ``trappola.train.rllib.selfplay``) and
so the settings the command takes: every field of its config class is an
option, its help text the field's (``trappola.train.run.config.setting``),
so ``--help`` lists exactly what the config accepts. A bad setting, an
unusable run folder, checkpoint or player file, or a file that cannot be
written ends the command with one line on stderr and exit status 2; a run
stopped by Ctrl-C (saved, ``trappola.train.run.interrupt``) with status 130.
"""

from __future__ import annotations

import json
import sys
import textwrap

from trappola.train.run.config import field_choices, field_help, field_range, type_name
from trappola.train.run.config_file import load_config, resolve_config, trainer_of
from trappola.train.run.interrupt import INTERRUPTED_STATUS
from trappola_env.atomic_file import describe_os_error

#: What the command prints of the summary at the end of a run.
PRINTED = ("best", "final", "best_score", "timesteps", "minutes")


def help_text(cfg, config_name: str = "ppo_selfplay") -> str:
    """The ``--help`` of ``trappola train`` for the config ``cfg`` (read
    from the file ``config_name``): usage, then every field of its class as
    ``--name TYPE`` with its help, its value in ``cfg``, its allowed values
    and its range."""
    cls = type(cfg)
    about = (
        f"Training with the settings of {cls.__name__} ({cls.__module__}): the config file (here "
        f"{config_name}) sets them, the options below override it. The file's `trainer` key picks the "
        "trainer: sb3 (the default, e.g. --config ppo_selfplay) or rllib (--config rllib_selfplay); "
        "--config NAME --help lists that config's settings. Values are YAML: net_arch=[128,128], "
        "bc=false; a mapping takes one entry as pool.rule=0.5."
    )
    lines = [
        "usage: trappola train [--config FILE|NAME] [key=value | --key value ...]",
        "",
        *textwrap.wrap(about, 100),
        "",
        "settings (with their value in the config file):",
    ]
    for name, info in cls.model_fields.items():
        extra = [f"{config_name}: {json.dumps(getattr(cfg, name))}"]
        if field_choices(cls, name):
            extra.append("one of " + ", ".join(map(str, field_choices(cls, name))))
        if field_range(cls, name):
            extra.append(field_range(cls, name))
        text = f"{field_help(cls, name)} ({'; '.join(extra)})"
        lines.append(f"  --{name} {type_name(info.annotation).upper()}")
        lines.extend(textwrap.wrap(text, 100, initial_indent="      ", subsequent_indent="      "))
    return "\n".join(lines)


def split_config(argv: list[str]) -> tuple[str | None, list[str]]:
    """(``--config`` value or None, the other arguments); ``ValueError``
    if ``--config`` has no value."""
    config, rest = None, []
    i = 0
    while i < len(argv):
        if argv[i] == "--config":
            if i + 1 >= len(argv):
                raise ValueError("--config needs a file")
            config = argv[i + 1]
            i += 2
        elif argv[i].startswith("--config="):
            config = argv[i].split("=", 1)[1]
            i += 1
        else:
            rest.append(argv[i])
            i += 1
    return config, rest


def run_trainer(cfg) -> dict:
    """Run ``cfg`` with its trainer; returns the run's summary."""
    if cfg.trainer == "rllib":
        from trappola.train.rllib.selfplay import train as train_rllib

        return train_rllib(cfg)
    from trappola.train.sb3 import ppo_selfplay

    return ppo_selfplay.train(cfg)


def cli_main(argv=None) -> int:
    """Entry point of ``trappola train`` (``argv`` without the subcommand;
    default ``sys.argv[1:]``); returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        config, rest = split_config(argv)
        path = resolve_config(config)
        trainer = trainer_of(path)
        if any(a in ("-h", "--help") for a in rest):
            print(help_text(load_config(path), config or "ppo_selfplay"))
            return 0
        if trainer == "rllib":
            try:
                import ray  # noqa: F401
            except ImportError:
                raise ValueError("an RLlib config needs Ray: pip install 'trappola-lab[ray]'") from None
        cfg = load_config(path, rest)
        summary = run_trainer(cfg)
    except OSError as exc:  # FileNotFoundError included: a config that is not there
        print(f"error: {describe_os_error(exc)}", file=sys.stderr)
        return 2
    except ValueError as exc:  # bad settings, an unusable run folder or checkpoint (RunDirError, CheckpointError)
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C before the run watches for it, or after it saved
        print("interrupted", file=sys.stderr)
        return INTERRUPTED_STATUS
    print(json.dumps({k: summary[k] for k in PRINTED}, indent=1))
    return INTERRUPTED_STATUS if summary.get("interrupted") else 0
