"""Trappola lab: the rules of Trappola in its Bohemian "Bulka" form, PettingZoo
environments, players, evaluation and self-play training.

Two packages are installed, bottom layer first (each imports only what stands
before it): ``trappola_env`` (the rules engine, the environments ``trappola_v0``
and ``bulka_v0``, the batched engine, the observer, the player interface, the
referee, atomic files), then ``trappola``: ``trappola.agents`` (players, their
search and file formats, and the evaluator in ``trappola.agents.evaluation``),
``trappola.train`` (self-play training), ``trappola.web`` (the web table) and
``trappola.cli`` (the ``trappola`` command). ``trappola.configs`` holds the
shipped training configs. In the repository ``trappola.agents``,
``trappola.train`` and ``trappola.configs`` are the top-level folders
``agents/``, ``train/`` and ``configs/``.
"""


def __getattr__(name: str):
    """``__version__``, read on first use (importing ``importlib.metadata``
    costs a noticeable part of the command's start-up)."""
    if name != "__version__":
        raise AttributeError(f"module 'trappola' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("trappola-lab")
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"


__all__ = ["__version__"]
