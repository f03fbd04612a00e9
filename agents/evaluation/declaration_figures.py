"""Files of a declaration analysis (``declarations.analyze_declarations``): JSON, CSV and PNG figures.

* ``declarations.png``: per decider and kind, each contrast's mean paired difference in points,
  (wins - losses) and tokens, bars with their 95% intervals, each labelled with its n;
* ``waiting.png``: the value of waiting (``later - now``) by turn (integer ticks) for Aces and Bianka,
  per decider, in points and (wins - losses), with intervals and the n of each point.

Every file is written atomically (``trappola_env.atomic_file``); matplotlib draws without a display.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from trappola.agents.evaluation.declarations import CSV_FIELDS, csv_rows
from trappola_env.atomic_file import atomic_write, write_text

LABELS = {"points": "points", "wl": "wins - losses", "tokens": "tokens"}


def write_json(summary: dict, path) -> None:
    """The summary as JSON."""
    write_text(Path(path), json.dumps(summary, indent=2) + "\n")


def write_csv(summary: dict, path) -> None:
    """The groups as CSV (``CSV_FIELDS``)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_FIELDS)
    w.writeheader()
    w.writerows(csv_rows(summary))
    write_text(Path(path), buf.getvalue())


def _errors(groups, m):
    lo = [0.0 if g[m + "_ci"][0] is None else max(0.0, g[m] - g[m + "_ci"][0]) for g in groups]
    hi = [0.0 if g[m + "_ci"][1] is None else max(0.0, g[m + "_ci"][1] - g[m]) for g in groups]
    return [lo, hi]


def _save(fig, path: Path) -> None:
    with atomic_write(path, "wb") as f:
        fig.savefig(f, format="png", dpi=110, bbox_inches="tight")


def _why(g: dict, m: str) -> str:
    """The interval as text, or why there is none."""
    lo, hi = g[m + "_ci"]
    if lo is not None:
        return f"[{lo:+.2f}, {hi:+.2f}]"
    note = g.get(m + "_note") or ""
    return "no spread" if note.startswith("no spread") else "no CI: too few" if "units" in note else "no CI"


def _who(summary: dict, g: dict) -> str:
    labels = summary["players"]
    i = g.get("decider_index")
    if i is None:
        return ""
    return f"{i}:{labels[i]}" if labels.count(labels[i]) > 1 else labels[i]


def write_figures(summary: dict, folder) -> list[Path]:
    """``declarations.png`` and, when Aces or Bianka were met, ``waiting.png`` in ``folder``; the paths.
    Every bar and point carries its n and its 95% interval; a row with too few units for an interval
    (``stats.MIN_PAIRS``) or with no spread is drawn as a hollow marker, labelled so, without a bar."""
    # A bare Figure draws without a display and leaves pyplot's backend alone (a notebook's inline
    # plots keep working after this is called).
    from matplotlib.figure import Figure

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    title = " vs ".join(summary["players"][:2])
    out = []
    overall = [g for g in summary["groups"] if g["turn"] is None]
    fig = Figure(figsize=(16, 1.4 + 0.42 * max(4, len(overall))))
    axes = fig.subplots(1, 3)
    for ax, m in zip(axes, ("points", "wl", "tokens"), strict=True):
        # One row per group in every panel (a measure a kind lacks, e.g. Pro's points, is left blank),
        # so the labels of the first panel name the rows of all three.
        gs = overall
        ys = list(range(len(gs)))
        shown = [k for k, g in zip(ys, gs, strict=True) if g[m] is not None and g[m + "_ci"][0] is not None]
        hollow = [k for k, g in zip(ys, gs, strict=True) if g[m] is not None and k not in shown]
        if shown:
            sel = [gs[k] for k in shown]
            ax.barh(shown, [g[m] for g in sel], xerr=_errors(sel, m), capsize=3, color="tab:blue")
        if hollow:
            ax.plot([gs[k][m] for k in hollow], hollow, "o", mfc="none", color="tab:gray")
        for k, g in zip(ys, gs, strict=True):
            if g[m] is None:
                ax.annotate("not measured", (0, k), xytext=(4, 6), textcoords="offset points", fontsize=6)
                continue
            ax.annotate(_why(g, m), (g[m], k), xytext=(4, 6), textcoords="offset points", fontsize=6)
        labels = [f"{_who(summary, g)} {g['kind']}: {g['contrast']} (n={g['n']}, {g.get('units')} deals)" for g in gs]
        ax.set_yticks(ys, labels if ax is axes[0] else [""] * len(ys), fontsize=7)
        ax.axvline(0, color="black", lw=0.8)
        ax.invert_yaxis()
        ax.set_xlabel(f"{LABELS[m]}: paired difference (95% CI)")
    fig.suptitle(
        f"Declaration decisions of {title}, per decider: option minus option at the same decision point\n"
        f"no interval below {summary.get('min_units', 20)} deals or with no spread (a declaration's own "
        "payment is fixed by the rules); tokens leave out the Bulka",
        fontsize=9,
    )
    fig.tight_layout()
    _save(fig, folder / "declarations.png")
    out.append(folder / "declarations.png")
    waiting = [g for g in summary["groups"] if g["turn"] is not None and g["contrast"] == "later - now"]
    if waiting:
        series = sorted({(g["kind"], g.get("decider_index")) for g in waiting}, key=str)
        fig = Figure(figsize=(13, 4.6))
        axes = fig.subplots(1, 2)
        for ax, m in zip(axes, ("points", "wl"), strict=True):
            for k, (kind, who) in enumerate(series):
                gs = [g for g in waiting if g["kind"] == kind and g.get("decider_index") == who]
                # Series side by side around each integer turn, so their bars do not hide each other.
                off = (k - (len(series) - 1) / 2) * 0.2
                xs = [g["turn"] + off for g in gs]
                line = ax.plot(xs, [g[m] for g in gs], "-", lw=0.8, label=f"{kind}, {_who(summary, gs[0])}")[0]
                for x, g in zip(xs, gs, strict=True):
                    has = g[m + "_ci"][0] is not None
                    ax.errorbar(
                        [x],
                        [g[m]],
                        yerr=_errors([g], m) if has else None,
                        fmt="o",
                        mfc=line.get_color() if has else "none",
                        color=line.get_color(),
                        capsize=3,
                    )
                    ax.annotate(
                        f"n={g['n']}", (x, g[m]), xytext=(0, -11), textcoords="offset points", fontsize=6, ha="center"
                    )
            turns = sorted({g["turn"] for g in waiting})
            ax.set_xticks(turns, [str(t) for t in turns])
            ax.set_xlim(min(turns) - 0.6, max(turns) + 0.6)
            ax.axhline(0, color="black", lw=0.8)
            ax.set_xlabel("the decider's card number (turn)")
            ax.set_ylabel(f"later - now, {LABELS[m]}")
            ax.legend(fontsize=7)
        fig.suptitle(
            f"Value of waiting by turn ({title}; 95% CI; hollow: no interval, fewer than "
            f"{summary.get('min_units', 20)} deals or no spread)",
            fontsize=9,
        )
        fig.tight_layout()
        _save(fig, folder / "waiting.png")
        out.append(folder / "waiting.png")
    return out
