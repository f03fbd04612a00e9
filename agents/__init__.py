"""Players behind one interface (``trappola.agents.base``) and the registry that
builds them from a name.

    from trappola.agents import make_player
    make_player("rule")                       # defaults
    make_player("random:alifer=false")        # name:key=value,key=value
    make_player("pimc:samples=32")            # agents/players/pimc.py
    make_player("policy:path/to/model.zip")   # a bare first value is the positional setting

A spec is ``name`` or ``name:item,item,...`` where each item is
``key=value``; a player class may name one setting ``POSITIONAL`` so that
its first item may be given bare (``policy:model.zip``). Unknown names or
settings, and values of the wrong type, raise ``ValueError`` listing what
exists. Every player's ``name`` is its canonical spec (defaults left out),
so ``make_player(player.name)`` rebuilds an equivalent player; the
evaluator relies on that to build players inside worker processes.

A user's own class plays from its file: ``make_player("path/to/mine.py:HighCard")``
(settings after a second colon), and installed packages add players through
the ``trappola.players`` entry-point group (``trappola.agents.registry``).

Every list of players is derived from the rows the classes declare
(``kind``, ``HELP``, ``SETTINGS``, ``ENDGAME``, ``WEB``); player modules are
imported on first use, so ``random`` and ``rule`` never pay for numba
(``pimc``, ``agents/players/pimc.py``) or the policy network (``policy``,
``agents/players/policy.py``); an install without a player's optional
dependency answers with a clear ``ValueError``. To add a player: write a
module in ``agents/players/`` whose ``Player`` subclass declares its row, and
add the module's name to ``agents/players/__init__.py``'s ``MODULES``
(CONTRIBUTING.md has the recipe).
"""

from __future__ import annotations

from trappola.agents import registry
from trappola.agents.base import Player

#: name -> ``PlayerRow`` (help, class, settings, endgame searches, web bounds), derived
#: from the classes' own rows; a lookup imports only what the name needs.
REGISTRY = registry.RegistryView()


def available_players() -> list[str]:
    """The registered player kinds, in registration order."""
    return list(REGISTRY)


def parse_spec(spec: str) -> tuple[str, list[str], dict[str, str]]:
    """Split ``name:item,item`` into (name, bare items, {key: value})."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"a player spec must be a non-empty string like 'rule' or 'random:alifer=false', got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    bare: list[str] = []
    settings: dict[str, str] = {}
    if rest.strip():
        for item in rest.split(","):
            item = item.strip()
            if not item:
                raise ValueError(f"empty setting in player spec {spec!r}")
            key, eq, value = item.partition("=")
            if not eq:
                if settings:
                    raise ValueError(f"in {spec!r}: the bare value {item!r} must come first")
                bare.append(item)
                continue
            key = key.strip().lower()
            if not key:
                raise ValueError(f"in {spec!r}: setting {item!r} has no name")
            if key in settings:
                raise ValueError(f"in {spec!r}: setting {key!r} given twice")
            settings[key] = value.strip()
    return name, bare, settings


#: Former names -> (the name now, why it changed).
RENAMED = {"epimc": ("vecpimc", "it is not the EPIMC of Arjonilla, Saffidine and Cazenave 2024")}


def player_class(name: str) -> type[Player]:
    """The class registered under ``name`` (imported on first use), or the
    class a ``path/file.py:Class`` spec names."""
    if registry.is_file_spec(name):
        return registry.file_class(name)[0]
    key = name.strip().lower()
    if key in RENAMED:
        now, reason = RENAMED[key]
        raise ValueError(f"player {key!r} is now {now!r}: {reason} (CHANGELOG)")
    row = registry.find_row(key)
    if row is None:
        why = registry.missing_message(key)
        if why is not None:
            raise ValueError(why)
        left_out = "; ".join(registry.missing().values())
        known = ", ".join(registry.rows())
        raise ValueError(f"unknown player {name!r}; available: {known}" + (f" ({left_out})" if left_out else ""))
    return row.player


def _class_and_settings(spec: str) -> tuple[type[Player], dict[str, str]]:
    if registry.is_file_spec(spec):
        cls, rest = registry.file_class(spec)
        _, bare, settings = parse_spec("file:" + rest if rest.strip() else "file")
        name = cls.SPEC_NAME or cls.kind
    else:
        name, bare, settings = parse_spec(spec)
        cls = player_class(name)
    if bare:
        positional = getattr(cls, "POSITIONAL", None)
        if positional is None or len(bare) > 1:
            known = ", ".join(sorted(cls.SETTINGS)) or "none"
            raise ValueError(f"in {spec!r}: settings are key=value (player {name!r} settings: {known})")
        settings = {positional: bare[0], **settings}
    return cls, settings


def make_player(spec: str, **overrides) -> Player:
    """Build a player from a spec (see the module docstring); keyword
    ``overrides`` win over settings in the spec (e.g. ``stdin=`` for human)."""
    cls, settings = _class_and_settings(spec)
    settings.update(overrides)
    return cls(**settings)


def check_spec(spec: str) -> type[Player]:
    """The class a spec names, after checking its name and settings as
    ``make_player`` would, without building the player (so no checkpoint
    is read); a bad spec raises ``ValueError``."""
    cls, settings = _class_and_settings(spec)
    cls._validate(settings)
    return cls


def describe_players() -> str:
    """Every registered player with its settings, for ``--help`` texts."""
    lines = []
    for name, row in registry.rows().items():
        lines.append(f"  {name:<8} {row.help}")
        for key, s in row.settings.items():
            default = s.default if not isinstance(s.default, bool) else str(s.default).lower()
            bounds = s.bounds()
            lines.append(f"           {key}={default!s:<10} {s.help}" + (f" [{bounds}]" if bounds else ""))
    for why in registry.missing().values():
        lines.append(f"  ({why})")
    return "\n".join(lines)


def split_player_list(text: str) -> list[str]:
    """Split ``"rule:declare=never,manko=false,random"`` into player specs:
    a comma starts a new player unless the next item is a ``key=value``
    (player names never contain ``=``)."""
    out: list[str] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            raise ValueError(f"empty player in {text!r}")
        if "=" in item and ":" not in item.split("=", 1)[0] and out:
            out[-1] += "," + item
        else:
            out.append(item)
    return out


__all__ = [
    "REGISTRY",
    "Player",
    "available_players",
    "check_spec",
    "describe_players",
    "make_player",
    "parse_spec",
    "player_class",
    "split_player_list",
]
