"""The optional hint in Play: what ``pimc`` thinks of each card the person
may play now, from the person's seat only (``InfoState``: the hand, the
public record, never the opponent's cards), in the shape Replay shows a
searching player's values: the mean over the sampled layouts of the
objective, the outcome sign (+1 win, -1 loss) and the point difference.
"""

from __future__ import annotations

import threading

from trappola.agents.evaluation.seeding import derive_seed
from trappola.web.errors import WebError
from trappola_env.engine.session import PLAYING

from . import render

#: The player whose search the hint shows (its defaults: 32 layouts).
HINT_SPEC = "pimc"
_CARDS = (1 << 36) - 1


def _hint_player(table):
    """The table's own ``pimc`` (built on first use), with a lock: two
    hints of one table never search at once."""
    with table.lock:
        if getattr(table, "hint_player", None) is None:
            from trappola.agents import make_player

            try:
                table.hint_player = (make_player(HINT_SPEC), threading.Lock())
            except ValueError as e:
                raise WebError(f"no hint on this server: {e}", 501) from None
        return table.hint_player


def hint(table) -> dict:
    """``{"version", "spec", "values": [{"card", "objective", "sign",
    "points"}, ...]}``, best first, for the state ``version`` of ``table``;
    ``WebError`` 409 when the person has no card to choose."""
    with table.lock:
        s = table.session
        if not table.human_turn() or s.phase != PLAYING:
            raise WebError("a hint is given on your turn, with cards to choose from", 409)
        info = s.partie.info_state(s.table.index(table.human))
        cards = info.legal_mask & _CARDS
        version = table.version
    if not cards:
        raise WebError("no card to play now: answer the question first", 409)
    player, lock = _hint_player(table)
    with lock:
        player.reset(derive_seed(table.seed, "hint", version))
        values = player.card_values(info, cards)
    out = [{"card": render.card(c), "objective": v[0], "sign": v[1], "points": v[2]} for c, v in values.items()]
    return {"version": version, "spec": HINT_SPEC, "values": sorted(out, key=lambda e: -e["objective"])}
