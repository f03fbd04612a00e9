"""The self-play settings every adapter shares, as one typed, frozen object
(``SelfPlaySettings``): the reward, the Alifer value, the pool's snapshots,
forced moves and the privileged observation. ``SelfPlayEnv``,
``BatchedSelfPlayVecEnv`` and the RLlib env take it whole."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from trappola.train.selfplay.reward import POINTS_SCALE, POINTS_WEIGHT, TOKENS_SCALE


@dataclass(frozen=True)
class SelfPlaySettings:
    """How a self-play episode is played and scored.

    :param reward_mode: "win", "points", "tokens" or "mixed" (``trappola.train.selfplay.reward``)
    :param points_scale: divides a points difference
    :param tokens_scale: divides net tokens
    :param points_weight: the weight of the points term in "mixed"
    :param pool_size: how many snapshots the pool keeps
    :param snapshot_latest_prob: the probability that ``self`` is the latest snapshot
    :param opponent_deterministic: whether snapshots play their arg max
    :param skip_forced: play the learner's forced moves for it
    :param alifer_value: "replay" or "zero" (``trappola.train.selfplay.alifer``)
    :param alifer_ema: the rate of the replay value's running mean
    :param privileged: append the full-deal vector to the observation
    """

    reward_mode: str = "mixed"
    points_scale: float = POINTS_SCALE
    tokens_scale: float = TOKENS_SCALE
    points_weight: float = POINTS_WEIGHT
    pool_size: int = 8
    snapshot_latest_prob: float = 0.5
    opponent_deterministic: bool = False
    skip_forced: bool = True
    alifer_value: str = "replay"
    alifer_ema: float = 0.01
    privileged: bool = False

    def with_changes(self, changes: dict[str, Any]) -> SelfPlaySettings:
        """A copy with ``changes`` (field -> value); an unknown field raises ``TypeError`` naming it."""
        unknown = sorted(set(changes) - {f.name for f in dataclasses.fields(self)})
        if unknown:
            raise TypeError(f"unknown self-play setting(s) {', '.join(unknown)}")
        return dataclasses.replace(self, **changes) if changes else self


def settings_of(settings: SelfPlaySettings | None, changes: dict[str, Any]) -> SelfPlaySettings:
    """``settings`` (default: ``SelfPlaySettings()``) with the keyword ``changes`` a caller gave."""
    return (settings or SelfPlaySettings()).with_changes(changes)


__all__ = ["SelfPlaySettings", "settings_of"]
