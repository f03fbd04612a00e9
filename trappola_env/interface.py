"""The interface between a seat and whoever plays it.

A player sees only what its seat may know. At each of its turns in a partie
it receives a ``TurnView``:

* ``view.info``: the engine's ``InfoState`` for its seat (own hand, dealt
  hand, the face-up stock card, the public record of tricks, declarations,
  Manko answers, card points, multiplier). It holds no reference to the
  opponent's hand, the hidden stock or the ``Partie``.
* ``view.legal_mask`` (an ``int`` bit set over the 49 action ids) and
  ``view.legal_actions`` (the same as a sorted list).
* ``view.observation``: the ``trappola_v0`` observation vector, built from
  the ``InfoState`` alone (``observation.encode_info``) on first access
  only, so players that never read it never pay for it; an environment that
  already has the vector passes it in.

and returns a legal action id (0..48); in a Pro partie of a session with
advice, ``view.advice`` holds what the waiting players advised for this
decision (``((adviser, action or None), ...)`` in queue order; empty
otherwise), which it may follow or ignore. Before a partie of a Bulka
session in which it may declare Pro it receives a ``ProView`` and answers
``decide_pro(view) -> bool``. A waiting player in a session with advice
receives an ``AdviceView`` before each decision of the Pro partie's
defender and answers ``advise(view) -> advice id`` (``engine.advice``: 49
+ the advised action, or 96 for no advice); a player without ``advise``
gives no advice. ``SeatPlayer`` is that contract as a
``Protocol``; the referee (``trappola_env.referee``) plays parties and
sessions with any object that follows it, and ``agents.Player`` is the
project's base class for it.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, SupportsIndex, cast, runtime_checkable

import numpy as np
import numpy.typing as npt

from trappola_env.engine import N_ACTIONS, cards_of
from trappola_env.engine.infostate import InfoState
from trappola_env.engine.records import Record
from trappola_env.observation import encode_info

__all__ = ["TurnView", "ProView", "AdviceView", "SeatPlayer"]


class TurnView:
    """What a seat may see when it is to act (see the module docstring)."""

    __slots__ = ("info", "legal_mask", "opponent", "advice", "_observation", "_encoder")

    def __init__(
        self,
        info: InfoState,
        legal_mask: int | None = None,
        observation: npt.NDArray[np.float32] | None = None,
        encoder: Callable[[InfoState], npt.NDArray[np.float32]] | None = None,
        opponent: str | None = None,
        advice: tuple[tuple[str, int | None], ...] = (),
    ):
        if not isinstance(info, InfoState):
            raise TypeError(f"TurnView needs an InfoState, got {type(info).__name__}")
        self.info = info
        self.legal_mask = info.legal_mask if legal_mask is None else int(legal_mask)
        self.opponent = opponent
        self.advice = advice
        self._observation = observation
        self._encoder = encoder

    @property
    def seat(self) -> int:
        """The acting seat: 0 = challenger, 1 = dealer."""
        return self.info.seat

    @property
    def legal_actions(self) -> list[int]:
        """The legal action ids, ascending."""
        return cards_of(self.legal_mask)

    def is_legal(self, action: object) -> bool:
        """Whether ``action`` (an int or numpy integer; never a bool) is legal."""
        if isinstance(action, bool):
            return False
        try:
            a = operator.index(cast(SupportsIndex, action))  # a TypeError below if it has no __index__
        except TypeError:
            return False
        return 0 <= a < N_ACTIONS and bool(self.legal_mask >> a & 1)

    @property
    def observation(self) -> npt.NDArray[np.float32]:
        """The encoded observation, computed once, on first access."""
        if self._observation is None:
            self._observation = (self._encoder or encode_info)(self.info)
        return self._observation


@dataclass(frozen=True)
class AdviceView:
    """What a waiting player knows when it advises the defender of a Pro
    partie (docs/rules.md section 8, Art. 5.3): the public record only.

    ``info`` is the defender's ``InfoState.public``: no hand, no dealt
    hand. ``history`` is every action of the partie so far, ``(seat,
    action)`` (all public: cards are played face up, declarations,
    questions and proposals are spoken). ``legal_mask`` is the bit set of
    the advice ids it may answer with (``engine.advice.advice_mask``);
    ``advice`` what the advisers before it said for this decision
    (``((adviser, action or None), ...)``); ``defender`` and ``declarer``
    the two players' names as shown."""

    info: InfoState
    history: tuple[tuple[int, int], ...]
    legal_mask: int
    defender: str
    declarer: str
    advice: tuple[tuple[str, int | None], ...] = ()

    @property
    def legal_actions(self) -> list[int]:
        """The legal advice ids, ascending."""
        return cards_of(self.legal_mask)


@dataclass(frozen=True)
class ProView:
    """What a player knows when asked whether to declare Pro.

    ``player`` is its index in ``players`` (the names of everyone in the
    session); ``balances``/``streaks`` are per player in that order;
    ``opponent`` is the name of the player it would face (the next
    challenger); ``next_opponent`` the one it would face after that if it
    waited and won (the head of the queue; the same opponent with 2
    players); ``parties_left`` counts parties still to be played in the
    session (the Pro partie included). ``records``: per player in
    ``players`` order, its record in this session as this player sees it
    (``engine.records.Record``: won and lost against me, won and lost
    overall, Pro declared and won), from the public history alone; what a
    Pro decision may use instead of knowing who the others are."""

    player: int
    players: tuple[str, ...]
    balances: tuple[float, ...]
    streaks: tuple[int, ...]
    bulka: float
    opponent: str
    multiplier: int = 1
    stake_multiple: int = 1
    base_stake: int = 10
    parties_left: int | None = None
    next_opponent: str | None = None
    records: tuple[Record, ...] = ()

    @property
    def name(self) -> str:
        """The deciding player's name."""
        return self.players[self.player]

    @property
    def balance(self) -> float:
        """The deciding player's balance in tokens."""
        return self.balances[self.player]

    @property
    def streak(self) -> int:
        """How many parties in a row the deciding player has won."""
        return self.streaks[self.player]

    @property
    def pro_cost(self) -> int:
        """The extra stake a Pro declaration pays into the Bulka."""
        return self.base_stake * self.stake_multiple * self.multiplier


@runtime_checkable
class SeatPlayer(Protocol):
    """What the referee asks of a player. ``name`` is shown to its
    opponents; ``observe_result`` (optional) is called once at the end of
    each partie with the seat's final ``InfoState`` and the result."""

    name: str

    def act(self, view: TurnView) -> int:
        """The action id to play at this turn; it must be legal."""

    def decide_pro(self, view: ProView) -> bool:
        """Whether to declare Pro before the next partie."""
