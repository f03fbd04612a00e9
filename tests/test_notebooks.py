"""The research notebooks run from top to bottom and draw their figures.

Each notebook reads its budget from the environment; here it runs on a
tiny one (a few deals, few samples), in a copy, so the committed outputs
(from a real run) are left alone. The committed file itself must hold
those outputs: figures, and the budget it was run at.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
TIMING = NOTEBOOKS / "declaration_timing.ipynb"
GETTING_STARTED = NOTEBOOKS / "getting_started.ipynb"


def _outputs(nb):
    for cell in nb.cells:
        if cell.cell_type == "code":
            yield from cell.get("outputs", [])


def _figures(nb) -> int:
    return sum(1 for o in _outputs(nb) if "image/png" in o.get("data", {}))


def _run(path: Path) -> nbformat.NotebookNode:
    """The notebook at ``path`` run afresh, in memory (the file is left alone)."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    return nb


def _printed(nb) -> str:
    return "".join(o.get("text", "") for o in _outputs(nb) if o.output_type == "stream")


def test_getting_started_runs_on_a_tiny_budget(monkeypatch):
    monkeypatch.setenv("TRAPPOLA_NB_TINY", "1")
    monkeypatch.setenv("TRAPPOLA_NB_DEALS", "4")
    monkeypatch.setenv("TRAPPOLA_NB_MINUTES", "1")
    nb = _run(GETTING_STARTED)
    assert not [o for o in _outputs(nb) if o.output_type == "error"]
    text = _printed(nb)
    assert "DEALS=4  TINY=True" in text and "best checkpoint best.zip" in text
    assert "vs random" in text and "vs rule" in text and "observation (347,)" in text
    assert _figures(nb) == 1


def test_committed_getting_started_holds_a_real_run():
    nb = nbformat.read(GETTING_STARTED, as_version=4)
    assert not [o for o in _outputs(nb) if o.output_type == "error"]
    assert _figures(nb) == 1
    text = _printed(nb)
    m = re.search(r"MINUTES=([\d.]+)  DEALS=(\d+)  TINY=False", text)
    assert m and float(m.group(1)) >= 3 and int(m.group(2)) >= 100, "commit the notebook with a real run's outputs"


def test_declaration_timing_runs_on_a_tiny_budget(monkeypatch):
    monkeypatch.setenv("TRAPPOLA_NB_DEALS", "2")
    monkeypatch.setenv("TRAPPOLA_NB_SAMPLES", "4")
    monkeypatch.setenv("TRAPPOLA_NB_WORKERS", "1")
    nb = nbformat.read(TIMING, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    assert not [o for o in _outputs(nb) if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in _outputs(nb) if o.output_type == "stream")
    assert "DEALS=2  SAMPLES=4" in text
    # The experiments go through the instrument's API and print its table.
    assert "== Aces" in text and "== Bianka" in text and "== Figura" in text and "== network alone" in text
    assert "later - now" in text
    assert _figures(nb) >= 2


def test_committed_notebook_holds_a_real_run():
    nb = nbformat.read(TIMING, as_version=4)
    assert not [o for o in _outputs(nb) if o.output_type == "error"]
    assert _figures(nb) >= 2
    text = "".join(o.get("text", "") for o in _outputs(nb) if o.output_type == "stream")
    m = re.search(r"DEALS=(\d+)", text)
    assert m and int(m.group(1)) >= 100, "commit the notebook with outputs of a run at a real budget"
    conclusion = nb.cells[-1]
    assert conclusion.cell_type == "markdown" and "filled in" not in conclusion.source


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__, "-q"])
