"""Finding and reading the trained network a player plays or models with.

The ``policy`` player plays a checkpoint's actor; ``pimc:infer=...`` reads
the opponent's play through one (``trappola.agents.search.inference``). Both name it the
same way: ``default`` is the model shipped inside the package
(``agents/models/default.zip``, found through ``importlib.resources``, so it
works wherever the package is installed), any other value a path relative
to the working directory. A file is read once per version (its mtime).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from trappola.agents.model_io.checkpoint_format import CheckpointNotFoundError, load_policy

#: The ``path`` setting that means "the model shipped with the package".
DEFAULT_MODEL = "default"
_CACHE: dict = {}  # (resolved path, mtime) -> (NumpyPolicy, metadata)


def shipped_model_path() -> Path:
    """The model shipped inside the package (``agents/models/default.zip``)."""
    return Path(str(resources.files("trappola.agents") / "models" / "default.zip"))


def resolve_model_path(path: str) -> Path:
    """``default`` is the shipped model; any other path is the user's,
    relative to the working directory."""
    if path == DEFAULT_MODEL:
        return shipped_model_path()
    return Path(path).expanduser()


def load_checkpoint_policy(path: str):
    """(NumpyPolicy, metadata) of a checkpoint, cached per file version;
    raises ``ValueError`` (``trappola.agents.model_io.checkpoint_format.CheckpointError``) if unusable."""
    p = resolve_model_path(path)
    if not p.exists():
        raise CheckpointNotFoundError(f"policy checkpoint not found: {path!r} (looked in {Path.cwd()})")
    key = (str(p.resolve()), p.stat().st_mtime_ns)
    if key not in _CACHE:
        _CACHE[key] = load_policy(p, env="trappola_v0")
    return _CACHE[key]


__all__ = ["DEFAULT_MODEL", "load_checkpoint_policy", "resolve_model_path", "shipped_model_path"]
