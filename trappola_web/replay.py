"""Replays of saved games (``evaluation.game_record``): a game as a list of
frames, one before the first action and one after each, with both hands
and the stock open.

Each frame: ``hands`` (per seat), ``stock`` (the 18 cards, the face-up
bottom card last), the public record (``render.public_state``), the
``action`` just taken (``{"seat", "name"}``) and, for a player that
reported its search, the ``values`` of the cards it considered; the last
frame carries the ``result``.
"""
from __future__ import annotations

import json
import secrets
import threading
from collections import OrderedDict

from trappola_env.engine import CARD_NAMES, InfoState, Partie, RuleConfig, card_id, deal_from_names
from evaluation.game_record import MAX_LINE, replay_record

from . import render

#: Largest file the page may send (a game is a few kB).
MAX_BYTES = 64 * 1024 * 1024
#: Most bytes of games kept in memory, over every open file.
MAX_KEPT = 4 * MAX_BYTES
#: Longest file name kept for the page.
MAX_NAME = 200


def summary_of(k: int, record: dict) -> dict:
    """One line of the game list."""
    res = record["result"]
    names = record["players"]
    pair = record.get("pair")
    return {"index": k, "players": names, "deal_index": record.get("deal_index"), "game": record.get("game"),
            "pair": pair if isinstance(pair, list) and all(isinstance(p, str) for p in pair) else None,
            "outcome": res["outcome"], "winner": None if res["winner"] is None else names[res["winner"]],
            "points": [s[3] for s in res["scores"]], "tokens": res["tokens"],
            "has_values": any("values" in a for a in record["actions"])}


def frames(record: dict) -> list[dict]:
    """The frames of one checked record (see the module docstring)."""
    names = record["players"]
    deal = deal_from_names(record["deal"])
    partie = Partie(deal, RuleConfig(**record["config"]), stake_multiple=record["stake_multiple"],
                    multiplier=record["multiplier"])
    stock = render.cards(deal.stock)

    def frame(step):
        info = InfoState(partie, 0)
        out = render.public_state(info, names)
        out["hands"] = [render.cards(partie.hands[0]), render.cards(partie.hands[1])]
        out["stock"] = stock
        out["action"] = step and {"seat": step["seat"], "name": step["name"]}
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


def check_lines(data) -> tuple[list[bytes], list[dict]]:
    """Check a saved-games file line by line (``evaluation.game_record``'s
    checks; ``ValueError`` names the first defect) and return its games as
    their lines of text, with the game list. A record is parsed again when
    its game is opened: the text takes a tenth of the memory of the parsed
    objects."""
    lines, summaries = [], []
    for n, raw in enumerate(bytes(data).split(b"\n"), 1):
        line = raw.strip()
        if not line:
            continue
        if len(line) > MAX_LINE:
            raise ValueError(f"line {n}: longer than {MAX_LINE} characters")
        try:
            record = json.loads(line.decode("utf-8"))
        except UnicodeDecodeError:
            raise ValueError(f"line {n}: not UTF-8 text") from None
        except json.JSONDecodeError as e:
            raise ValueError(f"line {n}: not JSON ({e.msg} at column {e.colno})") from None
        except RecursionError:
            raise ValueError(f"line {n}: JSON nested too deeply") from None
        replay_record(record, f"line {n}")
        summaries.append(summary_of(len(lines), record))
        lines.append(line)
    if not lines:
        raise ValueError("no games in the file (one JSON object per line expected)")
    return lines, summaries


class Replays:
    """Files opened in the page, kept by id as checked lines of text: the
    oldest dropped beyond ``limit`` files or ``max_kept`` bytes."""

    def __init__(self, limit: int = 8, max_kept: int = MAX_KEPT):
        self.limit = limit
        self.max_kept = max_kept
        self._files: OrderedDict[str, dict] = OrderedDict()
        self._lock = threading.Lock()

    def kept_bytes(self) -> int:
        """Bytes of game text held, over every file."""
        with self._lock:
            return sum(f["bytes"] for f in self._files.values())

    def open(self, data, name: str = "") -> dict:
        """Check a saved-games file (bytes or text; ``ValueError`` names its
        first defect) and keep it: ``{"id", "name", "games"}``."""
        if isinstance(data, str):
            data = data.encode("utf-8")
        lines, summaries = check_lines(data)
        entry = {"name": str(name)[:MAX_NAME], "lines": lines, "games": summaries,
                 "bytes": sum(len(x) for x in lines)}
        file_id = secrets.token_hex(8)
        with self._lock:
            self._files[file_id] = entry
            while len(self._files) > self.limit or (
                    len(self._files) > 1 and sum(f["bytes"] for f in self._files.values()) > self.max_kept):
                self._files.popitem(last=False)
        return {"id": file_id, "name": entry["name"], "games": summaries}

    def listing(self, file_id: str) -> dict:
        """``{"id", "name", "games"}`` of an open file; ``KeyError`` if gone."""
        entry = self._entry(file_id)
        return {"id": file_id, "name": entry["name"], "games": entry["games"]}

    def game(self, file_id: str, k: int) -> dict:
        """The summary and frames of game ``k``; ``KeyError`` saying what is missing."""
        entry = self._entry(file_id)
        lines = entry["lines"]
        if not 0 <= k < len(lines):
            raise KeyError(f"the file has games 0..{len(lines) - 1}, not {k}")
        record = json.loads(lines[k])
        return {"summary": entry["games"][k], "frames": frames(record)}

    def _entry(self, file_id: str) -> dict:
        with self._lock:
            entry = self._files.get(file_id)
        if entry is None:
            raise KeyError(f"the replay file {file_id!r} is no longer open on the server (open it again)")
        return entry
