"""What a resumed run continues: the resumed run's own settings, and every
change to them said.

A checkpoint records the settings of the run that wrote it (its metadata's
``config``). ``trappola train resume=PATH`` with no ``--config`` starts
from those (``resumed_settings``), so a resume continues the run it
resumes (its reward mode, network, evaluation deals...); a config file
named with ``--config`` and the command line's settings override them.
Every setting that then differs from the resumed run's is one line of
``changes`` (``reward_mode: points (resumed run) -> mixed
(ppo_selfplay.yaml)``), said in ``train.log`` by ``trappola.train.run.log``
and kept in the resume's own ``config.resume-<steps>.yaml`` beside the
run's ``config.yaml``, which is never written over.

The settings a checkpoint fixes (``FIXED``: the network's shape and
activation, the privileged critic's observation) cannot change: a value
that comes from a config file's default follows the checkpoint, and one
asked for explicitly that differs is refused in one line naming both
(``check_fixed``).
"""

from __future__ import annotations

import json
from pathlib import Path

from trappola.agents.model_io.checkpoint_format import CheckpointError, read_metadata

#: The settings a checkpoint's network fixes.
FIXED = ("net_arch", "activation", "privileged_critic")
#: Settings of a run that say nothing about how it trains once resumed.
NOT_COMPARED = ("resume", "init_from", "overwrite")


def recorded_config(path: str | Path) -> dict:
    """The settings recorded in the checkpoint ``path`` (its metadata's
    ``config``; {} when it records none)."""
    config = read_metadata(path).get("config")
    return dict(config) if isinstance(config, dict) else {}


def resumed_settings(path: str | Path, known: dict) -> dict:
    """The recorded settings of the checkpoint ``path`` that the config
    class with fields ``known`` takes, without those that belong to the
    resumed run alone (``NOT_COMPARED``): the base of a resume without
    ``--config``."""
    return {k: v for k, v in recorded_config(path).items() if k in known and k not in NOT_COMPARED}


def checkpoint_fixed(path: str | Path) -> dict:
    """The ``FIXED`` settings of the network in the checkpoint ``path``,
    from what the model itself recorded (``policy_arch``), else from its
    run's settings."""
    meta = read_metadata(path)
    config: dict = meta["config"] if isinstance(meta.get("config"), dict) else {}
    arch: dict = meta["policy_arch"] if isinstance(meta.get("policy_arch"), dict) else {}
    out = {k: config[k] for k in FIXED if k in config}
    net = arch.get("net_arch")
    if isinstance(net, dict):  # SB3 keeps the actor's and the critic's layers apart; the lab's are the same
        net = net.get("pi")
    if isinstance(net, list) and net:
        out["net_arch"] = [int(n) for n in net]
    if arch.get("activation"):
        out["activation"] = str(arch["activation"]).lower()
    return out


def follow_checkpoint(path: str | Path, values: dict, explicit: set[str]) -> dict:
    """``values`` (a config's settings) with each ``FIXED`` setting not
    in ``explicit`` (the keys the command line or the config file set)
    taken from the checkpoint ``path``."""
    fixed = checkpoint_fixed(path)
    return {**values, **{k: v for k, v in fixed.items() if k not in explicit and k in values}}


def check_fixed(cfg, path: str | Path) -> None:
    """Raise ``CheckpointError`` in one line if ``cfg`` asks for a
    ``FIXED`` setting other than the checkpoint's ``path`` has."""
    for key, value in checkpoint_fixed(path).items():
        asked = getattr(cfg, key, value)
        if asked != value:
            raise CheckpointError(
                f"{key}: the checkpoint {path} has {json.dumps(value)}, the config asks {json.dumps(asked)}; "
                f"a checkpoint's {key} cannot change (leave it out, or set {key}={json.dumps(value)})"
            )


def changes(recorded: dict, now: dict, sources: dict | None = None) -> list[str]:
    """One line per setting of ``now`` that differs from ``recorded`` (the
    resumed run's), ``key: old (resumed run) -> new (source)``; ``sources``
    names where each new value came from (default "this run")."""
    sources = sources or {}
    lines = []
    for key, value in now.items():
        if key in NOT_COMPARED or key not in recorded or recorded[key] == value:
            continue
        lines.append(f"{key}: {show(recorded[key])} (resumed run) -> {show(value)} ({sources.get(key, 'this run')})")
    return lines


def show(value) -> str:
    """A setting's value as the command line writes it (``mixed``, ``[64, 64]``)."""
    return value if isinstance(value, str) else json.dumps(value)


def resume_changes(cfg) -> list[str]:
    """``changes`` between the run ``cfg`` resumes and ``cfg`` (none when
    it resumes nothing or the checkpoint records no settings), with the
    sources the command line noted (``cfg`` attribute ``setting_sources``)."""
    if not getattr(cfg, "resume", ""):
        return []
    try:
        recorded = recorded_config(cfg.resume)
    except CheckpointError:
        return []
    return changes(recorded, cfg.to_dict(), getattr(cfg, "setting_sources", None))
