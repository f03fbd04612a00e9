"""The learned Pro decision (RULES.md section 8) for Bulka sessions.

Policy: a linear rule on three public session features,

    declare Pro  iff  w0 + w1 * (bulka / cost) / 10 + w2 * min(parties_left, 50) / 50 > 0

where ``cost`` is the extra stake a Pro declaration pays (``base_stake *
stake_multiple * m``). It contains every "Bulka at least T extra stakes"
threshold rule (``w2 = 0``) and can also move the threshold as the
session's end approaches (at the end the Bulka is split equally, which
changes what Pro is worth). ``ProPolicy.decide`` accepts both the
``agents`` ``ProView`` and the session engine's ``ProDecision``.
"""
from __future__ import annotations

from dataclasses import dataclass

FEATURES = ("bias", "bulka_in_costs/10", "parties_left/50")


def features(decision) -> tuple[float, float, float]:
    """Features of a ``ProView`` or a ``ProDecision``."""
    cost = getattr(decision, "pro_cost", None)
    if cost is None:
        cost = decision.extra_stake
    left = decision.parties_left
    left = 50 if left is None else min(left, 50)
    return (1.0, float(decision.bulka) / max(float(cost), 1e-9) / 10.0, left / 50.0)


@dataclass(frozen=True)
class ProPolicy:
    weights: tuple

    def __post_init__(self):
        if len(self.weights) != len(FEATURES):
            raise ValueError(f"ProPolicy needs {len(FEATURES)} weights ({', '.join(FEATURES)}), "
                             f"got {len(self.weights)}")

    def score(self, decision) -> float:
        return sum(w * x for w, x in zip(self.weights, features(decision)))

    def decide(self, decision) -> bool:
        return self.score(decision) > 0.0

    __call__ = decide

    def to_dict(self) -> dict:
        return {"kind": "linear", "features": list(FEATURES), "weights": [float(w) for w in self.weights]}

    @classmethod
    def from_dict(cls, spec: dict) -> "ProPolicy":
        if not isinstance(spec, dict) or spec.get("kind") != "linear" or list(spec.get("features", [])) != list(FEATURES):
            raise ValueError(f"unsupported Pro policy in checkpoint: {spec!r}")
        return cls(tuple(float(w) for w in spec["weights"]))

    @classmethod
    def threshold(cls, bulka_in_costs: float) -> "ProPolicy":
        """The fixed rule "declare when the Bulka holds at least T extra stakes"."""
        return cls((-bulka_in_costs / 10.0 + 1e-9, 1.0, 0.0))
