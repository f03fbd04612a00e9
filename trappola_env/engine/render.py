"""Readable text of a partie, for ``render`` and debugging."""

from __future__ import annotations

from trappola_env.engine.actions import ACTION_NAMES
from trappola_env.engine.cards import CARD_NAMES, SUITS, names_of
from trappola_env.engine.partie_state import PartieState

ROLE = ("challenger", "dealer")


def render_partie(partie: PartieState, show_hands: bool = True) -> str:
    """A few lines of text showing a partie: multiplier, trick, each seat's points,
    hand (or card count, without ``show_hands``) and declarations, the card on the table."""
    lines = [f"Trappola partie  m={partie.multiplier}  trick {min(partie.trick + 1, 9)}/9"]
    for s in (0, 1):
        decl = ", ".join(
            ACTION_NAMES[a].replace("declare ", "") + (f" ({n})" if a <= 40 else "")
            for a, n in sorted(partie.counts[s].items())
        )
        hand = " ".join(names_of(partie.hands[s])) if show_hands else f"{partie.hands[s].bit_count()} cards"
        lines.append(
            f"  {ROLE[s]:<10} points {partie.card_points[s]:>3}  hand: {hand}" + (f"  declared: {decl}" if decl else "")
        )
        manko = partie.manko_answer[s]
        if manko:
            ans = ", ".join(f"{'2789TBCRA'[r]} lacks {SUITS[x]}" for r, x in manko)
            lines.append(f"  {'':<10} Manko: {ans}")
    lines.append(f"  stock bottom (face up): {CARD_NAMES[partie.bottom]}")
    for i, (leader, lead, follow, winner) in enumerate(partie.tricks):
        lines.append(
            f"  trick {i + 1}: {ROLE[leader]} {CARD_NAMES[lead]}, {ROLE[1 - leader]} "
            f"{CARD_NAMES[follow]} -> {ROLE[winner]}"
        )
    if partie.lead >= 0 and not partie.terminal:
        lines.append(f"  on the table: {CARD_NAMES[partie.lead]} led by {ROLE[partie.leader]}")
    if partie.terminal:
        w = "nobody (Alifer)" if partie.winner is None else ROLE[partie.winner]
        lines.append(f"  over: {partie.outcome}, winner {w}")
    else:
        lines.append(f"  to act: {ROLE[partie.to_act]}" + ("  (answering Alifer)" if partie.phase == 1 else ""))
    return "\n".join(lines)
