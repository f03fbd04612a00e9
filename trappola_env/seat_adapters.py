"""Adapters between the referee's one player shape (``SeatPlayer``,
``trappola_env.interface``) and plain functions.

* ``PolicySeat(policy, pro)``: a ``SeatPlayer`` from a two-argument policy
  ``policy(info_state, legal_mask) -> action`` and a Pro rule (``True`` /
  ``False``: always / never declare, or ``rule(ProView) -> bool``);
* ``WithProRule(player, rule)``: a ``SeatPlayer`` whose moves are
  ``player``'s and whose Pro decisions are ``rule``'s (the Pro benches);
* ``seat_policy(player)``: the other way round, a ``SeatPlayer`` as a
  two-argument policy, for loops that are not the referee's (the
  training environments).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trappola_env.engine.infostate import InfoState
from trappola_env.interface import ProView, TurnView


class PolicySeat:
    """A ``SeatPlayer`` made of a two-argument ``policy`` and a Pro rule
    ``pro`` (a bool, or a callable ``(ProView) -> bool``). ``name``: what
    its opponents see (None: its name in the session)."""

    def __init__(
        self,
        policy: Callable[[InfoState, int], int],
        pro: bool | Callable[[ProView], bool] = False,
        name: str | None = None,
    ):
        if not callable(policy):
            raise ValueError(f"a policy must be callable, got {policy!r}")
        if not isinstance(pro, bool) and not callable(pro):
            raise ValueError(f"a Pro rule must be a bool or a callable, got {pro!r}")
        self.policy, self.pro, self.name = policy, pro, name

    def act(self, view: TurnView) -> int:
        """The policy's action for ``view``'s info state and legal mask."""
        return self.policy(view.info, view.legal_mask)

    def decide_pro(self, view: ProView) -> Any:
        """The Pro rule's answer (the referee checks that it is a bool)."""
        return self.pro if isinstance(self.pro, bool) else self.pro(view)


class WithProRule:
    """``player``'s moves with ``rule(ProView) -> bool`` as its Pro decision;
    only its moves are asked of ``player``."""

    def __init__(self, player: Any, rule: Callable[[ProView], bool], name: str | None = None):
        self.player, self.rule = player, rule
        self.name = name

    def act(self, view: TurnView) -> Any:
        """``player``'s action."""
        return self.player.act(view)

    def decide_pro(self, view: ProView) -> Any:
        """``rule``'s answer."""
        return self.rule(view)


def seat_policy(player: Any, opponent: str | None = None) -> Callable[[InfoState, int], Any]:
    """The two-argument policy ``(info_state, legal_mask) -> action`` of a
    ``SeatPlayer``, which is shown a ``TurnView`` naming ``opponent``."""
    act = player.act

    def policy(info: InfoState, legal_mask: int) -> Any:
        return act(TurnView(info, legal_mask, opponent=opponent))

    return policy
