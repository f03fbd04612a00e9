"""Trappola lab: the rules engine (``trappola_env.engine``) and the
PettingZoo environments ``trappola_v0`` and ``bulka_v0``."""
from .engine import ACTION_NAMES, N_ACTIONS, RuleConfig, action_id, action_name, card_id, card_name

__version__ = "0.1.0"
__all__ = ["ACTION_NAMES", "N_ACTIONS", "RuleConfig", "action_id", "action_name", "card_id", "card_name",
           "__version__"]
