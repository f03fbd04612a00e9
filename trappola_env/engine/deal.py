"""The deal (docs/rules.md section 2.2): 9 cards each in packets of three,
challenger first; 18 in the stock whose bottom card is face up."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from trappola_env.engine.cards import CARD_NAMES, N_CARDS, card_id, mask_of

CHALLENGER, DEALER = 0, 1


@dataclass(frozen=True)
class Deal:
    """Card ids per seat (0 = challenger, 1 = dealer); ``stock[-1]`` is the
    face-up bottom card."""

    challenger: tuple[int, ...]
    dealer: tuple[int, ...]
    stock: tuple[int, ...]

    @property
    def hands(self) -> tuple[int, int]:
        """``(challenger, dealer)`` dealt hands as card sets."""
        return (mask_of(self.challenger), mask_of(self.dealer))

    @property
    def bottom(self) -> int:
        """The face-up bottom card of the stock."""
        return self.stock[-1]

    def to_names(self) -> dict[str, list[str]]:
        """The deal as card names, in the form ``deal_from_names`` reads."""
        return {
            "challenger": [CARD_NAMES[c] for c in self.challenger],
            "dealer": [CARD_NAMES[c] for c in self.dealer],
            "stock": [CARD_NAMES[c] for c in self.stock],
        }


def deal_from_order(order: Sequence[int]) -> Deal:
    """Deal a shuffled deck (sequence of 36 ids) in packets of three."""
    ch: list[int] = []
    de: list[int] = []
    for p in range(3):
        ch.extend(order[6 * p : 6 * p + 3])
        de.extend(order[6 * p + 3 : 6 * p + 6])
    return Deal(tuple(ch), tuple(de), tuple(order[18:]))


class Shuffler(Protocol):
    """A random source that shuffles a list in place: ``random.Random``, or numpy's ``Generator``."""

    def shuffle(self, x: list[Any], /) -> None:
        """Shuffle ``x`` in place."""


def random_deal(rng: Shuffler) -> Deal:
    """A deal of a deck shuffled by ``rng`` (a ``random.Random``)."""
    order = list(range(N_CARDS))
    rng.shuffle(order)
    return deal_from_order(order)


def deal_from_names(spec: dict[str, Any]) -> Deal:
    """Validate ``{"challenger": [9], "dealer": [9], "stock": [18]}`` (names
    or ids) and build a Deal; any defect raises ``ValueError`` saying what."""
    if not isinstance(spec, dict):
        raise ValueError(f"deal must be a dict with keys challenger, dealer, stock; got {type(spec).__name__}")
    keys = {"challenger": 9, "dealer": 9, "stock": 18}
    unknown = set(spec) - set(keys)
    if unknown:
        raise ValueError(f"deal has unknown keys {sorted(unknown)}; expected challenger, dealer, stock")
    parts: dict[str, tuple[int, ...]] = {}
    seen: dict[int, str] = {}
    for key, count in keys.items():
        if key not in spec:
            raise ValueError(f"deal is missing {key!r} ({count} cards)")
        value = spec[key]
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise ValueError(f"deal[{key!r}] must be a list of {count} card names, got {value!r}")
        names = list(value)
        if len(names) != count:
            raise ValueError(f"deal[{key!r}] must have {count} cards, got {len(names)}")
        ids = []
        for n in names:
            c = card_id(n)
            if c in seen:
                raise ValueError(f"card {CARD_NAMES[c]} appears twice in the deal ({seen[c]} and {key})")
            seen[c] = key
            ids.append(c)
        parts[key] = tuple(ids)
    return Deal(parts["challenger"], parts["dealer"], parts["stock"])
