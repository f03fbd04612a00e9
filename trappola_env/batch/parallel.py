"""The batched engine's kernels on several cores: ``kernels``' loops over
parties as numba ``prange`` loops (``BatchPartie(threads=...)``).

Each party is one row of the state array and no kernel here reads or
writes another party's row, so every row is computed exactly as by the
one-core kernel and the results are the same bytes whatever the number of
threads. The parties of a call must be distinct (``distinct_rows``: a
party listed twice is stepped by the one-core kernel, in order). The
random player's kernel stays on one core: numba's generator is one per
thread, so its draws would depend on the threads.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from . import kernels as K
from .kernels import Array, kernel


@kernel(cache=True)
def distinct_rows(rows: Array, n: int) -> bool:
    """Whether ``rows`` (party indices below ``n``) lists no party twice."""
    seen = np.zeros(n, np.bool_)
    for j in range(rows.shape[0]):
        if seen[rows[j]]:
            return False
        seen[rows[j]] = True
    return True


@kernel(cache=True, parallel=True)
def deal_rows(S: Array, rows: Array, orders: Array, multipliers: Array) -> None:
    """``kernels.deal_rows`` over the threads."""
    for j in prange(rows.shape[0]):
        K.deal_row(S, rows[j], orders[j], multipliers[j])


@kernel(cache=True, parallel=True)
def legal_bits(S: Array, ace_first_card: bool, out: Array) -> None:
    """``kernels.legal_bits`` over the threads."""
    for i in prange(S.shape[0]):
        out[i] = K.legal_bit(S, i, ace_first_card)


@kernel(cache=True, parallel=True)
def legal_array(S: Array, rows: Array, ace_first_card: bool, out: Array) -> None:
    """``kernels.legal_array`` over the threads."""
    for j in prange(rows.shape[0]):
        K.legal_row(S, rows[j], ace_first_card, out, j)


@kernel(cache=True, parallel=True)
def encode_rows(S: Array, rows: Array, seats: Array, out: Array) -> None:
    """``kernels.encode_rows`` over the threads."""
    for j in prange(rows.shape[0]):
        K.encode_row(S, rows[j], seats[j], out[j])


@kernel(cache=True, parallel=True)
def full_deal_rows(S: Array, rows: Array, seats: Array, out: Array) -> None:
    """``kernels.full_deal_rows`` over the threads."""
    for j in prange(rows.shape[0]):
        K.full_deal_row(S, rows[j], seats[j], out[j])


@kernel(cache=True, parallel=True)
def step_rows(S: Array, rows: Array, actions: Array, ace_first_card: bool, forfeit: bool) -> tuple[int, int]:
    """``kernels.step_rows`` over the threads, with its contract: every
    action is checked first, then the parties before the first refused
    one (if any) are stepped; returns (error code, j) as it does."""
    k = rows.shape[0]
    err = np.empty(k, np.int64)
    for j in prange(k):
        err[j] = K.check_action(S, rows[j], actions[j], ace_first_card, forfeit)
    first = k
    for j in range(k):
        if err[j] != K.OK:
            first = j
            break
    for j in prange(first):
        K.apply_action(S, rows[j], actions[j], K.legal_bit(S, rows[j], ace_first_card))
    if first < k:
        return int(err[first]), first
    return K.OK, -1
