"""Forced moves: a turn with a single legal action holds no decision (and
no gradient), so every self-play adapter plays it for the agent."""

from __future__ import annotations

import numpy as np


def forced_action(mask) -> int | None:
    """The action of a forced move.

    :param mask: the legal actions, an ``int`` bit set or a 0/1 array
    :return: the one legal action, or None when there is a choice
    """
    if isinstance(mask, np.ndarray):
        legal = np.flatnonzero(mask)
        return int(legal[0]) if legal.size == 1 else None
    return mask.bit_length() - 1 if mask and not mask & (mask - 1) else None


def forced_actions(bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The forced moves of many games.

    :param bits: the legal actions of each game, bit sets (uint64 array)
    :return: (bool array: the move is forced, the forced moves' actions)
    """
    forced = (bits & (bits - 1)) == 0
    # the index of the one bit; float64 holds every bit position below 64 exactly
    return forced, np.log2(bits[forced].astype(np.float64)).astype(np.int64)
