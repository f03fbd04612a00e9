"""Advice for the defender of a Pro partie (docs/rules.md section 8,
Art. 5.3), as the players give and take it.

Giving honest advice (``honest_advice``): an adviser sees only the public
record (``AdviceView``), so it imagines the defender's hand. It draws
``worlds`` hands uniformly among those consistent with the record
(``trappola.agents.search.sampling``: the defender's voids, declarations, Manko answers;
the declarer's hand is drawn the same way, given the imagined one), deals
each world and replays the partie's public actions through the engine, asks
the player itself what it would do in the defender's seat of that world,
and advises the action chosen most often (ties: the lowest id). A drawn
hand that leaves the declarer too few cards for its declarations is drawn
again (at most four draws per world), a world whose replay fails is
dropped, and with no world left it gives no advice.

Taking advice (``heeded``): with ``heed=true`` a player plays the first
advice, in queue order, that is legal for it, and decides by itself when
there is none.
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

from trappola.agents.search.sampling import constraints_of
from trappola.agents.settings import Setting
from trappola_env.engine import Deal, Partie, RuleConfig
from trappola_env.engine.advice import NO_ADVICE, advice_id
from trappola_env.engine.cards import N_CARDS, cards_of, mask_of
from trappola_env.engine.infostate import ROLES, InfoState
from trappola_env.interface import AdviceView, TurnView

_TRIES = 4  # draws per world asked for, before giving up on the rest

__all__ = ["HEED_WEB", "advice_settings", "imagined_views", "honest_advice", "heeded"]


def advice_settings(honest: bool = True) -> dict[str, Setting]:
    """``heed`` for every player; ``advice_worlds`` for the honest advisers."""
    out = {"heed": Setting(bool, False, "play the advice of the waiting players when it is legal (Pro parties)")}
    if honest:
        out["advice_worlds"] = Setting(
            int, 8, "advising: imagined hands of the defender to vote over (0: no advice)", low=0, high=256
        )
    return out


#: ``heed`` as the web table offers it (``Player.WEB``); ``advice_worlds`` each player bounds itself.
HEED_WEB = {"heed": None}


def _seen_as(info: InfoState, seat: int, hand: int = 0, dealt: int = 0) -> InfoState:
    """``info`` (a public view) as seen from ``seat`` holding ``hand``
    (``dealt`` its dealt hand); 0 keeps the hand hidden."""
    out = copy.copy(info)
    out.seat, out.role, out.hand, out.dealt = seat, ROLES[seat], hand, dealt
    return out


def imagined_views(view: AdviceView, rng, worlds: int) -> list[TurnView]:
    """Up to ``worlds`` views of the defender's decision, each in a world
    dealt consistently with the public record (see the module docstring);
    ``rng`` is a ``random.Random``."""
    info = view.info
    defender, declarer = info.seat, 1 - info.seat
    played = (mask_of(info.played_by(0)), mask_of(info.played_by(1)))
    defender_hands = constraints_of(_seen_as(info, declarer))
    config = RuleConfig(ace_declaration=info.ace_declaration)
    out: list[Any] = []
    for _ in range(_TRIES * worlds):
        if len(out) == worlds:
            break
        hand = int(defender_hands.sample(rng, 1)[0])
        dealt_def = hand | played[defender]
        as_defender = _seen_as(info, defender, hand, dealt_def)
        try:  # the declarer's declarations may need cards this hand took: draw again
            other = int(constraints_of(as_defender).sample(rng, 1)[0])
        except ValueError:
            continue
        dealt_dec = other | played[declarer]
        rest = [c for c in range(N_CARDS) if not (dealt_def | dealt_dec | 1 << info.bottom) >> c & 1]
        rng.shuffle(rest)
        hands = [0, 0]
        hands[defender], hands[declarer] = dealt_def, dealt_dec
        deal = Deal(tuple(cards_of(hands[0])), tuple(cards_of(hands[1])), tuple(rest) + (info.bottom,))
        p = Partie(
            deal,
            config,
            stake_multiple=info.stake_multiple,
            multiplier=info.multiplier,
            alifer_allowed=info.alifer_allowed,
        )
        try:
            for _, action in view.history:
                p.apply(action)
        except ValueError:
            continue
        if p.terminal or p.to_act != defender:
            continue
        out.append(TurnView(InfoState(p, defender), opponent=view.declarer))
    return out


def honest_advice(player, view: AdviceView, worlds: int) -> int:
    """The advice id of ``player`` (anything with ``act(TurnView)`` and a
    ``random.Random`` ``rng``): its majority choice over ``worlds``
    imagined defender hands; no advice when ``worlds`` is 0."""
    if worlds <= 0:
        return NO_ADVICE
    votes = Counter(player.act(v) for v in imagined_views(view, player.rng, worlds))
    if not votes:
        return NO_ADVICE
    action = max(votes, key=lambda a: (votes[a], -a))
    advice = advice_id(int(action))
    return advice if view.legal_mask >> advice & 1 else NO_ADVICE


def heeded(view: TurnView) -> int | None:
    """The first advice in ``view.advice`` (queue order) that is legal, else None."""
    for _, action in view.advice:
        if action is not None and view.is_legal(action):
            return action
    return None
