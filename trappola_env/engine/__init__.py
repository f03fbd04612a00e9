"""The Trappola rules engine: pure Python, no RL framework.

Where each rule lives: ``cards`` (section 1), ``deal`` (2.2), ``partie``
(play, turn structure, timing of declarations, Alifer, Art. 12),
``declarations`` (conditions and values, section 4), ``bonuses`` (section 5),
``scoring`` (totals and settlement), ``infostate`` (what a seat may know),
``session`` (the Bulka session, section 8).
"""

from trappola_env.engine.actions import ACTION_NAMES, N_ACTIONS, action_id, action_name
from trappola_env.engine.cards import CARD_NAMES, card_id, card_name, cards_of, mask_of, names_of
from trappola_env.engine.deal import CHALLENGER, DEALER, Deal, deal_from_names, deal_from_order, random_deal
from trappola_env.engine.infostate import InfoState
from trappola_env.engine.partie import ALIFER_ANSWER, DONE, PLAY, IllegalActionError, Partie
from trappola_env.engine.rule_config import DEFAULT_CONFIG, RuleConfig
from trappola_env.engine.scoring import AGREED_ALIFER, BASE_STAKE, DECIDED, FORFEIT, TIE, PartieResult, Score
from trappola_env.engine.session import Session

__all__ = [
    "ACTION_NAMES",
    "N_ACTIONS",
    "action_id",
    "action_name",
    "CARD_NAMES",
    "card_id",
    "card_name",
    "cards_of",
    "mask_of",
    "names_of",
    "DEFAULT_CONFIG",
    "RuleConfig",
    "CHALLENGER",
    "DEALER",
    "Deal",
    "deal_from_names",
    "deal_from_order",
    "random_deal",
    "InfoState",
    "ALIFER_ANSWER",
    "DONE",
    "PLAY",
    "IllegalActionError",
    "Partie",
    "AGREED_ALIFER",
    "BASE_STAKE",
    "DECIDED",
    "FORFEIT",
    "TIE",
    "PartieResult",
    "Score",
    "Session",
]
