"""One record per partie played in a Bulka session (Alifer replays
included): ``Session.history``.

A record reads as attributes (``rec.winner``) or as a mapping
(``rec["winner"]``, ``rec.to_dict()``); ``to_dict`` is JSON-serialisable.
Player-keyed fields use the players' names. Fields:

| field | meaning |
|---|---|
| ``index`` | 0-based number of the partie in the session |
| ``dealer``, ``challenger`` | the two players |
| ``queue`` | waiting players when the partie began, head (waiting longest) first |
| ``pro_declared`` | whether this is a Pro partie (also on its Alifer replays) |
| ``pro_declarer`` | the Pro declarer's name, or ``None`` |
| ``replay`` | whether this partie replays an Alifer |
| ``multiplier`` | the Alifer multiplier ``m`` of this partie |
| ``stake`` | what each of the two paid in: ``10 * stake_multiple * m`` |
| ``pro_stake`` | the extra Pro stake paid before this partie (0 on replays and non-Pro parties) |
| ``outcome`` | ``decided``, ``tie``, ``agreed_alifer`` or ``forfeit`` |
| ``winner``, ``loser`` | names, ``None`` for an Alifer (tie or agreed) |
| ``forfeited_by`` | the offender's name after a forfeit (Art. 12), else ``None`` |
| ``scores`` | ``{name: total points}`` |
| ``tokens`` | ``{name: net tokens of the partie}``: stake, declaration and bonus payments (*) |
| ``bulka_in`` | tokens the partie put into the Bulka (stakes and trick bonuses) |
| ``bulka_won`` | tokens the Pro winner took (0 unless Pro won) |
| ``pro_result`` | ``"won"``, ``"lost"``, ``"alifer"`` for a Pro partie, else ``None`` |
| ``bulka`` | the Bulka after settlement and any Pro award |
| ``details`` | declarations and trick bonuses: ``[{"player", "what", "points", "tokens"}]`` |
| ``deal`` | the deal as a ``deal_from_names`` spec (**); ``None`` for a forfeit before the deal |

(*) Not the Pro stake, not the Bulka won.
(**) Each hand in card-id order, the stock as the 17 unseen cards in id order then the face-up
bottom card (order within a hand or the unseen stock never matters to play).

Storage: the session logs each partie as one flat plain tuple of ints and
strings (the deal as the two dealt hands' bit sets and the bottom card),
and ``History`` wraps the log, building a record when one is read. Objects
kept alive make CPython's garbage collector run (a partie that frees
everything it allocates never triggers it) and re-scan them; keeping
``PartieResult`` and ``Deal`` objects, or even a few tuples per partie,
cost the fast runner microseconds per partie.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple, overload

from trappola_env.engine.cards import ALL_CARDS, CARD_NAMES, names_of

FIELDS = (
    "index",
    "dealer",
    "challenger",
    "queue",
    "pro_declared",
    "pro_declarer",
    "replay",
    "multiplier",
    "stake",
    "pro_stake",
    "outcome",
    "winner",
    "loser",
    "forfeited_by",
    "scores",
    "tokens",
    "bulka_in",
    "bulka_won",
    "pro_result",
    "bulka",
    "details",
    "deal",
)


class PartieRecord(NamedTuple):
    """One partie of a session, as ``Session.history`` holds it (fields: the module docstring)."""

    # Raw, seat-indexed fields (seat 0 = challenger, 1 = dealer), in the
    # order the session logs them; the player-keyed views are properties.
    # Shadows tuple.index: the field's name is part of the public record (``rec.index``, ``to_dict``).
    index: int  # type: ignore[assignment]
    dealer: str
    challenger: str
    queue: tuple[str, ...]
    pro_declarer: str | None
    replay: bool
    multiplier: int
    stake: int
    pro_stake: int
    outcome: str
    winner_seat: int | None
    forfeited_seat: int | None
    challenger_score: int
    dealer_score: int
    challenger_tokens: int
    dealer_tokens: int
    bulka_in: int
    bulka_won: int
    bulka: int
    seat_details: tuple[tuple[int, str, int, int], ...]  # (seat, what, points, tokens)
    challenger_dealt: int | None  # bit set of the dealt hand; None for a forfeit before the deal
    dealer_dealt: int | None
    bottom: int | None  # the face-up bottom card of the stock

    def _name(self, seat: int | None) -> str | None:
        return None if seat is None else (self.challenger, self.dealer)[seat]

    @property
    def pro_declared(self) -> bool:
        """Whether this is a Pro partie (also on its Alifer replays)."""
        return self.pro_declarer is not None

    @property
    def winner(self) -> str | None:
        """The winner's name, ``None`` for an Alifer (tie or agreed)."""
        return self._name(self.winner_seat)

    @property
    def loser(self) -> str | None:
        """The loser's name, ``None`` for an Alifer (tie or agreed)."""
        w = self.winner_seat
        return None if w is None else self._name(1 - w)

    @property
    def forfeited_by(self) -> str | None:
        """The name of the player who forfeited (Art. 12), else ``None``."""
        return self._name(self.forfeited_seat)

    @property
    def scores(self) -> dict[str, int]:
        """``{name: total points}`` of the two players."""
        return {self.challenger: self.challenger_score, self.dealer: self.dealer_score}

    @property
    def tokens(self) -> dict[str, int]:
        """``{name: net tokens of the partie}`` of the two players (without the Pro stake and the Bulka won)."""
        return {self.challenger: self.challenger_tokens, self.dealer: self.dealer_tokens}

    @property
    def pro_result(self) -> str | None:
        """``"won"``, ``"lost"`` or ``"alifer"`` for a Pro partie, else ``None``."""
        if self.pro_declarer is None:
            return None
        w = self.winner_seat
        if w is None:
            return "alifer"
        return "won" if self._name(w) == self.pro_declarer else "lost"

    @property
    def details(self) -> list[dict[str, Any]]:
        """Declarations and trick bonuses: ``[{"player", "what", "points", "tokens"}]``."""
        return [
            {"player": self._name(s), "what": what, "points": pts, "tokens": tok}
            for s, what, pts, tok in self.seat_details
        ]

    @property
    def deal(self) -> dict[str, list[str]] | None:
        """The deal as a ``deal_from_names`` spec, ``None`` for a forfeit before the deal."""
        ch, de, bottom = self.challenger_dealt, self.dealer_dealt, self.bottom
        if ch is None or de is None or bottom is None:  # all three or none: a forfeit before the deal
            return None
        unseen = ALL_CARDS & ~(ch | de | 1 << bottom)
        return {"challenger": names_of(ch), "dealer": names_of(de), "stock": names_of(unseen) + [CARD_NAMES[bottom]]}

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            if key not in FIELDS:
                raise KeyError(key)
            return getattr(self, key)
        return tuple.__getitem__(self, key)

    def keys(self) -> tuple[str, ...]:
        """The field names, so that ``dict(record)`` works."""
        return FIELDS

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON-serialisable dict of every field."""
        d = {k: getattr(self, k) for k in FIELDS}
        d["queue"] = list(self.queue)
        return d

    def __repr__(self) -> str:
        w = self.winner or "Alifer"
        pro = f" Pro({self.pro_declarer}, {self.pro_result})" if self.pro_declarer else ""
        return (
            f"PartieRecord(#{self.index} {self.challenger} vs {self.dealer} (deals), m={self.multiplier}, "
            f"{self.outcome} -> {w}{pro}, bulka {self.bulka})"
        )


class History(Sequence[PartieRecord]):
    """A live, read-only view of a session's partie log: ``len``, indexing,
    slicing and iteration give ``PartieRecord`` objects."""

    __slots__ = ("_log",)

    def __init__(self, log: list[tuple[Any, ...]]):
        self._log = log

    def __len__(self) -> int:
        return len(self._log)

    @overload
    def __getitem__(self, i: int) -> PartieRecord: ...
    @overload
    def __getitem__(self, i: slice) -> list[PartieRecord]: ...
    def __getitem__(self, i: int | slice) -> PartieRecord | list[PartieRecord]:
        if isinstance(i, slice):
            return [PartieRecord._make(raw) for raw in self._log[i]]
        return PartieRecord._make(self._log[i])

    def __iter__(self) -> Iterator[PartieRecord]:
        for raw in self._log:
            yield PartieRecord._make(raw)

    def to_dicts(self) -> list[dict[str, Any]]:
        """Every record as ``PartieRecord.to_dict`` gives it, in order."""
        return [r.to_dict() for r in self]

    def __repr__(self) -> str:
        return f"History({len(self._log)} parties)"
