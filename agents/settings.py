"""Typed player settings, as the registry parses them from ``name:key=value``."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Setting:
    """One option of a player: ``type`` is bool, int, float, str or a
    tuple of allowed strings (a choice)."""

    type: Any
    default: Any
    help: str

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
            return t(value)
        except (TypeError, ValueError):
            raise ValueError(f"setting {key}={value!r}: expected {t.__name__}") from None
