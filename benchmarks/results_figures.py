"""Draw each results page's figure from the page's own main table.

    python benchmarks/results_figures.py            # every page under docs/results/
    python benchmarks/results_figures.py ablation   # one page

The figure is made from the numbers printed in the page (a table's "x [low, high]" cells, or, failing
that, its plain numbers), so a page and its figure cannot disagree: rerun this after editing a table.
Each page names the table drawn in the line under its figure. Writes docs/results/img/<page>.png.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "docs" / "results"
INTERVAL = re.compile(r"([+-]?\d[\d,]*\.?\d*) \[([+-]?\d[\d,]*\.?\d*), ([+-]?\d[\d,]*\.?\d*)\]")
NUMBER = re.compile(r"^[+-]?\d[\d,]*\.?\d*%?$")
#: Pages whose figure another command draws (a curve, not a table's column): skipped here, that command named.
OWN_FIGURES = {
    "expert_iteration": "python benchmarks/expert_curve.py --figure --out docs/results/expert_iteration.json",
}


def tables(text: str) -> list[list[list[str]]]:
    """The Markdown tables of ``text`` as rows of stripped cells, header first, separator dropped."""
    out, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(set(c) <= set("-: ") for c in cells):
                current.append(cells)
        elif current:
            out.append(current)
            current = []
    return out


def _value(cell: str) -> tuple[float, float, float] | None:
    m = INTERVAL.search(cell)
    if m:
        mid, low, high = (float(g.replace(",", "")) for g in m.groups())
        return mid, low, high
    if NUMBER.match(cell):
        v = float(cell.rstrip("%").replace(",", ""))
        return v, v, v
    return None


def _label(row: list[str], col: int, above: list[list[str]]) -> str:
    """The text cells left of ``col``; a blank first cell continues the group of the rows above it."""
    cells = list(row[:col])
    if cells and not cells[0]:
        cells[0] = next((r[0] for r in reversed(above) if r and r[0]), "")
    text = ": ".join(c for c in cells if c and _value(c) is None)
    text = re.sub(r"[`*]", "", text)
    return text if len(text) <= 80 else text[:77] + "..."


def main_series(table: list[list[str]]) -> tuple[str, list[str], list[tuple[float, float, float]]] | None:
    """(column name, row labels, values) of the table's column with the most intervals (else numbers)."""
    header, rows = table[0], table[1:]
    best = None
    for col in range(1, len(header)):
        cells = [r[col] if col < len(r) else "" for r in rows]
        values = [_value(c) for c in cells]
        intervals = sum(bool(INTERVAL.search(c)) for c in cells)
        count = sum(v is not None for v in values)
        key = (intervals, count)
        if count >= 2 and (best is None or key > best[0]):
            pairs = enumerate(zip(rows, values, strict=True))
            labels = [_label(r, col, rows[:i]) for i, (r, v) in pairs if v is not None]
            best = (key, header[col], labels, [v for v in values if v is not None])
    return None if best is None else best[1:]


def draw(page: Path) -> Path | None:
    """Draw ``page``'s figure from its table with the most intervals; None when it has no such table."""
    found = [(s, t) for t in tables(page.read_text(encoding="utf-8")) if (s := main_series(t))]
    if not found:
        return None
    (column, labels, values), table = max(found, key=lambda f: (sum(v[1] != v[2] for v in f[0][2]), len(f[0][2])))
    fig, ax = plt.subplots(figsize=(9, 0.42 * len(labels) + 1.4))
    y = range(len(labels))
    mids = [v[0] for v in values]
    errors = [[v[0] - v[1] for v in values], [v[2] - v[0] for v in values]]
    ax.errorbar(mids, y, xerr=errors, fmt="o", capsize=3)
    ax.set_yticks(list(y), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(f"{column} (95% interval where the table gives one)")
    ax.set_title(f"{page.stem.replace('_', ' ')}: {table[0][0][:60]}", fontsize=10)
    if all(0 <= m <= 1 for m in mids):
        ax.axvline(0.5, color="grey", lw=0.8, ls="--")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    out = PAGES / "img" / f"{page.stem}.png"
    out.parent.mkdir(exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", help="page names (default: every page)")
    args = parser.parse_args(argv)
    pages = [PAGES / f"{p}.md" for p in args.pages] or sorted(PAGES.glob("*.md"))
    for page in pages:
        if not page.is_file():
            print(f"error: no page {page.relative_to(ROOT)}", file=sys.stderr)
            return 2
        if page.stem in OWN_FIGURES:
            print(f"{page.relative_to(ROOT)}: drawn by {OWN_FIGURES[page.stem]}")
            continue
        out = draw(page)
        print(f"{page.relative_to(ROOT)}: {out.relative_to(ROOT) if out else 'no table with numbers'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
