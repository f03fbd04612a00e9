"""What to install when an optional dependency is missing: the one place that
maps an importable module to the package extra that brings it, and words the
message every layer gives (a player, a trainer, the web app, a figure)."""

from __future__ import annotations

#: top-level module -> (what to call it, the ``trappola-lab`` extra that installs it)
EXTRAS: dict[str, tuple[str, str]] = {
    "numba": ("numba", "search"),
    "torch": ("torch", "train"),
    "stable_baselines3": ("stable-baselines3", "train"),
    "sb3_contrib": ("sb3-contrib", "train"),
    "pydantic": ("pydantic", "train"),
    "pyspiel": ("open-spiel", "openspiel"),
    "open_spiel": ("open-spiel", "openspiel"),
    "ray": ("Ray", "ray"),
    "fastapi": ("fastapi", "web"),
    "uvicorn": ("uvicorn", "web"),
    "openskill": ("openskill", "eval"),
    "matplotlib": ("matplotlib", "notebooks"),
}


def missing_dependency(what: str, module: str | None) -> str | None:
    """``"<what> needs numba (the search extra: pip install 'trappola-lab[search]')"``
    for a missing ``module`` that an extra installs; None for any other module
    (a missing module no extra brings is a bug to report as it is)."""
    top = (module or "").split(".")[0]
    if top not in EXTRAS:
        return None
    package, extra = EXTRAS[top]
    return f"{what} needs {package} (the {extra} extra: pip install 'trappola-lab[{extra}]')"


__all__ = ["EXTRAS", "missing_dependency"]
