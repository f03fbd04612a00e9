"""What a partie did to each player's tokens, in named parts (docs/rules.md
sections 2, 4, 5, 8), for the end box and the Alifer proposal.

A partie moves a player's balance by its stake (paid into the Bulka),
its declarations (the opponent pays the declarer), its trick bonuses (the
earner's opponent pays into the Bulka), and, in a Pro partie, the Pro
declarer's extra stake and the Bulka it takes by winning. The parts add
up to ``partie_change``, the change the ledger shows.
"""

from __future__ import annotations

from trappola_env.engine import BASE_STAKE
from trappola_env.engine.scoring import declaration_lines

#: The parts' names, in the order the end box lists them.
PARTS = ("stake", "declarations", "bonuses", "Pro", "Bulka")


def partie_change(rec, name: str):
    """What partie record ``rec`` changed in ``name``'s balance: its tokens
    (stake, declarations, bonuses), less the extra Pro stake it paid, plus
    the Bulka it took by winning Pro (docs/rules.md section 8)."""
    change = rec.tokens.get(name, 0)
    if rec.pro_declarer == name:
        change += rec.bulka_won - rec.pro_stake
    return change


def token_parts(res, rec, seat: int) -> dict:
    """Seat ``seat``'s token change from a finished partie: ``{"name",
    "parts": [{"part", "tokens"}] in ``PARTS`` order, "total"}``, where the
    parts add up to ``total`` (= ``partie_change``). ``res``: the partie's
    ``PartieResult``; ``rec``: its ``PartieRecord``."""
    name = (rec.challenger, rec.dealer)[seat]
    pro = rec.pro_declarer == name
    values = (
        -res.stake,
        res.declaration_tokens[seat] - res.declaration_tokens[1 - seat],
        -res.bonus_tokens[seat],
        -rec.pro_stake if pro else 0,
        rec.bulka_won if pro else 0,
    )
    total = partie_change(rec, name)
    if sum(values) != total:  # the engine's accounts and these parts disagree: a bug, never shown as fact
        raise AssertionError(f"token parts {values} of {name} do not add up to {total}")
    return {
        "name": name,
        "parts": [{"part": p, "tokens": float(v)} for p, v in zip(PARTS, values, strict=True)],
        "total": float(total),
    }


def alifer_if_accepted(partie, names) -> list[dict]:
    """What an accepted Alifer proposal would leave each seat of ``partie``
    (a ``PartieState`` in play) with: no points count and nothing is
    settled beyond the stakes already paid (section 6), so each side's
    tokens from the partie are its stake; ``forgone``: the declaration
    payments it would have received, net, had the partie been played out."""
    stake = BASE_STAKE * partie.unit
    pay = [sum(p for _, _, p in declaration_lines(partie, s)) * partie.unit for s in (0, 1)]
    return [
        {"name": names[s], "tokens": float(-stake), "forgone": float(pay[s] - pay[1 - s]), "next_stake": 2 * stake}
        for s in (0, 1)
    ]
