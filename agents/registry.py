"""Where the players are found: every list of players is derived from the rows
their classes declare (``Player.kind``, ``HELP``, ``SETTINGS``, ``ENDGAME``,
``WEB``; ``trappola.agents.base``).

Three sources, searched in this order:

* the project's own player modules, ``trappola.agents.players.MODULES``;
* installed packages, through the ``trappola.players`` entry-point group
  (``name = "package.module:Class"``, or a module whose classes register
  themselves by their rows);
* a user's file, named in the spec itself: ``path/to/file.py:ClassName``
  (settings follow after a second colon: ``mine.py:HighCard:greedy=true``).

Modules are imported when a name is looked up, and only as far as needed:
a player named like its module (``random``, ``rule``, ``pimc``...) imports that
module alone, so ``random`` and ``rule`` never pay for numba or torch. A list
of every player (``rows()``) imports every module; one whose optional
dependency is missing is left out and named in ``missing()``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType
from typing import Any

from trappola.agents.base import Player
from trappola.agents.settings import Setting, WebBound
from trappola_env.extras import missing_dependency

PACKAGE = "trappola.agents.players"
ENTRY_POINT_GROUP = "trappola.players"


@dataclass(frozen=True)
class PlayerRow:
    """One registered player, as its class declares it."""

    name: str
    help: str
    player: type[Player]
    endgame: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    web: Mapping[str, WebBound] | None = None

    @property
    def settings(self) -> dict[str, Setting]:
        """The player's settings, with their types, defaults and bounds."""
        return self.player.SETTINGS


def row_of(cls: type[Player]) -> PlayerRow | None:
    """The row ``cls`` declares in its own body (a ``HELP``), else None: a
    base class such as ``BotPlayer`` or a subclass that only inherits a row
    is not a player of its own."""
    own = vars(cls)
    if "HELP" not in own or "kind" not in own or not own["HELP"]:
        return None
    return PlayerRow(cls.kind, own["HELP"], cls, dict(own.get("ENDGAME", {})), own.get("WEB"))


class _Registry:
    """The rows found so far, and which modules were looked at."""

    def __init__(self) -> None:
        self.rows: dict[str, PlayerRow] = {}
        self.scanned: set[str] = set()
        self.failed: dict[str, str] = {}
        #: Modules added at run time (``add_module``), searched after the entry points.
        self.extra: list[str] = []

    def modules(self) -> list[str]:
        from trappola.agents.players import MODULES

        return [f"{PACKAGE}.{m}" for m in MODULES] + self.extra

    def scan(self, module_name: str) -> None:
        if module_name in self.scanned:
            return
        self.scanned.add(module_name)
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as e:
            message = missing_dependency(f"players of {module_name}", e.name)
            if message is None:
                raise
            self.failed[module_name] = f"{message} ({e})"
            return
        self.add_classes(module)

    def add_classes(self, module: ModuleType) -> None:
        for cls in list(vars(module).values()):  # in the order the module defines them
            if inspect.isclass(cls) and issubclass(cls, Player) and cls.__module__ == module.__name__:
                row = row_of(cls)
                if row is not None:
                    self.rows.setdefault(row.name, row)

    def scan_entry_point(self, name: str | None = None) -> None:
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            if name is not None and ep.name != name:
                continue
            key = f"entry point {ep.name}"
            if key in self.scanned:
                continue
            self.scanned.add(key)
            module_name, _, attr = ep.value.partition(":")
            self.scan(module_name.strip())
            if attr and ep.name not in self.rows:
                cls = ep.load()
                row = row_of(cls)
                if row is None:  # a plain class: registered by the entry point's name
                    if cls.kind != ep.name and vars(cls).get("SPEC_NAME") is None:
                        cls.SPEC_NAME = ep.name
                    row = PlayerRow(ep.name, (cls.__doc__ or "").strip().split("\n")[0], cls)
                self.rows[ep.name] = row

    def find(self, name: str) -> PlayerRow | None:
        if name in self.rows:
            return self.rows[name]
        own = f"{PACKAGE}.{name}"
        if own in self.modules():
            self.scan(own)
        if name not in self.rows:
            self.scan_entry_point(name)
        for module_name in self.modules():
            if name in self.rows:
                break
            self.scan(module_name)
        return self.rows.get(name)

    def everything(self) -> dict[str, PlayerRow]:
        for module_name in self.modules():
            self.scan(module_name)
        self.scan_entry_point()
        order = {m: i for i, m in enumerate(self.modules())}
        return dict(sorted(self.rows.items(), key=lambda kv: order.get(kv[1].player.__module__, len(order))))


_REGISTRY = _Registry()


@contextlib.contextmanager
def fresh() -> Iterator[None]:
    """Inside the block the registry is the one a new process starts with (no module scanned yet), so
    what a fresh process finds (an entry point, a missing optional dependency) can be seen in this one;
    the rows found before come back after it."""
    global _REGISTRY
    kept, _REGISTRY = _REGISTRY, _Registry()
    try:
        yield
    finally:
        _REGISTRY = kept


def add_module(module_name: str) -> None:
    """Search ``module_name`` for players too (a plugin that is not installed
    as an entry point; the tests' throwaway players)."""
    if module_name not in _REGISTRY.extra:
        _REGISTRY.extra.append(module_name)


def remove_module(module_name: str) -> None:
    """Undo ``add_module`` and forget the rows ``module_name`` gave."""
    if module_name in _REGISTRY.extra:
        _REGISTRY.extra.remove(module_name)
    _REGISTRY.scanned.discard(module_name)
    for name, row in list(_REGISTRY.rows.items()):
        if row.player.__module__ == module_name:
            del _REGISTRY.rows[name]


def find_row(name: str) -> PlayerRow | None:
    """The row registered under ``name``, importing only as far as needed; None if none."""
    return _REGISTRY.find(name.strip().lower())


def rows() -> dict[str, PlayerRow]:
    """Every registered player's row, the project's own first (in
    ``MODULES`` order), then the entry points' and added modules'."""
    return _REGISTRY.everything()


def missing() -> dict[str, str]:
    """Modules left out of ``rows()`` for a missing optional dependency -> why."""
    _REGISTRY.everything()
    return dict(_REGISTRY.failed)


def missing_message(name: str) -> str | None:
    """Why ``name``'s own module (``pimc`` -> ``players/pimc.py``) could not be
    imported: the optional dependency it misses; None if it imported."""
    own = f"{PACKAGE}.{name}"
    if own in _REGISTRY.modules():
        _REGISTRY.scan(own)
    if own in _REGISTRY.failed:
        return _REGISTRY.failed[own].replace(f"players of {own}", f"player {name!r}", 1)
    return None


def endgame_searches() -> dict[str, tuple[type[Player], Mapping[str, Any]]]:
    """Every endgame search the players offer ``policy``: choice -> (class, its settings)."""
    out: dict[str, tuple[type[Player], Mapping[str, Any]]] = {}
    for row in rows().values():
        for choice, settings in row.endgame.items():
            out[choice] = (row.player, settings)
    return out


def find_endgame(choice: str) -> tuple[type[Player], Mapping[str, Any]] | None:
    """The class and settings of the endgame search ``choice`` (importing the
    player modules in order only until one offers it); None if none does."""
    for row in list(_REGISTRY.rows.values()):
        if choice in row.endgame:
            return row.player, row.endgame[choice]
    for module_name in _REGISTRY.modules():
        if module_name not in _REGISTRY.scanned:
            _REGISTRY.scan(module_name)
            for row in list(_REGISTRY.rows.values()):
                if choice in row.endgame:
                    return row.player, row.endgame[choice]
    return None


def web_rows() -> dict[str, PlayerRow]:
    """The players the web table offers (a ``WEB`` row), in registry order."""
    return {name: row for name, row in rows().items() if row.web is not None}


def is_file_spec(spec: str) -> bool:
    """Whether ``spec`` names a class in a user's file (``path/file.py:Class``)."""
    head, sep, _ = spec.strip().partition(":")
    return bool(sep) and head.endswith(".py")


def file_class(spec: str) -> tuple[type[Player], str]:
    """The class ``path/file.py:ClassName[:settings]`` names, and the settings
    text after it. The file is imported as a module of its own (not
    ``__main__``), once per process, so code under its ``if __name__ ==
    "__main__":`` guard does not run and a file without the guard works too."""
    path_text, _, rest = spec.strip().partition(":")
    cls_name, _, settings = rest.partition(":")
    cls_name = cls_name.strip()
    path = Path(path_text).expanduser()
    if not path.is_file():
        raise ValueError(f"player spec {spec!r}: no file {path_text!r}")
    resolved = path.resolve()
    module_name = "trappola_user_player_" + hashlib.sha1(str(resolved).encode()).hexdigest()[:12]
    module = sys.modules.get(module_name)
    if module is None:
        loader_spec = importlib.util.spec_from_file_location(module_name, resolved)
        if loader_spec is None or loader_spec.loader is None:
            raise ValueError(f"player spec {spec!r}: cannot import {path_text!r}")
        module = importlib.util.module_from_spec(loader_spec)
        # Registered before it runs, so its classes pickle by reference and a
        # worker that rebuilds the spec finds the same module name.
        sys.modules[module_name] = module
        try:
            loader_spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[module_name]
            raise
    cls = getattr(module, cls_name, None)
    if not (inspect.isclass(cls) and issubclass(cls, Player)):
        found = ", ".join(n for n, c in inspect.getmembers(module, inspect.isclass) if issubclass(c, Player)) or "none"
        raise ValueError(
            f"player spec {spec!r}: {path_text} defines no Player subclass {cls_name!r} (its players: {found})"
        )
    if vars(cls).get("SPEC_NAME") is None:
        cls.SPEC_NAME = f"{path_text}:{cls_name}"
    return cls, settings


class RegistryView(Mapping[str, PlayerRow]):
    """``REGISTRY``: name -> row, read-only and derived from the classes' rows.
    Looking one name up imports only what that name needs; iterating imports
    every player module (those missing an optional dependency are left out)."""

    def __getitem__(self, name: str) -> PlayerRow:
        row = find_row(name)
        if row is None:
            raise KeyError(name)
        return row

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and find_row(name) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(rows())

    def __len__(self) -> int:
        return len(rows())


__all__ = [
    "ENTRY_POINT_GROUP",
    "PlayerRow",
    "RegistryView",
    "add_module",
    "endgame_searches",
    "file_class",
    "find_endgame",
    "find_row",
    "is_file_spec",
    "missing",
    "missing_message",
    "remove_module",
    "row_of",
    "rows",
    "web_rows",
]
