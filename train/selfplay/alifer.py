"""The value of an Alifer, for every self-play adapter and behaviour cloning.

An Alifer is not a draw in Trappola but a replay of the partie with a fresh
deal (docs/rules.md section 6), so its value is that of a fresh partie
against the same opponent: the fixed point ``V = mean of the non-Alifer
rewards`` against that pool member. With ``alifer_value="replay"`` a
stream of parties estimates it as a running mean (EMA, rate ``ema``) and a
finished data set as the plain mean (``replay_mean``); against a weak
opponent an Alifer is then worth almost a win, against an equal one about
0. "zero" scores it 0. Net tokens ("tokens" reward mode) already pay an
Alifer as it is, so there it is never replaced.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from trappola_env.engine.checks import check_choice

ALIFER_VALUES = ("replay", "zero")


# Refuses an Alifer value other than ``ALIFER_VALUES``; returns it.
check_alifer_value = partial(check_choice, "alifer_value", choices=ALIFER_VALUES)


def replays(alifer_value: str, reward_mode: str) -> bool:
    """Whether an Alifer's reward is replaced by the value of a replay.

    :param alifer_value: "replay" or "zero"
    :param reward_mode: the training reward mode
    :return: True with "replay", unless the reward is net tokens
    """
    return check_alifer_value(alifer_value) == "replay" and reward_mode != "tokens"


class AliferValue:
    """The running value of a replay per pool member.

    :param alifer_value: "replay" or "zero"
    :param reward_mode: the training reward mode (see ``replays``)
    :param ema: the running mean's rate
    """

    def __init__(self, alifer_value: str = "replay", reward_mode: str = "mixed", ema: float = 0.01):
        self.active = replays(alifer_value, reward_mode)
        self.ema = float(ema)
        self.values: dict[str, float] = {}  # pool member -> value of a fresh partie

    def restart(self, values: dict | None = None) -> None:
        """Forget the running means, or set them.

        :param values: pool member -> finite number; None starts every member at 0
        :raises ValueError: for a value that is not a finite number
        """
        values = values or {}
        if not isinstance(values, dict) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values.values()
        ):
            raise ValueError(f"options['replay_value'] must map pool members to finite numbers, got {values!r}")
        self.values = {str(k): float(v) for k, v in values.items()}

    def score(self, member: str, reward: float, result: str) -> tuple[float, float | None]:
        """The reward of a finished partie, and the running mean update.

        :param member: the opponent's pool member ("self", "rule"...)
        :param reward: the shaped reward of the partie
        :param result: "win", "loss" or "alifer"
        :return: (the reward, an Alifer's replaced by the value; the value
            before this partie, None when not ``active``)
        """
        if not self.active:
            return reward, None
        v = self.values.get(member, 0.0)
        if result == "alifer":
            return v, v
        self.values[member] = v + self.ema * (reward - v)
        return reward, v


def replay_mean(returns: np.ndarray, alifer: np.ndarray, groups: np.ndarray) -> None:
    """Score each Alifer, in place, at the mean non-Alifer return of its group.

    :param returns: one return per decision (float array, written to)
    :param alifer: whether each decision's partie ended in an Alifer
    :param groups: the opponent group of each decision (any integer labels)
    """
    for g in np.unique(groups):
        sel = groups == g
        decided = sel & ~alifer
        if decided.any():
            returns[sel & alifer] = returns[decided].mean()
