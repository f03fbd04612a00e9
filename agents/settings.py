"""Typed player settings, as the registry parses them from ``name:key=value``."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

#: How the web table bounds a setting it offers: None (the setting's own
#: choices, or a bool), ``(low, high)`` for a number, or the strings allowed.
WebBound = tuple[float, float] | tuple[str, ...] | None
#: The web bound of a learned model's setting: by name, never a path.
NAMED_MODEL: WebBound = ("", "default")


class Values(Mapping[str, Any]):
    """A player's settings once parsed: frozen, each read as an attribute
    (``self.settings.samples``) holding the value its ``Setting`` converted
    to (bool, int, float, str or one of the choices). A read-only mapping
    too, so ``dict(values)``, ``**values`` and ``==`` with a dict work;
    ``replace(**changes)`` gives a copy with some values changed."""

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, Any]):
        object.__setattr__(self, "_values", dict(values))

    def __getattr__(self, key: str) -> Any:
        try:
            return self._values[key]
        except KeyError:
            raise AttributeError(f"no setting {key!r}; settings: {', '.join(self._values) or 'none'}") from None

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("player settings are frozen: build the player again, or use replace()")

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and self._values == dict(other)

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._values.items())))

    def __repr__(self) -> str:
        return "Values(" + ", ".join(f"{k}={v!r}" for k, v in self._values.items()) + ")"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Values, (self._values,))

    def replace(self, **changes: Any) -> Values:
        """A copy with ``changes`` (already typed values)."""
        unknown = sorted(set(changes) - set(self._values))
        if unknown:
            raise AttributeError(f"no setting {', '.join(unknown)}")
        return Values({**self._values, **changes})


class LazyChoices:
    """The choices of a setting whose list is derived when first needed (the
    ``policy`` player's ``endgame_search``: the searches the registered players
    offer), so that declaring the setting imports no other player."""

    def __init__(self, source: Callable[[], Iterable[str]], known: Callable[[str], bool]):
        self._source = source
        self._known = known

    def __call__(self) -> tuple[str, ...]:
        """Every choice (may import every player module)."""
        return tuple(self._source())

    def __contains__(self, value: object) -> bool:
        return isinstance(value, str) and self._known(value)


@dataclass(frozen=True)
class Setting:
    """One option of a player: ``type`` is bool, int, float, str or a
    tuple of allowed strings (a choice). A number must be finite and lie
    in [``low``, ``high``]. Every numeric setting of a registered player
    declares both bounds (``tests/test_player_bounds.py`` checks): a
    count such as ``samples`` sizes memory and time per decision, so an
    unbounded one lets a spec (from the command line or the web app)
    allocate gigabytes or never finish. The bounds are shown by
    ``trappola players``."""

    type: Any
    default: Any
    help: str
    low: float | None = None
    high: float | None = None

    def convert(self, key: str, value):
        """Convert a registry string (or an already typed value) to this
        setting's type; a bad value raises ``ValueError`` saying what fits."""
        t = self.type
        if isinstance(t, LazyChoices):
            v = str(value).strip().lower()
            if v not in t:
                raise ValueError(f"setting {key}={value!r}: choose one of {', '.join(t())}")
            return v
        if isinstance(t, tuple):
            v = str(value).strip().lower()
            if v not in t:
                raise ValueError(f"setting {key}={value!r}: choose one of {', '.join(t)}")
            return v
        if t is bool:
            if isinstance(value, bool):
                return value
            v = str(value).strip().lower()
            if v in ("1", "true", "yes", "on"):
                return True
            if v in ("0", "false", "no", "off"):
                return False
            raise ValueError(f"setting {key}={value!r}: expected true or false")
        try:
            v = t(value)
        except (TypeError, ValueError):
            raise ValueError(f"setting {key}={value!r}: expected {t.__name__}") from None
        if t in (int, float) and (
            not math.isfinite(v) or (self.low is not None and v < self.low) or (self.high is not None and v > self.high)
        ):
            raise ValueError(f"setting {key}={value!r}: expected {self._range()}")
        return v

    def __post_init__(self):
        if self.low is not None and self.high is not None and self.low > self.high:
            raise ValueError(f"setting bounds low={self.low} > high={self.high}")

    def bounds(self) -> str:
        """The allowed range as text (``"1..4096"``); empty for a setting
        that is not a number."""
        if self.type not in (int, float) or (self.low is None and self.high is None):
            return ""
        low = "" if self.low is None else f"{self.low:g}"
        high = "" if self.high is None else f"{self.high:g}"
        return f"{low}..{high}"

    def _range(self) -> str:
        kind = "an integer" if self.type is int else "a finite number"
        if self.low is not None and self.high is not None:
            return f"{kind} from {self.low} to {self.high}"
        if self.low is not None:
            return f"{kind} >= {self.low}"
        if self.high is not None:
            return f"{kind} <= {self.high}"
        return kind
