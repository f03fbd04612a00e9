"""The learned Pro decision shipped with the model: a one-partie lookahead
on learned win rates.

Declaring Pro now is compared with waiting one partie and declaring
against the next challenger (RULES.md section 8: the loser of a partie goes
to the end of the queue, so if the dealer wins without Pro its next
opponent is the head of the queue). In units of the extra stake ``c``
(every stake at a Pro offer is ``c``, since ``m = 1`` there), with Bulka
``B``, ``p`` the player's chance to win a decided partie as dealer against
the challenger and ``q`` against the next challenger:

* declare now: it pays its stake and the extra stake, the challenger its
  stake; a win takes all of it: ``p * (B + 3) - 2``;
* wait: it pays its stake; after a win (``p``) it declares against the
  next challenger with two more stakes in the Bulka:
  ``-1 + p * (q * (B + 5) - 2)``.

It declares unless waiting is worth more, and always when no partie would
follow (``parties_left <= 1``). Waiting therefore pays only when the next
challenger is clearly easier than this one and the Bulka is small: with
``p = 0.60`` and ``q = 0.90`` (the shipped model as dealer against `rule`
and `random`) below 11.7 extra stakes. What the lookahead leaves out
(the Bulka a lost partie leaves behind, the parties a Pro winner sits out)
is the same for both choices to first order; the paired-rollout analysis
(``train.pro_analysis``) and the held-out comparison (``python -m
train.pro``) check it against whole sessions.

The learned part is the table of win rates by opponent kind (the player
spec's name before any ``:`` and ``#``: ``rule``, ``random``, ``pimc``,
``policy``), measured by playing the model as dealer against each kind
(``measure_win_rates``); an unknown kind gets ``default`` (the mean), so
that ``p = q`` and the rule declares.
"""
from __future__ import annotations

from dataclasses import dataclass, field


def opponent_kind(name: str | None) -> str:
    """``"rule:declare=never"`` -> ``"rule"``; ``"rule#2"`` -> ``"rule"``."""
    return "" if not name else str(name).split(":", 1)[0].split("#", 1)[0]


def matchup(decision) -> tuple[str | None, str | None]:
    """(challenger, next challenger) of a ``ProView`` or a ``ProDecision``."""
    if hasattr(decision, "opponent"):
        return decision.opponent, getattr(decision, "next_opponent", None)
    return getattr(decision, "challenger", None) or None, getattr(decision, "next_challenger", None)


@dataclass(frozen=True)
class LookaheadPro:
    win_rates: dict = field(default_factory=dict)
    default: float = 0.5

    def __post_init__(self):
        for k, v in {**self.win_rates, "default": self.default}.items():
            if not 0.0 <= float(v) <= 1.0:
                raise ValueError(f"win rate for {k!r} must be in [0, 1], got {v!r}")

    def rate(self, name) -> float:
        return float(self.win_rates.get(opponent_kind(name), self.default))

    def values(self, decision) -> tuple[float, float]:
        """(declare now, wait one partie), in extra stakes."""
        from .pro import features

        b = features(decision)[1] * 10.0  # the Bulka in extra stakes
        challenger, nxt = matchup(decision)
        p = self.rate(challenger)
        q = self.rate(nxt if nxt is not None else challenger)
        return p * (b + 3.0) - 2.0, -1.0 + p * (q * (b + 5.0) - 2.0)

    def decide(self, decision) -> bool:
        left = decision.parties_left
        if left is not None and left <= 1:
            return True
        now, wait = self.values(decision)
        return now >= wait

    __call__ = decide

    def to_dict(self) -> dict:
        return {"kind": "lookahead", "win_rates": {k: float(v) for k, v in sorted(self.win_rates.items())},
                "default": float(self.default)}

    @classmethod
    def from_dict(cls, spec: dict) -> "LookaheadPro":
        if not isinstance(spec, dict) or spec.get("kind") != "lookahead" or not isinstance(spec.get("win_rates"), dict):
            raise ValueError(f"unsupported Pro policy in checkpoint: {spec!r}")
        return cls({str(k): float(v) for k, v in spec["win_rates"].items()}, float(spec.get("default", 0.5)))


def measure_win_rates(card_player, opponents: dict, parties: int = 2000, seed: int = 0) -> dict:
    """Share of decided parties ``card_player`` (an ``agents`` player) wins
    as dealer against each of ``opponents`` (kind -> player), over
    ``parties`` fresh deals each; undecided parties (Alifer) are left
    out, as a session replays them."""
    import random

    from trappola_env.engine.deal import random_deal
    from trappola_env.engine.partie import Partie
    from trappola_env.runner import play_partie

    from .pro import card_policy

    if parties < 1:
        raise ValueError(f"parties must be positive, got {parties}")
    rng = random.Random(seed)
    me = card_policy(card_player)
    out = {}
    for k, (kind, opp) in enumerate(sorted(opponents.items())):
        card_player.reset(seed * 7919 + k)
        opp.reset(seed * 7919 + k + 1)
        them = card_policy(opp)
        won = decided = 0
        for _ in range(parties):
            partie = Partie(random_deal(rng))
            play_partie(partie, (them, me))  # seat 0 challenger, seat 1 dealer
            winner = partie.result().winner
            if winner is not None:
                decided += 1
                won += winner == 1
        out[kind] = won / decided if decided else 0.5
    return out
