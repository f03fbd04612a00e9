"""Behaviour cloning: the teacher data are legal, reproducible whatever the
number of workers, Alifers carry the replay value, and cloning fits them."""

from __future__ import annotations

import numpy as np
import pytest

from trappola.train.selfplay.bc import clone, collect


@pytest.fixture(scope="module")
def data():
    return collect("rule", 300, seed=3, reward_mode="win", workers=1)


def test_decisions_are_legal_choices(data):
    n = len(data["action"])
    assert n > 300 * 8  # ~16 decisions with a choice per deal
    assert data["mask"][np.arange(n), data["action"]].all()
    assert (data["mask"].sum(1) >= 2).all()
    assert data["obs"].shape == (n, 347) and data["obs"].dtype == np.float16


def test_same_data_with_more_workers(data):
    again = collect("rule", 300, seed=3, reward_mode="win", workers=2)
    for k in data:
        np.testing.assert_array_equal(data[k], again[k])


def test_returns_win_loss_and_replay_value(data):
    zero = collect("rule", 300, seed=3, reward_mode="win", workers=1, alifer_value="zero")
    alifer = zero["ret"] == 0.0
    assert set(np.unique(zero["ret"])) <= {-1.0, 0.0, 1.0}
    np.testing.assert_array_equal(data["ret"][~alifer], zero["ret"][~alifer])
    if alifer.any():  # replay value: never exactly 0 unless wins and losses balance
        assert not np.array_equal(data["ret"][alifer], zero["ret"][alifer]) or data["ret"][~alifer].mean() == 0


def test_clone_fits_the_teacher(data):
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from trappola.train.selfplay.env import SelfPlayEnv

    model = MaskablePPO(
        "MlpPolicy",
        DummyVecEnv([lambda: SelfPlayEnv(pool={"random": 1.0}, seed=0)]),
        n_steps=32,
        batch_size=32,
        seed=0,
        device="cpu",
        policy_kwargs=dict(net_arch=dict(pi=[64], vf=[64])),
    )
    first = clone(model, data, epochs=1, batch_size=128, learning_rate=1e-3, log=lambda m: None)
    later = clone(model, data, epochs=6, batch_size=128, learning_rate=1e-3, log=lambda m: None)
    assert later["ce"] < first["ce"] and later["acc"] > first["acc"] and later["acc"] > 0.5
