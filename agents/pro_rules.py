"""Pro decisions shared by players (docs/rules.md section 8, Art. 5 and 9.2.2).

A player whose streak is 2 or more may declare Pro before the next partie:
it pays one extra stake (``ProView.pro_cost``) and, if it wins that partie,
takes the whole Bulka. Each player answers through a ``ProRule`` built from
three settings every built-in player accepts:

* ``pro=never|always|threshold|random``:
  ``threshold`` declares when the Bulka holds at least ``pro_bulka`` base
  stakes (``bulka >= pro_bulka * base_stake * stake_multiple``) and the
  opponent is allowed by ``pro_vs``; ``random`` declares with probability
  1/2 from the player's own seeded ``rng``.
* ``pro_bulka`` (float, default 3): the threshold, in base stakes, so the
  rule means the same at every ``stake_multiple``.
* ``pro_vs``: ``+``-separated opponent names or kinds (``random+rule``:
  only against those); empty (default) means any opponent.

The same ``ProRule`` answers the session engine's ``ProDecision`` (whose
extra stake is the base stake times the stake multiple at an offer), so
simulations on the bare engine (``trappola.train.pro``) use the players' own rules.

Why a threshold on the Bulka is the natural knob: declaring risks one extra
stake and wins the Bulka, of which the player would otherwise get only its
1/n share at the end of the session, so Pro pays when the Bulka is large
compared with the stake and the chance of winning the partie is fair.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

from trappola.agents.settings import Setting
from trappola_env.interface import ProView

PRO_MODES = ("never", "always", "threshold", "random")


def pro_settings(default_mode: str = "threshold") -> dict[str, Setting]:
    """The three Pro settings, with ``default_mode`` as the default of ``pro``."""
    if default_mode not in PRO_MODES:
        raise ValueError(f"pro mode must be one of {', '.join(PRO_MODES)}, got {default_mode!r}")
    return {
        "pro": Setting(PRO_MODES, default_mode, "when to declare Pro: never, always, threshold, random"),
        "pro_bulka": Setting(float, 3.0, "threshold: least Bulka, in base stakes, to declare Pro", low=0, high=1000),
        "pro_vs": Setting(str, "", "threshold: '+'-separated opponent names/kinds to declare against (empty: any)"),
    }


#: The Pro settings as the web table offers them (``Player.WEB``).
PRO_WEB = {"pro": None, "pro_bulka": (0, 100)}


@dataclass(frozen=True)
class ProRule:
    """A player's Pro rule: ``mode`` (one of ``PRO_MODES``), the Bulka threshold
    in base stakes, and the opponents (names or kinds) it declares against."""

    mode: str = "threshold"
    bulka: float = 3.0
    vs: tuple = ()

    def __post_init__(self):
        if self.mode not in PRO_MODES:
            raise ValueError(f"pro mode must be one of {', '.join(PRO_MODES)}, got {self.mode!r}")

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> ProRule:
        """The rule of a player's ``pro``, ``pro_bulka`` and ``pro_vs`` settings
        (``never`` for a player without them, such as ``human``)."""
        vs = tuple(v.strip() for v in str(settings.get("pro_vs", "")).split("+") if v.strip())
        return cls(settings.get("pro", "never"), float(settings.get("pro_bulka", 3.0)), vs)

    def allows(self, opponent: str) -> bool:
        """Whether ``opponent`` (a name or spec) is one to declare against."""
        if not self.vs:
            return True
        kind = opponent.split(":", 1)[0]
        return opponent in self.vs or kind in self.vs

    def decide(self, view, rng) -> bool:
        """Whether to declare, given a ``ProView`` or the session engine's
        ``ProDecision`` (the same rule on either); ``random`` draws from
        ``rng``."""
        if self.mode == "never":
            return False
        if self.mode == "always":
            return True
        if self.mode == "random":
            return rng.random() < 0.5
        if isinstance(view, ProView):
            unit, opponent = view.base_stake * view.stake_multiple, view.opponent
        else:  # a ProDecision: its extra stake is the unit, the multiplier being 1 at a Pro offer
            unit, opponent = view.extra_stake, view.challenger
        return view.bulka >= self.bulka * unit and self.allows(opponent)

    def with_rng(self, rng) -> Callable[[object], bool]:
        """This rule as the referee's one-argument Pro rule
        ``decision -> bool``, drawing its coins from ``rng``."""
        return partial(self.decide, rng=rng)
