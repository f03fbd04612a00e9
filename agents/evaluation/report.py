"""Reports of evaluation results: a readable table, JSON and CSV.

``format_summary(summary)`` renders any evaluator summary (``kind``
head_to_head, session_tournament or ratings) as text. ``write_json``
writes the summary (keys in the documented order, ``null`` for undefined
values such as a rate with nothing decided) and ``write_csv`` the per-row
records (one row per partie, per session and player, or per partie of a
pair). Nothing time- or machine-dependent goes into either file, so a
fixed seed gives byte-identical files.
"""

from __future__ import annotations

import csv
import json

from trappola.agents.evaluation.exploitability import COLUMN, exploitability_cell
from trappola_env.atomic_file import atomic_write, write_text


def _num(v, digits: int = 3) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def _ci(ci, digits: int = 3) -> str:
    if not ci or ci[0] is None:
        return ""
    return f"[{_num(ci[0], digits)}, {_num(ci[1], digits)}]"


def table(rows: list[list[str]], header: list[str]) -> str:
    """Columns padded to their widest cell; first column left-aligned."""
    cells = [header] + rows
    widths = [max(len(str(r[i])) for r in cells) for i in range(len(header))]
    lines = []
    for k, r in enumerate(cells):
        lines.append(
            "  ".join(
                str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))
            ).rstrip()
        )
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def format_head_to_head(s: dict) -> str:
    """A head-to-head summary as text: the win rate overall and by seat, mean points and tokens, with 95% intervals."""
    a, b = s["players"]
    st = s["settings"]
    mode = "duplicate (each deal twice, seats swapped)" if st["duplicate"] else "plain"
    head = [
        f"{a} vs {b}: {st['deals']} deals, {mode}, seed {st['seed']}",
        f"parties {s['parties']}, decided {s['decided']}, Alifer {s['alifer']} "
        f"(ties {s['ties']}, agreed {s['agreed_alifer']})",
    ]
    rows = [
        [f"win rate of {a} (decided)", _num(s["win_rate"]), _ci(s["win_rate_ci"])],
        [
            "  as challenger",
            _num(s["by_seat"]["challenger"]["win_rate"]),
            _ci(s["by_seat"]["challenger"]["win_rate_ci"]),
        ],
        ["  as dealer", _num(s["by_seat"]["dealer"]["win_rate"]), _ci(s["by_seat"]["dealer"]["win_rate_ci"])],
        [f"mean points {a} - {b}", _num(s["mean_point_diff"], 2), _ci(s["mean_point_diff_ci"], 2)],
        [f"mean tokens {a} / partie", _num(s["mean_tokens"], 2), _ci(s["mean_tokens_ci"], 2)],
        [f"mean tokens {b} / partie", _num(s["mean_tokens_opponent"], 2), _ci(s["mean_tokens_opponent_ci"], 2)],
    ]
    return "\n".join(head) + "\n" + table(rows, ["", "value", "95% CI"]) + f"\n(win-rate CI: {s['win_rate_ci_method']})"


def format_tournament(s: dict) -> str:
    """A session tournament summary as text: per player tokens per partie, Bulka wins and Pro declarations and wins."""
    st = s["settings"]
    head = (
        f"Bulka sessions: {st['sessions']} x {st['parties']} parties, {len(s['players'])} players, "
        f"seed {st['seed']}"
        + ("" if st["balanced"] else f" (not a multiple of {st['seatings_per_block']}: seatings unbalanced)")
    )
    rows = []
    for name in s["players"]:
        e = s["per_player"][name]
        rows.append(
            [
                name,
                f"{_num(e['tokens_per_partie'], 2)} {_ci(e['tokens_per_partie_ci'], 2)}",
                f"{_num(e['bulka_wins'], 2)} {_ci(e['bulka_wins_ci'], 2)}",
                f"{_num(e['pro_declared'], 2)} {_ci(e['pro_declared_ci'], 2)}",
                f"{_num(e['pro_won'], 2)} {_ci(e['pro_won_ci'], 2)}",
                _num(e["pro_win_rate"], 2),
            ]
        )
    header = [
        "player",
        "tokens/partie [95% CI]",
        "Bulka wins/session",
        "Pro declared/session",
        "Pro won/session",
        "Pro win rate",
    ]
    if s.get("exploitability"):  # from trappola exploit --json results, given with --exploit
        rows = [r + [exploitability_cell(s, r[0])] for r in rows]
        header.append(COLUMN)
    return head + "\n" + table(rows, header)


def format_ratings(s: dict) -> str:
    """A ratings summary as text: mu, sigma and ordinal per player, then the duplicate pairs."""
    rows = [[e["player"], _num(e["mu"], 2), _num(e["sigma"], 2), _num(e["ordinal"], 2)] for e in s["ratings"]]
    header = ["player", "mu", "sigma", "ordinal (mu-3s)"]
    if s.get("exploitability"):  # from trappola exploit --json results, given with --exploit
        rows = [r + [exploitability_cell(s, r[0])] for r in rows]
        header.append(COLUMN)
    out = [
        f"Ratings (openskill Plackett-Luce) from duplicate pairs, {s['settings']['deals']} deals each, "
        f"seed {s['settings']['seed']}",
        table(rows, header),
        "",
    ]
    pair_rows = [
        [f"{p['a']} vs {p['b']}", _num(p["win_rate"]), _ci(p["win_rate_ci"]), str(p["decided"])] for p in s["pairs"]
    ]
    out.append(table(pair_rows, ["pair", "win rate (first)", "95% CI", "decided"]))
    return "\n".join(out)


def format_summary(summary: dict) -> str:
    """Any summary as text, by its ``kind``."""
    kind = summary.get("kind")
    if kind == "head_to_head":
        return format_head_to_head(summary)
    if kind == "session_tournament":
        return format_tournament(summary)
    if kind == "ratings":
        return format_ratings(summary)
    raise ValueError(f"unknown summary kind {kind!r}")


def to_json(summary: dict) -> str:
    """A summary as indented JSON text (NaN refused)."""
    return json.dumps(summary, indent=2, allow_nan=False) + "\n"


def write_json(summary: dict, path) -> None:
    """Write a summary as JSON to ``path`` (atomically)."""
    write_text(path, to_json(summary))


def write_csv(records: list[dict], path) -> None:
    """One line per record, columns in the records' key order."""
    with atomic_write(path, "w", newline="") as f:
        if not records:
            return
        w = csv.DictWriter(f, fieldnames=list(records[0]))
        w.writeheader()
        w.writerows(records)
