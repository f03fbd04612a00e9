"""``random``: uniform over the legal actions.

Default (``alifer=true``): literally uniform over every legal action, so it
declares, asks Manko, proposes, accepts and declines Alifer at random.
Because a proposal is legal at every turn, about three parties in four
between two such players end in an agreed Alifer. ``alifer=false`` makes it
never propose Alifer and always decline a proposal, which keeps benchmark
parties decided. Its Pro answer defaults to ``pro=random`` (a fair coin).
As an adviser in a Pro partie it picks uniformly among its advice ids (no
advice included); ``heed=true`` plays the advice it gets when legal.
"""

from __future__ import annotations

from trappola.agents.advice import HEED_WEB, advice_settings, heeded
from trappola.agents.base import AdviceView, Player, TurnView, pro_settings
from trappola.agents.pro_rules import PRO_WEB
from trappola.agents.settings import Setting
from trappola_env.engine.actions import ACCEPT_ALIFER, DECLINE_ALIFER, PROPOSE_ALIFER

_ALIFER_OFF = ~(1 << PROPOSE_ALIFER)


class RandomPlayer(Player):
    """The ``random`` player (see the module docstring)."""

    kind = "random"
    HELP = "uniform over legal actions"
    WEB = {"alifer": None, **PRO_WEB, **HEED_WEB}
    SETTINGS = {
        "alifer": Setting(bool, True, "propose/accept Alifer at random too (false: never propose, always decline)"),
        **pro_settings("random"),
        **advice_settings(honest=False),
    }

    def act(self, view: TurnView) -> int:
        """A legal action drawn uniformly (advice heeded, Alifer left out, as set)."""
        if view.advice and self.settings.heed:
            advised = heeded(view)
            if advised is not None:
                return advised
        mask = view.legal_mask
        if not self.settings.alifer:
            if mask >> ACCEPT_ALIFER & 1:
                return DECLINE_ALIFER
            mask &= _ALIFER_OFF
        actions = []
        while mask:
            low = mask & -mask
            actions.append(low.bit_length() - 1)
            mask ^= low
        return actions[self.rng.randrange(len(actions))]

    def advise(self, view: AdviceView) -> int:
        actions = view.legal_actions
        return actions[self.rng.randrange(len(actions))]


__all__ = ["RandomPlayer"]
