"""The batched engine on several cores gives the same bytes as on one.

``BatchPartie(threads=k)`` and ``BatchedSelfPlayVecEnv(env_threads=k)``
are stepped side by side with ``k`` = 1, 2 and every core, on more parties
than ``PARALLEL_MIN_ROWS`` (so the threaded kernels run): states,
observations, masks, privileged vectors, results and rewards must be equal
at every step, and so must a refused action's contract.
"""

from __future__ import annotations

import numpy as np
import pytest

from trappola.agents.model_io.numpy_policy import NumpyPolicy
from trappola.train.sb3.batched_vec_env import BatchedSelfPlayVecEnv
from trappola_env.batch import BatchPartie
from trappola_env.batch.engine import PARALLEL_MIN_ROWS, available_threads
from trappola_env.engine.partie import IllegalActionError

N = 2 * PARALLEL_MIN_ROWS + 37
THREADS = sorted({1, min(2, available_threads()), available_threads()})


def _engines(**kwargs) -> list[BatchPartie]:
    return [BatchPartie(N, threads=t, **kwargs) for t in THREADS]


def _same(arrays: list[np.ndarray]) -> None:
    for other in arrays[1:]:
        assert other.dtype == arrays[0].dtype
        assert other.tobytes() == arrays[0].tobytes()


def test_threads_setting():
    assert BatchPartie(4, threads=0).threads == available_threads()
    assert BatchPartie(4, threads=10**6).threads == available_threads()
    for bad in (-1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="threads"):
            BatchPartie(4, threads=bad)


@pytest.mark.parametrize("illegal_action", ["raise", "forfeit"])
def test_same_games_step_by_step_with_any_number_of_threads(illegal_action):
    engines = _engines(illegal_action=illegal_action)
    rng = np.random.default_rng(5)
    orders = rng.permuted(np.broadcast_to(np.arange(36), (N, 36)), axis=1)
    mult = rng.integers(1, 4, N)
    for b in engines:
        b.deal(orders=orders, multipliers=mult)
    steps = 0
    while not engines[0].done.all():
        rows = np.flatnonzero(~engines[0].done)
        masks = [b.legal_masks(rows) for b in engines]
        _same(masks)
        _same([b.legal_bits() for b in engines])
        seats = engines[0].to_act[rows]
        _same([b.observe(seats, rows) for b in engines])
        _same([b.observe(1 - seats, rows) for b in engines])
        _same([b.full_deal(seats, rows) for b in engines])
        acts = (rng.random(masks[0].shape) * masks[0]).argmax(axis=1)
        if illegal_action == "forfeit" and steps == 3:
            acts[::50] = 48 - acts[::50]  # some illegal: those parties are forfeited
        for b in engines:
            b.step(acts, rows)
        _same([b.S for b in engines])
        steps += 1
    for key in ("outcome", "winner", "scores", "tokens"):
        _same([b.results()[key] for b in engines])
    for mode in ("win", "points", "tokens"):
        _same([b.rewards(engines[0].to_act, mode) for b in engines])
    assert steps >= 10


def test_a_refused_action_steps_the_parties_before_it_only():
    engines = _engines()
    rng = np.random.default_rng(1)
    for b in engines:
        b.deal(rng=np.random.default_rng(2))
    rows = rng.permutation(N)  # not in order: "before" is the order of the call
    masks = engines[0].legal_masks(rows)
    acts = masks.argmax(axis=1)
    bad = N // 2 + 3
    acts[bad] = int(np.flatnonzero(masks[bad] == 0)[0])
    for b in engines:
        with pytest.raises(IllegalActionError, match=f"party {rows[bad]}: illegal action"):
            b.step(acts, rows)
    _same([b.S for b in engines])
    fresh = BatchPartie(N)
    fresh.deal(rng=np.random.default_rng(2))
    assert (engines[0].S[rows[bad:]] == fresh.S[rows[bad:]]).all()
    assert (engines[0].S[rows[:bad]] != fresh.S[rows[:bad]]).any(axis=1).all()


def test_a_party_listed_twice_is_stepped_twice_in_order():
    engines = _engines()
    for b in engines:
        b.deal(rng=np.random.default_rng(3))
    expected = BatchPartie(N)
    expected.deal(rng=np.random.default_rng(3))
    first = expected.legal_masks().argmax(axis=1)
    expected.step(first)
    second = expected.legal_masks([0]).argmax(axis=1)  # legal only after party 0's first action
    expected.step(second, [0])
    rows = np.concatenate([np.arange(N), [0]])
    for b in engines:
        b.step(np.concatenate([first, second]), rows)
        assert b.S.tobytes() == expected.S.tobytes()


def _play(env_threads: int, steps: int = 25) -> list[tuple]:
    env = BatchedSelfPlayVecEnv(N, pool={"self": 0.5, "random": 0.5}, seed=11, env_threads=env_threads)
    rng = np.random.default_rng(0)
    layers = [(rng.normal(size=(32, 347)).astype(np.float32), rng.normal(size=32).astype(np.float32))]
    head = (rng.normal(size=(49, 32)).astype(np.float32), rng.normal(size=49).astype(np.float32))
    env.add_snapshot(NumpyPolicy(layers, head, "relu").get_weights())
    out = [(env.reset(), env.action_masks())]
    for _ in range(steps):
        masks = env.action_masks()
        obs, rewards, dones, infos = env.step((rng.random(masks.shape) * masks).argmax(axis=1))
        ends = [(i, info["result"], info["terminal_observation"].tobytes()) for i, info in enumerate(infos) if info]
        out.append((obs, env.action_masks(), rewards, dones, ends))
    env.close()
    return out


def test_batched_vec_env_same_games_with_any_number_of_threads():
    runs = [_play(t) for t in THREADS]
    assert any(len(step[4]) for step in runs[0][1:])  # games ended (and were dealt again) on the way
    for other in runs[1:]:
        for mine, theirs in zip(runs[0], other, strict=True):
            for a, b in zip(mine, theirs, strict=True):
                if isinstance(a, np.ndarray):
                    assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
                else:
                    assert a == b
