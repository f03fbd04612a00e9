"""The Bulka session (docs/rules.md section 8): seating, queue and rotation,
streaks, Pro, Alifer replays, stakes and settlement, leaving and joining,
the end and the final split. Pure Python, no RL framework: ``bulka_v0``
and the fast runner (``trappola_env.referee``) both drive this one engine.

Driving a session
-----------------
A ``Session`` is a state machine; ``session.phase`` says what it needs:

- ``"pro"``: the next dealer (``session.dealer``, streak >= 2) decides
  whether to declare Pro: ``session.decide_pro(True | False)``. Offered
  before a new partie's stakes and deal, never before an Alifer replay.
- ``"partie"``: ``session.partie`` is a ready ``Partie`` (stakes already
  paid into the Bulka); seat 0 is ``session.challenger``, seat 1
  ``session.dealer``. Apply actions to it and call
  ``session.finish_partie()`` once it is terminal, or use
  ``session.act(action)``, which does both.
- ``"advice"`` (only with ``advice=True``): in a Pro partie the defender
  (the challenger) is about to decide, and the waiting players advise it
  first, one by one in queue order (``session.to_act`` is the adviser,
  ``session.legal_mask()`` its advice ids, ``engine.advice``):
  ``session.act(advice_id)``. Once each has advised, the phase is
  ``"partie"`` again and the defender acts, with ``session.advice``
  (``{adviser: advised action or None}``) holding what it was told.
- ``"over"``: the Bulka has been split; ``session.balances`` are final.

``session.pending`` describes the same as an object (``ProDecision``,
``PartieToPlay`` or ``AdviceTurn``, ``None`` when over); ``session.to_act`` names the player
who must act; ``session.act(action)`` takes an action id of the shared
49-action table (47 = declare Pro, 48 = do not) in either phase.

    s = Session(n_players=3, max_parties=50, seed=7)
    while s.phase != "over":
        if s.phase == "pro":
            s.decide_pro(True)
        else:
            s.act(s.partie.legal_actions()[0])
    s.balances, s.history[0].winner, s.history_dicts()

What happens after a partie
---------------------------
Its payments are settled (declarations player to player, trick bonuses into
the Bulka). A decided partie (a forfeit, Art. 12, is a decided loss for the
offender) raises the winner's streak by 1, resets the loser's to 0, resets
``m`` to 1 and rotates (``rotation``); if the winner had declared Pro it
first takes the whole Bulka and its streak returns to 0. A tie or an agreed
Alifer replays with the same two players, a fresh deal and ``m`` doubled;
streaks do not change; a Pro partie stays a Pro partie (its extra stake is
not paid again). After ``max_parties`` parties (replays count) the session
ends, except that a live Pro partie is played out through its replays; a
pending non-Pro replay is dropped. In those replays proposing Alifer is
illegal (``Partie(alifer_allowed=False)``; a tie still replays), so every
session ends. The Bulka is then split equally among
the players present (``ledger`` explains the exact fractions).

Advice (docs/rules.md section 8, Art. 5.3)
-----------------------------------------
``Session(advice=True)`` lets the waiting players advise the defender of a
Pro partie before each of its decisions (a card, a declaration, Manko, a
proposal or the answer to one: a declaration keeps the turn, so the next
decision of the same turn is advised again). The advice is cleared as soon
as the defender acts. Advice moves no tokens. Every advice given is logged
in ``advice_log``: ``(partie_index, step, adviser, advice_id)``, ``step``
being the number of partie actions before the advised decision. A player
who leaves while advice is being given is skipped; a newcomer advises
from the next decision on. An illegal advice id raises with
``illegal_action="raise"``; with ``"forfeit"`` it counts as no advice
(**[ruling]**: an adviser has no partie to lose). Without ``advice`` (the
default) nobody advises and the session is exactly as before.

Records
-------
``balances`` (exact: ``int``, or ``Fraction`` after a split), ``bulka``,
``departed`` (what leavers took), ``streaks``, ``queue`` (head waits
longest), ``history`` (one ``PartieRecord`` per partie, replays included:
``history.PartieRecord`` lists the fields; ``history_dicts()`` for JSON),
``pro_offers`` (every offer and answer), ``pro_declarations`` (each Pro,
appended when decided: where declared, by whom, won/lost, how many parties
with its replays, the Bulka won), ``events`` (joins and leaves),
``seating`` (with the draw rounds), ``summary()`` (all of it as JSON-ready
values), ``check()`` (asserts the ledger is exactly zero).

Leaving and joining (Art. 4)
----------------------------
``leave(name)``: only a waiting player (not the dealer or challenger of the
current or next partie, who are seated as soon as the previous partie
ends) may leave, at any moment; it takes its balance away and its stakes
stay in the Bulka. **[ruling]** The two at the table cannot leave, so
leaving never brings a session below 2 players; the "fewer than 2 players
ends the session" rule is still enforced. ``join(name=None, agreed=True)``:
everyone must agree (``agreed=True``), at most 4 players, and either the
Bulka is empty or the newcomer would not yet have come to the table had it
queued when the Bulka was last emptied (``join_window`` defines this
exactly). Newcomers queue at the end with balance 0 and streak 0; a name
can be used once per session. A refused ``join`` or ``leave`` raises
``ValueError`` and changes nothing.

Rulings beyond docs/rules.md
-----------------------
- An illegal action in the Pro decision (anything but 47/48): with
  ``illegal_action="raise"`` a ``ValueError``, state unchanged; with
  ``"forfeit"`` the dealer loses the coming partie at once (Art. 12): both
  stakes are paid, no deal, no Pro, recorded with outcome ``forfeit``.
- The number of players that decides the Pro-win re-seating (4 vs 3/2) is
  the number present when that partie ends.
- Stakes are paid when a partie is set up (right after the previous one
  ends, or after the Pro decision), so ``partie`` is always ready to play.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from trappola_env.engine.actions import NO_PRO, PRO, action_name
from trappola_env.engine.advice import NO_ADVICE, advice_mask, advice_name, advised_action
from trappola_env.engine.cards import cards_of
from trappola_env.engine.checks import check_positive_int
from trappola_env.engine.deal import Deal, Shuffler, deal_from_names, random_deal
from trappola_env.engine.history import History
from trappola_env.engine.infostate import InfoState
from trappola_env.engine.join_window import JoinWindow
from trappola_env.engine.ledger import Ledger, Tokens, to_json_number
from trappola_env.engine.partie import DONE, IllegalActionError, Partie
from trappola_env.engine.rotation import rotate_normal, rotate_pro_won
from trappola_env.engine.rule_config import DEFAULT_CONFIG, RuleConfig
from trappola_env.engine.scoring import BASE_STAKE, FORFEIT, PartieResult, Score
from trappola_env.engine.seating import Seating, draw_seating

PRO_DECISION, PLAYING, OVER = "pro", "partie", "over"
ADVICE = "advice"
MAX_PLAYERS = 4
PRO_STREAK = 2


class ProDecision(NamedTuple):
    """``player`` (the next dealer) must decide whether to declare Pro;
    what it knows when deciding (all public)."""

    player: str
    streak: int
    extra_stake: int  # what declaring costs, besides the normal stake
    bulka: Tokens  # the pot now
    balance: Tokens
    n_players: int
    parties_left: int  # parties still to play, this one included
    challenger: str = ""  # whom the Pro partie would be played against
    next_challenger: str | None = None  # the head of the queue: the challenger after this one if the dealer wins


class PartieToPlay(NamedTuple):
    """A partie ready to play; stakes already paid."""

    dealer: str
    challenger: str
    partie: Partie
    pro_declarer: str | None
    multiplier: int
    replay: bool


class AdviceTurn(NamedTuple):
    """``adviser`` (a waiting player) advises ``defender`` before its
    decision in the Pro partie of ``declarer``; ``advice`` is what earlier
    advisers said this decision."""

    adviser: str
    defender: str
    declarer: str
    partie: Partie
    advice: dict[str, int | None]


class ProOffer(NamedTuple):
    """A Pro offer and the answer; ``partie_index`` is the partie it preceded."""

    partie_index: int
    player: str
    streak: int
    declared: bool


class Session:
    """A Bulka session of ``n_players`` (docs/rules.md section 8): parties between
    the dealer and a challenger from the queue, stakes into the Bulka, Pro offers,
    Alifer replays, joins and departures, and the final split of the Bulka.

    Drive it with ``pending`` (what is awaited), ``act`` (an action or
    advice id) and ``decide_pro``; ``history`` records every partie."""

    # Slots: the fast runner reads and writes these once or more per partie.
    __slots__ = (
        "max_parties",
        "stake_multiple",
        "config",
        "rng",
        "seating",
        "players",
        "dealer",
        "challenger",
        "queue",
        "streaks",
        "ledger",
        "multiplier",
        "pro_declarer",
        "parties_played",
        "history",
        "pro_offers",
        "pro_declarations",
        "events",
        "partie",
        "phase",
        "end_reason",
        "final_share",
        "advice_on",
        "advice",
        "advice_log",
        "_advisers",
        "_unit",
        "_deal_source",
        "_log",
        "_join",
        "_queue_at_start",
        "_queue_changed",
        "_replay",
        "_pro_stake",
        "_stake",
        "_pro_index",
    )

    def __init__(
        self,
        n_players: int = 3,
        max_parties: int = 100,
        stake_multiple: int = 1,
        config: RuleConfig = DEFAULT_CONFIG,
        *,
        seed: int | None = None,
        rng: Shuffler | None = None,
        names: Iterable[str] | None = None,
        seating: Seating | dict[str, Any] | None = None,
        deal_source: Callable[[Any], Deal] | None = None,  # called with the session's rng
        advice: bool = False,
        streaks: dict[str, int] | None = None,
    ):
        """``names`` default to ``player_0 .. player_{n-1}`` (given names
        set the number of players; ``n_players`` is then ignored). ``seating``: a
        ``Seating`` or ``{"dealer", "challenger", "queue"}``; by default the
        players draw cards with the session's rng (``seed`` or ``rng``:
        a ``random.Random``, or anything with its ``shuffle(list)`` such as
        numpy's ``Generator``, which ``bulka_v0`` passes).
        ``deal_source(rng) -> Deal`` deals each partie (default: a shuffled
        deck); tests pass scripted deals. ``advice=True``: the waiting
        players advise the defender of a Pro partie (see the module
        docstring). ``streaks``: ``{name: streak}`` to start from instead of
        0 (analysis and benchmarks: a first dealer with a streak of 2 or
        more is offered Pro at once)."""
        if names is None:
            if isinstance(n_players, bool) or not isinstance(n_players, int):
                raise ValueError(f"n_players must be an int in 2..4, got {n_players!r}")
            names = [f"player_{i}" for i in range(n_players)]
        names = list(names)
        if not 2 <= len(names) <= MAX_PLAYERS:
            raise ValueError(f"a Bulka session has 2 to {MAX_PLAYERS} players, got {len(names)}")
        if any(not isinstance(n, str) or not n for n in names) or len(set(names)) != len(names):
            raise ValueError(f"player names must be distinct non-empty strings, got {names}")
        self.max_parties = check_positive_int("max_parties", max_parties)
        self.stake_multiple = check_positive_int("stake_multiple", stake_multiple)
        self._unit = BASE_STAKE * self.stake_multiple  # a stake at m = 1
        if not isinstance(config, RuleConfig):
            raise TypeError(f"config must be a RuleConfig, got {type(config).__name__}")
        self.config = config
        self.rng: Shuffler = rng if rng is not None else random.Random(seed)
        self._deal_source = deal_source or random_deal
        if seating is None:
            seating = draw_seating(names, self.rng)
        elif isinstance(seating, dict):
            seating = Seating.from_dict(seating)
        elif not isinstance(seating, Seating):
            raise ValueError(f"seating must be a Seating or a dict, got {type(seating).__name__}")
        seating.validate(names)
        self.seating = seating
        self.players = list(names)  # present players, in order of arrival
        self.dealer = seating.dealer
        self.challenger = seating.challenger
        self.queue = list(seating.queue)  # waiting players, head (waiting longest) first
        self.streaks = dict.fromkeys(names, 0)
        for name, n in (streaks or {}).items():
            if name not in self.streaks or isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise ValueError(f"streaks must map player names to ints >= 0, got {streaks!r}")
            self.streaks[name] = n
        self.ledger = Ledger(names)
        self.multiplier = 1
        self.pro_declarer: str | None = None  # the declarer while a Pro partie (incl. its replays) is live
        self.parties_played = 0
        self._log: list[tuple[Any, ...]] = []  # one plain tuple per partie (see ``history``)
        self.history = History(self._log)
        self.pro_offers: list[ProOffer] = []
        # One dict per Pro declared, appended when it is decided: partie_index
        # (where declared), player, result (won|lost), parties (with replays), bulka_won.
        self.pro_declarations: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []  # joins and leaves
        self.partie: Partie | None = None
        self.phase = PLAYING
        self.end_reason: str | None = None
        self.final_share: Tokens | None = None
        self._join = JoinWindow(len(self.queue))
        self._queue_at_start: tuple[str, ...] = ()
        self._queue_changed = False
        self._replay = False
        self._pro_stake = 0
        self._stake = 0
        self._pro_index: int | None = None
        if not isinstance(advice, bool):
            raise ValueError(f"advice must be True or False, got {advice!r}")
        self.advice_on = bool(advice)
        self.advice: dict[str, int | None] = {}  # adviser -> advised defender action (None: no advice), this decision
        self.advice_log: list[tuple[int, int, str, int]] = []  # (partie_index, step, adviser, advice_id)
        self._advisers: list[str] = []  # still to advise this decision, in queue order
        self._new_partie()

    # ------------------------------------------------------------ queries
    @property
    def bulka(self) -> Tokens:
        """The tokens in the Bulka."""
        return self.ledger.bulka

    @property
    def balances(self) -> dict[str, Tokens]:
        """Exact balances of the players present (``int``, or ``Fraction`` after a split)."""
        return self.ledger.balances

    @property
    def departed(self) -> dict[str, Tokens]:
        """What each player who left took away."""
        return self.ledger.departed

    @property
    def over(self) -> bool:
        """Whether the session has ended."""
        return self.phase == OVER

    @property
    def table(self) -> tuple[str, str]:
        """``(challenger, dealer)``: the players in engine seats 0 and 1."""
        return (self.challenger, self.dealer)

    @property
    def to_act(self) -> str | None:
        """The name of the player who must act now, ``None`` when over."""
        if self.phase == PLAYING:
            assert self.partie is not None  # a partie is dealt in PLAYING and ADVICE
            return (self.challenger, self.dealer)[self.partie.to_act]
        if self.phase == ADVICE:
            return self._advisers[0]
        return self.dealer if self.phase == PRO_DECISION else None

    @property
    def parties_left(self) -> int:
        """Parties still to play before ``max_parties`` is reached."""
        return max(0, self.max_parties - self.parties_played)

    @property
    def pending(self) -> ProDecision | PartieToPlay | AdviceTurn | None:
        """What the session waits for: a ``ProDecision`` of the dealer, a
        ``PartieToPlay``, an ``AdviceTurn``, or ``None`` once over."""
        if self.phase == PRO_DECISION:
            d = self.dealer
            return ProDecision(
                d,
                self.streaks[d],
                self._pro_extra(),
                self.ledger.bulka,
                self.ledger.balances[d],
                len(self.players),
                self.parties_left,
                self.challenger,
                self.queue[0] if self.queue else self.challenger,
            )
        partie = self.partie
        if self.phase == PLAYING:
            assert partie is not None  # a partie is dealt in PLAYING and ADVICE
            return PartieToPlay(self.dealer, self.challenger, partie, self.pro_declarer, self.multiplier, self._replay)
        if self.phase == ADVICE:
            assert partie is not None
            return AdviceTurn(self._advisers[0], self.challenger, self.dealer, partie, dict(self.advice))
        return None

    def seat_of(self, name: str) -> str:
        """``"dealer"``, ``"challenger"`` or ``"waiting"``; ``ValueError`` if not present."""
        if name == self.dealer:
            return "dealer"
        if name == self.challenger:
            return "challenger"
        if name in self.queue:
            return "waiting"
        raise ValueError(f"{name!r} is not a player present in this session")

    def legal_mask(self) -> int:
        """Bit set over the action ids for the player to act (49 ids; an
        adviser's advice ids are 49..96)."""
        if self.phase == PLAYING:
            assert self.partie is not None  # a partie is dealt in PLAYING and ADVICE
            return self.partie.legal_mask()
        if self.phase == ADVICE:
            assert self.partie is not None
            return advice_mask(InfoState.public(self.partie, 0))
        if self.phase == PRO_DECISION:
            return (1 << PRO) | (1 << NO_PRO)
        return 0

    def check(self) -> None:
        """Assert the ledger invariant (sum of everything is exactly 0)."""
        self.ledger.check()

    # ------------------------------------------------------------ driving
    def decide_pro(self, declare: bool) -> None:
        """The next dealer's answer to the Pro offer."""
        if self.phase != PRO_DECISION:
            raise ValueError(f"no Pro decision is pending (phase {self.phase!r})")
        if declare not in (True, False):
            raise ValueError(f"decide_pro takes True or False, got {declare!r}")
        declare = bool(declare)
        d = self.dealer
        self.pro_offers.append(ProOffer(self.parties_played, d, self.streaks[d], declare))
        extra = 0
        if declare:
            extra = self._pro_extra()
            self.ledger.pay_in(d, extra)
            self.pro_declarer = d
            self._pro_index = self.parties_played
        self._start_partie(False, extra)

    def act(self, action: int) -> None:
        """Apply an action id of the player to act, in either phase; a
        partie that ends is settled at once (``finish_partie``)."""
        if self.phase == PLAYING:
            partie = self.partie
            assert partie is not None  # a partie is dealt in PLAYING and ADVICE
            partie.apply(action)
            if self.advice_on:
                self.advice = {}  # the advised decision is made
            if partie.phase == DONE:
                self.finish_partie()
            elif self.advice_on:
                self._open_advice()
        elif self.phase == ADVICE:
            self._advise(action)
        elif self.phase == PRO_DECISION:
            try:
                a = None if isinstance(action, bool) else operator.index(action)
            except TypeError:
                a = None
            if a in (PRO, NO_PRO):
                self.decide_pro(a == PRO)
            elif self.config.illegal_action == "forfeit":
                self._forfeit_pro_decision()
            else:
                try:
                    what = f"{action} ({action_name(action)})"
                except ValueError:
                    what = repr(action)
                raise IllegalActionError(
                    f"illegal action {what} for {self.dealer} deciding Pro; legal: "
                    f"{PRO} ({action_name(PRO)}), {NO_PRO} ({action_name(NO_PRO)})"
                )
        else:
            raise ValueError("the session is over; no action can be applied")

    def finish_partie(self) -> None:
        """Settle the finished ``self.partie`` and move on (rotation, Pro,
        replay, the next partie or the end)."""
        partie = self.partie
        if partie is None or partie.phase != DONE:
            if partie is None:
                raise ValueError(f"no partie is being played (phase {self.phase!r})")
            raise ValueError("the partie is not over yet")
        result = partie.result()
        if result.stake != self._stake:
            raise RuntimeError(f"partie stake {result.stake} differs from the stake paid {self._stake}")
        self.ledger.settle(result, self.challenger, self.dealer)
        self._conclude(result, partie)

    def set_deal(self, deal: Deal | dict[str, Any]) -> None:
        """Replace the deal of the ready partie before its first action (a
        fixed deal for tests and analysis; names as in ``deal_from_names``)."""
        if self.phase not in (PLAYING, ADVICE) or self.partie is None or self.partie.history or self.advice:
            raise ValueError("the deal can only be set for a partie that has not started")
        if isinstance(deal, dict):
            deal = deal_from_names(deal)
        elif not isinstance(deal, Deal):
            raise ValueError(f"deal must be a Deal or a dict of card names, got {type(deal).__name__}")
        self.partie = self._make_partie(deal)

    # ---------------------------------------------------- leave and join
    def leave(self, name: str) -> Tokens:
        """A waiting player leaves; returns the balance it takes away."""
        if self.phase == OVER:
            raise ValueError("the session is over; nobody can leave")
        if name not in self.streaks:
            raise ValueError(f"{name!r} is not a player present in this session")
        if name == self.dealer or name == self.challenger:
            role = "dealer" if name == self.dealer else "challenger"
            raise ValueError(f"{name} is the {role} of the current partie; only a waiting player may leave (Art. 4)")
        idx = self.queue.index(name)
        self._join.left(idx)
        del self.queue[idx]
        self._queue_changed = True
        if name in self._advisers:
            self._advisers.remove(name)
            if self.phase == ADVICE and not self._advisers:
                self.phase = PLAYING
        self.advice.pop(name, None)
        self.players.remove(name)
        del self.streaks[name]
        taken = self.ledger.remove(name)
        self.events.append(
            {"event": "leave", "player": name, "after_parties": self.parties_played, "took": to_json_number(taken)}
        )
        if len(self.players) < 2:
            self._end("too_few_players")
        return taken

    @property
    def join_window(self) -> JoinWindow:
        """The join window (``engine.join_window``) as it stands: a copy,
        so changing it changes nothing here. While the Bulka holds tokens a
        newcomer may join only while ``join_window.open``."""
        window = JoinWindow(0)
        window.ahead, window.seated = self._join.ahead, self._join.seated
        return window

    def join(self, name: str | None = None, agreed: bool = False) -> str:
        """A newcomer joins at the end of the queue; returns its name."""
        if self.phase == OVER:
            raise ValueError("the session is over; nobody can join")
        if agreed is not True:
            raise ValueError("a newcomer joins only if everyone agrees: pass agreed=True (Art. 4)")
        if len(self.players) >= MAX_PLAYERS:
            raise ValueError(f"the session already has {len(self.players)} players, the most allowed")
        used = set(self.ledger.balances) | set(self.ledger.departed)
        if name is None:
            k = 0
            while f"player_{k}" in used:
                k += 1
            name = f"player_{k}"
        elif not isinstance(name, str) or not name:
            raise ValueError(f"a player name must be a non-empty string, got {name!r}")
        if name in used:
            raise ValueError(f"player name {name!r} is already used in this session")
        if self.ledger.bulka != 0 and not self._join.open:
            raise ValueError(
                f"{name} cannot join: the Bulka holds {self.ledger.bulka} and a player queued when it was "
                "last emptied would already have come to the table (Art. 4)"
            )
        self.ledger.add(name)
        self.players.append(name)
        self.queue.append(name)
        self._queue_changed = True
        self.streaks[name] = 0
        self.events.append({"event": "join", "player": name, "after_parties": self.parties_played})
        return name

    # ------------------------------------------------------------ records
    def history_dicts(self) -> list[dict[str, Any]]:
        """``history`` as JSON-serialisable dicts."""
        return self.history.to_dicts()

    def summary(self) -> dict[str, Any]:
        """A JSON-serialisable snapshot (fractions as floats)."""
        return {
            "phase": self.phase,
            "parties_played": self.parties_played,
            "max_parties": self.max_parties,
            "stake_multiple": self.stake_multiple,
            "players": list(self.players),
            "dealer": self.dealer,
            "challenger": self.challenger,
            "queue": list(self.queue),
            "streaks": dict(self.streaks),
            "multiplier": self.multiplier,
            "pro_declarer": self.pro_declarer,
            **self.ledger.to_dict(),
            "final_share": None if self.final_share is None else to_json_number(self.final_share),
            "end_reason": self.end_reason,
            "seating": self.seating.to_dict(),
            "pro_offers": [o._asdict() for o in self.pro_offers],
            "pro_declarations": [dict(d) for d in self.pro_declarations],
            "events": list(self.events),
            **({"advice_log": [list(e) for e in self.advice_log]} if self.advice_on else {}),
        }

    def render(self) -> str:
        """A few lines of text showing the session: parties played, Bulka, each player's seat,
        balance and streak, the queue, who left, and the end."""
        lines = [
            f"Bulka session: {self.parties_played}/{self.max_parties} parties played  m={self.multiplier}  "
            f"Bulka {to_json_number(self.ledger.bulka)}  phase {self.phase}"
        ]
        for n in self.players:
            seat = self.seat_of(n) if self.phase != OVER else "-"
            pro = "  PRO" if n == self.pro_declarer else ""
            lines.append(
                f"  {n:<10} {seat:<10} balance {to_json_number(self.ledger.balances[n]):>8}  "
                f"streak {self.streaks[n]}{pro}"
            )
        if self.queue:
            lines.append(f"  queue: {', '.join(self.queue)}")
        for n, v in self.ledger.departed.items():
            lines.append(f"  {n} left with {to_json_number(v)}")
        if self.final_share is not None:  # set when the session ends
            lines.append(f"  over ({self.end_reason}); each present player got {to_json_number(self.final_share)}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"Session({len(self.players)} players, {self.parties_played}/{self.max_parties} parties, "
            f"phase={self.phase}, bulka={self.ledger.bulka})"
        )

    # ----------------------------------------------------------- internals
    def _pro_extra(self) -> int:
        return self._unit * self.multiplier

    def _new_partie(self) -> None:
        if self.streaks[self.dealer] >= PRO_STREAK:
            self.phase = PRO_DECISION
            self.partie = None
        else:
            self._start_partie(False, 0)

    def _start_partie(self, replay: bool, pro_stake: int) -> None:
        stake = self._unit * self.multiplier
        self.ledger.stakes(self.challenger, self.dealer, stake)
        self._stake = stake
        self._replay = replay
        self._pro_stake = pro_stake
        if not replay or self._queue_changed:  # a replay keeps its queue unless someone joined or left
            self._queue_at_start = tuple(self.queue)
            self._queue_changed = False
        self.partie = self._make_partie(self._deal_source(self.rng))
        self.phase = PLAYING
        if self.advice_on:
            self._open_advice()

    def _open_advice(self) -> None:
        # Before each decision of the defender (seat 0: the Pro declarer
        # always deals) in a live Pro partie, the waiting players advise.
        assert self.partie is not None  # called with a partie dealt
        if self.pro_declarer is not None and self.queue and self.partie.to_act == 0:
            self._advisers = list(self.queue)
            self.advice = {}
            self.phase = ADVICE

    def _advise(self, action: int) -> None:
        adviser = self._advisers[0]
        mask = self.legal_mask()
        try:
            a = None if isinstance(action, bool) else operator.index(action)
        except TypeError:
            a = None
        if a is None or a < 0 or not mask >> a & 1:
            if self.config.illegal_action != "forfeit":
                try:
                    what = repr(action) if a is None else f"{a} ({advice_name(a)})"
                except ValueError:
                    what = repr(action)
                legal = ", ".join(f"{b} ({advice_name(b)})" for b in cards_of(mask))
                raise IllegalActionError(f"illegal advice {what} from {adviser}; legal: {legal}")
            a = NO_ADVICE
        self.advice[adviser] = advised_action(a)
        assert self.partie is not None  # advice is given on a dealt partie
        self.advice_log.append((self.parties_played, len(self.partie.history), adviser, a))
        del self._advisers[0]
        if not self._advisers:
            self.phase = PLAYING

    def _make_partie(self, deal: Deal) -> Partie:
        # Once max_parties is reached only a live Pro partie is still played
        # (through its replays); it may not be abandoned by an Alifer again
        # (docs/rules.md section 8, End).
        alifer = self.pro_declarer is None or self.parties_played < self.max_parties
        return Partie(deal, self.config, self.stake_multiple, self.multiplier, alifer_allowed=alifer)

    def _forfeit_pro_decision(self) -> None:
        # The dealer's violation loses the coming partie at once (Art. 12):
        # stakes paid, nothing dealt, nothing else settled.
        d = self.dealer
        self.pro_offers.append(ProOffer(self.parties_played, d, self.streaks[d], False))
        stake = self._unit * self.multiplier
        self.ledger.stakes(self.challenger, d, stake)
        self._stake, self._replay, self._pro_stake = stake, False, 0
        self._queue_at_start = tuple(self.queue)
        zero = Score(0, 0, 0)
        result = PartieResult(
            outcome=FORFEIT,
            winner=0,
            scores=(zero, zero),
            stake=stake,
            declaration_tokens=(0, 0),
            bonus_tokens=(0, 0),
            tokens=(-stake, -stake),
            bulka_in=2 * stake,
            forfeited_by=1,
        )
        self._conclude(result, None)  # nothing was dealt

    def _conclude(self, result: PartieResult, partie: Partie | None) -> None:
        ch, de = self.challenger, self.dealer
        pro = self.pro_declarer
        m = self.multiplier
        n = self.parties_played = self.parties_played + 1
        w = result.winner
        bulka_won: Tokens = 0
        if w is None:
            self.multiplier = m * 2
        else:
            winner, loser = (ch, de) if w == 0 else (de, ch)
            streaks = self.streaks
            streaks[winner] += 1
            streaks[loser] = 0
            self.multiplier = 1
            self.pro_declarer = None
            if pro is not None:
                start = self._pro_index
                assert start is not None  # set with pro_declarer
                self.pro_declarations.append(
                    {
                        "partie_index": start,
                        "player": pro,
                        "result": "won" if winner == pro else "lost",
                        "parties": n - start,
                        "bulka_won": self.ledger.bulka if winner == pro else 0,
                    }
                )
            if winner == pro:
                bulka_won = self.ledger.award(winner)
                streaks[winner] = 0
                self.dealer, self.challenger, _ = rotate_pro_won(winner, loser, self.queue, len(self.players))
                self._join.reset(len(self.queue))
            else:
                self.dealer, self.challenger, pops = rotate_normal(winner, loser, self.queue)
                self._join.popped(pops)
        sc = result.scores
        tokens = result.tokens
        if partie is None:
            dealt0 = dealt1 = bottom = None
        else:
            dealt0, dealt1 = partie.dealt
            bottom = partie.bottom
        self._log.append(
            (
                n - 1,
                de,
                ch,
                self._queue_at_start,
                pro,
                self._replay,
                m,
                result.stake,
                self._pro_stake,
                result.outcome,
                w,
                result.forfeited_by,
                sc[0].total,
                sc[1].total,
                tokens[0],
                tokens[1],
                result.bulka_in,
                bulka_won,
                self.ledger.bulka,
                result.details,
                dealt0,
                dealt1,
                bottom,
            )
        )
        self.partie = None
        if n >= self.max_parties and not (w is None and pro is not None):
            self._end("max_parties")
        elif w is None:
            self._start_partie(True, 0)
        else:
            self._new_partie()

    def _end(self, reason: str) -> None:
        self.advice = {}
        self._advisers = []
        self.multiplier = 1  # a pending non-Pro replay is dropped with its doubled m
        self.final_share = self.ledger.split(self.players)
        self.end_reason = reason
        self.phase = OVER
        self.partie = None
