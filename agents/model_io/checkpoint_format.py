"""Checkpoints: an sb3-contrib ``MaskablePPO`` zip plus ``trappola_meta.json``.

The metadata entry is added to the zip that ``model.save`` writes, so one
file carries both. It records the run's config, the seed, the training
steps, the package version, and the *signature* of the interfaces the
network depends on: the action table (names and a hash) and the
observation layout (version, size and a hash). A checkpoint is refused,
with a ``CheckpointError`` (a ``ValueError``) saying why, when

* the file is missing (``CheckpointNotFoundError``, also a ``FileNotFoundError``),
* it is not a readable zip, lacks the policy weights, or a member it
  reads fails its CRC check or would decompress to more than
  ``trappola.agents.model_io.zip_members.MAX_MEMBER_BYTES`` (corrupt; sizes are checked
  before anything is read, and only the metadata and the policy weights
  are read for play),
* it has no Trappola metadata (some other model), or its signature is
  not a mapping,
* its action table or observation layout differs from this code's, or
* its network does not fit: layer shapes that do not chain, an action
  head without one output per action, a NaN or infinite weight.

A plain ``MaskablePPO`` zip from a user's own SB3 loop (no metadata, but the
policy weights and SB3's ``data``) is played as if written by this code, with
a one-line warning (``plain_metadata``); ``trappola.train.run.checkpoint.adopt``
writes the metadata into it once and for all.

``read_metadata`` and ``check_compatible`` work without torch;
``load_policy`` returns the fast numpy actor (for playing). Writing
checkpoints and loading a full ``MaskablePPO`` for resuming are training's
business (``trappola.train.run.checkpoint``).
"""

from __future__ import annotations

import hashlib
import io
import json
import types
import zipfile
import zlib
from pathlib import Path

import numpy as np

from trappola.agents.model_io.numpy_policy import NumpyPolicy
from trappola.agents.model_io.zip_members import check_member_sizes
from trappola_env.engine.actions import ACTION_NAMES, N_ACTIONS

FORMAT_VERSION = 1
META_NAME = "trappola_meta.json"
POLICY_NAME = "policy.pth"
OPTIMIZER_NAME = "policy.optimizer.pth"


class CheckpointError(ValueError):
    """A checkpoint that cannot be used, with the reason."""


class CheckpointNotFoundError(CheckpointError, FileNotFoundError):
    """A checkpoint path that does not exist."""


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def action_table_signature() -> dict:
    """Size and hash of the 49-action table, stored in a checkpoint to refuse
    one written for another table."""
    return {"n_actions": N_ACTIONS, "hash": _sha("\n".join(ACTION_NAMES))}


def observation_signature(env: str = "trappola_v0") -> dict:
    """Version, size and hash of the observation layout of ``env``
    ("trappola_v0", or "bulka_v0" whose layout extends it)."""
    from trappola_env import observation as obs_mod

    mod: types.ModuleType
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
    # BULKA_OBS_SIZE first: bulka_v0 also imports trappola_v0's OBS_SIZE, which is not its size.
    for name in ("BULKA_OBS_SIZE", "OBS_DIM", "OBS_SIZE", "SESSION_OBS_DIM"):
        if hasattr(mod, name):
            return int(getattr(mod, name))
    return None


def current_signature(env: str = "trappola_v0") -> dict:
    """The action-table and observation-layout signatures of this code, for ``env``."""
    return {"actions": action_table_signature(), "observation": observation_signature(env)}


def _open(path) -> zipfile.ZipFile:
    path = Path(path)
    if not path.exists():
        raise CheckpointNotFoundError(f"checkpoint not found: {path}")
    if not path.is_file():
        raise CheckpointError(f"checkpoint path is not a file: {path}")
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise CheckpointError(f"checkpoint {path} is corrupt (not a readable zip: {exc})") from None
    try:
        check_member_sizes(zf, f"checkpoint {path}")
    except ValueError as exc:
        zf.close()
        raise CheckpointError(str(exc)) from None
    return zf


def _read(zf: zipfile.ZipFile, name: str, path) -> bytes:
    """One member, its CRC checked by the read (only the members a reader
    needs are decompressed, never the whole archive)."""
    try:
        return zf.read(name)
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError) as exc:
        raise CheckpointError(f"checkpoint {path} is corrupt (entry {name!r}: {exc})") from None


class MissingMetadataWarning(UserWarning):
    """A plain MaskablePPO zip played without the lab's metadata."""


def plain_activation(zf: zipfile.ZipFile, path) -> str:
    """The activation of a plain SB3 zip's policy, read from SB3's ``data``
    entry (``policy_kwargs``'s ``activation_fn``; SB3's default is tanh)."""
    try:
        data = json.loads(_read(zf, "data", path)) if "data" in zf.namelist() else {}
    except (ValueError, UnicodeDecodeError):
        data = {}
    kwargs = data.get("policy_kwargs", {}) if isinstance(data, dict) else {}
    text = str(kwargs.get("activation_fn", "tanh") if isinstance(kwargs, dict) else "tanh").lower()
    for name in ("relu", "tanh"):
        if name in text:
            return name
    raise CheckpointError(f"{path}: the policy's activation {text!r} is not one the lab plays (relu, tanh)")


def plain_metadata(path: str | Path, env: str = "trappola_v0") -> dict:
    """The metadata a plain MaskablePPO zip (no ``trappola_meta.json``) is
    played with: this code's signature, as if the zip was trained on this
    code's ``env``, and the activation its SB3 ``data`` names."""
    with _open(path) as zf:
        if POLICY_NAME not in zf.namelist():
            raise CheckpointError(f"{path} has no {META_NAME} and no {POLICY_NAME}: not a MaskablePPO checkpoint")
        activation = plain_activation(zf, path)
    return {
        "format_version": FORMAT_VERSION,
        "signature": current_signature(env),
        "policy_arch": {"activation": activation},
        "plain_sb3": True,
    }


def read_metadata(path: str | Path) -> dict:
    """The metadata of a checkpoint, after checking the file is intact. A
    plain MaskablePPO zip (no metadata) gives ``plain_metadata`` and one
    ``MissingMetadataWarning``."""
    with _open(path) as zf:
        names = set(zf.namelist())
        if META_NAME not in names and POLICY_NAME in names:
            import warnings

            warnings.warn(
                f"{path} has no {META_NAME}: played as a MaskablePPO policy on this code's observation "
                "(python -m trappola.train.run.checkpoint adopt SRC DST writes the metadata)",
                MissingMetadataWarning,
                stacklevel=2,
            )
            return plain_metadata(path)
        if META_NAME not in names:
            raise CheckpointError(
                f"{path} has no {META_NAME}: not a Trappola checkpoint (or saved without its metadata)"
            )
        if POLICY_NAME not in names:
            raise CheckpointError(f"checkpoint {path} is corrupt: it has no {POLICY_NAME}")
        try:
            meta = json.loads(_read(zf, META_NAME, path))
        except (ValueError, UnicodeDecodeError) as exc:
            raise CheckpointError(f"checkpoint {path} is corrupt: unreadable {META_NAME} ({exc})") from None
    if not isinstance(meta, dict) or "signature" not in meta:
        raise CheckpointError(f"checkpoint {path} is corrupt: {META_NAME} lacks the signature")
    sig = meta["signature"]
    if not isinstance(sig, dict) or not all(isinstance(sig.get(k, {}), dict) for k in ("actions", "observation")):
        raise CheckpointError(
            f"checkpoint {path} is corrupt: the signature in {META_NAME} is not a mapping of mappings (got {sig!r:.80})"
        )
    return meta


def check_compatible(meta: dict, path: str | Path = "checkpoint", env: str | None = None) -> None:
    """Raise ``CheckpointError`` naming every mismatch between the
    checkpoint's signature and this code's."""
    if meta.get("format_version") != FORMAT_VERSION:
        raise CheckpointError(
            f"{path}: checkpoint format {meta.get('format_version')!r}, this code reads format {FORMAT_VERSION}"
        )
    sig = meta.get("signature")
    if not isinstance(sig, dict) or not all(isinstance(sig.get(k, {}), dict) for k in ("actions", "observation")):
        raise CheckpointError(f"{path}: the checkpoint's signature is not a mapping of mappings (got {sig!r:.80})")
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
        raise CheckpointError(
            f"{path} is incompatible with this version of trappola_env "
            f"(package {meta.get('package_version')!r} wrote it): " + "; ".join(problems)
        )


def load_state_dict(path: str | Path) -> dict:
    """The policy network's weights (a torch ``state_dict``, on the CPU) from a
    checkpoint; ``CheckpointError`` if it is missing, not a file or damaged."""
    import torch

    with _open(path) as zf:
        if POLICY_NAME not in zf.namelist():
            raise CheckpointError(f"checkpoint {path} is corrupt: it has no {POLICY_NAME}")
        data = _read(zf, POLICY_NAME, path)
    try:
        return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for a damaged pickle
        raise CheckpointError(f"checkpoint {path} is corrupt: cannot read {POLICY_NAME} ({exc})") from None


def load_policy(path: str | Path, env: str | None = None):
    """(``NumpyPolicy``, metadata) of a compatible checkpoint."""
    meta = read_metadata(path)
    check_compatible(meta, path, env)
    activation = meta.get("policy_arch", {}).get("activation", "relu")
    try:
        policy = NumpyPolicy.from_state_dict(load_state_dict(path), activation)
    except (KeyError, ValueError) as exc:
        raise CheckpointError(f"checkpoint {path} is corrupt: {exc}") from None
    want = meta["signature"]["observation"].get("dim")
    if want is not None and policy.obs_dim != want:
        raise CheckpointError(f"checkpoint {path}: network input size {policy.obs_dim} != observation size {want}")
    check_weights(policy, path)
    return policy, meta


def check_weights(policy: NumpyPolicy, path: str | Path = "checkpoint") -> None:
    """Raise ``CheckpointError`` unless the actor's action head has one
    output per action of this code's table and every weight is finite (a
    NaN logit would let masked sampling pick an illegal action)."""
    w, b = policy.head
    if policy.n_actions != N_ACTIONS or b.shape != (N_ACTIONS,):
        raise CheckpointError(
            f"checkpoint {path}: the action head has {policy.n_actions} outputs "
            f"(bias {b.shape}), the action table has {N_ACTIONS} actions"
        )
    for i, (weight, bias) in enumerate([*policy.layers, policy.head]):
        if not (np.isfinite(weight).all() and np.isfinite(bias).all()):
            where = "action head" if i == len(policy.layers) else f"layer {i}"
            raise CheckpointError(f"checkpoint {path} is corrupt: the {where} has non-finite (NaN or inf) weights")
