"""The documentation site builds strictly (``make docs``), and a broken link or reference fails it.

The build runs ``mkdocs build --strict`` as ``make docs`` does, into a temporary folder. The second test
breaks a copy of the site's sources (``mkdocs.yml`` and ``docs/``, the packages linked beside them) in
three ways, each a mistake the strict build exists to catch, and checks the build names every one.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("mkdocs")
pytest.importorskip("mkdocstrings_handlers.python")

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
# The site's screenshots (docs/img/site-*.png): the home page, a how-to and an API page.
SCREENSHOTS = {
    "site-home.png": "index.html",
    "site-howto.png": "guides/add-a-player.html",
    "site-api.png": "api/evaluation.html",
}
# What the build reads beside mkdocs.yml and docs/: the packages (API reference) and the notebooks.
SOURCES = ("trappola_env", "trappola", "agents", "train", "configs", "notebooks")


def build(config: Path, site: Path) -> subprocess.CompletedProcess:
    """``mkdocs build --strict``; not ``-q``, which hides the warnings that strict mode counts."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        cwd=config.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site, built once for this module as ``make docs`` builds it."""
    site = tmp_path_factory.mktemp("docs") / "site"
    proc = build(ROOT / "mkdocs.yml", site)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return site


@pytest.fixture(scope="module")
def served(site):
    """The site's address, served on this machine for the module's tests."""
    handler = functools.partial(Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # no line per request in the test output
        pass


def test_the_site_builds_strictly_with_its_search_index(site, served, tmp_path):
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
    if os.environ.get("TRAPPOLA_SCREENSHOTS"):
        screenshots(served, ROOT / os.environ["TRAPPOLA_SCREENSHOTS"], tmp_path / "chromium")


@pytest.mark.skipif(not (Path(CHROMIUM).exists() and shutil.which("chromedriver")), reason="no Chromium/chromedriver")
def test_search_works_offline(served, tmp_path):
    """The search box finds a page from the index in the site itself (nothing else is reachable here)."""
    webdriver = pytest.importorskip("selenium.webdriver")
    opts = webdriver.ChromeOptions()
    for flag in (*FLAGS, f"--user-data-dir={tmp_path / 'chromium'}"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(
        options=opts, service=webdriver.ChromeService(executable_path=shutil.which("chromedriver"))
    )
    try:
        driver.get(f"{served}/index.html?q=exploitability")
        deadline = time.monotonic() + 90
        while not (found := driver.find_elements("css selector", ".md-search-result__item")):
            assert time.monotonic() < deadline, "the search found nothing"
            time.sleep(0.5)
        assert "xploitab" in found[0].text
    finally:
        driver.quit()


def screenshots(served: str, folder: Path, profile: Path) -> None:
    """``SCREENSHOTS`` of the site at ``served``, by headless Chromium."""
    for name, page in SCREENSHOTS.items():
        command = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", f"--screenshot={folder / name}", f"{served}/{page}"]
        subprocess.run(command, capture_output=True, timeout=120)
        assert (folder / name).stat().st_size > 10_000, name


FLAGS = [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--hide-scrollbars", "--window-size=1280,900",
]  # fmt: skip


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
