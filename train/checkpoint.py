"""Checkpoints: an sb3-contrib ``MaskablePPO`` zip plus ``trappola_meta.json``.

The metadata entry is added to the zip that ``model.save`` writes, so one
file carries both. It records the run's config, the seed, the training
steps, the package version, and the *signature* of the interfaces the
network depends on: the action table (names and a hash) and the
observation layout (version, size and a hash). A checkpoint is refused,
with a ``CheckpointError`` (a ``ValueError``) saying why, when

* the file is missing (``CheckpointNotFoundError``, also a ``FileNotFoundError``),
* it is not a readable zip or lacks the policy weights (corrupt),
* it has no Trappola metadata (some other model), or
* its action table or observation layout differs from this code's.

``read_metadata`` and ``check_compatible`` work without torch;
``load_model`` returns a full ``MaskablePPO`` (for resuming) and
``load_policy`` the fast numpy actor (for playing).
"""
from __future__ import annotations

import hashlib
import io
import json
import time
import zipfile
from pathlib import Path

from trappola_env.engine.actions import ACTION_NAMES, N_ACTIONS

FORMAT_VERSION = 1
META_NAME = "trappola_meta.json"
POLICY_NAME = "policy.pth"
OPTIMIZER_NAME = "policy.optimizer.pth"


class CheckpointError(ValueError):
    """A checkpoint that cannot be used, with the reason."""


class CheckpointNotFoundError(CheckpointError, FileNotFoundError):
    pass


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def action_table_signature() -> dict:
    return {"n_actions": N_ACTIONS, "hash": _sha("\n".join(ACTION_NAMES))}


def observation_signature(env: str = "trappola_v0") -> dict:
    """Version, size and hash of the observation layout of ``env``
    ("trappola_v0", or "bulka_v0" whose layout extends it)."""
    from trappola_env import observation as obs_mod

    if env == "bulka_v0":
        from trappola_env import bulka_v0 as mod
    elif env == "trappola_v0":
        mod = obs_mod
    else:
        raise ValueError(f"env must be 'trappola_v0' or 'bulka_v0', got {env!r}")
    layout = _layout_of(mod) or _layout_of(obs_mod)
    dim = _dim_of(mod) or _dim_of(obs_mod)
    version = getattr(mod, "OBS_VERSION", getattr(obs_mod, "OBS_VERSION", None))
    return {"env": env, "version": version, "dim": dim, "hash": _sha(repr(layout) if layout else f"dim={dim}")}


def _layout_of(mod):
    for name in ("OBS_LAYOUT", "LAYOUT", "SESSION_LAYOUT"):
        if hasattr(mod, name):
            return getattr(mod, name)
    return None


def _dim_of(mod):
    for name in ("OBS_DIM", "OBS_SIZE", "SESSION_OBS_DIM"):
        if hasattr(mod, name):
            return int(getattr(mod, name))
    return None


def current_signature(env: str = "trappola_v0") -> dict:
    return {"actions": action_table_signature(), "observation": observation_signature(env)}


def build_metadata(config: dict, seed: int, num_timesteps: int, env: str = "trappola_v0", **extra) -> dict:
    import trappola_env

    meta = {
        "format_version": FORMAT_VERSION,
        "package_version": trappola_env.__version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "seed": seed,
        "num_timesteps": int(num_timesteps),
        "config": config,
        "signature": current_signature(env),
    }
    meta.update(extra)
    return meta


def write_metadata(path: str | Path, meta: dict) -> None:
    """Add (or replace) the metadata entry of an existing checkpoint zip."""
    path = Path(path)
    with zipfile.ZipFile(path) as zf:
        entries = [(i, zf.read(i.filename)) for i in zf.infolist() if i.filename != META_NAME]
    tmp = path.with_suffix(path.suffix + ".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        for info, data in entries:
            zf.writestr(info, data)
        zf.writestr(META_NAME, json.dumps(meta, indent=1, sort_keys=True, default=str))
    tmp.replace(path)


def save_checkpoint(model, path: str | Path, meta: dict) -> Path:
    """``model.save`` then the metadata entry; returns the ``.zip`` path."""
    path = Path(path)
    if path.suffix != ".zip":
        path = path.with_suffix(".zip")
    path.parent.mkdir(parents=True, exist_ok=True)
    model.save(path)
    # Taken from the model itself, so a config that disagrees cannot mislead the loader.
    meta = {**meta, "policy_arch": {"activation": model.policy.activation_fn.__name__.lower(),
                                    "net_arch": model.policy.net_arch}}
    write_metadata(path, meta)
    return path


def export_for_play(src: str | Path, dst: str | Path, **extra_meta) -> Path:
    """Copy a checkpoint without the optimizer state (about a third of the
    size): enough for playing and evaluating, not for resuming.
    ``extra_meta`` is merged into the metadata (e.g. the Pro policy)."""
    meta = read_metadata(src)
    check_compatible(meta, src)
    meta = {**meta, **extra_meta, "optimizer_state": False, "exported_from": str(src)}
    dst = Path(dst)
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_suffix(dst.suffix + ".tmp")
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if info.filename not in (META_NAME, OPTIMIZER_NAME):
                zout.writestr(info.filename, zin.read(info.filename), zipfile.ZIP_DEFLATED)
        zout.writestr(META_NAME, json.dumps(meta, indent=1, sort_keys=True, default=str))
    tmp.replace(dst)
    return dst


def _open(path) -> zipfile.ZipFile:
    path = Path(path)
    if not path.exists():
        raise CheckpointNotFoundError(f"checkpoint not found: {path}")
    if not path.is_file():
        raise CheckpointError(f"checkpoint path is not a file: {path}")
    try:
        zf = zipfile.ZipFile(path)
        bad = zf.testzip()
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise CheckpointError(f"checkpoint {path} is corrupt (not a readable zip: {exc})") from None
    if bad is not None:
        zf.close()
        raise CheckpointError(f"checkpoint {path} is corrupt (entry {bad!r} fails its CRC check)")
    return zf


def read_metadata(path: str | Path) -> dict:
    """The metadata of a checkpoint, after checking the file is intact."""
    with _open(path) as zf:
        names = set(zf.namelist())
        if META_NAME not in names:
            raise CheckpointError(f"{path} has no {META_NAME}: not a Trappola checkpoint "
                                  "(or saved without train.checkpoint.save_checkpoint)")
        if POLICY_NAME not in names:
            raise CheckpointError(f"checkpoint {path} is corrupt: it has no {POLICY_NAME}")
        try:
            meta = json.loads(zf.read(META_NAME))
        except (ValueError, UnicodeDecodeError) as exc:
            raise CheckpointError(f"checkpoint {path} is corrupt: unreadable {META_NAME} ({exc})") from None
    if not isinstance(meta, dict) or "signature" not in meta:
        raise CheckpointError(f"checkpoint {path} is corrupt: {META_NAME} lacks the signature")
    return meta


def check_compatible(meta: dict, path: str | Path = "checkpoint", env: str | None = None) -> None:
    """Raise ``CheckpointError`` naming every mismatch between the
    checkpoint's signature and this code's."""
    if meta.get("format_version") != FORMAT_VERSION:
        raise CheckpointError(f"{path}: checkpoint format {meta.get('format_version')!r}, "
                              f"this code reads format {FORMAT_VERSION}")
    sig = meta["signature"]
    env = env or sig.get("observation", {}).get("env", "trappola_v0")
    now = current_signature(env)
    problems = []
    if sig.get("actions") != now["actions"]:
        problems.append(f"action table {sig.get('actions')} != current {now['actions']}")
    got, want = sig.get("observation", {}), now["observation"]
    for key in ("version", "dim", "hash"):
        if got.get(key) != want.get(key):
            problems.append(f"observation layout {key} {got.get(key)!r} != current {want.get(key)!r}")
    if problems:
        raise CheckpointError(f"{path} is incompatible with this version of trappola_env "
                              f"(package {meta.get('package_version')!r} wrote it): " + "; ".join(problems))


def load_state_dict(path: str | Path) -> dict:
    import torch

    with _open(path) as zf:
        if POLICY_NAME not in zf.namelist():
            raise CheckpointError(f"checkpoint {path} is corrupt: it has no {POLICY_NAME}")
        data = zf.read(POLICY_NAME)
    try:
        return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for a damaged pickle
        raise CheckpointError(f"checkpoint {path} is corrupt: cannot read {POLICY_NAME} ({exc})") from None


def load_policy(path: str | Path, env: str | None = None):
    """(``NumpyPolicy``, metadata) of a compatible checkpoint."""
    from .numpy_policy import NumpyPolicy

    meta = read_metadata(path)
    check_compatible(meta, path, env)
    activation = meta.get("policy_arch", {}).get("activation", "relu")
    try:
        policy = NumpyPolicy.from_state_dict(load_state_dict(path), activation)
    except (KeyError, ValueError) as exc:
        raise CheckpointError(f"checkpoint {path} is corrupt: {exc}") from None
    want = meta["signature"]["observation"].get("dim")
    if want is not None and policy.obs_dim != want:
        raise CheckpointError(f"checkpoint {path}: network input size {policy.obs_dim} != "
                              f"observation size {want}")
    return policy, meta


def load_model(path: str | Path, env=None, device: str = "cpu", **kwargs):
    """(``MaskablePPO``, metadata) of a compatible checkpoint; ``env`` is
    attached for further training."""
    from sb3_contrib import MaskablePPO

    meta = read_metadata(path)
    check_compatible(meta, path)
    if meta.get("optimizer_state") is False:
        raise CheckpointError(f"{path} was exported for play without its optimizer state and cannot be "
                              f"resumed; resume from the run's last.zip or best.zip "
                              f"({meta.get('exported_from', 'unknown')})")
    try:
        model = MaskablePPO.load(path, env=env, device=device, **kwargs)
    except Exception as exc:
        raise CheckpointError(f"checkpoint {path} could not be loaded by MaskablePPO: {exc}") from None
    return model, meta


def main(argv=None) -> int:
    """``python -m train.checkpoint info PATH`` prints the metadata (after
    validation); ``python -m train.checkpoint export SRC DST`` writes a
    play-only copy (no optimizer state), as shipped in ``models/``."""
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) == 2 and args[0] == "info":
        meta = read_metadata(args[1])
        check_compatible(meta, args[1])
        print(json.dumps(meta, indent=1, sort_keys=True, default=str))
        return 0
    if len(args) == 3 and args[0] == "export":
        print(export_for_play(args[1], args[2]))
        return 0
    print("usage: python -m train.checkpoint info PATH | export SRC DST", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
