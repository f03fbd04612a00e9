"""Game state as JSON for the page: cards, the trick, declarations and
Manko answers, scores. Play and replay both use these, so the page draws
one shape of state.

A card is ``{"id": 8, "name": "AS", "rank": "A", "suit": "S"}`` (ids and
names as in docs/rules.md section 1). What a seat may see comes from its
``InfoState`` only, so the play view cannot leak the opponent's hand.
"""

from __future__ import annotations

from trappola_env.engine import ACTION_NAMES, CARD_NAMES, cards_of
from trappola_env.engine.actions import (
    ACCEPT_ALIFER,
    ACES,
    BIANKA,
    BLANS,
    DECLINE_ALIFER,
    MANKO,
    NO_PRO,
    PRO,
    PROPOSE_ALIFER,
)
from trappola_env.engine.advice import ADVICE_BASE, NO_ADVICE
from trappola_env.engine.cards import ACE_MASK, RANK_MASK, RANK_NAMES, SUIT_NAMES
from trappola_env.engine.declarations import ACES_VALUE, FIGURA_RANK, declaration_value

_DISPLAY_RANK = {"T": "10"}
#: Ranks in words: B, C and R are also suit letters, so a move is never written as a code.
_RANK_WORDS = {"2": "Two", "7": "7", "8": "8", "9": "9", "T": "10", "B": "Bube", "C": "Cavall", "R": "Re", "A": "Asso"}
_SUIT_WORDS = dict(zip("SCDB", SUIT_NAMES, strict=True))


def card(c: int) -> dict:
    """A card id as the page draws it: ``{"id", "name", "rank", "suit"}``."""
    name = CARD_NAMES[c]
    return {"id": c, "name": name, "rank": _DISPLAY_RANK.get(name[0], name[0]), "suit": name[1]}


def card_words(c: int) -> str:
    """A card in words: ``"Asso of Spade"``, ``"Bube of Coppe"``."""
    name = CARD_NAMES[c]
    return f"{_RANK_WORDS[name[0]]} of {_SUIT_WORDS[name[1]]}"


def action_words(action: int) -> str:
    """An action id (docs/rules.md section 9; advice ids too) in words:
    ``"play Asso of Spade"``, ``"advise play Cavall of Bastoni"``."""
    if action >= ADVICE_BASE:
        return "no advice" if action == NO_ADVICE else "advise " + action_words(action - ADVICE_BASE)
    return f"play {card_words(action)}" if action < 36 else ACTION_NAMES[action]


def cards(mask_or_ids) -> list[dict]:
    """The cards of a card set, or of a list of ids, as ``card`` gives them."""
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
        "last_trick": None
        if last is None
        else {"leader": last[0], "lead": card(last[1]), "follow": card(last[2]), "winner": last[3]},
        "tricks": [{"leader": t[0], "lead": card(t[1]), "follow": card(t[2]), "winner": t[3]} for t in info.tricks],
        "tricks_won": [sum(1 for t in info.tricks if t[3] == s) for s in (0, 1)],
        "card_points": list(info.card_points),
        "declarations": [declarations(info, s) for s in (0, 1)],
        "cards_left": [9 - n for n in info.ncards],
        "bottom": card(info.bottom),
        "multiplier": info.multiplier,
        "alifer_proposer": None if info.alifer_proposer < 0 else info.alifer_proposer,
    }


def _tokens(n: int, unit: int) -> str:
    return f"{n * unit} token{'s' if n * unit != 1 else ''}"


def action_help(action: int, info, opponent: str) -> str:
    """What a button does and what it is worth (docs/rules.md sections 3-6),
    for the person whose seat ``info`` is (``None`` outside a partie: the Pro
    decision); ``""`` for a card."""
    unit = 1 if info is None else info.stake_multiple * info.multiplier
    if action in FIGURA_RANK:
        n = (info.dealt & RANK_MASK[FIGURA_RANK[action]]).bit_count()
        points, pay = declaration_value(action, n, True)
        return (
            f"Declare your {n} {RANK_NAMES[FIGURA_RANK[action]]}: {points} points to your total, and "
            f"{opponent} pays you {_tokens(pay, unit)} whether you win or not (section 4)"
        )
    if action == ACES:
        n = (info.dealt & ACE_MASK).bit_count()
        win, lose, pay = ACES_VALUE.get(n, ACES_VALUE[3])
        return (
            f"Declare your {n} Aces: {win} points if every declared Ace wins its trick, else {lose}; "
            f"{opponent} pays you {_tokens(pay, unit)} (section 4)"
        )
    if action in (BLANS, BIANKA):
        points, pay = declaration_value(action, 1, True)
        what = (
            "no Bube, Cavall or Re in your hand" if action == BLANS else "no Bube, Cavall, Re or Ace in your dealt hand"
        )
        return f"{what}: {points} points, and {opponent} pays you {_tokens(pay, unit)} (section 4)"
    if action == MANKO:
        return (
            f"Ask Manko: {opponent} declared three of a rank and must tell you the suit of the fourth card "
            "of that rank, which it does not hold (section 3)"
        )
    if action == PROPOSE_ALIFER:
        return (
            "Propose Alifer: if accepted, this partie is abandoned (only the stakes stay paid) and the same "
            "two play again with a fresh deal at double stakes (section 6)"
        )
    if action == ACCEPT_ALIFER:
        return "Accept: abandon this partie; it is replayed with a fresh deal at double stakes (section 6)"
    if action == DECLINE_ALIFER:
        return "Decline: play this partie on to its end (section 6)"
    if action == PRO:
        return (
            "Declare Pro: pay one extra stake into the Bulka now; if you win this partie you take the whole "
            "Bulka (section 8)"
        )
    if action == NO_PRO:
        return "Not now: a normal partie; you may declare Pro later while your streak lasts (section 8)"
    return ""


def action_worth(action: int, info) -> str:
    """What a button is worth, short enough to print on it (the phone has no
    tooltips): ``"30 points, +10 tokens"``; ``""`` for a card."""
    unit = 1 if info is None else info.stake_multiple * info.multiplier
    if action in FIGURA_RANK or action in (BLANS, BIANKA):
        n = (info.dealt & RANK_MASK[FIGURA_RANK[action]]).bit_count() if action in FIGURA_RANK else 1
        points, pay = declaration_value(action, n, True)
        return f"{points} points, +{_tokens(pay, unit)}"
    if action == ACES:
        win, lose, pay = ACES_VALUE.get((info.dealt & ACE_MASK).bit_count(), ACES_VALUE[3])
        return f"{win} points if each Ace wins its trick, else {lose}; +{_tokens(pay, unit)}"
    if action == MANKO:
        return "learn the suit of the missing fourth card"
    if action in (PROPOSE_ALIFER, ACCEPT_ALIFER):
        return "abandon: a fresh deal at double stakes"
    if action == DECLINE_ALIFER:
        return "play this partie to its end"
    return ""


def is_bonus(what: str) -> bool:
    """Whether a scoring line is a trick bonus (paid into the Bulka), not a declaration."""
    # The engine's bonus names (bonuses.trick_bonuses) all speak of tricks or
    # Marc; its declaration names are the declarations' (scoring.declaration_lines).
    return what == "Marc" or "trick" in what or "last " in what


def _detail(seat: int, what: str, points: int, tokens: int, names) -> dict:
    """One line of why points were scored, with who paid what to whom."""
    kind = "bonus" if is_bonus(what) else "declaration"
    who, other = names[seat], names[1 - seat]
    text = f"{who}: {what}, {points} points"
    if tokens:
        payer = "you pay" if other == "you" else f"{other} pays"
        text += (
            f"; {payer} {tokens} tokens into the Bulka"
            if kind == "bonus"
            else f"; {payer} {'you' if who == 'you' else who} {tokens} tokens"
        )
    return {"seat": seat, "what": what, "points": points, "tokens": tokens, "kind": kind, "text": text}


def result(res, names) -> dict:
    """A ``PartieResult`` for the page, per seat in lists."""
    return {
        "outcome": res.outcome,
        "winner": None if res.winner is None else names[res.winner],
        "stake": res.stake,
        "scores": [s.to_dict() for s in res.scores],
        "tokens": list(res.tokens),
        "details": [_detail(s, what, pts, tok, names) for s, what, pts, tok in res.details],
    }
