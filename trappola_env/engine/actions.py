"""The action table shared by every interface (docs/rules.md section 9)."""

from __future__ import annotations

from trappola_env.engine.cards import CARD_NAMES, N_CARDS, card_id

N_ACTIONS = 49
FIGURA_RE, FIGURA_CAVALL, FIGURA_BUBE, FIGURA_TWOS = 36, 37, 38, 39
ACES, BLANS, BIANKA, MANKO = 40, 41, 42, 43
PROPOSE_ALIFER, ACCEPT_ALIFER, DECLINE_ALIFER = 44, 45, 46
PRO, NO_PRO = 47, 48

CARD_ACTIONS = (1 << N_CARDS) - 1
ACTION_NAMES = tuple(f"play {n}" for n in CARD_NAMES) + (
    "declare Figura Re",
    "declare Figura Cavall",
    "declare Figura Bube",
    "declare Figura Twos",
    "declare Aces",
    "declare Blans",
    "declare Bianka",
    "ask Manko",
    "propose Alifer",
    "accept Alifer",
    "decline Alifer",
    "declare Pro",
    "do not declare Pro",
)
_BY_NAME = {n.lower(): i for i, n in enumerate(ACTION_NAMES)}


def action_name(action: int) -> str:
    """A readable name for an action id: ``"play AS"``, ``"declare Aces"``..."""
    try:
        if isinstance(action, bool) or action < 0:
            raise IndexError
        return ACTION_NAMES[action.__index__()]
    except (IndexError, TypeError, ValueError, AttributeError):
        raise ValueError(f"action id must be in 0..{N_ACTIONS - 1}, got {action!r}") from None


def action_id(name: str | int) -> int:
    """The id of an action name; a bare card name (``"AS"``) means playing it."""
    if isinstance(name, int):
        action_name(name)
        return name
    key = " ".join(str(name).lower().split())
    if key in _BY_NAME:
        return _BY_NAME[key]
    try:
        return card_id(key)
    except ValueError:
        raise ValueError(f"unknown action {name!r}; see trappola_env.ACTION_NAMES") from None
