"""Seating at the start of a Bulka session by drawing cards (docs/rules.md
section 8, Art. 3).

Each player draws one card. The lowest rank becomes the first dealer, the
highest the first challenger, and the rest queue in descending order of
their cards: the highest of them heads the queue (waits longest). Players
with equal ranks redraw among themselves, and only they: the redraw orders
the tied players within the place their common rank gave them, and a tie in
the redraw is redrawn again among those still tied.

**[ruling]** Every draw (the first one and each redraw) is from a freshly
shuffled 36-card deck; players of one draw draw in the order given, one card
each, without replacement. docs/rules.md does not say how the redraw deck is
formed; this keeps every round a plain uniform draw.

``draw_seating(names, rng)`` draws with a ``random.Random``;
``seating_from_draws(names, rounds)`` replays scripted draws (tests, or a
table that drew with real cards); ``Seating.explicit(...)`` skips drawing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from trappola_env.engine.cards import CARD_NAMES, N_CARDS, card_id
from trappola_env.engine.deal import Shuffler


@dataclass(frozen=True)
class Seating:
    """Who deals and who challenges the first partie, and the queue of the
    others (head first: the head waits longest). ``draws`` lists the draw
    rounds in the order they were made, each ``{name: card name}``."""

    dealer: str
    challenger: str
    queue: tuple[str, ...] = ()
    draws: tuple[dict[str, str], ...] = field(default=())

    @classmethod
    def explicit(cls, dealer: str, challenger: str, queue: Iterable[str] = ()) -> Seating:
        """A seating given directly, without drawing cards."""
        return cls(dealer, challenger, tuple(queue))

    @classmethod
    def from_dict(cls, spec: object) -> Seating:
        """``{"dealer": name, "challenger": name, "queue": [names]}`` (the
        queue may be left out); a missing key raises ``ValueError``."""
        if not isinstance(spec, dict):
            raise ValueError(f"seating must be a dict with dealer, challenger and queue, got {spec!r}")
        missing = [k for k in ("dealer", "challenger") if k not in spec]
        if missing:
            raise ValueError(
                f"seating {spec!r} lacks {' and '.join(missing)}; "
                "it holds 'dealer', 'challenger' and optionally 'queue'"
            )
        return cls.explicit(spec["dealer"], spec["challenger"], spec.get("queue", ()))

    @property
    def players(self) -> tuple[str, ...]:
        """Every seated player: challenger, queue head to tail, dealer
        (the descending order of the draw)."""
        return (self.challenger, *self.queue, self.dealer)

    def validate(self, names: Iterable[str]) -> None:
        """Raise ``ValueError`` unless every name in ``names`` is seated exactly once."""
        names = list(names)
        seated = list(self.players)
        if len(set(seated)) != len(seated):
            raise ValueError(f"seating names a player twice: {seated}")
        if sorted(seated) != sorted(names):
            raise ValueError(f"seating {seated} does not seat exactly the players {names}")

    def to_dict(self) -> dict[str, Any]:
        """The seating and its draws as a JSON-serialisable dict."""
        return {
            "dealer": self.dealer,
            "challenger": self.challenger,
            "queue": list(self.queue),
            "draws": [dict(r) for r in self.draws],
        }


def _order(group: list[str], draw: Callable[[list[str]], dict[str, int]], rounds: list[dict[str, str]]) -> list[str]:
    """``group`` in descending order of its drawn cards' ranks, ties redrawn."""
    drawn = draw(group)
    rounds.append({n: CARD_NAMES[drawn[n]] for n in group})
    by_rank: dict[int, list[str]] = {}
    for n in group:
        by_rank.setdefault(drawn[n] % 9, []).append(n)
    out: list[str] = []
    for rank in sorted(by_rank, reverse=True):
        tied = by_rank[rank]
        out.extend(tied if len(tied) == 1 else _order(tied, draw, rounds))
    return out


def _seating(order: list[str], rounds: list[dict[str, str]]) -> Seating:
    return Seating(dealer=order[-1], challenger=order[0], queue=tuple(order[1:-1]), draws=tuple(rounds))


def _check_names(names: Iterable[str]) -> list[str]:
    names = list(names)
    if not 2 <= len(names) <= 4:
        raise ValueError(f"a Bulka session seats 2 to 4 players, got {len(names)}")
    if len(set(names)) != len(names):
        raise ValueError(f"player names must be distinct, got {names}")
    return names


def draw_seating(names: Iterable[str], rng: Shuffler) -> Seating:
    """Seat ``names`` by drawing cards with ``rng`` (a ``random.Random``)."""
    names = _check_names(names)

    def draw(group: list[str]) -> dict[str, int]:
        deck = list(range(N_CARDS))
        rng.shuffle(deck)
        # One card per name; the rest of the deck stays undrawn, so the lengths differ.
        return dict(zip(group, deck, strict=False))

    rounds: list[dict[str, str]] = []
    return _seating(_order(names, draw, rounds), rounds)


def seating_from_draws(names: Iterable[str], rounds: Iterable[dict[str, str | int]]) -> Seating:
    """Seat ``names`` from scripted draw rounds, each ``{name: card}`` (card
    names or ids) for exactly the players who draw in that round: first
    everybody, then each tied group in descending rank order, depth first.
    Raises ``ValueError`` when a round names the wrong players, a card is
    drawn twice in a round, or the rounds run out while a tie remains."""
    names = _check_names(names)
    it = iter(rounds)

    def draw(group: list[str]) -> dict[str, int]:
        try:
            spec = next(it)
        except StopIteration:
            raise ValueError(f"players {group} are tied and must redraw, but no draw round is left") from None
        if sorted(spec) != sorted(group):
            raise ValueError(f"draw round {spec} must name exactly the players drawing: {group}")
        ids = {n: card_id(c) for n, c in spec.items()}
        if len(set(ids.values())) != len(ids):
            raise ValueError(f"draw round {spec} draws one card twice")
        return ids

    rounds_out: list[dict[str, str]] = []
    seating = _seating(_order(names, draw, rounds_out), rounds_out)
    leftover = next(it, None)
    if leftover is not None:
        raise ValueError(f"draw round {leftover} was not needed: no tie remained")
    return seating
