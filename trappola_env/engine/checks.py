"""The two argument checks every layer repeats, written once at the lowest
layer that needs them: a positive int (a count, a multiple) and one of a
few choices. Each returns the value it accepts and raises ``ValueError``
naming the argument otherwise."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

_T = TypeVar("_T")


def check_positive_int(name: str, value: object, high: int | None = None) -> int:
    """``value`` if it is an int of at least 1 (not a bool), and at most ``high`` when given."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1 or (high is not None and value > high):
        kind = "a positive int" if high is None else f"an int from 1 to {high}"
        raise ValueError(f"{name} must be {kind}, got {value!r}")
    return value


def check_choice(name: str, value: _T, choices: Iterable[_T]) -> _T:
    """``value`` if it is one of ``choices``, else ``ValueError`` naming them all."""
    choices = tuple(choices)
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value


__all__ = ["check_choice", "check_positive_int"]
