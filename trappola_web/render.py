"""Game state as JSON for the page: cards, the trick, declarations and
Manko answers, scores. Play and replay both use these, so the page draws
one shape of state.

A card is ``{"id": 8, "name": "AS", "rank": "A", "suit": "S"}`` (ids and
names as in docs/rules.md section 1). What a seat may see comes from its
``InfoState`` only, so the play view cannot leak the opponent's hand.
"""
from __future__ import annotations

from trappola_env.engine import ACTION_NAMES, CARD_NAMES, cards_of
from trappola_env.engine.actions import ACES
from trappola_env.engine.cards import RANK_NAMES, SUIT_NAMES
from trappola_env.engine.declarations import FIGURA_RANK

_DISPLAY_RANK = {"T": "10"}


def card(c: int) -> dict:
    name = CARD_NAMES[c]
    return {"id": c, "name": name, "rank": _DISPLAY_RANK.get(name[0], name[0]), "suit": name[1]}


def cards(mask_or_ids) -> list[dict]:
    ids = cards_of(mask_or_ids) if isinstance(mask_or_ids, int) else list(mask_or_ids)
    return [card(c) for c in ids]


def declarations(info, seat: int) -> list[dict]:
    """What ``seat`` declared, with the Manko answer about it when asked
    (docs/rules.md sections 3-4): ``[{"name", "count", "text"}]``."""
    out = []
    missing = {rank: suit for rank, suit in (info.manko_answer[seat] or ())}
    for action, count in sorted(info.declarations[seat].items()):
        name = ACTION_NAMES[action].replace("declare ", "")
        text = name if action > ACES or (action == ACES and count == 1) else f"{name} ({count})"
        entry = {"name": name, "count": count, "text": text}
        rank = FIGURA_RANK.get(action)
        if rank is not None and rank in missing:
            entry["manko"] = f"Manko: the missing {RANK_NAMES[rank]} is of {SUIT_NAMES[missing[rank]]}"
        out.append(entry)
    return out


def public_state(info, names) -> dict:
    """The public record of a partie as seen from ``info`` (either seat's
    ``InfoState``): per seat (0 = challenger, 1 = dealer) in lists."""
    last = info.tricks[-1] if info.tricks else None
    return {
        "names": list(names),
        "to_act": info.to_act,
        "phase": ("play", "alifer", "done")[info.phase],
        "trick": info.trick + 1 if info.trick < 9 else 9,
        "lead": None if info.lead < 0 else {"seat": info.leader, "card": card(info.lead)},
        "last_trick": None if last is None else {"leader": last[0], "lead": card(last[1]),
                                                 "follow": card(last[2]), "winner": last[3]},
        "tricks_won": [sum(1 for t in info.tricks if t[3] == s) for s in (0, 1)],
        "card_points": list(info.card_points),
        "declarations": [declarations(info, s) for s in (0, 1)],
        "cards_left": [9 - n for n in info.ncards],
        "bottom": card(info.bottom),
        "multiplier": info.multiplier,
        "alifer_proposer": None if info.alifer_proposer < 0 else info.alifer_proposer,
    }


def result(res, names) -> dict:
    """A ``PartieResult`` for the page, per seat in lists."""
    return {
        "outcome": res.outcome,
        "winner": None if res.winner is None else names[res.winner],
        "scores": [s.to_dict() for s in res.scores],
        "tokens": list(res.tokens),
        "details": [{"seat": s, "what": what, "points": pts, "tokens": tok} for s, what, pts, tok in res.details],
    }
