"""Every public definition of the installed packages has a docstring.

Public means: a module or package whose name does not start with ``_``
(a package's docstring is its ``__init__.py``'s), and, in it, a class or
function at module level whose name does not start with ``_``, and a
method or nested class of a public class likewise. Definitions inside
functions are not public. Definitions under ``if``/``try`` blocks at
module or class level count like the others.

An overriding method may inherit its documentation instead: a method
that overrides a documented method of one of its class's bases (a
third-party interface such as PettingZoo's ``AECEnv.step``, gymnasium's
``Env.reset`` or Stable-Baselines3's ``VecEnv.step_wait``, or a
project's own base class, whose methods this test checks in turn) needs
no docstring of its own, because ``help()`` and ``inspect.getdoc`` show
the base's. The bases are found from the source (the module's imports);
a third-party base is imported to read its documentation, and when its
package is not installed the override is given the benefit of the doubt.

``NOT_YET_CHECKED`` lists the paths (a folder ends in ``/``) that the
check leaves out.

``python tests/test_docstrings.py`` prints the coverage over the whole
package (``NOT_YET_CHECKED`` included) and the definitions that lack a
docstring.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import sys
from pathlib import Path

from layering import PACKAGE_DIRS

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {name: ROOT / folder for name, folder in PACKAGE_DIRS.items()}

NOT_YET_CHECKED = ()


def module_name(path: Path, folder: Path, package: str) -> str:
    """Dotted module name of a source file in ``folder``, the source of ``package``."""
    parts = package.split(".") + list(path.relative_to(folder).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


class SourceIndex:
    """The parsed source of every module of the package, with what each
    module's names refer to (its imports and its own classes)."""

    def __init__(self, packages: dict[str, Path] | None = None):
        self.root = ROOT if packages is None else next(iter(packages.values())).parent
        packages = PACKAGES if packages is None else packages
        self.trees: dict[str, ast.Module] = {}
        self.paths: dict[str, Path] = {}
        for package, folder in packages.items():
            for path in sorted(folder.rglob("*.py")):
                name = module_name(path, folder, package)
                if name in self.trees:  # a package mapped inside another's folder (none today)
                    continue
                self.trees[name] = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
                self.paths[name] = path

    def _is_package(self, module: str) -> bool:
        return self.paths[module].name == "__init__.py"

    def imported_names(self, module: str) -> dict[str, str]:
        """Local name -> fully qualified name, from the module's imports
        (every import statement, wherever it stands)."""
        names: dict[str, str] = {}
        for node in ast.walk(self.trees[module]):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        names[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        names[top] = top
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    package = module if self._is_package(module) else module.rpartition(".")[0]
                    for _ in range(node.level - 1):
                        package = package.rpartition(".")[0]
                    base = f"{package}.{base}" if base else package
                for alias in node.names:
                    names[alias.asname or alias.name] = f"{base}.{alias.name}"
        return names

    def find_class(self, qualified: str, depth: int = 0) -> tuple[str, ast.ClassDef] | None:
        """The project class a qualified name refers to, following
        re-exports; None when it is not a class of the project."""
        module, _, name = qualified.rpartition(".")
        if depth > 10 or module not in self.trees:
            return None
        for node in self.trees[module].body:
            if isinstance(node, ast.ClassDef) and node.name == name:
                return module, node
        target = self.imported_names(module).get(name)
        if target and target != qualified and target.startswith("trappola."):
            return self.find_class(target, depth + 1)
        return None

    def resolve(self, module: str, expr: ast.expr) -> str | None:
        """Fully qualified name of a base-class expression in ``module``."""
        parts: list[str] = []
        while isinstance(expr, ast.Attribute):
            parts.insert(0, expr.attr)
            expr = expr.value
        if isinstance(expr, ast.Subscript):  # Generic[T], Sequence[int]
            return self.resolve(module, expr.value) if not parts else None
        if not isinstance(expr, ast.Name):
            return None
        head = expr.id
        if any(isinstance(n, ast.ClassDef) and n.name == head for n in self.trees[module].body):
            return ".".join([module, head, *parts])
        imported = self.imported_names(module).get(head)
        if imported is None:
            return ".".join(["builtins", head, *parts])
        return ".".join([imported, *parts])

    def base_documents(self, module: str, cls: ast.ClassDef, method: str, depth: int = 0) -> bool:
        """Whether a base of ``cls`` (in ``module``) has a documented
        ``method``."""
        if depth > 10:
            return False
        for base in cls.bases:
            qualified = self.resolve(module, base)
            if qualified is None:
                continue
            found = self.find_class(qualified)
            if found is not None:
                base_module, base_cls = found
                for node in base_cls.body:
                    if (
                        isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                        and node.name == method
                        and ast.get_docstring(node)
                    ):
                        return True
                if self.base_documents(base_module, base_cls, method, depth + 1):
                    return True
            elif not qualified.startswith("trappola."):
                documented = third_party_documents(qualified, method)
                if documented is None or documented:
                    return True
        return False


def third_party_documents(qualified: str, method: str) -> bool | None:
    """Whether the third-party class ``qualified`` has a documented
    ``method``; None when its package cannot be imported."""
    parts = qualified.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        except Exception:
            return None
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return False
        member = getattr(obj, method, None)
        return member is not None and bool(inspect.getdoc(member))
    return None


def _definitions(body: list[ast.stmt]):
    """Class and function definitions of a body, looking into ``if`` and
    ``try`` blocks (not into functions)."""
    for node in body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node
        elif isinstance(node, ast.If):
            yield from _definitions(node.body)
            yield from _definitions(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from _definitions(block)


def _walk(index: SourceIndex, module: str, rel: str, body, prefix: str, owner: ast.ClassDef | None):
    for node in _definitions(body):
        if node.name.startswith("_"):
            continue
        label = f"{rel}:{node.lineno} {prefix}{node.name}"
        documented = bool(ast.get_docstring(node))
        if not documented and owner is not None and not isinstance(node, ast.ClassDef):
            documented = index.base_documents(module, owner, node.name)
        yield label, documented
        if isinstance(node, ast.ClassDef):
            yield from _walk(index, module, rel, node.body, f"{prefix}{node.name}.", node)


def public_definitions(index: SourceIndex):
    """``(label, has_docstring)`` for every public definition, the label
    being ``path:line qualified.name``."""
    for module, tree in index.trees.items():
        path = index.paths[module]
        rel = path.relative_to(index.root).as_posix()
        if any(part.startswith("_") and part != "__init__.py" for part in path.relative_to(index.root).parts):
            continue
        yield f"{rel}:1 {module} (module)", bool(ast.get_docstring(tree))
        yield from _walk(index, module, rel, tree.body, f"{module}.", None)


def is_checked(label: str, skipped=NOT_YET_CHECKED) -> bool:
    """Whether a definition's file is outside ``NOT_YET_CHECKED``."""
    path = label.split(":", 1)[0]
    return not any(path == s or (s.endswith("/") and path.startswith(s)) for s in skipped)


def missing_docstrings(skipped=NOT_YET_CHECKED) -> list[str]:
    """Labels of the checked public definitions without a docstring."""
    return [label for label, ok in public_definitions(SourceIndex()) if not ok and is_checked(label, skipped)]


def test_every_public_definition_has_a_docstring():
    missing = missing_docstrings()
    print("\n".join(missing))
    assert missing == [], f"{len(missing)} public definitions without a docstring:\n" + "\n".join(missing)


def test_the_checker_catches_a_missing_docstring(tmp_path):
    pkg = tmp_path / "trappola"
    pkg.mkdir()
    (pkg / "__init__.py").write_text('"""Package."""\n')
    (pkg / "base.py").write_text('"""Base."""\nclass Base:\n    """B."""\n    def act(self):\n        """Act."""\n')
    (pkg / "mod.py").write_text(
        "from .base import Base\n"
        "import gymnasium\n"
        "def f():\n    def inner(): pass\n"
        "def _private(): pass\n"
        "class C(Base):\n    '''C.'''\n    def act(self): pass\n    def other(self): pass\n"
        "    def _hidden(self): pass\n"
        "class E(gymnasium.Env):\n    '''E.'''\n    def reset(self, seed=None): pass\n"
        "class _P:\n    def m(self): pass\n"
    )
    found = {label.split(" ", 1)[1]: ok for label, ok in public_definitions(SourceIndex({"trappola": pkg}))}
    assert found == {
        "trappola.mod (module)": False,
        "trappola.mod.f": False,
        "trappola.mod.C": True,
        "trappola.mod.C.act": True,
        "trappola.mod.C.other": False,
        "trappola.mod.E": True,
        "trappola.mod.E.reset": True,
        "trappola (module)": True,
        "trappola.base (module)": True,
        "trappola.base.Base": True,
        "trappola.base.Base.act": True,
    }


def test_not_yet_checked_names_existing_paths():
    for skipped in NOT_YET_CHECKED:
        assert (ROOT / skipped).exists(), skipped


if __name__ == "__main__":
    everything = list(public_definitions(SourceIndex()))
    lacking = [label for label, ok in everything if not ok]
    for label in lacking:
        print(label)
    print(
        f"{len(everything)} public definitions, {len(everything) - len(lacking)} with a docstring, "
        f"{len(lacking)} without",
        file=sys.stderr,
    )
    checked = [(label, ok) for label, ok in everything if is_checked(label)]
    print(
        f"outside NOT_YET_CHECKED: {len(checked)} public definitions, "
        f"{sum(not ok for _, ok in checked)} without a docstring",
        file=sys.stderr,
    )
