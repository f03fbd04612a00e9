"""The documents name only what exists: every repository path in backticks in README.md,
train/README.md, CONTRIBUTING.md and docs/**/*.md is a file or folder of the checkout, and every
``python -m trappola.X`` module they (or the Makefile) name can be run.

Modules are looked up as files, so no package's ``__init__`` runs (nothing heavy is imported)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from layering import PACKAGE_DIRS

ROOT = Path(__file__).resolve().parent.parent
DOCS = (
    "README.md",
    "train/README.md",
    "CONTRIBUTING.md",
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md")),
)
MODULE_SOURCES = (*DOCS, "Makefile")

# A path starts at one of the repository's top-level folders; it ends at a space, a backtick, a
# closing bracket or punctuation that ends a sentence.
PATH = re.compile(
    r"(?<![\w./-])((?:trappola_env|trappola|agents|train|configs|tests|benchmarks|docs|notebooks|\.ci)/[\w./*<>-]*)"
)
FENCED = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
BACKTICKED = re.compile(r"`([^`]+)`")  # inline code may wrap onto the next line
LINK = re.compile(r"\]\(([^)#\s]+)")
MODULE = re.compile(r"-m\s+(trappola(?:\.\w+)*)")
ANCHORED_LINK = re.compile(r"\]\(([^)#\s]*)#([^)\s]+)\)")
HEADING = re.compile(r"^#+\s+(.*)$", re.M)


def _placeholder(path: str) -> bool:
    """``tests/test_x.py``, ``docs/img/*.png``, ``#play/<id>``: a pattern, not a path."""
    stem = path.rsplit("/", 1)[-1].split(".")[0]
    tensorboard_tag = re.fullmatch(r"train/\w+", path) is not None  # `train/entropy_loss`; a folder ends in /
    return any(c in path for c in "*<>") or stem in ("x", "test_x", "X") or tensorboard_tag


def named_paths(text: str) -> set[str]:
    """The repository paths ``text`` names in backticks (inline or fenced) or as link targets."""
    found, inline = set(), FENCED.sub("", text)
    for span in FENCED.findall(text) + BACKTICKED.findall(inline) + LINK.findall(inline):
        for path in PATH.findall(span):
            path = path.rstrip(".").rstrip("/")
            if not _placeholder(path):
                found.add(path)
    return found


def named_modules(text: str) -> set[str]:
    """The modules ``text`` runs with ``python -m trappola...``."""
    return {m.rstrip(".") for m in MODULE.findall(text)}


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The anchors of the headings of a Markdown ``text`` (outside fenced blocks)."""
    return {slug(h) for h in HEADING.findall(FENCED.sub("", text))}


def runnable(module: str) -> bool:
    """Whether ``python -m module`` finds something to run, without importing any package
    (the folders of ``trappola.agents``, ``trappola.train`` and ``trappola.configs`` are mapped
    as ``pyproject.toml`` maps them)."""
    top = max((p for p in PACKAGE_DIRS if module == p or module.startswith(p + ".")), key=len, default=None)
    if top is None:
        return False
    rest = module[len(top) :].lstrip(".").split(".") if module != top else []
    path = ROOT / PACKAGE_DIRS[top] / Path(*rest) if rest else ROOT / PACKAGE_DIRS[top]
    return path.with_suffix(".py").is_file() or (path / "__main__.py").is_file()


def _read(doc: str) -> str:
    return (ROOT / doc).read_text(encoding="utf-8")


def notebook_page(path: str) -> bool:
    """``notebooks/x.md``: the site's page of ``notebooks/x.ipynb`` (made at build time by
    ``docs/_hooks/notebook_pages.py``)."""
    return path.startswith("notebooks/") and path.endswith(".md") and (ROOT / path).with_suffix(".ipynb").is_file()


@pytest.mark.parametrize("doc", DOCS)
def test_named_paths_exist(doc):
    paths = named_paths(_read(doc))
    if doc in ("README.md", "train/README.md", "CONTRIBUTING.md"):  # each names many: none found is a broken pattern
        assert paths, f"{doc} names no path: the pattern is broken"
    missing = sorted(p for p in paths if not (ROOT / p).exists() and not notebook_page(p))
    assert not missing, f"{doc} names paths that do not exist: {missing}"


@pytest.mark.parametrize("doc", MODULE_SOURCES)
def test_named_modules_run(doc):
    missing = sorted(m for m in named_modules(_read(doc)) if not runnable(m))
    assert not missing, f"{doc} runs modules that cannot be found: {missing}"


@pytest.mark.parametrize("doc", DOCS)
def test_linked_sections_exist(doc):
    missing = []
    for target, anchor in ANCHORED_LINK.findall(_read(doc)):
        path = (ROOT / doc).parent / target if target else ROOT / doc
        if not path.is_file() or anchor not in anchors(path.read_text(encoding="utf-8")):
            missing.append(f"{target}#{anchor}")
    assert not missing, f"{doc} links to sections that do not exist: {missing}"


def test_the_checks_catch_what_they_are_for():
    text = (
        "see `train/opponent_workers.py`, `tests/test_gone.py` and [x](docs/gone.md); "
        "`python -m trappola.train.gone` and `python -m trappola.train` (no __main__)"
    )
    assert {"train/opponent_workers.py", "tests/test_gone.py", "docs/gone.md"} <= named_paths(text)
    assert not any((ROOT / p).exists() for p in named_paths(text))
    assert named_modules(text) == {"trappola.train.gone", "trappola.train"}
    assert not runnable("trappola.train.gone") and not runnable("trappola.train")
    assert runnable("trappola.cli") and runnable("trappola.train.pro") and runnable("trappola.train.fit.belief_fit")
    assert named_paths("`tests/test_x.py`, `docs/img/*.png`") == set()
    assert notebook_page("notebooks/getting_started.md") and not notebook_page("notebooks/gone.md")
    assert slug("Exploitability: how far from a best response") == "exploitability-how-far-from-a-best-response"
    assert slug("### League exploiters in `trappola train`".lstrip("# ")) == "league-exploiters-in-trappola-train"
    assert "the-rules" in anchors("# Title\n\n## The rules\n```sh\n# not a heading\n```\n")
    assert "not-a-heading" not in anchors("```sh\n# not a heading\n```\n")
