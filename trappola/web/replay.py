"""Replays of saved games (``trappola.agents.evaluation.game_record``): a game as a list of
frames, one before the first action and one after each, with both hands
and the stock open.

Each frame: ``hands`` (per seat), ``stock`` (the 18 cards, the face-up
bottom card last), the public record (``render.public_state``), the
``action`` just taken (``{"seat", "name"}``) and, for a player that
reported its search, the ``values`` of the cards it considered; the last
frame carries the ``result``. A partie of a saved session
(``trappola.agents.evaluation.session_record``) also has its session in the game list
(``session``: the Pro offer, the queue, the Bulka and the balances after
it) and, in each frame, the ``advice`` given for the decision about to be
taken.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections import OrderedDict
from typing import Any

from trappola.agents.evaluation.game_record import MAX_LINE, replay_record
from trappola.web.runs import deal_key
from trappola_env.engine import CARD_NAMES, InfoState, Partie, RuleConfig, card_id, deal_from_names

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
    return {
        "index": k,
        "players": names,
        "deal_index": record.get("deal_index"),
        "game": record.get("game"),
        "pair": pair if isinstance(pair, list) and all(isinstance(p, str) for p in pair) else None,
        "outcome": res["outcome"],
        "winner": None if res["winner"] is None else names[res["winner"]],
        "points": [s[3] for s in res["scores"]],
        "tokens": res["tokens"],
        "has_values": any("values" in a for a in record["actions"]),
        "evaluation": record.get("evaluation"),
        "deal_key": deal_key(deal_from_names(record["deal"])),
        "session": session_of(record),
    }


SESSION_KEYS = (
    "session",
    "partie_index",
    "queue",
    "pro_offer",
    "pro_declarer",
    "replay",
    "multiplier",
    "bulka",
    "bulka_won",
    "balances",
    "final_share",
)


def session_of(record: dict) -> dict | None:
    """The session around a saved session partie, or None for another game."""
    if record.get("evaluation") != "session":
        return None
    return {k: record.get(k) for k in SESSION_KEYS}


def frames(record: dict) -> list[dict]:
    """The frames of one checked record (see the module docstring)."""
    names = record["players"]
    deal = deal_from_names(record["deal"])
    partie = Partie(
        deal, RuleConfig(**record["config"]), stake_multiple=record["stake_multiple"], multiplier=record["multiplier"]
    )
    stock = render.cards(deal.stock)
    advice = record.get("advice") or []

    def frame(step):
        info = InfoState(partie, 0)
        out = render.public_state(info, names)
        out["hands"] = [render.cards(partie.hands[0]), render.cards(partie.hands[1])]
        out["stock"] = stock
        # Moves in words: B and C are both ranks and suits, so a code such as "play BC" misleads.
        out["action"] = step and {"seat": step["seat"], "name": render.action_words(step["action"])}
        out["advice"] = [
            {"adviser": a.get("adviser"), "name": render.action_words(a["advice"]) if "advice" in a else a.get("name")}
            for a in advice
            if a.get("step") == len(partie.history)
        ]
        values = step and step.get("values")
        out["values"] = (
            None
            if not values
            else sorted(
                (
                    {
                        "card": render.card(card_id(c)),
                        "objective": v[0],
                        "sign": v[1],
                        "points": v[2],
                        "chosen": c == CARD_NAMES[step["action"]],
                    }
                    for c, v in values.items()
                ),
                key=lambda e: -e["objective"],
            )
        )
        return out

    out = [frame(None)]
    for step in record["actions"]:
        partie.apply(step["action"])
        out.append(frame(step))
    out[-1]["result"] = render.result(partie.result(), names)
    return out


def check_lines(data) -> tuple[list[bytes], list[dict]]:
    """Check a saved-games file line by line (``trappola.agents.evaluation.game_record``'s
    checks; ``ValueError`` names the first defect) and return its games as
    their lines of text, with the game list. A record is parsed again when
    its game is opened: the text takes a tenth of the memory of the parsed
    objects."""
    lines: list[Any] = []
    summaries: list[Any] = []
    view = memoryview(data)
    start, n = 0, 0
    while start < len(data):
        # Line by line without splitting the whole file first: its lines are
        # then the only copy kept beside the body.
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        line, start, n = bytes(view[start:end]).strip(), end + 1, n + 1
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
        except ValueError:  # a number of more digits than Python converts
            raise ValueError(f"line {n}: a number too long to read") from None
        replay_record(record, f"line {n}")
        summaries.append(summary_of(len(lines), record))
        lines.append(line)
    if not lines:
        raise ValueError("no games in the file (one JSON object per line expected)")
    return lines, summaries


class Replays:
    """Files opened in the page, kept by id as checked lines of text and
    their game list as JSON text (what the page is sent): the oldest
    dropped beyond ``limit`` files or ``max_kept`` bytes."""

    def __init__(self, limit: int = 8, max_kept: int = MAX_KEPT):
        self.limit = limit
        self.max_kept = max_kept
        self._files: OrderedDict[str, dict] = OrderedDict()
        self._lock = threading.Lock()

    def kept_bytes(self) -> int:
        """Bytes of text held, over every file."""
        with self._lock:
            return sum(f["bytes"] for f in self._files.values())

    def open(self, data, name: str = "") -> bytes:
        """Check a saved-games file (bytes or text; ``ValueError`` names its
        first defect) and keep it; returns ``{"id", "name", "games"}`` as
        JSON text."""
        if isinstance(data, str):
            data = data.encode("utf-8")
        lines, summaries = check_lines(data)
        file_id = secrets.token_hex(8)
        # Encoded game by game: one call over the whole list would hold the
        # interpreter for most of a second on a large file, and stall every request.
        head = json.dumps({"id": file_id, "name": str(name)[:MAX_NAME]})[:-1]
        listing = b"".join(
            [head.encode(), b', "games": [', b", ".join(json.dumps(g).encode() for g in summaries), b"]}"]
        )
        del summaries
        entry = {"lines": lines, "listing": listing, "bytes": sum(len(x) for x in lines) + len(listing)}
        with self._lock:
            self._files[file_id] = entry
            while len(self._files) > self.limit or (
                len(self._files) > 1 and sum(f["bytes"] for f in self._files.values()) > self.max_kept
            ):
                self._files.popitem(last=False)
        return listing

    def listing(self, file_id: str) -> bytes:
        """``{"id", "name", "games"}`` of an open file as JSON text;
        ``KeyError`` if it is no longer open."""
        return self._entry(file_id)["listing"]

    def game(self, file_id: str, k: int) -> bytes:
        """``{"summary", "frames"}`` of game ``k`` as JSON text; ``KeyError``
        saying what is missing."""
        lines = self._entry(file_id)["lines"]
        if not 0 <= k < len(lines):
            raise KeyError(f"the file has games 0..{len(lines) - 1}, not {k}")
        record = json.loads(lines[k])
        return json.dumps({"summary": summary_of(k, record), "frames": frames(record)}).encode()

    def _entry(self, file_id: str) -> dict:
        with self._lock:
            entry = self._files.get(file_id)
        if entry is None:
            raise KeyError(f"the replay file {file_id!r} is no longer open on the server (open it again)")
        return entry
