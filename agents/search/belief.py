"""A learned reading of the opponent's hand from its play (inference).

``pimc`` samples every layout the record allows as equally likely
(``trappola.agents.search.sampling``). Players do not choose cards at random, though: an
opponent that lets a valuable trick go probably holds nothing that would
have won it. The belief model puts that into numbers. It is a small MLP, trained
by ``python -m trappola.train.fit.belief_fit`` on recorded games, that reads a seat's
``trappola_v0`` observation and gives, for each of the 36 cards, how much
more (or less) likely the opponent is to hold it than the record alone says:
log-odds added to those of the uniform posterior.

Its use is to weight layouts: a layout drawn uniformly among the consistent
ones gets weight ``exp(sum of the model's log-odds of the cards it gives the
opponent)``. The uniform posterior's own log-odds are the same for every
card of one constraint group, and every layout holds the same number of
cards of each group, so they would multiply every weight alike: the model's
part is all that is needed. Every layout keeps the hard constraints of the
record (the draws come from ``trappola.agents.search.sampling``); the model only reorders
which of them matter.

The file is an ``.npz`` of the layers (``w0, b0, w1, b1, ...``, ReLU between
them) and a JSON ``meta`` string recording how it was trained. The model
shipped with the package is ``agents/models/belief.npz``.
"""

from __future__ import annotations

import json
import zipfile
import zlib
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from trappola.agents.model_io.zip_members import check_member_sizes
from trappola_env.atomic_file import atomic_write
from trappola_env.observation import OBS_SIZE

#: The ``belief`` setting that means "the model shipped with the package".
DEFAULT_BELIEF = "default"
_CACHE: dict = {}  # (resolved path, mtime) -> BeliefModel


def shipped_belief_path() -> Path:
    """The belief model shipped inside the package (``agents/models/belief.npz``)."""
    return Path(str(resources.files("trappola.agents") / "models" / "belief.npz"))


class BeliefModel:
    """Log-odds of each card being in the opponent's hand beyond the uniform
    posterior, from one seat's observation. ``layers``: [(W, b), ...], ReLU between them; the last
    layer gives 36 outputs."""

    def __init__(self, layers: list, meta: dict | None = None):
        self.layers = [(np.ascontiguousarray(w, dtype=np.float32), np.asarray(b, dtype=np.float32)) for w, b in layers]
        if not self.layers:
            raise ValueError("a belief model needs at least one layer")
        for i, (w, b) in enumerate(self.layers):
            if w.ndim != 2 or b.shape != w.shape[:1] or (i and w.shape[1] != self.layers[i - 1][0].shape[0]):
                raise ValueError(f"belief layer {i} has weights {w.shape} and bias {b.shape}: they do not chain")
        for i, (w, b) in enumerate(self.layers):
            if not (np.isfinite(w).all() and np.isfinite(b).all()):
                # A NaN or inf weight would silently reweight every layout (play changes, nothing fails).
                raise ValueError(f"belief layer {i} has non-finite (NaN or inf) weights")
        if self.layers[0][0].shape[1] != OBS_SIZE or self.layers[-1][0].shape[0] != 36:
            raise ValueError(
                f"a belief model maps {OBS_SIZE} observation entries to 36 cards, this one "
                f"{self.layers[0][0].shape[1]} to {self.layers[-1][0].shape[0]}"
            )
        self.meta = dict(meta or {})

    def log_odds(self, obs: np.ndarray) -> np.ndarray:
        """Per card (36, or (n, 36) for a batch of observations)."""
        x = np.asarray(obs, dtype=np.float32)[..., :OBS_SIZE]
        for w, b in self.layers[:-1]:
            x = np.maximum(x @ w.T + b, 0.0)
        w, b = self.layers[-1]
        return x @ w.T + b

    def layout_weights(self, obs: np.ndarray, hands: np.ndarray) -> np.ndarray:
        """Normalised weights of opponent hands (int64 bit sets), from one
        observation: proportional to the product of the odds of their cards."""
        z = self.log_odds(obs).astype(np.float64)
        bits = (np.asarray(hands, dtype=np.int64)[:, None] >> np.arange(36)) & 1
        s = bits @ z
        w = np.exp(s - s.max())
        return w / w.sum()

    def save(self, path) -> None:
        """Write the layers and metadata to ``path`` as an ``.npz`` file (atomically)."""
        arrays: dict[str, Any] = {}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"], arrays[f"b{i}"] = w, b
        with atomic_write(path, "wb") as f:  # a file object: np.savez would append ".npz" to a bare name
            np.savez(f, meta=np.array(json.dumps(self.meta)), **arrays)

    @classmethod
    def load(cls, path) -> BeliefModel:
        """Read a model written by ``save``; a missing, damaged or oversized file raises ``ValueError``."""
        path = Path(path)
        if not path.exists():
            raise ValueError(f"belief model not found: {str(path)!r}")
        try:
            with zipfile.ZipFile(path) as zf:  # sizes first: np.load would decompress whatever a member claims
                check_member_sizes(zf, f"belief model {str(path)!r}")
            with np.load(path, allow_pickle=False) as z:
                n = sum(1 for k in z.files if k.startswith("w"))
                layers = [(z[f"w{i}"], z[f"b{i}"]) for i in range(n)]
                meta = json.loads(str(z["meta"])) if "meta" in z.files else {}
            if not isinstance(meta, dict):
                raise ValueError(f"its meta must be a JSON object, got {type(meta).__name__}")
            return cls(layers, meta)
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as e:
            raise ValueError(f"{str(path)!r} is not a belief model file: {e}") from None


def load_belief(spec: str) -> BeliefModel:
    """``default`` (the shipped model) or a path; cached per file version."""
    path = shipped_belief_path() if spec == DEFAULT_BELIEF else Path(spec).expanduser()
    if not path.exists():
        raise ValueError(
            f"belief model not found: {spec!r}" + (f" (looked in {Path.cwd()})" if spec != DEFAULT_BELIEF else "")
        )
    key = (str(path.resolve()), path.stat().st_mtime_ns)
    if key not in _CACHE:
        _CACHE[key] = BeliefModel.load(path)
    return _CACHE[key]


__all__ = ["BeliefModel", "DEFAULT_BELIEF", "load_belief", "shipped_belief_path"]
