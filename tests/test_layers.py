"""The layer contract (``tests/layering.py``) holds for the packages, and
the check really catches an upward import and a circle."""

import ast
from pathlib import Path

from layering import circles, module_sources, upward_imports

ROOT = Path(__file__).resolve().parents[1]


def test_no_upward_import():
    assert upward_imports(module_sources(ROOT)) == []


def test_no_circle():
    assert circles(module_sources(ROOT)) == []


def test_an_upward_import_inside_a_function_is_caught():
    sources = module_sources(ROOT)
    sources["trappola_env.engine.cards"] += "\n\ndef _sneaky():\n    from trappola.agents import make_player\n"
    bad = upward_imports(sources)
    assert len(bad) == 1 and bad[0].startswith("trappola_env.engine.cards:") and "imports trappola.agents" in bad[0]


def test_each_upward_step_is_caught():
    sources = module_sources(ROOT)
    for low, high in (
        ("trappola_env.interface", "trappola.agents.base"),
        ("trappola.agents.base", "trappola.agents.evaluation.stats"),
        ("trappola.agents.evaluation.stats", "trappola.train.sb3.config"),
        ("trappola.train.sb3.config", "trappola.web.app"),
        ("trappola.web.app", "trappola.cli.main"),
    ):
        changed = dict(sources)
        changed[low] += f"\nimport {high}\n"
        assert any(line.startswith(f"{low}:") and high in line for line in upward_imports(changed)), (low, high)


def test_a_relative_import_counts():
    sources = module_sources(ROOT)
    sources["trappola_env.observation"] += "\nfrom .referee import play_partie\n"
    sources["trappola_env.referee"] += "\nfrom . import observation\n"
    assert any({"trappola_env.observation", "trappola_env.referee"} <= set(c) for c in circles(sources))


def test_a_circle_within_a_layer_is_caught():
    sources = module_sources(ROOT)
    sources["trappola.train.sb3.config"] += "\nfrom trappola.train.selfplay.bc import clone\n"
    sources["trappola.train.selfplay.bc"] += "\nimport trappola.train.sb3.config\n"
    assert any({"trappola.train.sb3.config", "trappola.train.selfplay.bc"} <= set(c) for c in circles(sources))


def test_no_bare_import_of_a_mapped_folder():
    """``agents``, ``train`` and ``configs`` install as ``trappola.agents``,
    ``trappola.train`` and ``trappola.configs``; from the repository root a bare
    ``import agents`` would load a second copy of the same code."""
    bare = ("agents", "train", "configs")
    found = []
    for folder in ("trappola_env", "trappola", "agents", "train", "configs", "tests", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                names = (
                    [a.name for a in node.names]
                    if isinstance(node, ast.Import)
                    else [node.module or ""]
                    if isinstance(node, ast.ImportFrom) and not node.level
                    else []
                )
                found += [
                    f"{path.relative_to(ROOT)}:{node.lineno} imports {n}" for n in names if n.split(".")[0] in bare
                ]
    assert found == []


def test_a_bare_import_would_be_caught(tmp_path):
    node = ast.parse("import train.selfplay.bc\nfrom agents import make_player\n")
    names = [a.name for n in ast.walk(node) if isinstance(n, ast.Import) for a in n.names]
    names += [n.module for n in ast.walk(node) if isinstance(n, ast.ImportFrom)]
    assert [n.split(".")[0] for n in names] == ["train", "agents"]
