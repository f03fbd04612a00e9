"""The PettingZoo environments ``trappola_v0`` (one partie) and ``bulka_v0``
(a session), with the observer, the player interface and the referee they
share; the action and card names of the rules engine are re-exported."""

from trappola_env.engine import ACTION_NAMES, N_ACTIONS, RuleConfig, action_id, action_name, card_id, card_name

__all__ = ["ACTION_NAMES", "N_ACTIONS", "RuleConfig", "action_id", "action_name", "card_id", "card_name"]
