"""The documentation site builds strictly (``make docs``), and a broken link or reference fails it.

The build runs ``mkdocs build --strict`` as ``make docs`` does, into a temporary folder. The second test
breaks a copy of the site's sources (``mkdocs.yml`` and ``docs/``, the packages linked beside them) in
three ways, each a mistake the strict build exists to catch, and checks the build names every one.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mkdocs")
pytest.importorskip("mkdocstrings_handlers.python")

ROOT = Path(__file__).resolve().parent.parent
# What the build reads beside mkdocs.yml and docs/: the packages (API reference) and the notebooks.
SOURCES = ("trappola_env", "trappola", "agents", "train", "configs", "notebooks")


def build(config: Path, site: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(config), "-d", str(site)],
        cwd=config.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_site_builds_strictly_with_its_search_index(tmp_path):
    site = tmp_path / "site"
    proc = build(ROOT / "mkdocs.yml", site)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for page in ("index.html", "getting-started.html", "guides/add-a-player.html", "api/trappola_env.html"):
        assert (site / page).is_file(), page
    # Offline: the search index is in the site, and no page loads anything from another site.
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert any(doc["location"].startswith("getting-started.html") for doc in index["docs"])
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert 'src="http' not in html and "fonts.googleapis" not in html, page
    # The API reference comes from the docstrings, the notebook pages from the notebooks.
    api = (site / "api" / "trappola_env.html").read_text(encoding="utf-8")
    assert "trappola_env.trappola_v0" in api and "decode_observation" in api
    assert "make_player" in (site / "api" / "agents.html").read_text(encoding="utf-8")
    assert (site / "notebooks" / "getting_started.html").is_file()


def test_a_broken_link_or_reference_fails_the_build(tmp_path):
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(ROOT / "docs", tmp_path / "docs", ignore=shutil.ignore_patterns("__pycache__"))
    for name in SOURCES:
        (tmp_path / name).symlink_to(ROOT / name)
    page = tmp_path / "docs" / "getting-started.md"
    text = page.read_text(encoding="utf-8")
    assert "(guides/add-a-player.md)" in text
    text = text.replace("(guides/add-a-player.md)", "(guides/no-such-guide.md)", 1)
    text += "\nSee [the registry][trappola.agents.no_such_function] and [a section](rules.md#no-such-section).\n"
    page.write_text(text, encoding="utf-8")
    proc = build(tmp_path / "mkdocs.yml", tmp_path / "site")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "guides/no-such-guide.md" in out
    assert "trappola.agents.no_such_function" in out
    assert "no-such-section" in out
