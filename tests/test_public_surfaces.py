"""Tests go through public surfaces only (issue 31).

The rule, checked with ``ast`` over every ``tests/*.py``:

1. No attribute access ``x._name`` (read, write or delete) where ``_name``
   starts with a single underscore (dunders such as ``__class__`` are
   fine). The object does not matter: the check cannot know types, and a
   private name on a third-party object is as fragile as one on ours.
   The one exception is ``self._name`` / ``cls._name`` inside a class the
   test file defines, when none of that class's bases comes from
   ``trappola``, directly or through another class of the file (a test's
   own helper keeps its own state); in a subclass of a project class
   ``self._name`` reaches into the project's privates and counts.
2. No import of a ``_name`` from ``trappola``: neither a private name in
   ``from trappola... import _name`` nor a private module anywhere in the
   dotted path (``trappola._x``, ``from trappola._x import y``).
3. No private name spelled as a string where it reaches an attribute:
   ``getattr/setattr/hasattr/delattr(x, "_name")``, ``monkeypatch``'s
   ``setattr/delattr(x, "_name", ...)`` and its dotted form
   ``setattr("trappola.mod._name", ...)``, and
   ``importlib.import_module("trappola.pkg._module")``.

``ALLOWED_ATTRIBUTES`` names the private attributes a test may still use
and why; ``NOT_YET_CHECKED`` lists test files the check leaves out (none:
a file goes there only while it is being rewritten, and comes back).
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent

# ``_cumulative_rewards`` is PettingZoo's, not ours: ``AECEnv`` declares it
# (``pettingzoo/utils/env.py``), its ``last()`` returns it and every AEC env
# must keep it, so it is part of PettingZoo's contract with env authors;
# a test comparing two copies of an env reads it for every agent.
ALLOWED_ATTRIBUTES = frozenset({"_cumulative_rewards"})

NOT_YET_CHECKED = ()

#: The installed packages of the project.
PROJECT = ("trappola", "trappola_env")

_STRING_ATTRIBUTE_CALLS = frozenset({"getattr", "setattr", "hasattr", "delattr", "import_module"})


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _project_names(tree: ast.Module) -> set[str]:
    """The local names bound to something imported from ``trappola``."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in PROJECT:
            names.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PROJECT:
                    names.add(alias.asname or alias.name.split(".")[0])
    return names


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _own_helper_classes(tree: ast.Module, project: set[str]) -> set[ast.ClassDef]:
    """Classes the file defines with no base from ``trappola``, directly or
    through another class of the file."""
    classes = [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
    derived = set(project)
    grew = True
    while grew:
        grew = False
        for node in classes:
            if node.name not in derived and any(_root_name(base) in derived for base in node.bases):
                derived.add(node.name)
                grew = True
    return {node for node in classes if node.name not in derived}


def _string_hit(call: ast.Call) -> str | None:
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if name not in _STRING_ATTRIBUTE_CALLS:
        return None
    for arg in call.args[:2]:
        if (
            isinstance(arg, ast.Constant)
            and isinstance(arg.value, str)
            and any(_private(part) and part not in ALLOWED_ATTRIBUTES for part in arg.value.split("."))
        ):
            return f"{name}(..., {arg.value!r})"
    return None


def violations(source: str) -> list[str]:
    """``line: what`` for each breach of the rule in one test file's source."""
    tree = ast.parse(source)
    project = _project_names(tree)
    helpers = _own_helper_classes(tree, project)
    found = []

    def visit(node: ast.AST, owner: ast.ClassDef | None) -> None:
        if isinstance(node, ast.ClassDef):
            owner = node
        if isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in ALLOWED_ATTRIBUTES:
            own = (
                isinstance(node.value, ast.Name)
                and node.value.id in ("self", "cls")
                and owner is not None
                and owner in helpers
            )
            if not own:
                found.append(f"{node.lineno}: .{node.attr}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in PROJECT:
            bad = [p for p in node.module.split(".") if _private(p)]
            bad += [alias.name for alias in node.names if _private(alias.name)]
            if bad:
                found.append(f"{node.lineno}: import {', '.join(bad)} from {node.module}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] in PROJECT and any(_private(p) for p in parts):
                    found.append(f"{node.lineno}: import {alias.name}")
        elif isinstance(node, ast.Call):
            hit = _string_hit(node)
            if hit:
                found.append(f"{node.lineno}: {hit}")
        for child in ast.iter_child_nodes(node):
            visit(child, owner)

    visit(tree, None)
    return found


def test_tests_use_public_surfaces_only():
    checked = sorted(p for p in TESTS.glob("*.py") if p.name not in NOT_YET_CHECKED)
    assert len(checked) > 50
    bad = {p.name: v for p in checked if (v := violations(p.read_text()))}
    assert bad == {}


def test_not_yet_checked_names_real_files():
    assert all((TESTS / name).is_file() for name in NOT_YET_CHECKED)


def test_a_private_read_is_caught():
    assert violations("def test():\n    assert env.unwrapped._seat['p'] == 0\n") == ["2: ._seat"]


def test_a_private_write_is_caught():
    assert violations("def test(twin):\n    twin.unwrapped._obs = {}\n") == ["2: ._obs"]


def test_a_private_import_from_trappola_is_caught():
    assert violations("from trappola.agents.search.solver.search import _search, solve\n") == [
        "1: import _search from trappola.agents.search.solver.search"
    ]
    assert violations("from trappola._x import y\nimport trappola_env.engine._z\n") == [
        "1: import _x from trappola._x",
        "2: import trappola_env.engine._z",
    ]


def test_a_private_import_from_elsewhere_is_not_the_rule():
    assert violations("from layering import _helper\nfrom helpers import fresh\n") == []


def test_a_private_name_in_a_string_is_caught():
    source = (
        "def test(monkeypatch, bc):\n"
        "    monkeypatch.setattr(bc, '_collect_chunk', None)\n"
        "    monkeypatch.setattr('trappola.train.selfplay.bc._collect_chunk', None)\n"
        "    getattr(bc, '_x')\n"
    )
    assert violations(source) == [
        "2: setattr(..., '_collect_chunk')",
        "3: setattr(..., 'trappola.train.selfplay.bc._collect_chunk')",
        "4: getattr(..., '_x')",
    ]
    assert violations("import importlib\nimportlib.import_module('trappola.agents.search.solver._numba_cache')\n") == [
        "2: import_module(..., 'trappola.agents.search.solver._numba_cache')"
    ]


def test_self_in_a_subclass_of_a_project_class_counts():
    source = (
        "from trappola.agents.evaluation.backend import WorkerProcesses\n"
        "class Dying(WorkerProcesses):\n"
        "    def run(self):\n"
        "        return self._procs\n"
    )
    assert violations(source) == ["4: ._procs"]
    source = (
        "from trappola.agents.evaluation import backend\n"
        "class Dying(backend.WorkerProcesses):\n"
        "    def run(self):\n"
        "        return self._procs\n"
    )
    assert violations(source) == ["4: ._procs"]
    source = (
        "from trappola.agents.players.random import RandomPlayer\n"
        "class Base(RandomPlayer):\n"
        "    pass\n"
        "class Leaf(Base):\n"
        "    def act(self, view):\n"
        "        return self._rng\n"
    )
    assert violations(source) == ["6: ._rng"]


def test_self_in_a_test_helper_class_is_its_own_business():
    source = "import ast\nclass Finder(ast.NodeVisitor):\n    def visit(self, node):\n        return self._seen\n"
    assert violations(source) == []


def test_dunders_and_the_allow_list_pass():
    assert violations("def test(env):\n    env.__class__\n    env._cumulative_rewards\n") == []
