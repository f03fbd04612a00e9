"""The Analysis view's two files, checked field by field: the JSON that
``trappola analyze declarations --json`` writes (paired comparisons at the
declaration decisions, ``trappola.agents.evaluation.declarations``) and
the one ``trappola analyze pro --json`` writes (the Pro take-point chart,
``trappola.cli.pro_chart``).

Each reader takes the file's text and gives back only what the page draws,
each string cut to a bounded length, each number checked to be finite;
anything else is a ``ValueError`` that says what is wrong. Rows of the
declarations file may carry no interval (too few decisions for one) and a
``decider`` (who made the decision): both are read when present.
"""

from __future__ import annotations

import json
import math
import shlex
from typing import Any

#: Most rows of a declarations file, and most grid points per axis of a Pro chart.
MAX_ROWS = 2000
MAX_GRID = 200
MAX_TEXT = 200
#: The comparisons a declarations row holds, and what each is in.
METRICS = {"tokens": "tokens per deal", "points": "points per deal", "wl": "win-loss per deal"}


def _load(text: str, what: str) -> dict:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"not JSON ({e.msg} at line {e.lineno}, column {e.colno})") from None
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    except ValueError:  # a number of more digits than Python converts
        raise ValueError("a number too long to read") from None
    if not isinstance(data, dict):
        raise ValueError(f"not {what} (expected a JSON object)")
    return data


def _text(v, field: str) -> str:
    if not isinstance(v, str):
        raise ValueError(f"{field} must be text, got {type(v).__name__}")
    return v[:MAX_TEXT]


def _int(v, field: str, lo: int = 0) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < lo or v > 10**12:
        raise ValueError(f"{field} must be a whole number of at least {lo}, got {str(v)[:40]}")
    return v


def _num(v, field: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise ValueError(f"{field} must be a finite number, got {str(v)[:40]}")
    return float(v)


def _interval(v, field: str):
    """``[lo, hi]``, or ``None`` where the file gives none (too few decisions)."""
    if v is None:
        return None
    if not isinstance(v, list) or len(v) != 2:
        raise ValueError(f"{field} must be [low, high] or null")
    if v[0] is None or v[1] is None:
        return None
    lo, hi = _num(v[0], field), _num(v[1], field)
    if lo > hi:
        raise ValueError(f"{field}: low {lo:g} above high {hi:g}")
    return [lo, hi]


def _declarations_command(players: list[str], st: dict) -> str:
    """The command line that writes a file with these settings."""
    words = ["trappola", "analyze", "declarations", "--players", ",".join(players)]
    if "deals" in st:
        words += ["--deals", str(_int(st["deals"], "settings.deals", 1))]
    if "seed" in st:
        words += ["--seed", str(_int(st["seed"], "settings.seed"))]
    if st.get("condition"):
        words += ["--condition", _text(st["condition"], "settings.condition")]
    if st.get("sessions"):
        words += ["--sessions", str(_int(st["sessions"], "settings.sessions")), "--parties"]
        words.append(str(_int(st.get("parties", 30), "settings.parties", 1)))
    if st.get("alifer") is False:
        words.append("--no-alifer")
    config = st.get("config")
    if isinstance(config, dict) and config.get("ace_declaration") == "first_card":
        words += ["--ace-declaration", "first_card"]
    return shlex.join([*words, "--json", "PATH"])


def _row(g, k: int, command: str) -> dict:
    where = f"groups[{k}]"
    if not isinstance(g, dict):
        raise ValueError(f"{where} must be an object")
    turn = g.get("turn")
    if turn is not None:
        turn = _int(turn, f"{where}.turn")
    out: dict[str, Any] = {
        "kind": _text(g.get("kind"), f"{where}.kind"),
        "turn": turn,
        "contrast": _text(g.get("contrast"), f"{where}.contrast"),
        "n": _int(g.get("n"), f"{where}.n"),
        "command": command,
    }
    if g.get("decider") is not None:
        d = g["decider"]
        out["decider"] = d[:MAX_TEXT] if isinstance(d, str) else json.dumps(d)[:MAX_TEXT]
    for m in METRICS:
        v = g.get(m)
        out[m] = None if v is None else _num(v, f"{where}.{m}")
        out[f"{m}_ci"] = _interval(g.get(f"{m}_ci"), f"{where}.{m}_ci")
    return out


def declarations(text: str) -> dict:
    """``{"kind": "declarations", "players", "decision_points", "command",
    "metrics", "rows"}`` from a declarations file's text; each row: kind,
    turn, contrast, n, each metric with its interval (``None``: none given),
    the decider if given, and the command that wrote the file."""
    data = _load(text, "a file written by trappola analyze declarations --json")
    if data.get("kind") != "declarations":
        kind = str(data.get("kind"))[:40]
        raise ValueError(f"kind {kind!r}: expected 'declarations' (trappola analyze declarations)")
    players = data.get("players")
    if not isinstance(players, list) or not 1 <= len(players) <= 4:
        raise ValueError("players must be a list of 1 to 4 player names")
    players = [_text(p, "players[]") for p in players]
    settings = data.get("settings", {})
    if not isinstance(settings, dict):
        raise ValueError("settings must be an object")
    groups = data.get("groups")
    if not isinstance(groups, list) or len(groups) > MAX_ROWS:
        raise ValueError(f"groups must be a list of at most {MAX_ROWS} rows")
    given = data.get("command")
    command = _text(given, "command") if given is not None else _declarations_command(players, settings)
    points = data.get("decision_points")
    return {
        "kind": "declarations",
        "players": players,
        "decision_points": None if points is None else _int(points, "decision_points"),
        "command": command,
        "metrics": METRICS,
        "rows": [_row(g, k, command) for k, g in enumerate(groups)],
    }


def _threshold(v, field: str):
    """A take point in stakes; ``None`` where declaring never pays (the file's infinity)."""
    if isinstance(v, float) and math.isinf(v) and v > 0:
        return None
    if v is None:
        return None
    return _num(v, field)


def pro_chart(text: str) -> dict:
    """``{"kind": "pro_chart", "p", "threshold", "players", "parties",
    "command"}`` from a Pro chart file's text: ``threshold[i][j]`` is the
    least Bulka (in stakes) at which the dealer should declare Pro, for
    ``q = p[i]`` (its chance against the next challenger) and ``p = p[j]``
    (against the challenger now); ``None``: declaring never pays."""
    data = _load(text, "a file written by trappola analyze pro --json")
    chart = data.get("chart")
    if not isinstance(chart, dict):
        raise ValueError("missing the chart object (a file written by trappola analyze pro --json)")
    ps = chart.get("p")
    if not isinstance(ps, list) or not 1 <= len(ps) <= MAX_GRID:
        raise ValueError(f"chart.p must be a list of 1 to {MAX_GRID} probabilities")
    ps = [_num(p, "chart.p[]") for p in ps]
    if any(not 0 <= p <= 1 for p in ps) or ps != sorted(ps):
        raise ValueError("chart.p must be probabilities in increasing order")
    thr = chart.get("threshold")
    rows = thr if isinstance(thr, list) else []
    if len(rows) != len(ps) or any(not isinstance(r, list) or len(r) != len(ps) for r in rows):
        raise ValueError(f"chart.threshold must be {len(ps)} rows of {len(ps)} numbers (q by p)")
    threshold = [[_threshold(v, f"chart.threshold[{i}][{j}]") for j, v in enumerate(r)] for i, r in enumerate(rows)]
    players = []
    for k, pl in enumerate(chart.get("players") or []):
        if k >= 20 or not isinstance(pl, dict):
            raise ValueError("chart.players must be a list of at most 20 objects")
        p, q = _num(pl.get("p"), "players[].p"), _num(pl.get("q"), "players[].q")
        players.append(
            {
                "label": _text(pl.get("label"), "players[].label"),
                "p": p,
                "q": q,
                "threshold": _threshold(pl.get("threshold"), "players[].threshold"),
                "source": _text(pl.get("source", ""), "players[].source"),
            }
        )
    words = ["trappola", "analyze", "pro", "--figures", "DIR", "--json", "PATH"]
    for key, flag in (("parties", "--parties"), ("sessions", "--sessions"), ("learn_sessions", "--learn-sessions")):
        if key in data:
            words += [flag, str(_int(data[key], key, 1))]
    if "seed" in data:
        words += ["--seed", str(_int(data["seed"], "seed"))]
    return {
        "kind": "pro_chart",
        "p": ps,
        "threshold": threshold,
        "players": players,
        "parties": _int(data["parties"], "parties", 1) if "parties" in data else None,
        "command": shlex.join(words),
    }
