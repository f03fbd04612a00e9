"""The RLlib trainer on the self-play core, without Ray: its trappola_v0
environment is the SB3 path's ``SelfPlayEnv`` (same games, same rewards),
snapshots reach a pool once, its settings are the SB3 ones or refused with a
reason, every ``--help`` field is used or refused, checkpoints carry the
optimizer state both ways, and the learning rate follows SB3's schedule."""

import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from trappola.agents.model_io.numpy_policy import NumpyPolicy
from trappola.train.rllib.config import RLlibConfig
from trappola.train.rllib.env import MASK_KEY, OBS_KEY
from trappola.train.rllib.export import save_rllib_checkpoint
from trappola.train.rllib.learner_state import checkpoint_state
from trappola.train.rllib.pool_env import PoolEnv
from trappola.train.rllib.selfplay import check_resources, lr_schedule, scalars
from trappola.train.run.config_file import load_config, resolve_config
from trappola.train.selfplay.env import SelfPlayEnv

ROOT = Path(__file__).resolve().parents[1]


def test_the_pool_env_plays_and_scores_as_selfplay_env():
    kwargs = dict(pool={"rule": 0.5, "random": 0.5}, alifer_value="replay", reward_mode="mixed")
    ours, theirs = PoolEnv(kwargs), SelfPlayEnv(**kwargs)
    returns = []
    for seed in range(4):
        (o, _), (t, _) = ours.reset(seed=seed), theirs.reset(seed=seed)
        rng = np.random.default_rng(seed)
        done = False
        while not done:
            np.testing.assert_array_equal(o[OBS_KEY], t)
            np.testing.assert_array_equal(o[MASK_KEY] > 0, theirs.action_masks())
            action = int(rng.choice(np.flatnonzero(theirs.action_masks())))
            o, r1, done, _, i1 = ours.step(action)
            t, r2, done2, _, i2 = theirs.step(action)
            assert (r1, done, i1.get("opponent")) == (r2, done2, i2.get("opponent"))
        returns.append(r1)
    assert ours.decisions > 4 and any(r != 0 for r in returns)


def test_snapshots_reach_a_pool_once_and_a_new_env_gets_them_all():
    env = PoolEnv({"pool": {"self": 1.0}, "pool_size": 2})
    weights = NumpyPolicy.from_weights(_actor()).get_weights()
    env.add_snapshots([(1, weights)])
    env.add_snapshots([(1, weights), (2, weights)])
    assert env.core.pool.n_snapshots == 2 and env.snapshots_seen == 2
    fresh = PoolEnv({"pool": {"self": 1.0}, "pool_size": 2})
    fresh.add_snapshots([(5, weights), (6, weights)])  # a replaced env runner's environment
    assert fresh.core.pool.snapshots == ["self1", "self2"]
    fresh.reset(seed=0)
    assert fresh.core.opponent_name in ("self1", "self2")


def _actor():
    rng = np.random.default_rng(0)
    return {
        "layers": [(rng.normal(size=(8, 347)), np.zeros(8))],
        "head": (rng.normal(size=(49, 8)), np.zeros(49)),
        "activation": "relu",
    }


@pytest.mark.parametrize(
    "override, message",
    [
        ("n_envs=64", "'n_envs' does not carry over to trainer 'rllib': RLlib runs num_env_runners"),
        ("target_kl=0.02", "no early stop"),
        ("privileged_critic=true", "does not carry over"),
        ("pool.exploiter=0.2", "pool member 'exploiter' is not available on RLlib"),
        ("league_size=2", "league_size is bulka_v0's league"),
        ("pool.dealer=1", "pool member 'dealer'"),
        ("resume=nowhere.zip", "resume checkpoint not found"),
    ],
)
def test_settings_that_cannot_carry_over_are_refused_with_a_reason(override, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        load_config(resolve_config("rllib_selfplay"), [override])


@pytest.mark.parametrize(
    "override, message",
    [
        ("pool.rule=1", "pool is trappola_v0's"),
        ("bc=true", "bc clones a teacher's trappola_v0 decisions"),
        ("alifer_value=zero", "replays an Alifer itself"),
    ],
)
def test_bulka_refuses_the_pool_settings(override, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        load_config(resolve_config("rllib_selfplay"), ["env=bulka_v0", override])


def test_a_gpu_setting_without_a_gpu_is_refused_in_one_line():
    cfg = RLlibConfig(num_gpus_per_learner=1.0, num_env_runners=1)
    with pytest.raises(ValueError, match=r"num_gpus_per_learner=1 needs 1 GPU\(s\); this Ray instance has 0") as err:
        check_resources(cfg, {"CPU": 2.0})
    assert "\n" not in str(err.value)
    check_resources(cfg, {"CPU": 2.0, "GPU": 1.0})
    with pytest.raises(ValueError, match="need 3 CPUs"):
        check_resources(RLlibConfig(num_env_runners=2, num_learners=1), {"CPU": 2.0})


def test_every_help_field_is_used_by_the_rllib_trainer_or_refused():
    """A field nothing reads would be accepted and silently ignored: every
    field must be read by the trainer's code (train/rllib/, the shared run
    recorder, log and behaviour cloning) or by a refusal in ``RLlibConfig.check``."""
    sources = [*sorted((ROOT / "train" / "rllib").glob("*.py")), ROOT / "train" / "run" / "recorder.py"]
    sources += [ROOT / "train" / "run" / "log.py", ROOT / "train" / "run" / "config.py"]
    sources += [ROOT / "train" / "selfplay" / "bc.py"]  # behaviour cloning, which both trainers call
    text = "\n".join(p.read_text() for p in sources)
    unread = [name for name in RLlibConfig.model_fields if not re.search(rf"\.{name}\b|\"{name}\"", text)]
    assert unread == []


def test_a_checkpoint_carries_the_optimizer_state_both_ways(tmp_path):
    import torch

    from trappola.train.rllib.module import MaskedActorCritic

    env = PoolEnv({"pool": {"random": 1.0}})
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    module = RLModuleSpec(
        module_class=MaskedActorCritic,
        observation_space=env.observation_space,
        action_space=env.action_space,
        model_config={"net_arch": [8], "activation": "relu"},
    ).build()
    opt = torch.optim.Adam(module.parameters(), lr=1e-3)
    loss = sum((p**2).sum() for p in module.parameters())
    loss.backward()
    opt.step()
    state = {k: v.detach().numpy() for k, v in module.state_dict().items()}
    order = [n for n, _ in module.named_parameters()]
    assert order == list(state)
    path = save_rllib_checkpoint(state, tmp_path / "c.zip", {}, 0, 42, [8], "relu", optimizer=opt.state_dict())
    weights, optimizer, meta = checkpoint_state(str(path), order)
    assert meta["num_timesteps"] == 42
    for k in state:
        np.testing.assert_array_equal(weights[k], state[k])
    for i, name in enumerate(order):
        saved = opt.state_dict()["state"][i]
        np.testing.assert_allclose(optimizer["state"][i]["exp_avg"], saved["exp_avg"].numpy(), err_msg=name)
        np.testing.assert_allclose(optimizer["state"][i]["exp_avg_sq"], saved["exp_avg_sq"].numpy(), err_msg=name)


def test_the_learning_rate_follows_sb3s_schedule_also_after_resume():
    cfg = RLlibConfig(learning_rate=1e-3, lr_final_fraction=0.2, total_timesteps=1000)
    assert lr_schedule(cfg, 0) == [[0, pytest.approx(1e-3)], [1000, pytest.approx(2e-4)]]
    # resumed at 500 of the run's 1000 steps: SB3's progress_remaining is 0.5, so 1e-3 * (0.2 + 0.8 * 0.5),
    # down to the final rate over the 500 steps left
    assert lr_schedule(cfg, 500) == [[0, pytest.approx(6e-4)], [500, pytest.approx(2e-4)]]


def test_scalars_take_sb3s_names():
    result = {
        "learners": {"default_policy": {"policy_loss": 0.5, "vf_loss": 2.0, "entropy": 1.5, "mean_kl_loss": 0.01}},
        "env_runners": {"episode_return_mean": 0.25, "episode_len_mean": float("nan")},
    }
    got = scalars(result, "default_policy")
    assert got == {
        "train/policy_gradient_loss": 0.5,
        "train/value_loss": 2.0,
        "train/entropy_loss": -1.5,
        "train/approx_kl": 0.01,
        "rollout/ep_rew_mean": 0.25,
    }
