"""Writing checkpoints (``save_checkpoint``, ``export_for_play``) and
loading a full ``MaskablePPO`` to resume training (``load_model``); ``adopt``
makes a plain MaskablePPO zip from one's own SB3 loop a lab checkpoint
(``python -m trappola.train.run.checkpoint adopt SRC DST``).

The format, its validation and loading the actor for play live with the
players (``trappola.agents.model_io.checkpoint_format``): an sb3-contrib ``MaskablePPO`` zip plus a
``trappola_meta.json`` entry carrying the run's config, seed, steps,
package version and the signature of the action table and observation
layout the network depends on.
"""

from __future__ import annotations

import io
import json
import time
import zipfile
from importlib.metadata import version
from pathlib import Path

from trappola.agents.model_io.checkpoint_format import (
    FORMAT_VERSION,
    META_NAME,
    OPTIMIZER_NAME,
    CheckpointError,
    check_compatible,
    check_weights,
    current_signature,
    load_state_dict,
    plain_metadata,
    read_metadata,
)
from trappola.agents.model_io.numpy_policy import NumpyPolicy
from trappola_env.atomic_file import describe_os_error, write_bytes


def build_metadata(config: dict, seed: int, num_timesteps: int, env: str = "trappola_v0", **extra) -> dict:
    """The ``trappola_meta.json`` of a checkpoint.

    :param config: the run's settings
    :param seed: the run's seed
    :param num_timesteps: learner steps trained so far
    :param env: the environment whose action table and observation layout the network reads
    :param extra: further entries (the behaviour-cloning report, the run's outcome...)
    :return: the metadata, with the package version and the interfaces' signature
    """
    meta = {
        "format_version": FORMAT_VERSION,
        "package_version": version("trappola-lab"),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "seed": seed,
        "num_timesteps": int(num_timesteps),
        "config": config,
        "signature": current_signature(env),
    }
    meta.update(extra)
    return meta


def _meta_json(meta: dict) -> str:
    return json.dumps(meta, indent=1, sort_keys=True, default=str)


def write_metadata(path: str | Path, meta: dict) -> None:
    """Add (or replace) the metadata entry of an existing checkpoint zip
    (the file is replaced whole: a crash leaves the old one)."""
    path = Path(path)
    buf = io.BytesIO()
    with zipfile.ZipFile(path) as zin, zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if info.filename != META_NAME:
                zout.writestr(info, zin.read(info.filename))
        zout.writestr(META_NAME, _meta_json(meta))
    write_bytes(path, buf.getvalue())


def save_checkpoint(model, path: str | Path, meta: dict) -> Path:
    """``model.save`` plus the metadata entry, written as one file
    atomically (a kill or a full disk during the save leaves the previous
    checkpoint intact); returns the ``.zip`` path. Its tensors are on the
    CPU whatever ``model.device`` (checkpoints are device-free)."""
    path = Path(path)
    if path.suffix != ".zip":
        path = path.with_suffix(".zip")
    path.parent.mkdir(parents=True, exist_ok=True)
    # Taken from the model itself, so a config that disagrees cannot mislead the loader.
    meta = {
        **meta,
        "policy_arch": {"activation": model.policy.activation_fn.__name__.lower(), "net_arch": model.policy.net_arch},
    }
    buf = io.BytesIO()
    model.save(buf)
    if model.device.type != "cpu":
        buf = _tensors_on_cpu(buf.getvalue())
    with zipfile.ZipFile(buf, "a", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(META_NAME, _meta_json(meta))
    write_bytes(path, buf.getvalue())
    return path


def _tensors_on_cpu(data: bytes) -> io.BytesIO:
    """The SB3 zip ``data`` with every torch entry (weights, optimizer
    state) rewritten on the CPU: a model trained on a GPU saves a
    checkpoint that any ``torch.load`` reads on a machine without one."""
    import torch

    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            body = zin.read(info.filename)
            if info.filename.endswith(".pth"):
                moved = io.BytesIO()
                torch.save(torch.load(io.BytesIO(body), map_location="cpu", weights_only=True), moved)
                body = moved.getvalue()
            zout.writestr(info, body)
    return out


def export_for_play(src: str | Path, dst: str | Path, **extra_meta) -> Path:
    """Copy a checkpoint without the optimizer state (about a third of the
    size): enough for playing and evaluating, not for resuming.
    ``extra_meta`` is merged into the metadata (e.g. the Pro policy)."""
    meta = read_metadata(src)
    check_compatible(meta, src)
    meta = {**meta, **extra_meta, "optimizer_state": False, "exported_from": str(src)}
    dst = Path(dst)
    dst.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if info.filename not in (META_NAME, OPTIMIZER_NAME):
                zout.writestr(info.filename, zin.read(info.filename), zipfile.ZIP_DEFLATED)
        zout.writestr(META_NAME, _meta_json(meta))
    write_bytes(dst, buf.getvalue())
    return dst


def adopt(src: str | Path, dst: str | Path, env: str = "trappola_v0") -> Path:
    """Make a plain MaskablePPO zip trained in one's own SB3 loop (on
    ``trappola.train.selfplay.single_agent``'s environment, or any with this
    code's observation and actions) a lab checkpoint: ``dst`` is ``src``
    with the metadata written in (this code's signature, the policy's
    activation and layers, ``adopted_from``); ``CheckpointError`` if ``src``
    is no MaskablePPO zip or its network does not fit this code."""
    meta = {**plain_metadata(src, env), "package_version": version("trappola-lab"), "adopted_from": str(src)}
    meta.pop("plain_sb3")
    policy = NumpyPolicy.from_state_dict(load_state_dict(src), meta["policy_arch"]["activation"])
    check_weights(policy, src)
    want = meta["signature"]["observation"].get("dim")
    if want is not None and policy.obs_dim != want:
        raise CheckpointError(f"{src}: network input size {policy.obs_dim} != observation size {want}")
    dst = Path(dst)
    dst.parent.mkdir(parents=True, exist_ok=True)
    with open(src, "rb") as f:
        write_bytes(dst, f.read())
    write_metadata(dst, meta)
    return dst


def load_model(path: str | Path, env=None, device: str = "cpu", **kwargs):
    """(``MaskablePPO``, metadata) of a compatible checkpoint; ``env`` is
    attached for further training; its tensors go to ``device`` whichever
    device wrote them (SB3 loads with ``map_location=device``)."""
    from sb3_contrib import MaskablePPO

    meta = read_metadata(path)
    check_compatible(meta, path)
    if meta.get("optimizer_state") is False:
        raise CheckpointError(
            f"{path} was exported for play without its optimizer state and cannot be "
            f"resumed; resume from the run's last.zip or best.zip "
            f"({meta.get('exported_from', 'unknown')})"
        )
    try:
        model = MaskablePPO.load(path, env=env, device=device, **kwargs)
    except Exception as exc:
        raise CheckpointError(f"checkpoint {path} could not be loaded by MaskablePPO: {exc}") from None
    check_weights(NumpyPolicy.from_sb3(model.policy), path)
    bad = [name for name, t in model.policy.state_dict().items() if not t.isfinite().all()]
    if bad:
        raise CheckpointError(f"checkpoint {path} is corrupt: non-finite (NaN or inf) weights in {', '.join(bad)}")
    return model, meta


def main(argv=None) -> int:
    """``python -m trappola.train.run.checkpoint info PATH`` prints the metadata (after
    validation); ``python -m trappola.train.run.checkpoint export SRC DST`` writes a
    play-only copy (no optimizer state), as shipped in ``models/``. A bad
    checkpoint or a file that cannot be written: one line, status 2."""
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    try:
        return _command(args)
    except OSError as exc:  # a full disk, a read-only folder, a missing file
        print(f"error: {describe_os_error(exc)}", file=sys.stderr)
    except ValueError as exc:  # CheckpointError
        print(f"error: {exc}", file=sys.stderr)
    return 2


def _command(args: list[str]) -> int:
    """``main`` for the arguments ``args``."""
    import sys

    if len(args) == 2 and args[0] == "info":
        meta = read_metadata(args[1])
        check_compatible(meta, args[1])
        print(json.dumps(meta, indent=1, sort_keys=True, default=str))
        return 0
    if len(args) == 3 and args[0] == "export":
        print(export_for_play(args[1], args[2]))
        return 0
    if len(args) == 3 and args[0] == "adopt":
        print(adopt(args[1], args[2]))
        return 0
    usage = "usage: python -m trappola.train.run.checkpoint info PATH | export SRC DST | adopt SRC DST"
    if args in (["-h"], ["--help"]):
        print(usage)
        return 0
    print(usage, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
