"""Files of a declaration analysis (``declarations.analyze_declarations``): JSON, CSV and PNG figures.

* ``declarations.png``: per kind, each contrast's mean paired difference in points, (wins - losses)
  and tokens, bars with their 95% intervals;
* ``waiting.png``: the value of waiting (``later - now``) by turn for Aces and Bianka, in points and
  (wins - losses), with intervals.

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
        fig.savefig(f, format="png", dpi=110)


def write_figures(summary: dict, folder) -> list[Path]:
    """``declarations.png`` and, when Aces or Bianka were met, ``waiting.png`` in ``folder``; the paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    title = " vs ".join(summary["players"][:2])
    out = []
    overall = [g for g in summary["groups"] if g["turn"] is None]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.8))
    for ax, m in zip(axes, ("points", "wl", "tokens"), strict=True):
        gs = [g for g in overall if g[m] is not None]
        ys = range(len(gs))
        ax.barh(list(ys), [g[m] for g in gs], xerr=_errors(gs, m), capsize=3, color="tab:blue")
        ax.set_yticks(list(ys), [f"{g['kind']}: {g['contrast']} (n={g['n']})" for g in gs], fontsize=8)
        ax.axvline(0, color="black", lw=0.8)
        ax.invert_yaxis()
        ax.set_xlabel(f"paired difference, {LABELS[m]} (95% CI)")
    fig.suptitle(f"Declaration decisions of {title}: option minus option at the same decision point")
    fig.tight_layout()
    _save(fig, folder / "declarations.png")
    plt.close(fig)
    out.append(folder / "declarations.png")
    waiting = [g for g in summary["groups"] if g["turn"] is not None and g["contrast"] == "later - now"]
    if waiting:
        fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
        for ax, m in zip(axes, ("points", "wl"), strict=True):
            for k, kind in enumerate(("aces", "bianka")):
                gs = [g for g in waiting if g["kind"] == kind]
                if gs:
                    xs = [g["turn"] + (k - 0.5) * 0.2 for g in gs]
                    ax.errorbar(xs, [g[m] for g in gs], yerr=_errors(gs, m), fmt="o-", capsize=3, label=kind)
            ax.axhline(0, color="black", lw=0.8)
            ax.set_xlabel("the decider's card number (turn)")
            ax.set_ylabel(f"later - now, {LABELS[m]}")
            ax.legend()
        fig.suptitle(f"Value of waiting by turn ({title}; 95% CI)")
        fig.tight_layout()
        _save(fig, folder / "waiting.png")
        plt.close(fig)
        out.append(folder / "waiting.png")
    return out
