"""The referee: plays parties and whole Bulka sessions with any players,
straight on the engine (``engine.partie.Partie``, ``engine.session.Session``),
with no PettingZoo loop. The rules live in the engine only; this file only
asks the players and shows each one only its own seat.

    from trappola.envs.referee import play_partie, play_session
    rec = play_partie([challenger, dealer], deal)   # players of trappola.envs.interface
    rec.result, rec.history
    res = play_session([p0, p1, p2], max_parties=200, seed=1)
    res.balances, res.bulka_wins, res.pro_declarations, res.history

Players
-------
Given as a sequence (named ``player_0``, ``player_1`` ... in that order)
or as ``{name: player}``. Each is one of:

- a plain callable ``policy(info_state, legal_mask) -> action id``;
- a pair ``(policy, pro_rule)``;
- an object with ``act(info_state, legal_mask)`` and optionally
  ``decide_pro(decision) -> bool``;
- a ``SeatPlayer`` (``trappola.envs.interface``; any object whose ``act``
  takes one argument): it gets ``act(TurnView)`` and
  ``decide_pro(ProView)``, with its ``name`` as the name its opponents
  see, and ``observe_result(info, result)`` after each partie it plays
  unless that is marked ``is_default_noop``.

``info_state`` is the acting seat's ``engine.InfoState`` (its hand and the
public record of the partie, never the opponent's cards); ``legal_mask``
is the ``int`` bit set over the 49 action ids (``engine.cards_of``
lists them). A Pro rule is ``True`` / ``False`` (always / never declare)
or a callable ``(decision) -> bool``; ``decision`` is the session's
``ProDecision`` (player, streak, extra_stake, bulka, balance, n_players,
parties_left); an answer that is not a bool (``"no"``, ``1``) raises
``ValueError`` naming the player. Players without one use ``pro_default``
(default ``False``, never declare: a player that does not know about Pro
keeps winning without declaring, which docs/rules.md allows). An illegal action
raises the engine's ``IllegalActionError`` naming the player and its seat.
The runner never resets players.

``observe(session, name) -> obs`` replaces ``info_state`` for the
two-argument policies (e.g. a ``bulka_v0`` vector encoder).

Advice
------
``play_session(..., advice=True)`` plays a session in which the waiting
players advise the defender of each Pro partie (``Session(advice=True)``,
docs/rules.md section 8): a player with ``advise(AdviceView) -> advice id``
is asked before each of the defender's decisions, in queue order, and one
without it gives no advice; a ``SeatPlayer`` defender sees the advice in
``TurnView.advice``. An illegal advice raises ``IllegalActionError`` naming
the adviser. Without it (the default) nothing is asked and the fast loop
is unchanged.

Result
------
``SessionResult``: exact ``balances`` (``int`` or ``Fraction`` after the
split) and ``departed``, ``bulka_wins`` / ``bulka_won`` (Pro wins and the
tokens taken, per player), ``pro_offers`` (every offer and answer),
``pro_declarations`` (each Pro declared, its result after its replays and
how many parties it took), ``final_share``, ``parties_played``,
``history`` (the session's ``History``), the ``session`` itself;
``to_dict()`` is JSON-serialisable.
"""
from __future__ import annotations

import inspect
import operator
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from trappola.engine.actions import action_name
from trappola.engine.advice import NO_ADVICE
from trappola.engine.rule_config import DEFAULT_CONFIG, RuleConfig
from trappola.engine.infostate import InfoState
from trappola.engine.ledger import to_json_number
from trappola.engine.partie import DONE, IllegalActionError, Partie
from trappola.engine.records import session_records
from trappola.engine.scoring import BASE_STAKE
from trappola.engine.session import ADVICE, OVER, PLAYING, Session
from .interface import AdviceView, ProView, TurnView


def _takes_one_argument(fn) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    return len(required) == 1 and not any(p.kind == p.VAR_POSITIONAL for p in params)


def _constant(answer: bool):
    return lambda decision: answer


class _Seat:
    """One player as the runner calls it."""

    __slots__ = ("name", "display", "policy", "pro", "takes_views", "obj", "observe_result", "adviser")

    def __init__(self, name, spec, pro_default):
        self.name = name
        self.display = name
        self.obj = None
        self.adviser = getattr(spec, "advise", None) if not isinstance(spec, tuple) else None
        self.takes_views = False
        self.observe_result = None
        if isinstance(spec, tuple):
            if len(spec) != 2:
                raise ValueError(f"player {name}: a tuple must be (policy, pro_rule)")
            policy, pro = spec
        elif hasattr(spec, "act"):
            self.obj = spec
            policy, pro = spec.act, getattr(spec, "decide_pro", pro_default)
            if _takes_one_argument(spec.act):
                self.takes_views = True
                if isinstance(getattr(spec, "name", None), str):
                    self.display = spec.name
                hook = getattr(spec, "observe_result", None)
                if hook is not None and not getattr(hook, "is_default_noop", False):
                    self.observe_result = hook
        else:
            policy, pro = spec, pro_default
        if not callable(policy):
            raise ValueError(f"player {name}: the policy must be callable, got {policy!r}")
        if isinstance(pro, bool):
            pro = _constant(pro)
        elif not callable(pro):
            raise ValueError(f"player {name}: a Pro rule must be a bool or a callable, got {pro!r}")
        self.policy = policy
        self.pro = pro

    def advise(self, view: AdviceView):
        """The advice id this player gives (no advice without ``advise``)."""
        return NO_ADVICE if self.adviser is None else self.adviser(view)

    def policy_against(self, opponent_display: str):
        """The two-argument policy for one pairing."""
        if not self.takes_views:
            return self.policy
        return seat_policy(self.obj, opponent_display)


def seat_policy(player, opponent: str | None = None):
    """The two-argument policy ``(info_state, legal_mask) -> action`` of a
    ``SeatPlayer``, which is shown a ``TurnView`` naming ``opponent``."""
    act = player.act

    def policy(info, legal_mask):
        return act(TurnView(info, legal_mask, opponent=opponent))

    return policy


def _pro_answer(seat: _Seat, answer) -> bool:
    """A Pro rule's answer, which must be a bool (numpy's too): a truthy
    string such as ``"no"`` is a bug in the rule, not a declaration."""
    if isinstance(answer, bool):
        return answer
    if type(answer).__module__ == "numpy" and getattr(answer, "dtype", None) == bool:
        return bool(answer)
    raise ValueError(f"player {seat.display!r} ({seat.name}): its Pro rule answered {answer!r}; "
                     "a Pro rule must return True or False")


def pro_view(session, display: dict | None = None) -> ProView:
    """The ``ProView`` of ``session``'s pending Pro decision (phase
    ``"pro"``), for the dealer; ``display`` maps player names to the names
    shown (default: the names themselves)."""
    shown = (lambda n: n) if display is None else display.__getitem__
    players = session.players
    d = session.dealer
    return ProView(
        player=players.index(d), players=tuple(shown(n) for n in players),
        balances=tuple(float(session.balances[n]) for n in players),
        streaks=tuple(session.streaks[n] for n in players), bulka=float(session.bulka),
        opponent=shown(session.challenger), multiplier=session.multiplier,
        stake_multiple=session.stake_multiple, base_stake=BASE_STAKE, parties_left=session.parties_left,
        next_opponent=shown(session.queue[0] if session.queue else session.challenger),
        records=tuple(session_records(session.history, d, players)[n] for n in players))


def advice_view(session, display: dict | None = None) -> AdviceView:
    """The ``AdviceView`` of ``session``'s adviser to act (phase
    ``"advice"``); ``display`` maps player names to the names shown."""
    shown = (lambda n: n) if display is None else display.__getitem__
    partie = session.partie
    return AdviceView(info=InfoState.public(partie, 0), history=tuple(partie.history),
                      legal_mask=session.legal_mask(), defender=shown(session.challenger),
                      declarer=shown(session.dealer),
                      advice=tuple((shown(n), a) for n, a in session.advice.items()))


def _play_partie_advised(session, seats: dict, pols, pair, observe) -> None:
    """Play the partie in play through ``session.act``, asking the advisers
    whenever the session is in its advice phase."""
    partie = session.partie
    display = {n: v.display for n, v in seats.items()}
    while session.partie is partie and (session.phase == PLAYING or session.phase == ADVICE):
        seat = seats[session.to_act]
        try:
            if session.phase == ADVICE:
                session.act(seat.advise(advice_view(session, display)))
                continue
            p = partie.to_act
            mask = partie.legal_mask()
            if observe is not None:
                action = pols[p](observe(session, pair[p]), mask)
            elif seat.takes_views:
                advice = tuple((display[n], a) for n, a in session.advice.items())
                action = seat.obj.act(TurnView(InfoState(partie, p), mask, opponent=seats[pair[1 - p]].display,
                                               advice=advice))
            else:
                action = pols[p](InfoState(partie, p), mask)
            session.act(action)
        except IllegalActionError as e:  # the engine knows seats only: name the player too
            raise IllegalActionError(f"player {seat.display!r} ({seat.name}): {e}") from None


@dataclass
class SessionResult:
    """What ``play_session`` returns (see the module docstring)."""

    balances: dict
    departed: dict
    bulka_wins: dict  # name -> number of Pro wins (Bulkas taken)
    bulka_won: dict  # name -> tokens taken from the Bulka by Pro wins
    pro_offers: list  # ProOffer(partie_index, player, streak, declared)
    pro_declarations: list  # {"partie_index", "player", "result": won|lost, "parties", "bulka_won"}
    final_share: object
    parties_played: int
    history: object
    session: Session = field(repr=False)

    def to_dict(self) -> dict:
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


def play_out(partie, policies) -> None:
    """Play ``partie`` to its end: ``policies[seat](info_state, legal_mask)``
    for seat 0 (challenger) and 1 (dealer). The runner and the bare
    benchmark both use this one loop."""
    while partie.phase != DONE:
        seat = partie.to_act
        partie.apply(policies[seat](InfoState(partie, seat), partie.legal_mask()))


def _play_partie_observed(session, partie, policies, observe) -> None:
    table = session.table
    while partie.phase != DONE:
        seat = partie.to_act
        partie.apply(policies[seat](observe(session, table[seat]), partie.legal_mask()))


def play_session(players, *, max_parties: int = 100, stake_multiple: int = 1,
                 config: RuleConfig = DEFAULT_CONFIG, seed=None, seating=None, deal_source=None,
                 pro_default=False, observe=None, session: Session | None = None,
                 advice: bool = False, on_partie: Callable[[Partie], None] | None = None) -> SessionResult:
    """Play a session to its end and return a ``SessionResult``. Pass
    ``session`` to continue an existing one (then its own settings apply
    and the other settings are ignored). ``advice``: the waiting players
    advise the defender of each Pro partie (see the module docstring).
    ``on_partie(partie)`` is called with each finished ``Partie`` once the
    session has settled it (``session.history[-1]`` is its record), for
    saving sessions (``trappola.evaluation.session_record``)."""
    if isinstance(players, dict):
        names = list(players)
        specs = players
    else:
        players = list(players)
        names = [f"player_{i}" for i in range(len(players))]
        specs = dict(zip(names, players))
    if session is None:
        session = Session(max_parties=max_parties, stake_multiple=stake_multiple, config=config, seed=seed,
                          names=names, seating=seating, deal_source=deal_source, advice=advice)
    missing = [n for n in session.players if n not in specs]
    if missing:
        raise ValueError(f"no player given for {missing}")
    seats = {n: _Seat(n, p, pro_default) for n, p in specs.items()}
    hooks = any(seat.observe_result is not None for seat in seats.values())
    pairings = {}  # (challenger, dealer) -> the two policies

    s = session
    while True:
        phase = s.phase
        if phase == PLAYING or phase == ADVICE:
            pair = (s.challenger, s.dealer)
            pols = pairings.get(pair)
            if pols is None:
                ch, de = seats[pair[0]], seats[pair[1]]
                pols = pairings[pair] = (ch.policy_against(de.display), de.policy_against(ch.display))
            partie = s.partie
            if s.advice_on:
                _play_partie_advised(s, seats, pols, pair, observe)  # settles the partie too
            else:
                try:
                    if observe is None:
                        play_out(partie, pols)
                    else:
                        _play_partie_observed(s, partie, pols, observe)
                except IllegalActionError as e:  # the engine knows seats only: name the player too
                    offender = seats[pair[partie.to_act]]
                    raise IllegalActionError(f"player {offender.display!r} ({offender.name}): {e}") from None
            if hooks:
                result = partie.result()
                for seat in (0, 1):
                    hook = seats[pair[seat]].observe_result
                    if hook is not None:
                        hook(partie.info_state(seat), result)
            if not s.advice_on:
                s.finish_partie()
            if on_partie is not None:
                on_partie(partie)
        elif phase == OVER:
            break
        else:
            seat = seats[s.dealer]
            decision = pro_view(s, {n: v.display for n, v in seats.items()}) if seat.takes_views else s.pending
            s.decide_pro(_pro_answer(seat, seat.pro(decision)))

    names_seen = list(s.ledger.balances) + list(s.ledger.departed)
    bulka_wins = dict.fromkeys(names_seen, 0)
    bulka_won = dict.fromkeys(names_seen, 0)
    for decl in s.pro_declarations:
        if decl["result"] == "won":
            bulka_wins[decl["player"]] += 1
            bulka_won[decl["player"]] += decl["bulka_won"]
    return SessionResult(
        balances=dict(s.balances), departed=dict(s.departed), bulka_wins=bulka_wins, bulka_won=bulka_won,
        pro_offers=list(s.pro_offers), pro_declarations=[dict(d) for d in s.pro_declarations],
        final_share=s.final_share, parties_played=s.parties_played, history=s.history, session=s)


@dataclass
class PartieRecord:
    """A finished partie as the referee saw it."""

    result: Any  # scoring.PartieResult
    history: tuple  # (seat, action) in order
    deal: Any
    infos: tuple = field(default=())  # final InfoState per seat


def play_partie(players: Sequence, deal, config: RuleConfig = DEFAULT_CONFIG, stake_multiple: int = 1,
                multiplier: int = 1, names: Sequence[str] | None = None,
                on_action: Callable[[int, int], None] | None = None) -> PartieRecord:
    """Play one partie: ``players[0]`` is the challenger, ``players[1]`` the
    dealer. Each player is shown only its own ``TurnView``; an illegal
    answer raises ``ValueError`` naming the player (a bug in that player:
    the referee never turns it into a forfeit). ``on_action(seat, action)``
    is called after every applied action (for logging and displays)."""
    if len(players) != 2:
        raise ValueError(f"a partie needs exactly 2 players, got {len(players)}")
    names = tuple(names) if names is not None else tuple(p.name for p in players)
    partie = Partie(deal, config, stake_multiple=stake_multiple, multiplier=multiplier)
    while not partie.terminal:
        seat = partie.to_act
        info = partie.info_state(seat)
        view = TurnView(info, opponent=names[1 - seat])
        action = players[seat].act(view)
        if not view.is_legal(action):
            legal = ", ".join(f"{a} ({action_name(a)})" for a in view.legal_actions)
            raise ValueError(f"player {names[seat]!r} (seat {seat}) chose illegal action {action!r}; "
                             f"legal: {legal}")
        action = operator.index(action)
        partie.apply(action)
        if on_action is not None:
            on_action(seat, action)
    result = partie.result()
    infos = (partie.info_state(0), partie.info_state(1))
    for seat in (0, 1):
        players[seat].observe_result(infos[seat], result)
    return PartieRecord(result=result, history=tuple(partie.history), deal=deal, infos=infos)
