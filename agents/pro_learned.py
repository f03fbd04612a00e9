"""Learned Pro decisions (docs/rules.md section 8) as stored in a checkpoint's
metadata, for play: ``LookaheadPro`` (shipped) and the linear ``ProPolicy``.
Both accept the interface's ``ProView`` and the session engine's
``ProDecision``; ``pro_policy_from_dict`` reads either. How they are
trained and compared is ``trappola.train.pro``'s business.

``LookaheadPro`` compares declaring Pro now with waiting one partie and
declaring against the next challenger (the loser of a partie goes to the
end of the queue, so if the dealer wins without Pro its next opponent is
the head of the queue). In units of the extra stake ``c`` (every stake at a
Pro offer is ``c``, since ``m = 1`` there), with Bulka ``B``, ``p`` the
player's chance to win a decided partie as dealer against the challenger
and ``q`` against the next challenger:

* declare now: it pays its stake and the extra stake, the challenger its
  stake; a win takes all of it: ``p * (B + 3) - 2``;
* wait: it pays its stake; after a win (``p``) it declares against the
  next challenger with two more stakes in the Bulka:
  ``-1 + p * (q * (B + 5) - 2)``.

It declares unless waiting is worth more, and always when no partie would
follow (``parties_left <= 1``). The learned part is the table of win rates
by opponent kind (the player spec's name before any ``:`` and ``#``); an
unknown kind gets ``default`` (the mean), so that ``p = q`` and it declares.

``ObservedPro`` is the same lookahead with no names: ``p`` and ``q`` come
from what the player has seen of the two opponents in this session
(``ProView.records``, ``trappola_env.engine.records``): a logistic model
of the chance to win as dealer, fitted from rollouts
(``python -m trappola.train.pro.observed``), on the shrunk win rates (``(k + 1) /
(n + 2)``, as log-odds) of the opponent overall, of the player against that
opponent, and of the player overall. It needs a ``ProView`` (the session
engine's ``ProDecision`` has no records) whose player names are distinct.

``ProPolicy``: declare iff ``w0 + w1 * (bulka / cost) / 10 + w2 *
min(parties_left, 50) / 50 > 0``, where ``cost`` is the extra stake a Pro
declaration pays; it contains every "Bulka at least T extra stakes"
threshold rule (``w2 = 0``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

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
    """Declare iff ``w . x + z * sqrt(x' C x) > 0``: with a covariance
    ``C`` of the fitted weights and ``z > 0`` it departs from declaring only
    where declaring is *significantly* worse (``z = 1.96``: 95%); without
    ``C`` it is the plain linear rule."""

    weights: tuple
    cov: tuple | None = None
    z: float = 0.0

    def __post_init__(self):
        if len(self.weights) != len(FEATURES):
            raise ValueError(
                f"ProPolicy needs {len(FEATURES)} weights ({', '.join(FEATURES)}), got {len(self.weights)}"
            )
        if self.cov is not None and (
            len(self.cov) != len(FEATURES) or any(len(row) != len(FEATURES) for row in self.cov)
        ):
            raise ValueError(f"ProPolicy covariance must be {len(FEATURES)}x{len(FEATURES)}")

    def score(self, decision) -> float:
        """``w . x`` plus the ``z``-weighted standard error when a covariance is given:
        declare when it is positive."""
        x = features(decision)
        s = sum(w * v for w, v in zip(self.weights, x, strict=True))
        if self.cov is not None and self.z:
            var = sum(x[i] * self.cov[i][j] * x[j] for i in range(len(x)) for j in range(len(x)))
            s += self.z * max(var, 0.0) ** 0.5
        return s

    def decide(self, decision) -> bool:
        """Whether to declare Pro in ``decision`` (a ``ProView`` or ``ProDecision``)."""
        return self.score(decision) > 0.0

    __call__ = decide

    def to_dict(self) -> dict:
        """The policy as stored in a checkpoint's metadata."""
        out: dict[str, Any] = {
            "kind": "linear",
            "features": list(FEATURES),
            "weights": [float(w) for w in self.weights],
        }
        if self.cov is not None:
            out["cov"] = [[float(v) for v in row] for row in self.cov]
            out["z"] = float(self.z)
        return out

    @classmethod
    def from_dict(cls, spec: dict) -> ProPolicy:
        """The policy from ``to_dict``'s form; anything else raises ``ValueError``."""
        if (
            not isinstance(spec, dict)
            or spec.get("kind") != "linear"
            or list(spec.get("features", [])) != list(FEATURES)
        ):
            raise ValueError(f"unsupported Pro policy in checkpoint: {spec!r}")
        cov = spec.get("cov")
        return cls(
            tuple(float(w) for w in spec["weights"]),
            tuple(tuple(float(v) for v in row) for row in cov) if cov is not None else None,
            float(spec.get("z", 0.0)),
        )

    @classmethod
    def threshold(cls, bulka_in_costs: float) -> ProPolicy:
        """The fixed rule "declare when the Bulka holds at least T extra stakes"."""
        return cls((-bulka_in_costs / 10.0 + 1e-9, 1.0, 0.0))


def pro_policy_from_dict(spec: dict):
    """The Pro policy stored in a checkpoint's metadata: ``lookahead``
    (``LookaheadPro``, shipped) or ``linear``
    (``ProPolicy``)."""
    kind = spec.get("kind") if isinstance(spec, dict) else None
    if kind == "lookahead":
        return LookaheadPro.from_dict(spec)
    if kind == "observed":
        return ObservedPro.from_dict(spec)
    return ProPolicy.from_dict(spec)


def opponent_kind(name: str | None) -> str:
    """``"rule:declare=never"`` -> ``"rule"``; ``"rule#2"`` -> ``"rule"``."""
    return "" if not name else str(name).split(":", 1)[0].split("#", 1)[0]


def matchup(decision) -> tuple[str | None, str | None]:
    """(challenger, next challenger) of a ``ProView`` or a ``ProDecision``."""
    if hasattr(decision, "opponent"):
        return decision.opponent, getattr(decision, "next_opponent", None)
    return getattr(decision, "challenger", None) or None, getattr(decision, "next_challenger", None)


def lookahead_values(bulka_in_costs: float, p: float, q: float) -> tuple[float, float]:
    """(declare now, wait one partie), in extra stakes, for a Bulka of
    ``bulka_in_costs`` extra stakes and win chances ``p`` (against the
    challenger) and ``q`` (against the next one); see the module docstring."""
    b = bulka_in_costs
    return p * (b + 3.0) - 2.0, -1.0 + p * (q * (b + 5.0) - 2.0)


def lookahead_decides(decision, now: float, wait: float) -> bool:
    """Declare unless waiting is worth more; always when no partie would follow."""
    left = decision.parties_left
    if left is not None and left <= 1:
        return True
    return now >= wait


RECORD_FEATURES = ("bias", "logit opponent's rate", "logit my rate against it", "logit my rate")


def _logit_rate(k: int, n: int) -> float:
    r = (k + 1.0) / (n + 2.0)
    return math.log(r / (1.0 - r))


def record_features(records, me: int, opp: int) -> tuple[float, float, float, float]:
    """``RECORD_FEATURES`` of player ``me`` against player ``opp`` from the
    ``ProView.records`` tuple (indices into it)."""
    o, mine = records[opp], records[me]
    return (
        1.0,
        _logit_rate(o.won, o.won + o.lost),
        _logit_rate(o.lost_vs_me, o.won_vs_me + o.lost_vs_me),
        _logit_rate(mine.won, mine.won + mine.lost),
    )


@dataclass(frozen=True)
class ObservedPro:
    """The lookahead on win chances read from the session records (see the
    module docstring): ``p = sigmoid(w . record_features)``."""

    weights: tuple

    def __post_init__(self):
        if len(self.weights) != len(RECORD_FEATURES):
            raise ValueError(
                f"ObservedPro needs {len(RECORD_FEATURES)} weights ({', '.join(RECORD_FEATURES)}), "
                f"got {len(self.weights)}"
            )

    def win_chance(self, view, opponent: str) -> float:
        """The modelled chance to win as dealer against ``opponent`` (a name in ``view.players``)."""
        if not view.records:
            raise ValueError("ObservedPro needs a ProView with records (the session's public history)")
        x = record_features(view.records, view.player, view.players.index(opponent))
        z = sum(w * v for w, v in zip(self.weights, x, strict=True))
        return 1.0 / (1.0 + math.exp(-max(min(z, 30.0), -30.0)))

    def values(self, view) -> tuple[float, float]:
        """(declare now, wait one partie), in extra stakes."""
        p = self.win_chance(view, view.opponent)
        q = self.win_chance(view, view.next_opponent or view.opponent)
        return lookahead_values(features(view)[1] * 10.0, p, q)

    def decide(self, view) -> bool:
        """Whether to declare Pro: declaring now is worth at least waiting one partie."""
        return lookahead_decides(view, *self.values(view))

    __call__ = decide

    def to_dict(self) -> dict:
        """The weights as stored in a checkpoint's metadata."""
        return {"kind": "observed", "features": list(RECORD_FEATURES), "weights": [float(w) for w in self.weights]}

    @classmethod
    def from_dict(cls, spec: dict) -> ObservedPro:
        """The policy from ``to_dict``'s form; anything else raises ``ValueError``."""
        if (
            not isinstance(spec, dict)
            or spec.get("kind") != "observed"
            or list(spec.get("features", [])) != list(RECORD_FEATURES)
        ):
            raise ValueError(f"unsupported Pro policy in checkpoint: {spec!r}")
        return cls(tuple(float(w) for w in spec["weights"]))


@dataclass(frozen=True)
class LookaheadPro:
    """Declare Pro now or wait one partie, from win rates by opponent kind
    (see the module docstring); ``default`` is the rate of an unknown kind."""

    win_rates: dict = field(default_factory=dict)
    default: float = 0.5

    def __post_init__(self):
        for k, v in {**self.win_rates, "default": self.default}.items():
            if not 0.0 <= float(v) <= 1.0:
                raise ValueError(f"win rate for {k!r} must be in [0, 1], got {v!r}")

    def rate(self, name) -> float:
        """The win rate as dealer against the player named ``name`` (by its kind)."""
        return float(self.win_rates.get(opponent_kind(name), self.default))

    def values(self, decision) -> tuple[float, float]:
        """(declare now, wait one partie), in extra stakes."""
        challenger, nxt = matchup(decision)
        p = self.rate(challenger)
        q = self.rate(nxt if nxt is not None else challenger)
        return lookahead_values(features(decision)[1] * 10.0, p, q)

    def decide(self, decision) -> bool:
        """Whether to declare Pro: declaring now is worth at least waiting one partie."""
        return lookahead_decides(decision, *self.values(decision))

    __call__ = decide

    def to_dict(self) -> dict:
        """The win rates as stored in a checkpoint's metadata."""
        return {
            "kind": "lookahead",
            "win_rates": {k: float(v) for k, v in sorted(self.win_rates.items())},
            "default": float(self.default),
        }

    @classmethod
    def from_dict(cls, spec: dict) -> LookaheadPro:
        """The policy from ``to_dict``'s form; anything else raises ``ValueError``."""
        if not isinstance(spec, dict) or spec.get("kind") != "lookahead" or not isinstance(spec.get("win_rates"), dict):
            raise ValueError(f"unsupported Pro policy in checkpoint: {spec!r}")
        return cls({str(k): float(v) for k, v in spec["win_rates"].items()}, float(spec.get("default", 0.5)))
