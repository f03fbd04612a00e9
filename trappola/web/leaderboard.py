"""The leaderboard: a summary written by ``trappola evaluate --json``
(``trappola.agents.evaluation.report``) as tables of formatted cells, each rate or mean
with its 95% confidence interval.

- ``ratings``: players ranked by ordinal (mu - 3 sigma), with mu's
  interval mu +- 1.96 sigma, then each pair's win rate;
- ``session_tournament``: players ranked by tokens per partie;
- ``head_to_head``: the two players' figures.

A ratings or tournament summary written with ``trappola evaluate
--exploit`` also gets a column of exploitability (lower bounds, from
``trappola exploit --json``; ``trappola.agents.evaluation.exploitability``).
"""

from __future__ import annotations

import json

from trappola.agents.evaluation.exploitability import COLUMN, exploitability_cell
from trappola.agents.evaluation.seeding import derive_seed
from trappola.web.runs import run_of_pair


def _num(v, digits: int = 3) -> str:
    if v is None:
        return "-"
    return f"{v:.{digits}f}" if isinstance(v, float) else str(v)


def _with_ci(v, ci, digits: int = 3) -> str:
    if not ci or ci[0] is None:
        return _num(v, digits)
    return f"{_num(v, digits)} [{_num(ci[0], digits)}, {_num(ci[1], digits)}]"


def _ratings(s: dict) -> list[dict]:
    st = s["settings"]
    rows = [
        [
            str(k + 1),
            e["player"],
            _num(e["ordinal"], 2),
            _num(e["mu"], 2),
            f"[{e['mu'] - 1.96 * e['sigma']:.2f}, {e['mu'] + 1.96 * e['sigma']:.2f}]",
            _num(e["sigma"], 2),
        ]
        + ([exploitability_cell(s, e["player"])] if s.get("exploitability") else [])
        for k, e in enumerate(s["ratings"])
    ]
    pairs = [
        [
            f"{p['a']} vs {p['b']}",
            _with_ci(p["win_rate"], p["win_rate_ci"]),
            str(p["decided"]),
            _num(p["mean_point_diff"], 2),
        ]
        for p in s["pairs"]
    ]
    return [
        {
            "caption": f"Ratings (openskill Plackett-Luce), duplicate pairs of {st['deals']} deals, seed {st['seed']}",
            "columns": ["#", "player", "ordinal (mu - 3 sigma)", "mu", "mu 95% interval", "sigma"]
            + ([COLUMN] if s.get("exploitability") else []),
            "rows": rows,
        },
        {
            "caption": "Pairs: win rate of the first player over decided parties [95% CI]",
            "columns": ["pair", "win rate [95% CI]", "decided", "mean point difference"],
            "rows": pairs,
            "pairs": [[p["a"], p["b"]] for p in s["pairs"]],
            "runs": [_pair_run(s, p) for p in s["pairs"]],
        },
    ]


def _pair_run(s: dict, pair: dict) -> dict:
    """The run of one pair of a ratings summary (``runs``)."""
    players = s["players"]
    i, j = players.index(pair["a"]), players.index(pair["b"])
    return run_of_pair("ratings", derive_seed(s["settings"]["seed"], "pair", i, j), s["settings"]["deals"])


def _tournament(s: dict) -> list[dict]:
    st = s["settings"]
    ranked = sorted(s["players"], key=lambda n: -(s["per_player"][n]["tokens_per_partie"] or 0))
    rows = []
    for k, n in enumerate(ranked):
        e = s["per_player"][n]
        rows.append(
            [
                str(k + 1),
                n,
                _with_ci(e["tokens_per_partie"], e["tokens_per_partie_ci"], 2),
                _with_ci(e["bulka_wins"], e["bulka_wins_ci"], 2),
                _with_ci(e["pro_declared"], e["pro_declared_ci"], 2),
                _with_ci(e["pro_win_rate"], e["pro_win_rate_ci"], 2),
            ]
            + ([exploitability_cell(s, n)] if s.get("exploitability") else [])
        )
    return [
        {
            "caption": f"Bulka sessions: {st['sessions']} x {st['parties']} parties, seed {st['seed']} "
            "(means per session [95% CI])",
            "columns": ["#", "player", "tokens / partie", "Bulka wins", "Pro declared", "Pro win rate"]
            + ([COLUMN] if s.get("exploitability") else []),
            "rows": rows,
        }
    ]


def _head_to_head(s: dict) -> list[dict]:
    a, b = s["players"]
    st = s["settings"]
    seat = s["by_seat"]
    rows = [
        [f"win rate of {a} (decided)", _with_ci(s["win_rate"], s["win_rate_ci"])],
        ["  as challenger", _with_ci(seat["challenger"]["win_rate"], seat["challenger"]["win_rate_ci"])],
        ["  as dealer", _with_ci(seat["dealer"]["win_rate"], seat["dealer"]["win_rate_ci"])],
        [f"mean points {a} - {b}", _with_ci(s["mean_point_diff"], s["mean_point_diff_ci"], 2)],
        [f"mean tokens {a} / partie", _with_ci(s["mean_tokens"], s["mean_tokens_ci"], 2)],
        [f"mean tokens {b} / partie", _with_ci(s["mean_tokens_opponent"], s["mean_tokens_opponent_ci"], 2)],
        ["parties (decided, Alifer)", f"{s['parties']} ({s['decided']}, {s['alifer']})"],
    ]
    mode = "duplicate" if st["duplicate"] else "plain"
    return [
        {
            "caption": f"{a} vs {b}: {st['deals']} deals, {mode}, seed {st['seed']}",
            "columns": ["", "value [95% CI]"],
            "rows": rows,
            "pair": [a, b],
            "run": run_of_pair("head_to_head", st["seed"], st["deals"]),
        }
    ]


_KINDS = {"ratings": _ratings, "session_tournament": _tournament, "head_to_head": _head_to_head}


def leaderboard(text: str) -> dict:
    """``{"kind", "tables": [{"caption", "columns", "rows"}]}`` from the
    text of an evaluator summary; ``ValueError`` saying what is wrong. A
    table of pairs also has ``pairs`` (the two players of each row), a
    head-to-head table ``pair``: the page links them to their saved games,
    those of the same run only (``runs`` and ``run``: ``runs.run_of_pair``)."""
    try:
        summary = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"not JSON ({e.msg} at line {e.lineno}, column {e.colno})") from None
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    except ValueError:  # a number of more digits than Python converts
        raise ValueError("a number too long to read") from None
    if not isinstance(summary, dict):
        raise ValueError("not a summary written by trappola evaluate --json (expected a JSON object)")
    kind = summary.get("kind")
    if kind not in _KINDS:
        raise ValueError(
            f"unknown summary kind {kind!r}; expected one of {', '.join(_KINDS)} "
            "(a file written by trappola evaluate --json)"
        )
    try:
        return {"kind": kind, "tables": _KINDS[kind](summary)}
    except (KeyError, TypeError, ValueError, IndexError) as e:
        what = f"missing field {e}" if isinstance(e, KeyError) else str(e)
        raise ValueError(f"malformed {kind} summary: {what}") from None
