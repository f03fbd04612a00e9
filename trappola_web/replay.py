"""Replays of saved games (``evaluation.game_record``): a game as a list of
frames, one before the first action and one after each, with both hands
and the stock open.

Each frame: ``hands`` (per seat), ``stock`` (the 18 cards, the face-up
bottom card last), the public record (``render.public_state``), the
``action`` just taken (``{"seat", "name"}``) and, for a player that
reported its search, the ``values`` of the cards it considered; the last
frame carries the ``result``. A partie of a saved session
(``evaluation.session_record``) also has its session in the game list
(``session``: the Pro offer, the queue, the Bulka and the balances after
it) and, in each frame, the ``advice`` given for the decision about to be
taken.
"""
from __future__ import annotations

import secrets
import threading
from collections import OrderedDict

from trappola_env.engine import CARD_NAMES, InfoState, Partie, RuleConfig, card_id, deal_from_names
from evaluation.game_record import read_games

from . import render

#: Largest file the page may send (a game is a few kB).
MAX_BYTES = 64 * 1024 * 1024


def summary_of(k: int, record: dict) -> dict:
    """One line of the game list."""
    res = record["result"]
    names = record["players"]
    return {"index": k, "players": names, "deal_index": record.get("deal_index"), "game": record.get("game"),
            "outcome": res["outcome"], "winner": None if res["winner"] is None else names[res["winner"]],
            "points": [s[3] for s in res["scores"]], "tokens": res["tokens"],
            "has_values": any("values" in a for a in record["actions"]),
            "session": session_of(record)}


SESSION_KEYS = ("session", "partie_index", "queue", "pro_offer", "pro_declarer", "replay", "multiplier", "bulka",
                "bulka_won", "balances", "final_share")


def session_of(record: dict) -> dict | None:
    """The session around a saved session partie, or None for another game."""
    if record.get("evaluation") != "session":
        return None
    return {k: record.get(k) for k in SESSION_KEYS}


def frames(record: dict) -> list[dict]:
    """The frames of one checked record (see the module docstring)."""
    names = record["players"]
    deal = deal_from_names(record["deal"])
    partie = Partie(deal, RuleConfig(**record["config"]), stake_multiple=record["stake_multiple"],
                    multiplier=record["multiplier"])
    stock = render.cards(deal.stock)
    advice = record.get("advice") or []

    def frame(step):
        info = InfoState(partie, 0)
        out = render.public_state(info, names)
        out["hands"] = [render.cards(partie.hands[0]), render.cards(partie.hands[1])]
        out["stock"] = stock
        out["action"] = step and {"seat": step["seat"], "name": step["name"]}
        out["advice"] = [{"adviser": a.get("adviser"), "name": a.get("name")} for a in advice
                         if a.get("step") == len(partie.history)]
        values = step and step.get("values")
        out["values"] = None if not values else sorted((
            {"card": render.card(card_id(c)), "objective": v[0], "sign": v[1], "points": v[2],
             "chosen": c == CARD_NAMES[step["action"]]} for c, v in values.items()), key=lambda e: -e["objective"])
        return out

    out = [frame(None)]
    for step in record["actions"]:
        partie.apply(step["action"])
        out.append(frame(step))
    out[-1]["result"] = render.result(partie.result(), names)
    return out


class Replays:
    """Files opened in the page, kept by id (the oldest dropped beyond ``limit``)."""

    def __init__(self, limit: int = 8):
        self.limit = limit
        self._files: OrderedDict[str, list[dict]] = OrderedDict()
        self._lock = threading.Lock()

    def open(self, text: str) -> tuple[str, list[dict]]:
        """Check a saved-games file (``ValueError`` names its first defect)
        and keep it; returns its id and game list."""
        games = read_games(text)
        file_id = secrets.token_hex(8)
        with self._lock:
            self._files[file_id] = games
            while len(self._files) > self.limit:
                self._files.popitem(last=False)
        return file_id, [summary_of(k, g) for k, g in enumerate(games)]

    def game(self, file_id: str, k: int) -> dict:
        with self._lock:
            games = self._files.get(file_id)
        if games is None:
            raise KeyError(f"no replay file {file_id!r} (open it again)")
        if not 0 <= k < len(games):
            raise KeyError(f"the file has games 0..{len(games) - 1}, not {k}")
        return {"summary": summary_of(k, games[k]), "frames": frames(games[k])}
