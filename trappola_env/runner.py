"""Fast Bulka session runner: plays a whole session with one policy per
player, straight on the session engine (``engine.session.Session``), with
no PettingZoo loop. The rules live in the engine only; this file only asks
the players.

    from trappola_env.runner import play_session
    res = play_session([p0, p1, p2], max_parties=200, seed=1)
    res.balances, res.bulka_wins, res.pro_declarations, res.history

A player is one of:

- an object with ``act(info_state, legal_mask) -> action id`` and
  optionally ``decide_pro(decision) -> bool`` (the ``agents`` ``Player``
  shape);
- a plain callable ``(info_state, legal_mask) -> action id``;
- a pair ``(policy, pro_rule)`` of the above callable and a Pro rule.

``info_state`` is the acting seat's ``engine.InfoState`` (its hand and the
public record of the partie, never the opponent's cards); ``legal_mask``
is the ``int`` bit set over the 49 action ids (``engine.mask_to_actions``
lists them). A Pro rule is ``True`` / ``False`` (always / never declare)
or a callable ``(decision) -> bool``; ``decision`` is the session's
``ProDecision`` (player, streak, extra_stake, bulka, balance, n_players,
parties_left). Players without one use ``pro_default`` (default ``False``,
i.e. never declare: a player that does not know about Pro keeps winning
without declaring, which RULES.md allows).

``observe`` swaps ``info_state`` for any other observation:
``observe(session, name) -> obs`` is called for each action, e.g. the
bulka_v0 vector encoder.

Players are given in seating-name order (``player_0`` ...) as a sequence,
or as ``{name: player}``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .engine.config import DEFAULT_CONFIG, RuleConfig
from .engine.infostate import InfoState
from .engine.ledger import to_json_number
from .engine.partie import DONE
from .engine.session import OVER, PLAYING, Session


def _split_player(p, pro_default):
    """(act callable, pro callable) of one player spec."""
    if isinstance(p, tuple):
        if len(p) != 2:
            raise ValueError("a player given as a tuple must be (policy, pro_rule)")
        policy, pro = p
    elif hasattr(p, "act"):
        policy, pro = p.act, getattr(p, "decide_pro", pro_default)
    else:
        policy, pro = p, pro_default
    if not callable(policy):
        raise ValueError(f"a player's policy must be callable, got {policy!r}")
    if isinstance(pro, bool):
        answer = pro
        pro = lambda decision: answer  # noqa: E731
    elif not callable(pro):
        raise ValueError(f"a Pro rule must be a bool or a callable, got {pro!r}")
    return policy, pro


@dataclass
class SessionResult:
    """What ``play_session`` returns. Balances are exact (``int`` or
    ``Fraction``); ``to_dict()`` gives floats for JSON."""

    balances: dict
    departed: dict
    bulka_wins: dict  # name -> number of Pro wins (Bulkas taken)
    bulka_won: dict  # name -> tokens taken from the Bulka by Pro wins
    pro_offers: list  # ProOffer(partie_index, player, streak, declared)
    pro_declarations: list  # {"partie_index", "player", "result": won|lost, "parties": with replays}
    final_share: object
    parties_played: int
    history: list
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
            "history": [r.to_dict() for r in self.history],
        }


def pro_declarations(history) -> list[dict]:
    """One entry per Pro declared: who, at which partie, the result after
    its Alifer replays (``won`` / ``lost``), and how many parties it took."""
    out = []
    for rec in history:
        if rec.pro_declarer is None:
            continue
        if not rec.replay:
            out.append({"partie_index": rec.index, "player": rec.pro_declarer, "result": None, "parties": 0})
        entry = out[-1]
        entry["parties"] += 1
        if rec.winner is not None:
            entry["result"] = rec.pro_result
    return out


def play_partie(partie, policies) -> None:
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
                 pro_default=False, observe=None, session: Session | None = None) -> SessionResult:
    """Play a session to its end and return a ``SessionResult``. Pass
    ``session`` to continue an existing one (then the session's own
    settings apply and the other settings are ignored)."""
    if isinstance(players, dict):
        names = list(players)
        specs = players
    else:
        players = list(players)
        names = [f"player_{i}" for i in range(len(players))]
        specs = dict(zip(names, players))
    if session is None:
        session = Session(max_parties=max_parties, stake_multiple=stake_multiple, config=config, seed=seed,
                          names=names, seating=seating, deal_source=deal_source)
    missing = [n for n in session.players if n not in specs]
    if missing:
        raise ValueError(f"no player given for {missing}")
    policies, pro_rules = {}, {}
    for n, p in specs.items():
        policies[n], pro_rules[n] = _split_player(p, pro_default)

    s = session
    while True:
        phase = s.phase
        if phase == PLAYING:
            pols = (policies[s.challenger], policies[s.dealer])
            if observe is None:
                play_partie(s.partie, pols)
            else:
                _play_partie_observed(s, s.partie, pols, observe)
            s.finish_partie()
        elif phase == OVER:
            break
        else:
            s.decide_pro(bool(pro_rules[s.dealer](s.pending)))

    bulka_wins = dict.fromkeys(names, 0)
    bulka_won = dict.fromkeys(names, 0)
    for rec in s.history:
        if rec.pro_result == "won":
            bulka_wins[rec.winner] = bulka_wins.get(rec.winner, 0) + 1
            bulka_won[rec.winner] = bulka_won.get(rec.winner, 0) + rec.bulka_won
    return SessionResult(
        balances=dict(s.balances), departed=dict(s.departed), bulka_wins=bulka_wins, bulka_won=bulka_won,
        pro_offers=list(s.pro_offers), pro_declarations=pro_declarations(s.history),
        final_share=s.final_share, parties_played=s.parties_played, history=s.history, session=s)
