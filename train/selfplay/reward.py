"""The training reward of a finished partie, for every self-play adapter.

``reward_mode``: "win" (+1/-1, 0 for an Alifer), "points" (points
difference / ``points_scale``), "tokens" (net tokens / ``tokens_scale``)
or "mixed" (win + ``points_weight`` * points difference / ``points_scale``):
the win/loss is what is evaluated, the points difference says by how much,
which gives a denser signal early in training.
"""

from __future__ import annotations

from dataclasses import dataclass

from trappola_env.spaces_and_rewards import REWARD_MODES as ENV_REWARD_MODES
from trappola_env.spaces_and_rewards import check_reward_mode as _check_mode

#: The one reward-mode table: each training reward mode -> the environment reward mode it is computed
#: from. The environment's own modes train as they are; "mixed" adds the win to the points.
ENV_REWARD_MODE = {**{mode: mode for mode in ENV_REWARD_MODES}, "mixed": "points"}
TRAINING_REWARD_MODES = tuple(ENV_REWARD_MODE)
POINTS_SCALE = 60.0
TOKENS_SCALE = 30.0
POINTS_WEIGHT = 0.5
_WIN = {"win": 1.0, "loss": -1.0}


def check_reward_mode(reward_mode: str) -> str:
    """``reward_mode`` if it is one of ``TRAINING_REWARD_MODES``, else ``ValueError``."""
    return _check_mode(reward_mode, TRAINING_REWARD_MODES)


def scale_reward(
    env_reward: float,
    result: str,
    reward_mode: str,
    points_scale: float = POINTS_SCALE,
    tokens_scale: float = TOKENS_SCALE,
    points_weight: float = POINTS_WEIGHT,
) -> float:
    """The training reward of a partie.

    :param env_reward: the environment's reward, in ``ENV_REWARD_MODE[reward_mode]``
    :param result: the learner's result, "win", "loss" or "alifer"
    :param reward_mode: one of ``TRAINING_REWARD_MODES``
    :param points_scale: divides a points difference
    :param tokens_scale: divides net tokens
    :param points_weight: weight of the points term in "mixed"
    :return: the shaped reward
    """
    if reward_mode == "win":
        return float(env_reward)
    if reward_mode == "points":
        return float(env_reward) / points_scale
    if reward_mode == "tokens":
        return float(env_reward) / tokens_scale
    if reward_mode == "mixed":
        return _WIN.get(result, 0.0) + points_weight * float(env_reward) / points_scale
    check_reward_mode(reward_mode)
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class RewardShaping:
    """A checked reward mode with its scales, as the adapters hold it.

    :param mode: one of ``TRAINING_REWARD_MODES``
    :param points_scale: see ``scale_reward``
    :param tokens_scale: see ``scale_reward``
    :param points_weight: see ``scale_reward``
    """

    mode: str = "mixed"
    points_scale: float = POINTS_SCALE
    tokens_scale: float = TOKENS_SCALE
    points_weight: float = POINTS_WEIGHT

    def __post_init__(self):
        check_reward_mode(self.mode)
        for name in ("points_scale", "tokens_scale", "points_weight"):
            object.__setattr__(self, name, float(getattr(self, name)))

    @property
    def env_mode(self) -> str:
        """The environment reward mode this shaping reads."""
        return ENV_REWARD_MODE[self.mode]

    def __call__(self, env_reward: float, result: str) -> float:
        """``scale_reward`` with these settings.

        :param env_reward: the environment's reward in ``env_mode``
        :param result: "win", "loss" or "alifer"
        :return: the shaped reward
        """
        return scale_reward(env_reward, result, self.mode, self.points_scale, self.tokens_scale, self.points_weight)
