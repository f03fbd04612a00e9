"""MkDocs hook: lay the packages out as they install, for the API reference.

``pyproject.toml`` maps folders to packages (``agents/`` installs as ``trappola.agents``, ``train/``
as ``trappola.train``, ``configs/`` as ``trappola.configs``), a mapping that griffe, which reads the
source without importing it, does not follow. So the reference is read from a tree of links under
``build/docs-api`` laid out as the packages install, as ``make typecheck`` does for mypy.
"""

from __future__ import annotations

import os
from pathlib import Path

from mkdocs.plugins import event_priority

# package path under the tree -> folder of the checkout
MAPPING = {
    "trappola_env": "trappola_env",
    "trappola/agents": "agents",
    "trappola/train": "train",
    "trappola/configs": "configs",
}


def link_tree(root: Path, tree: Path) -> Path:
    """Links under ``tree`` to the packages of the checkout at ``root``; returns ``tree``."""
    (tree / "trappola").mkdir(parents=True, exist_ok=True)
    wanted = dict(MAPPING)
    for child in (root / "trappola").iterdir():
        if child.name != "__pycache__":
            wanted[f"trappola/{child.name}"] = f"trappola/{child.name}"
    for name, folder in wanted.items():
        link = tree / name
        target = os.path.relpath(root / folder, link.parent)
        if link.is_symlink() and os.readlink(link) == target:
            continue
        if link.is_symlink():
            link.unlink()
        link.symlink_to(target)
    for link in (tree / "trappola").iterdir():  # a file removed from trappola/
        if link.is_symlink() and not link.exists():
            link.unlink()
    return tree


@event_priority(100)  # before mkdocstrings reads its paths
def on_config(config):
    """Build the tree before mkdocstrings reads its ``paths``."""
    root = Path(config.config_file_path).resolve().parent
    link_tree(root, root / "build" / "docs-api")
    return config
