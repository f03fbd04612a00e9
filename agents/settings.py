"""Typed player settings, as the registry parses them from ``name:key=value``."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Setting:
    """One option of a player: ``type`` is bool, int, float, str or a
    tuple of allowed strings (a choice). A number must be finite and lie
    in [``low``, ``high``] (either bound may be None: no bound)."""

    type: Any
    default: Any
    help: str
    low: float | None = None
    high: float | None = None

    def convert(self, key: str, value):
        """Convert a registry string (or an already typed value) to this
        setting's type; a bad value raises ``ValueError`` saying what fits."""
        t = self.type
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
        if t in (int, float):
            if not math.isfinite(v) or (self.low is not None and v < self.low) or \
                    (self.high is not None and v > self.high):
                raise ValueError(f"setting {key}={value!r}: expected {self._range()}")
        return v

    def _range(self) -> str:
        kind = "an integer" if self.type is int else "a finite number"
        if self.low is not None and self.high is not None:
            return f"{kind} from {self.low} to {self.high}"
        if self.low is not None:
            return f"{kind} >= {self.low}"
        if self.high is not None:
            return f"{kind} <= {self.high}"
        return kind
