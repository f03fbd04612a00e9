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

Players are registered as ``"module:Class"`` and imported on first use, so
``random`` and ``rule`` never pay for numba (``pimc``, ``agents/players/pimc.py``)
or the policy network (``policy``, ``agents/players/policy.py``); an
install without their optional dependency answers with a clear ``ValueError``.
To add a player: write a module in ``agents/players/``, subclass ``trappola.agents.base.Player``, set ``kind`` and
``SETTINGS``, and add a line to ``REGISTRY``.
"""

from __future__ import annotations

import importlib

from trappola.agents.base import Player

#: name -> ("module:Class", one-line description, message when an optional dependency is missing)
REGISTRY: dict[str, tuple[str, str, str | None]] = {
    "random": ("trappola.agents.players.random:RandomPlayer", "uniform over legal actions", None),
    "rule": (
        "trappola.agents.players.rule:RulePlayer",
        "hand-written heuristics (declares, tracks voids, plays for Twos)",
        None,
    ),
    "human": ("trappola.agents.players.human:HumanPlayer", "you, in the terminal", None),
    "pimc": (
        "trappola.agents.players.pimc:PimcPlayer",
        "perfect-information Monte Carlo over the double-dummy solver",
        "player 'pimc' needs numba (the search extra: pip install 'trappola-lab[search]')",
    ),
    "vecpimc": (
        "trappola.agents.players.tree_search:VecPimcPlayer",
        "pimc whose next decisions are one card per information set, chosen greedily by mean, against an "
        "opponent that sees every card (not EPIMC; named epimc before)",
        "player 'vecpimc' needs numba (the search extra: pip install 'trappola-lab[search]')",
    ),
    "alphamu": (
        "trappola.agents.players.tree_search:AlphaMuPlayer",
        "pimc, then alpha-mu (Pareto fronts over the layouts, Cazenave and Ventos 2019) for the last cards",
        "player 'alphamu' needs numba (the search extra: pip install 'trappola-lab[search]')",
    ),
    "infopimc": (
        "trappola.agents.players.infopimc:InfoPimcPlayer",
        "pimc that prices what its declarations tell the opponent by playing the partie out both ways "
        "(not Wisser's Presumed Value PIMC)",
        "player 'infopimc' needs numba (the search extra: pip install 'trappola-lab[search]')",
    ),
    "cfrdecl": (
        "trappola.agents.players.cfrdecl:CfrDeclarePlayer",
        "pimc with MCCFR at its declarations over open-hand leaves: by construction it declares and asks as pimc does",
        "player 'cfrdecl' needs numba (the search extra: pip install 'trappola-lab[search]')",
    ),
    "policy": (
        "trappola.agents.players.policy:PolicyPlayer",
        "a trained MaskablePPO policy checkpoint, pimc with a learned belief for its last cards",
        "player 'policy' needs torch to read checkpoints (pip install 'trappola-lab[train]')",
    ),
    "ismcts": (
        "trappola.agents.players.openspiel_bots:IsmctsPlayer",
        "OpenSpiel's information-set MCTS over the python_trappola game",
        "player 'ismcts' needs open-spiel (the openspiel extra: pip install 'trappola-lab[openspiel]')",
    ),
    "openspiel": (
        "trappola.agents.players.openspiel_policy:OpenSpielPolicyPlayer",
        "a policy trained by OpenSpiel's learner (python -m trappola.train.openspiel.policy_gradient)",
        "player 'openspiel' needs open-spiel and torch (pip install 'trappola-lab[openspiel,train]')",
    ),
}


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
    """The class registered under ``name`` (imported on first use)."""
    key = name.strip().lower()
    if key in RENAMED:
        now, why = RENAMED[key]
        raise ValueError(f"player {key!r} is now {now!r}: {why} (CHANGELOG)")
    if key not in REGISTRY:
        raise ValueError(f"unknown player {name!r}; available: {', '.join(REGISTRY)}")
    target, _, missing = REGISTRY[key]
    module_name, _, cls_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if missing and e.name and e.name.split(".")[0] != module_name.split(".")[0]:
            raise ValueError(f"{missing} ({e})") from None
        raise
    cls = getattr(module, cls_name, None)
    if cls is None:
        raise ValueError(f"player {key!r}: {module_name} defines no {cls_name}")
    return cls


def _class_and_settings(spec: str) -> tuple[type[Player], dict[str, str]]:
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
    for name, (_, doc, _) in REGISTRY.items():
        lines.append(f"  {name:<8} {doc}")
        try:
            cls = player_class(name)
        except ValueError as e:
            lines.append(f"           ({e})")
            continue
        for key, s in cls.SETTINGS.items():
            default = s.default if not isinstance(s.default, bool) else str(s.default).lower()
            bounds = s.bounds()
            lines.append(f"           {key}={default!s:<10} {s.help}" + (f" [{bounds}]" if bounds else ""))
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
