"""How evaluators take players: a registry spec (``"rule:declare=never"``)
or a ``Player`` object.

Specs are checked once here (a bad one raises ``ValueError`` before any
work starts) and rebuilt inside each worker process, cached per process;
``Player`` objects are used as they are (pickled to workers, so they must be
picklable; interactive players force the serial backend). Either way the
evaluator resets every player before every partie, so a cached player's
past never leaks into a result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:
    from trappola.agents.base import Player

PlayerSource = Union[str, "Player"]

_CACHE: dict = {}


def source_of(player) -> PlayerSource:
    """A validated spec (its canonical form) or the ``Player`` itself."""
    from trappola.agents import make_player
    from trappola.agents.base import Player

    if isinstance(player, Player):
        return player
    if isinstance(player, str):
        made = make_player(player)
        if made.interactive:
            return made
        return made.name
    raise ValueError(f"a player is a spec like 'rule' or an agents Player, got {player!r}")


def player_label(source: PlayerSource) -> str:
    """The label of a player source: the spec itself, or the player's name."""
    return source if isinstance(source, str) else source.name


def build_players(sources) -> list:
    """Player objects for ``sources``; specs come from this process's cache
    (one object per spec and position, so a player never plays itself)."""
    from trappola.agents import make_player

    out = []
    for pos, s in enumerate(sources):
        if isinstance(s, str):
            key = (s, pos)
            if key not in _CACHE:
                _CACHE[key] = make_player(s)
            out.append(_CACHE[key])
        else:
            out.append(s)
    return out


#: Settings that name a file, by what the file is (``policy``: ``path`` and its endgame's; ``pimc``: its own).
FILE_SETTINGS = {
    "path": "model",
    "belief": "belief",
    "endgame_belief": "belief",
    "infer": "opponent model",
    "endgame_infer": "opponent model",
}


def sha256_of(path) -> str:
    """The SHA-256 of a file's bytes, in hex."""
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _file_of(setting: str, value: str):
    """The file a file setting's value names (the shipped ones resolved), or None for an empty value."""
    from importlib import resources
    from pathlib import Path

    from trappola.agents.model_io.model_files import resolve_model_path
    from trappola.agents.search.belief import DEFAULT_BELIEF, shipped_belief_path
    from trappola.agents.search.inference import SHIPPED_OPPONENT_MODELS

    if not value:
        return None
    role = FILE_SETTINGS[setting]
    if role == "model":
        return resolve_model_path(value)
    if role == "belief":
        return shipped_belief_path() if value == DEFAULT_BELIEF else Path(value).expanduser()
    if value in SHIPPED_OPPONENT_MODELS:
        return Path(str(resources.files("trappola.agents") / "models" / SHIPPED_OPPONENT_MODELS[value]))
    return Path(value).expanduser()


def describe_player(source: PlayerSource) -> dict:
    """What played: ``spec`` (the label results use), ``kind``, ``settings`` (every setting, defaults
    included, so a ``policy`` shows its endgame search, samples, belief and inference), ``files`` (each
    file a setting names: ``setting``, ``role``, ``value``, ``file`` (its name; the shipped ones as
    ``shipped:NAME``), ``sha256``) and ``warnings`` (e.g. a belief fitted on another model's games,
    or one that does not record which model's games it was fitted on)."""
    from trappola.agents.model_io.model_files import DEFAULT_MODEL

    player = build_players([source])[0] if isinstance(source, str) else source
    settings = dict(getattr(player, "settings", {}) or {})
    out: dict = {"spec": player_label(source), "kind": getattr(player, "kind", type(player).__name__)}
    out["settings"] = {k: v for k, v in settings.items() if isinstance(v, (str, int, float, bool)) or v is None}
    files, warnings = [], []
    for key, value in settings.items():
        if key not in FILE_SETTINGS or not isinstance(value, str):
            continue
        path = _file_of(key, value)
        if path is None:
            continue
        shipped = value in ("default", "policy", "pimc")  # the names of the shipped files (see _file_of)
        entry = {
            "setting": key,
            "role": FILE_SETTINGS[key],
            "value": value,
            "file": f"shipped:{path.name}" if shipped else str(value),
            "sha256": sha256_of(path) if path.exists() else None,
        }
        files.append(entry)
    model = next((f for f in files if f["role"] == "model"), None)
    for f in files:
        if f["role"] != "belief" or model is None or not settings.get("endgame"):
            continue
        warning = belief_warning(f, model, settings.get("path") == DEFAULT_MODEL)
        if warning:
            warnings.append(warning)
    out["files"], out["warnings"] = files, warnings
    return out


def belief_warning(belief: dict, model: dict, shipped_model: bool) -> str | None:
    """A warning when the belief file ``belief`` (a ``describe_player`` file entry) was fitted on games
    of a model other than ``model``'s, or does not say which; None when it names this model's hash,
    or when both are the shipped files (fitted together; the shipped belief predates hash records)."""
    from trappola.agents.search.belief import load_belief

    fitted = load_belief(belief["value"]).meta
    hashes = fitted.get("model_sha256") or {}
    if model["sha256"] in hashes.values():
        return None
    if hashes:
        return (
            f"the belief {belief['file']} was fitted on games of {', '.join(sorted(hashes))} "
            f"(other model files than {model['file']})"
        )
    if shipped_model and belief["value"] == "default":
        return None
    pairs = ", ".join(" vs ".join(p) for p in fitted.get("pairs", [])) or "unknown players"
    return (
        f"the belief {belief['file']} does not record which model's games it was fitted on "
        f"({pairs}); {model['file']} may not be that model"
    )
