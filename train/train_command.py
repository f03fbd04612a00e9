"""``trappola train``: the command line of both trainers.

    trappola train [--config FILE|NAME] [key=value | --key value ...]
    trappola train [--config FILE|NAME] --help

The config file's ``trainer`` picks the trainer (``sb3``:
``trappola.train.sb3.ppo_selfplay``; ``rllib``: ``trappola.train.rllib.selfplay``;
``expert``: ``trappola.train.expert.iteration``) and
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
from pathlib import Path
from typing import Any

from trappola.train.rllib.address import check_reachable
from trappola.train.run.config import field_choices, field_help, field_range, type_name
from trappola.train.run.config_file import (
    config_class,
    config_from_dict,
    load_config,
    parse_overrides,
    read_settings,
    resolve_config,
)
from trappola.train.run.interrupt import INTERRUPTED_STATUS, exit_status
from trappola.train.run.resume import follow_checkpoint, recorded_config, resumed_settings
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
        "trainer: sb3 (the default, e.g. --config ppo_selfplay), rllib (--config rllib_selfplay) or expert "
        "(--config expert_iteration); "
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


def build_config(config: str | None, argv: list[str]):
    """The run's config from ``--config`` (None: none given) and the other
    arguments. A resume (``resume=PATH``) without ``--config`` starts from
    the resumed run's recorded settings, not the default config file
    (``trappola.train.run.resume``); with or without it, a setting the
    checkpoint fixes (``resume``'s or ``init_from``'s) that neither the file
    nor the command line sets follows the checkpoint. Without ``--config`` a checkpoint in a run's
    folder (one with its ``config.yaml``) continues that folder, wherever it
    was moved. The config notes where each setting came from."""
    overrides = parse_overrides(argv)
    given = {str(k).partition(".")[0] for k in overrides}
    resume = overrides.get("resume")
    start = resume or overrides.get("init_from")  # the checkpoint whose network the run continues
    if not start:
        return load_config(resolve_config(config), overrides)
    if resume and config is None:
        recorded = recorded_config(resume)
        cls: Any = config_class(str(recorded.get("trainer", "sb3")))
        base = resumed_settings(resume, cls.model_fields)
        sources, explicit = {}, given
        folder = Path(resume).expanduser().parent
        if (folder / "config.yaml").is_file():  # a run's folder, wherever it is now: the resume continues it
            base.update(out_dir=str(folder.parent), run_name=folder.name)
            sources = {"out_dir": "the checkpoint's folder", "run_name": "the checkpoint's folder"}
        cfg = config_from_dict(overrides, config_from_dict(base, cls=cls))
    else:
        path = resolve_config(config)
        cfg = load_config(path, overrides)
        in_file = set(read_settings(path))
        sources = {k: path.name for k in in_file}
        explicit = in_file | given if config is not None else given  # the default file asks for nothing
    values = follow_checkpoint(start, cfg.to_dict(), explicit)
    if values != cfg.to_dict():
        cfg = type(cfg)(**values)
    cfg.note_sources({**sources, **{k: "command line" for k in given}})
    return cfg


def run_trainer(cfg) -> dict:
    """Run ``cfg`` with its trainer; returns the run's summary."""
    if cfg.trainer == "rllib":
        from trappola.train.rllib.selfplay import train as train_rllib

        return train_rllib(cfg)
    if cfg.trainer == "expert":
        from trappola.train.expert.iteration import train as train_expert

        return train_expert(cfg)
    from trappola.train.sb3 import ppo_selfplay

    return ppo_selfplay.train(cfg)


def cli_main(argv=None) -> int:
    """Entry point of ``trappola train`` (``argv`` without the subcommand;
    default ``sys.argv[1:]``); returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        config, rest = split_config(argv)
        if any(a in ("-h", "--help") for a in rest):
            path = resolve_config(config)
            print(help_text(load_config(path), config or "ppo_selfplay"))
            return 0
        cfg = build_config(config, rest)
        if cfg.trainer == "rllib":
            if cfg.address:  # before Ray and the trainer are even imported: a wrong address is a typo's cost
                check_reachable(cfg.address)
            try:
                import ray  # noqa: F401
            except ImportError:
                raise ValueError("an RLlib config needs Ray: pip install 'trappola-lab[ray]'") from None
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
    return exit_status(summary.get("signal")) if summary.get("interrupted") else 0
