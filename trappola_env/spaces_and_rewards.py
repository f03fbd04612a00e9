"""Conventions shared by the PettingZoo environments (``trappola_v0`` and
``bulka_v0``): the observation space, action masks as arrays, reward modes
and the end-of-partie info of one seat. Rules stay in the engine; this
module only translates engine results for the environments.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from trappola_env.engine import AGREED_ALIFER, FORFEIT, N_ACTIONS, TIE
from trappola_env.engine.checks import check_choice, check_positive_int
from trappola_env.engine.scoring import PartieResult, Score
from trappola_env.observation import OBS_SIZE

ROLES = ("challenger", "dealer")  # by engine seat
REWARD_MODES = ("win", "points", "tokens")

# bytes of 0/1 of every 9-bit (and 4-bit) number, lowest bit first
_BYTES9 = tuple(bytes(i >> k & 1 for k in range(9)) for i in range(512))
_BYTES4 = tuple(bytes(i >> k & 1 for k in range(4)) for i in range(16))
_EMPTY = bytearray()
_FROZEN = b""
_frombuffer = np.frombuffer
_INT8 = np.int8
assert N_ACTIONS == 5 * 9 + 4


def mask_array(mask: int, read_only: bool = False) -> np.ndarray:
    """An engine action bit set (``Partie.legal_mask()``) as a new int8
    array of 49 zeros and ones; writable, or with ``read_only`` read-only
    (at no cost: built on an immutable buffer)."""
    # Table lookups of 9-bit chunks joined into one buffer: about three
    # times as fast as np.unpackbits for one short mask.
    joiner = _FROZEN if read_only else _EMPTY
    return _frombuffer(
        joiner.join(
            (
                _BYTES9[mask & 511],
                _BYTES9[mask >> 9 & 511],
                _BYTES9[mask >> 18 & 511],
                _BYTES9[mask >> 27 & 511],
                _BYTES9[mask >> 36 & 511],
                _BYTES4[mask >> 45],
            )
        ),
        _INT8,
    )


def wide_mask_array(mask: int, n_actions: int) -> np.ndarray:
    """An action bit set as a new int8 array of ``n_actions`` zeros and
    ones, for action spaces wider than the 49 ids (``mask_array``)."""
    n_bytes = (n_actions + 7) // 8
    bits = np.unpackbits(np.frombuffer(mask.to_bytes(n_bytes, "little"), np.uint8), bitorder="little")
    return bits[:n_actions].astype(np.int8)


def observation_space(size: int = OBS_SIZE, n_actions: int = N_ACTIONS) -> spaces.Dict:
    """``Dict(observation=Box(0, 1, (size,), float32), action_mask=Box(0, 1,
    (n_actions,), int8))``; ``size`` >= ``OBS_SIZE`` for an env that appends its
    own features (in [0, 1]) after the partie's; ``n_actions`` > 49 for an
    env with more actions (``bulka_v0(advice=True)``: 97)."""
    if size < OBS_SIZE:
        raise ValueError(f"an observation holds at least the {OBS_SIZE} partie values, got size {size}")
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (n_actions,), np.int8),
        }
    )


def check_reward_mode(reward_mode: str, choices: tuple[str, ...] = REWARD_MODES) -> str:
    """``reward_mode`` if it is one of ``choices``, else ``ValueError``."""
    return check_choice("reward_mode", reward_mode, choices)


def partie_reward(result: PartieResult, seat: int, reward_mode: str) -> float:
    """The reward of ``seat`` for a settled ``PartieResult``:

    * "win": +1 winner, -1 loser (a forfeit loses), 0 for an Alifer (tie or
      accepted proposal);
    * "points": own total minus the opponent's; 0 for an Alifer (a tie is
      0 anyway, an abandoned partie counts no points); after a forfeit the
      offender gets ``min(own - opponent, -1)`` and its opponent the negation,
      so a forfeit is always a loss (Art. 12);
    * "tokens": the seat's net tokens of the partie (``result.tokens``)."""
    if reward_mode == "tokens":
        return float(result.tokens[seat])
    outcome = result.outcome
    if outcome in (TIE, AGREED_ALIFER):
        return 0.0
    won = result.winner == seat
    if reward_mode == "win":
        return 1.0 if won else -1.0
    diff = result.scores[seat].total - result.scores[1 - seat].total
    if outcome == FORFEIT:
        offender = float(min(-diff if won else diff, -1))
        return -offender if won else offender
    return float(diff)


def result_name(result: PartieResult, seat: int) -> str:
    """ "win", "loss" or "alifer" (a tie or an accepted proposal)."""
    if result.winner is None:
        return "alifer"
    return "win" if result.winner == seat else "loss"


def score_dict(score: Score) -> dict[str, int]:
    """An engine ``Score`` as ``{card_points, declaration_points,
    bonus_points, total}`` (what ``Score.to_dict`` gives, without the cost of
    ``dataclasses.asdict``, a fifth of a random partie's run time)."""
    return {
        "card_points": score.card_points,
        "declaration_points": score.declaration_points,
        "bonus_points": score.bonus_points,
        "total": score.total,
    }


def end_info(result: PartieResult, seat: int) -> dict[str, Any]:
    """The info entries of ``seat`` when a partie ends: ``result``,
    ``outcome`` (the engine's), ``score``, ``tokens`` and ``forfeit``."""
    return {
        "result": result_name(result, seat),
        "outcome": result.outcome,
        "score": score_dict(result.scores[seat]),
        "tokens": result.tokens[seat],
        "forfeit": result.forfeited_by == seat,
    }


__all__ = [
    "ROLES",
    "REWARD_MODES",
    "mask_array",
    "wide_mask_array",
    "observation_space",
    "check_reward_mode",
    "check_positive_int",
    "partie_reward",
    "result_name",
    "score_dict",
    "end_info",
]
