"""Saved games: one JSON object per line (JSON lines), written by
``trappola evaluate ... --save-games DIR`` (``DIR/games.jsonl``) and read
back by the web app's replay view.

Format ``trappola-game/1``, one partie per line::

    {"format": "trappola-game/1",
     "evaluation": "head_to_head",          # or "ratings"
     "pair": ["pimc", "rule"],               # the evaluated pair, A then B
     "deal_index": 3, "game": 0,             # deal i; game 1 = seats swapped (duplicate)
     "players": ["pimc", "rule"],            # challenger (seat 0), dealer (seat 1)
     "config": {"ace_declaration": "first_ace", "illegal_action": "raise"},
     "stake_multiple": 1, "multiplier": 1,
     "deal": {"challenger": [9 cards], "dealer": [9 cards], "stock": [18 cards]},
     "actions": [{"seat": 0, "action": 40, "name": "declare Aces"},
                 {"seat": 0, "action": 8, "name": "play AS",
                  "values": {"AS": [0.41, 0.38, 6.2], "7S": [...]}}, ...],
     "result": {"outcome": "decided", "winner": 0, "scores": [[c, d, b, total], [...]],
                "tokens": [t0, t1], "bulka_in": 20}}

Cards are the engine's names (``AS`` = Asso of Spade; docs/rules.md
section 1); ``stock[-1]`` is the face-up bottom card. ``actions`` lists
every action of the partie in order (ids of the 49-action table,
docs/rules.md section 9), declarations, Manko questions and Alifer
proposals and answers included; the Manko answers follow from the deal and
are recomputed by the reader, as are the trick winners and points.
``values`` is optional and present only on card plays of players that
report their search (``pimc``): for each legal card it considered, the
mean over its sampled layouts of (objective, outcome sign, point
difference), from the acting seat's point of view. ``scores`` are per seat
(card points, declaration points, bonus points, total); ``winner`` is a
seat or ``null`` (Alifer); ``tokens`` the net tokens of each seat.

``read_games(text)`` checks every line: the format tag, a valid deal, every
action legal when replayed on the engine, and the recorded result equal to
the engine's; any defect raises ``ValueError`` naming the line.
"""

from __future__ import annotations

import json
from pathlib import Path

from trappola_env.atomic_file import atomic_write
from trappola_env.engine import CARD_NAMES, Partie, RuleConfig, action_name, deal_from_names
from trappola_env.engine.partie import IllegalActionError

FORMAT = "trappola-game/1"
GAMES_FILE = "games.jsonl"
#: Lines longer than this are refused unread (a partie is a few kB).
MAX_LINE = 1_000_000


def result_dict(result) -> dict:
    """The ``result`` field of a record from a ``PartieResult``."""
    return {
        "outcome": result.outcome,
        "winner": result.winner,
        "scores": [[s.card_points, s.declaration_points, s.bonus_points, s.total] for s in result.scores],
        "tokens": list(result.tokens),
        "bulka_in": result.bulka_in,
    }


class GameRecorder:
    """Collects the actions of one partie played by the referee: pass
    ``recorder.on_decision`` as its ``on_decision`` callback. The card values a player
    reports (its ``last_card_values``, ``trappola.agents.players.pimc``) are attached to the
    next card that player plays: a search made in a turn decides that
    turn's card, even when a declaration comes first."""

    def __init__(self, seated):
        self.seated = tuple(seated)
        self.actions: list[dict] = []
        self._seen = [getattr(p, "last_card_values", None) for p in self.seated]
        self._pending: list[dict | None] = [None, None]

    def on_decision(self, partie, seat: int, action: int) -> None:
        """Record one action of ``seat``, with the card values its player reported
        for the decision when it is a card play (the referee's callback;
        ``partie`` is not needed)."""
        values = getattr(self.seated[seat], "last_card_values", None)
        if values is not None and values is not self._seen[seat]:
            self._seen[seat] = values
            self._pending[seat] = values
        step = {"seat": seat, "action": action, "name": action_name(action)}
        pending = self._pending[seat]
        if action < 36 and pending is not None:
            step["values"] = {CARD_NAMES[c]: [round(x, 4) for x in v] for c, v in pending.items()}
            self._pending[seat] = None
        self.actions.append(step)

    def record(self, deal, result, *, players, config, stake_multiple: int = 1, multiplier: int = 1, **context) -> dict:
        """The finished partie as a record (``context``: evaluation, pair,
        deal_index, game ...; written before the fixed fields)."""
        return {
            "format": FORMAT,
            **context,
            "players": list(players),
            "config": config.to_dict(),
            "stake_multiple": stake_multiple,
            "multiplier": multiplier,
            "deal": deal.to_names(),
            "actions": self.actions,
            "result": result_dict(result),
        }


def write_games(games, directory) -> Path:
    """Write ``games`` (records) to ``directory/games.jsonl``, creating the
    folder, whole or not at all (``atomic_write``); returns the file's path."""
    d = Path(directory)
    if d.exists() and not d.is_dir():
        raise ValueError(f"--save-games {directory}: not a directory")
    d.mkdir(parents=True, exist_ok=True)
    path = d / GAMES_FILE
    with atomic_write(path, "w") as f:
        for g in games:
            f.write(json.dumps(g, separators=(",", ":"), allow_nan=False) + "\n")
    return path


def _need(obj: dict, key: str, kind, where: str):
    if key not in obj:
        raise ValueError(f"{where}: missing field {key!r}")
    v = obj[key]
    if not isinstance(v, kind) or isinstance(v, bool) and kind is not bool:
        raise ValueError(f"{where}: field {key!r} has the wrong type ({type(v).__name__})")
    return v


def replay_record(record, where: str = "record"):
    """Check one record (see the module docstring) and return the finished
    ``Partie`` replayed from it; ``ValueError`` names the first defect."""
    if not isinstance(record, dict):
        raise ValueError(f"{where}: a game is a JSON object, got {type(record).__name__}")
    if record.get("format") != FORMAT:
        raise ValueError(f"{where}: format {record.get('format')!r} is not {FORMAT!r}")
    players = _need(record, "players", list, where)
    if len(players) != 2 or not all(isinstance(p, str) for p in players):
        raise ValueError(f"{where}: 'players' must name the challenger and the dealer")
    try:
        config = RuleConfig(**_need(record, "config", dict, where))
        deal = deal_from_names(_need(record, "deal", dict, where))
        partie = Partie(
            deal,
            config,
            stake_multiple=_need(record, "stake_multiple", int, where),
            multiplier=_need(record, "multiplier", int, where),
        )
    except (TypeError, ValueError) as e:
        raise ValueError(f"{where}: {e}") from None
    for k, step in enumerate(_need(record, "actions", list, where)):
        at = f"{where}, action {k + 1}"
        if not isinstance(step, dict):
            raise ValueError(f"{at}: an action is a JSON object")
        seat, action = _need(step, "seat", int, at), _need(step, "action", int, at)
        if partie.terminal:
            raise ValueError(f"{at}: the partie is already over")
        if seat != partie.to_act:
            raise ValueError(f"{at}: seat {seat} acts, but it is seat {partie.to_act}'s turn")
        try:
            partie.apply(action)
        except IllegalActionError as e:
            raise ValueError(f"{at}: {e}") from None
        values = step.get("values")
        if values is not None and not (
            isinstance(values, dict)
            and all(
                k in CARD_NAMES
                and isinstance(v, list)
                and len(v) == 3
                and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)
                for k, v in values.items()
            )
        ):
            raise ValueError(f"{at}: 'values' must map card names to [objective, sign, point difference]")
    if not partie.terminal:
        raise ValueError(f"{where}: the actions stop before the partie is over")
    recorded = _need(record, "result", dict, where)
    if recorded != result_dict(partie.result()):
        raise ValueError(f"{where}: the recorded result differs from the result of replaying its actions")
    return partie


def read_games(text: str) -> list[dict]:
    """Parse and check a saved-games file's text; returns its records."""
    if not isinstance(text, str):
        raise ValueError(f"a saved-games file is text, got {type(text).__name__}")
    games = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if len(line) > MAX_LINE:
            raise ValueError(f"line {n}: longer than {MAX_LINE} characters")
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"line {n}: not JSON ({e.msg} at column {e.colno})") from None
        replay_record(record, f"line {n}")
        games.append(record)
    if not games:
        raise ValueError("no games in the file (one JSON object per line expected)")
    return games


__all__ = ["FORMAT", "GAMES_FILE", "GameRecorder", "read_games", "replay_record", "result_dict", "write_games"]
