"""Trappola lab: the rules of Trappola in its Bohemian "Bulka" form, PettingZoo
environments, players, evaluation and self-play training.

Subpackages, bottom layer first (each imports only those before it):
``trappola.engine`` (rules and sessions), ``trappola.envs`` (the environments
``trappola_v0`` and ``bulka_v0``, the observer, the player interface, the
referee), ``trappola.agents`` (players), ``trappola.evaluation`` (matches,
tournaments, ratings), ``trappola.train`` (self-play training),
``trappola.web`` (the web table) and ``trappola.cli`` (the ``trappola``
command). ``trappola.configs`` holds the shipped training configs.
"""
__version__ = "0.1.0"
__all__ = ["__version__"]
