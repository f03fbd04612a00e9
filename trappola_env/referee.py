"""The referee: one loop that plays parties and whole Bulka sessions with
any players, straight on the engine (``engine.partie.Partie``,
``engine.session.Session``). The rules live in the engine only; the
referee asks the players and shows each one only its own seat.

    from trappola_env.referee import Referee, play_partie, play_session
    rec = play_partie([challenger, dealer], deal)
    res = play_session([p0, p1, p2], max_parties=200, seed=1)
    ref = Referee.for_session(players, session, on_decision=..., on_partie_end=...)
    while not ref.over:                  # what play_session does (``ref.run()``)
        turn = ref.turn()                # who is asked what: Turn(who, kind, view)
        ref.answer(ref.ask(turn))        # a table with a person answers its turns itself

Players
-------
One shape: a ``SeatPlayer`` (``trappola_env.interface``): ``act(TurnView)
-> action id``, ``decide_pro(ProView) -> bool`` (without it: never
declare), ``advise(AdviceView) -> advice id`` (without it: no advice),
``observe_result(info, result)`` after each partie it plays (unless that
is marked ``is_default_noop``), and its ``name`` as the name its opponents
see (when it is a string; else its key). Functions become players through
``trappola_env.seat_adapters`` (``PolicySeat(policy, pro)``). Given as a
sequence (named ``player_0``, ``player_1`` ... in that order) or as
``{name: player}``; ``None`` for a player whose turns are answered from
outside (``answer``: the web table's person).

A Pro answer that is not a bool (``"no"``, ``1``) raises ``ValueError``
naming the player. An action the engine refuses raises its
``IllegalActionError`` (a ``ValueError``) naming the player and its key
(under ``RuleConfig(illegal_action="forfeit")`` the engine forfeits the
partie instead). The referee never resets players.

Callbacks
---------
For observers (recorders, data collection), never shown to players:

* ``on_decision(partie, seat, action)``: every move of a partie, once the
  player has chosen it and before the engine applies it (``partie`` is the
  full state: ``partie.info_state(seat)`` is what the player saw);
* ``on_partie_end(partie)``: every finished partie, once the session (if
  any) has settled it (``session.history[-1]`` is its record).

Advice
------
In a session with advice (``Session(advice=True)``, docs/rules.md section
8) the waiting players advise the defender of each Pro partie before each
of its decisions, in queue order; the defender sees the advice in
``TurnView.advice``.

Result
------
``SessionResult``: exact ``balances`` (``int`` or ``Fraction`` after the
split) and ``departed``, ``bulka_wins`` / ``bulka_won`` (Pro wins and the
tokens taken, per player), ``pro_offers`` (every offer and answer),
``pro_declarations`` (each Pro declared, its result after its replays and
how many parties it took), ``final_share``, ``parties_played``,
``history`` (the session's ``History``), the ``session`` itself;
``to_dict()`` is JSON-serialisable. ``PartieRecord`` for a lone partie.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, SupportsIndex, cast

from trappola_env.engine.advice import NO_ADVICE
from trappola_env.engine.deal import Deal
from trappola_env.engine.history import History
from trappola_env.engine.infostate import InfoState
from trappola_env.engine.ledger import Tokens, to_json_number
from trappola_env.engine.partie import DONE, IllegalActionError, Partie
from trappola_env.engine.records import session_records
from trappola_env.engine.rule_config import DEFAULT_CONFIG, RuleConfig
from trappola_env.engine.scoring import BASE_STAKE, PartieResult
from trappola_env.engine.seating import Seating
from trappola_env.engine.session import ADVICE, OVER, PLAYING, PRO_DECISION, ProOffer, Session
from trappola_env.interface import AdviceView, ProView, TurnView

ACT, PRO, ADVISE = "act", "pro", "advice"


class Turn(NamedTuple):
    """A decision the referee waits for: ``who`` (the player's key: its
    name in a session, its seat in a lone partie) answers ``view`` (a
    ``TurnView`` for ``ACT``, a ``ProView`` for ``PRO``, an ``AdviceView``
    for ``ADVISE``)."""

    who: Any
    kind: str
    view: Any


def _pro_answer(display: str, who: object, answer: object) -> bool:
    """A Pro rule's answer, which must be a bool (numpy's too): a truthy
    string such as ``"no"`` is a bug in the rule, not a declaration."""
    if isinstance(answer, bool):
        return answer
    if type(answer).__module__ == "numpy" and getattr(getattr(answer, "dtype", None), "kind", None) == "b":
        return bool(answer)
    raise ValueError(
        f"player {display!r} ({who}): its Pro rule answered {answer!r}; a Pro rule must return True or False"
    )


def pro_view(session: Session, display: dict[str, str] | None = None) -> ProView:
    """The ``ProView`` of ``session``'s pending Pro decision (phase
    ``"pro"``), for the dealer; ``display`` maps player names to the names
    shown (default: the names themselves)."""
    shown: Callable[[str], str] = (lambda n: n) if display is None else display.__getitem__
    players = session.players
    d = session.dealer
    return ProView(
        player=players.index(d),
        players=tuple(shown(n) for n in players),
        balances=tuple(float(session.balances[n]) for n in players),
        streaks=tuple(session.streaks[n] for n in players),
        bulka=float(session.bulka),
        opponent=shown(session.challenger),
        multiplier=session.multiplier,
        stake_multiple=session.stake_multiple,
        base_stake=BASE_STAKE,
        parties_left=session.parties_left,
        next_opponent=shown(session.queue[0] if session.queue else session.challenger),
        records=tuple(session_records(session.history, d, players)[n] for n in players),
    )


def advice_view(session: Session, display: dict[str, str] | None = None) -> AdviceView:
    """The ``AdviceView`` of ``session``'s adviser to act (phase
    ``"advice"``); ``display`` maps player names to the names shown."""
    shown: Callable[[str], str] = (lambda n: n) if display is None else display.__getitem__
    partie = session.partie
    if partie is None:
        raise ValueError(f"no advice is pending (phase {session.phase!r})")
    return AdviceView(
        info=InfoState.public(partie, 0),
        history=tuple(partie.history),
        legal_mask=session.legal_mask(),
        defender=shown(session.challenger),
        declarer=shown(session.dealer),
        advice=tuple((shown(n), a) for n, a in session.advice.items()),
    )


def _action_id(answer: object) -> int | None:
    """``answer`` as an action id (numpy integers too), None if it is none."""
    if isinstance(answer, bool):
        return None
    try:
        return operator.index(cast(SupportsIndex, answer))  # a TypeError below if it has no __index__
    except TypeError:
        return None


class Referee:
    """The loop of the module docstring over a ``Session`` (``for_session``)
    or one ``Partie`` (``for_partie``). ``players``: key -> ``SeatPlayer``
    (or None: answered from outside); ``display``: key -> the name shown
    to the others (default: each player's ``name``)."""

    def __init__(
        self,
        players: dict[Any, Any],
        *,
        session: Session | None = None,
        partie: Partie | None = None,
        on_decision: Callable[[Partie, int, int], None] | None = None,
        on_partie_end: Callable[[Partie], None] | None = None,
        display: dict[Any, str] | None = None,
    ):
        if (session is None) == (partie is None):
            raise ValueError("a referee plays a session or a partie")
        self.players = players
        self.session = session
        self._partie = partie
        self.on_decision = on_decision
        self.on_partie_end = on_partie_end
        self.display = (
            dict(display)
            if display is not None
            else {k: p.name if isinstance(getattr(p, "name", None), str) else str(k) for k, p in players.items()}
        )
        if session is not None:
            missing = [n for n in session.players if n not in players]
            if missing:
                raise ValueError(f"no player given for {missing}")
            for k, p in players.items():
                if p is not None and not callable(getattr(p, "act", None)):
                    raise ValueError(f"player {k}: a player needs an act(view) method, got {p!r}")
        self._hooks = {
            k: hook
            for k, p in players.items()
            if (hook := getattr(p, "observe_result", None)) is not None and not getattr(hook, "is_default_noop", False)
        }

    @classmethod
    def for_session(cls, players: Sequence[Any] | dict[str, Any], session: Session, **callbacks: Any) -> Referee:
        """Play ``session`` with ``players`` (a sequence or ``{name: player}``)."""
        if not isinstance(players, dict):
            players = {f"player_{i}": p for i, p in enumerate(players)}
        return cls(players, session=session, **callbacks)

    @classmethod
    def for_partie(
        cls, players: Sequence[Any], partie: Partie, names: Sequence[str] | None = None, **callbacks: Any
    ) -> Referee:
        """Play ``partie``: ``players[0]`` is the challenger, ``players[1]``
        the dealer; ``names`` the names shown (default: the players')."""
        if len(players) != 2:
            raise ValueError(f"a partie needs exactly 2 players, got {len(players)}")
        return cls(
            dict(enumerate(players)),
            partie=partie,
            display=None if names is None else dict(enumerate(names)),
            **callbacks,
        )

    # ------------------------------------------------------------ stepping
    @property
    def partie(self) -> Partie | None:
        """The partie in play (None between parties of a session)."""
        return self._partie if self.session is None else self.session.partie

    @property
    def over(self) -> bool:
        """Whether nothing is left to play."""
        if self.session is None:
            assert self._partie is not None  # a referee plays a session or a partie
            return self._partie.phase == DONE
        return self.session.phase == OVER

    def turn(self) -> Turn:
        """The decision to make now (``over`` must be False)."""
        s = self.session
        if s is None:
            partie = self._partie
            assert partie is not None  # a referee plays a session or a partie
            seat = partie.to_act
            return Turn(
                seat, ACT, TurnView(partie.info_state(seat), partie.legal_mask(), opponent=self.display[1 - seat])
            )
        phase = s.phase
        if phase == PLAYING:
            partie = s.partie
            assert partie is not None  # a partie is dealt in PLAYING
            seat = partie.to_act
            table = s.table
            advice = tuple((self.display[n], a) for n, a in s.advice.items()) if s.advice_on else ()
            return Turn(
                table[seat],
                ACT,
                TurnView(
                    InfoState(partie, seat), partie.legal_mask(), opponent=self.display[table[1 - seat]], advice=advice
                ),
            )
        if phase == PRO_DECISION:
            return Turn(s.dealer, PRO, pro_view(s, self.display))
        if phase == ADVICE:
            return Turn(s.to_act, ADVISE, advice_view(s, self.display))
        raise ValueError("the session is over")

    def ask(self, turn: Turn) -> Any:
        """``turn``'s player's answer (it changes nothing here: a table may
        ask outside its lock)."""
        player = self.players[turn.who]
        if player is None:
            raise ValueError(f"{turn.who} is answered from outside the referee")
        if turn.kind == ACT:
            return player.act(turn.view)
        if turn.kind == PRO:
            decide = getattr(player, "decide_pro", None)
            return False if decide is None else decide(turn.view)
        advise = getattr(player, "advise", None)
        return NO_ADVICE if advise is None else advise(turn.view)

    def answer(self, answer: object) -> None:
        """Apply the answer to the current ``turn()`` (an action id, a bool
        for a Pro decision, an advice id), calling the callbacks."""
        s = self.session
        if s is not None and s.phase == PRO_DECISION:
            s.decide_pro(_pro_answer(self.display[s.dealer], s.dealer, answer))
            return
        if s is not None and s.phase == OVER:
            raise ValueError("the session is over; no answer can be applied")
        partie = self.partie
        assert partie is not None  # dealt in PLAYING and ADVICE, given in a lone partie
        playing = s is None or s.phase == PLAYING
        who = partie.to_act if s is None else s.to_act
        action = _action_id(answer)
        try:
            if action is None:
                raise IllegalActionError(f"illegal action {answer!r}")
            if playing:
                if self.on_decision is not None:
                    self.on_decision(partie, partie.to_act, action)
                if s is None:
                    partie.apply(action)
                else:
                    s.act(action)
            else:  # advice: legal are the advice ids of the session's mask
                assert s is not None  # advice is given in a session
                if not s.legal_mask() >> action & 1:
                    raise IllegalActionError(f"illegal advice {answer!r}")
                s.act(action)
        except IllegalActionError as e:  # the engine knows seats only: name the player too
            raise IllegalActionError(
                f"player {self.display[who]!r} ({who if s is not None else f'seat {who}'}): {e}"
            ) from None
        if playing and partie.phase == DONE:
            self._partie_ended(partie)

    def _partie_ended(self, partie: Partie) -> None:
        if self._hooks:
            rec = None if self.session is None else self.session.history[-1]
            keys = (0, 1) if rec is None else (rec.challenger, rec.dealer)
            result = partie.result()
            for seat, key in enumerate(keys):
                hook = self._hooks.get(key)
                if hook is not None:
                    hook(partie.info_state(seat), result)
        if self.on_partie_end is not None:
            self.on_partie_end(partie)

    def run(self) -> Referee:
        """Play to the end, asking the players."""
        while not self.over:
            self.answer(self.ask(self.turn()))
        return self


@dataclass
class SessionResult:
    """What ``play_session`` returns (see the module docstring)."""

    balances: dict[str, Tokens]
    departed: dict[str, Tokens]
    bulka_wins: dict[str, int]  # name -> number of Pro wins (Bulkas taken)
    bulka_won: dict[str, Tokens]  # name -> tokens taken from the Bulka by Pro wins
    pro_offers: list[ProOffer]  # ProOffer(partie_index, player, streak, declared)
    pro_declarations: list[dict[str, Any]]  # {"partie_index", "player", "result": won|lost, "parties", "bulka_won"}
    final_share: Tokens
    parties_played: int
    history: History
    session: Session = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-serialisable data (exact numbers as ``to_json_number`` writes them)."""
        return {
            "balances": {n: to_json_number(v) for n, v in self.balances.items()},
            "departed": {n: to_json_number(v) for n, v in self.departed.items()},
            "bulka_wins": dict(self.bulka_wins),
            "bulka_won": dict(self.bulka_won),
            "pro_offers": [o._asdict() for o in self.pro_offers],
            "pro_declarations": list(self.pro_declarations),
            "final_share": to_json_number(self.final_share),
            "parties_played": self.parties_played,
            "history": self.history.to_dicts(),
        }


def play_session(
    players: Sequence[Any] | dict[str, Any],
    *,
    max_parties: int = 100,
    stake_multiple: int = 1,
    config: RuleConfig = DEFAULT_CONFIG,
    seed: int | None = None,
    seating: Seating | dict[str, Any] | None = None,
    deal_source: Callable[[Any], Deal] | None = None,
    session: Session | None = None,
    advice: bool = False,
    on_partie: Callable[[Partie], None] | None = None,
    on_decision: Callable[[Partie, int, int], None] | None = None,
) -> SessionResult:
    """Play a session to its end (a ``Referee``) and return a
    ``SessionResult``. Pass ``session`` to continue an existing one (then
    its own settings apply and the other settings are ignored). ``advice``:
    the waiting players advise the defender of each Pro partie.
    ``on_partie`` and ``on_decision``: the referee's ``on_partie_end`` and
    ``on_decision`` callbacks (see the module docstring)."""
    if isinstance(players, dict):
        names = list(players)
    else:
        players = list(players)
        names = [f"player_{i}" for i in range(len(players))]
    if session is None:
        session = Session(
            max_parties=max_parties,
            stake_multiple=stake_multiple,
            config=config,
            seed=seed,
            names=names,
            seating=seating,
            deal_source=deal_source,
            advice=advice,
        )
    s = session
    Referee.for_session(players, s, on_decision=on_decision, on_partie_end=on_partie).run()
    assert s.final_share is not None  # the session ran to its end
    names_seen = list(s.ledger.balances) + list(s.ledger.departed)
    bulka_wins = dict.fromkeys(names_seen, 0)
    bulka_won: dict[str, Tokens] = dict.fromkeys(names_seen, 0)
    for decl in s.pro_declarations:
        if decl["result"] == "won":
            bulka_wins[decl["player"]] += 1
            bulka_won[decl["player"]] += decl["bulka_won"]
    return SessionResult(
        balances=dict(s.balances),
        departed=dict(s.departed),
        bulka_wins=bulka_wins,
        bulka_won=bulka_won,
        pro_offers=list(s.pro_offers),
        pro_declarations=[dict(d) for d in s.pro_declarations],
        final_share=s.final_share,
        parties_played=s.parties_played,
        history=s.history,
        session=s,
    )


@dataclass
class PartieRecord:
    """A finished partie as the referee saw it."""

    result: PartieResult
    history: tuple[tuple[int, int], ...]  # (seat, action) in order
    deal: Deal
    infos: tuple[InfoState, ...] = field(default=())  # final InfoState per seat


def play_partie(
    players: Sequence[Any],
    deal: Deal,
    config: RuleConfig = DEFAULT_CONFIG,
    stake_multiple: int = 1,
    multiplier: int = 1,
    names: Sequence[str] | None = None,
    on_decision: Callable[[Partie, int, int], None] | None = None,
) -> PartieRecord:
    """Play one partie (a ``Referee``): ``players[0]`` is the challenger,
    ``players[1]`` the dealer, each shown only its own ``TurnView`` naming
    the other (``names``, default the players' names). ``on_decision``:
    the referee's callback (see the module docstring)."""
    partie = Partie(deal, config, stake_multiple=stake_multiple, multiplier=multiplier)
    names = tuple(names) if names is not None else tuple(p.name for p in players)
    Referee.for_partie(players, partie, names, on_decision=on_decision).run()
    return PartieRecord(
        result=partie.result(),
        history=tuple(partie.history),
        deal=deal,
        infos=(partie.info_state(0), partie.info_state(1)),
    )
