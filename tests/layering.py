"""The layer contract of the packages, checked from their source.

Every ``import`` statement counts, wherever it stands (module level,
inside a function, under ``if TYPE_CHECKING``): a lazy import is still an
arrow. Layers, bottom to top; a module may import its own layer and the
layers below it, never one above:

    trappola_env.atomic_file    crash-safe file writes (imports nothing of the project)
    trappola_env.engine         rules and sessions
    trappola_env                environments, observer, player interface, referee
    trappola.agents             players, their search and file formats
    trappola.agents.evaluation  duplicate matches, session tournaments, ratings
    trappola.train              training
    trappola.web                the web app (``trappola serve``)
    trappola.cli                the ``trappola`` command

``trappola.configs`` holds data only and may import nothing of the project;
``trappola`` itself (its ``__init__``) only names the version.
Besides the layers, no two modules may import each other, directly or
through others (a circle), except a package with its own submodules
(``__init__`` re-exports what they define).

``trappola.agents``, ``trappola.train`` and ``trappola.configs`` live in the
repository's top-level folders ``agents/``, ``train/`` and ``configs/``
(``PACKAGE_DIRS``, the same mapping as ``pyproject.toml``).
"""

from __future__ import annotations

import ast
from pathlib import Path

LAYERS = (
    "trappola_env.atomic_file",
    "trappola_env.engine",
    "trappola_env",
    "trappola.agents",
    "trappola.agents.evaluation",
    "trappola.train",
    "trappola.web",
    "trappola.cli",
)
DATA_PACKAGES = ("trappola.configs",)
PACKAGES = ("trappola", "trappola_env")
PACKAGE_DIRS = {
    "trappola_env": "trappola_env",
    "trappola": "trappola",
    "trappola.agents": "agents",
    "trappola.train": "train",
    "trappola.configs": "configs",
}


ROOT = Path(__file__).resolve().parents[1]


def source_file(module: str, root: Path = ROOT) -> Path | None:
    """The ``.py`` file a project module would have (not checked to exist);
    None outside the project."""
    for package in sorted(PACKAGE_DIRS, key=len, reverse=True):
        if module == package or module.startswith(package + "."):
            rest = module[len(package) :].lstrip(".")
            return root / PACKAGE_DIRS[package] / (rest.replace(".", "/") + ".py") if rest else None
    return None


def layer_of(module: str) -> int | None:
    """Index of the layer holding ``module`` (the longest matching prefix);
    None for modules outside the project."""
    best = None
    for i, prefix in enumerate(LAYERS):
        if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > len(LAYERS[best])):
            best = i
    if best is None and any(module == d or module.startswith(d + ".") for d in DATA_PACKAGES):
        return -1
    return best


def module_sources(root: Path) -> dict[str, str]:
    """module name -> source text of every ``.py`` file of the packages."""
    out = {}
    for pkg, folder in PACKAGE_DIRS.items():
        for path in sorted((root / folder).rglob("*.py")):
            parts = pkg.split(".") + list(path.relative_to(root / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path.read_text()
    return out


def imports_of(module: str, source: str, is_package: bool) -> list[tuple[str, int]]:
    """(imported module, line) for every import statement in ``source``;
    relative imports resolved; ``from X import name`` counts as X.name when
    that is a module, else X (the caller checks existence)."""
    tree = ast.parse(source)
    package = module if is_package else module.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.append((target, node.lineno))
            out.extend((f"{target}.{alias.name}", node.lineno) for alias in node.names if alias.name != "*")
    return out


def graph(sources: dict[str, str]) -> dict[str, dict[str, int]]:
    """module -> {project module it imports: first line}."""
    packages = {m for m in sources if any(k.startswith(m + ".") for k in sources)} | set(PACKAGES)
    edges: dict[str, dict[str, int]] = {}
    for module, source in sources.items():
        out = edges.setdefault(module, {})
        for target, line in imports_of(module, source, module in packages):
            if target in sources and target != module:
                out.setdefault(target, line)
    return edges


def upward_imports(sources: dict[str, str]) -> list[str]:
    """Every import that points to a higher layer, as readable lines."""
    bad = []
    for module, targets in graph(sources).items():
        mine = layer_of(module)
        for target, line in targets.items():
            theirs = layer_of(target)
            if mine == -1 or (theirs is not None and mine is not None and theirs > mine):
                bad.append(
                    f"{module}:{line} imports {target} ({LAYERS[theirs]} is above "
                    f"{'a data package' if mine == -1 else LAYERS[mine]})"
                )
    return sorted(bad)


def circles(sources: dict[str, str]) -> list[list[str]]:
    """Groups of modules that import one another (strongly connected
    components of more than one module), leaving out a package's edges to
    its own submodules."""
    edges = graph(sources)
    pruned = {m: [t for t in ts if not t.startswith(m + ".")] for m, ts in edges.items()}
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in pruned.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(pruned):
        if v not in index:
            visit(v)
    return out
