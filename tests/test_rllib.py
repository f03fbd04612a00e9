"""RLlib: the multi-agent adapter (turns, masks, rewards, the first-reward
caveat of bulka_v0 as RLlib's own episodes count it), the league mapping,
the export of the network to the project's checkpoint format, and a tiny
self-play run whose final.zip the evaluator plays. One local Ray with 2
CPUs, started and shut down here."""

import json

import numpy as np
import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")

from trappola.agents.evaluation import head_to_head  # noqa: E402
from trappola.agents.model_io.checkpoint_format import load_policy, read_metadata  # noqa: E402
from trappola.train.rllib.config import RLlibConfig  # noqa: E402
from trappola.train.rllib.env import MASK_KEY, OBS_KEY, RLlibTrappolaEnv  # noqa: E402
from trappola.train.rllib.selfplay import MAIN, league_mapping  # noqa: E402
from trappola.train.selfplay.reward import scale_reward  # noqa: E402


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def play_randomly(env, seed):
    """One episode with uniformly random legal actions; per agent the summed
    rewards, the last infos and the number of decisions."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    returns, decisions, infos = {}, {}, {}
    while True:
        assert len(obs) == 1  # one agent to act at a time
        ((agent, o),) = obs.items()
        legal = np.flatnonzero(o[MASK_KEY])
        assert len(legal) >= 1 and o[OBS_KEY].dtype == np.float32
        if env.skip_forced:
            assert len(legal) > 1
        obs, rewards, terminated, truncated, infos = env.step({agent: int(rng.choice(legal))})
        decisions[agent] = decisions.get(agent, 0) + 1
        for a, r in rewards.items():
            returns[a] = returns.get(a, 0.0) + r
        if terminated["__all__"]:
            assert not truncated["__all__"]
            return returns, infos, decisions


@pytest.mark.parametrize("mode", ["mixed", "tokens", "win"])
def test_trappola_rewards_are_the_sb3_rewards(mode):
    env = RLlibTrappolaEnv({"reward_mode": mode, "tokens_scale": 1.0})
    for seed in range(6):
        returns, infos, _ = play_randomly(env, seed)
        assert set(returns) == {"player_0", "player_1"}
        for a, info in infos.items():
            raw = {"tokens": info["tokens"], "win": {"win": 1, "loss": -1}.get(info["result"], 0)}.get(mode)
            if mode == "mixed":
                opp = infos["player_1" if a == "player_0" else "player_0"]
                raw = info["score"]["total"] - opp["score"]["total"] if info["result"] != "alifer" else 0
            assert returns[a] == pytest.approx(scale_reward(raw, info["result"], mode, tokens_scale=1.0))


def test_bulka_returns_equal_balances_when_first_rewards_are_carried():
    env = RLlibTrappolaEnv({"env": "bulka_v0", "n_players": 3, "max_parties": 6, "tokens_scale": 1.0})
    for seed in range(4):
        returns, infos, decisions = play_randomly(env, seed)
        for a in decisions:
            assert returns[a] == pytest.approx(infos[a]["balance"])


def test_bulka_with_advice_returns_equal_balances_and_advisers_act():
    env = RLlibTrappolaEnv({"env": "bulka_v0", "n_players": 4, "max_parties": 40, "tokens_scale": 1.0, "advice": True})
    assert env.action_spaces["player_0"].n == 97
    assert env.observation_spaces["player_0"]["observations"].shape == (462,)
    advised = 0
    for seed in range(4):
        returns, infos, decisions = play_randomly(env, seed)
        for a in decisions:
            assert returns[a] == pytest.approx(infos[a]["balance"])
        advised += len(env.env.session.advice_log)
    assert advised > 0


def test_bad_env_config():
    with pytest.raises(ValueError, match="env must be one of"):
        RLlibTrappolaEnv({"env": "chess"})
    with pytest.raises(ValueError, match="unknown env_config keys"):
        RLlibTrappolaEnv({"n_players": 3})  # a bulka_v0 key for trappola_v0


def test_league_mapping_gives_main_one_seat_and_is_consistent_per_episode():
    class Episode:
        def __init__(self, i):
            self.id_ = f"episode-{i}"

    agents = ["player_0", "player_1"]
    snaps = ["snapshot_0", "snapshot_1"]
    for p, expect_both_main in ((0.0, False), (1.0, True)):
        mapping = league_mapping(agents, p, snaps)
        seats = set()
        for i in range(40):
            ep = Episode(i)
            got = [mapping(a, ep) for a in agents]
            assert got == [mapping(a, ep) for a in agents]
            assert MAIN in got
            assert (got == [MAIN, MAIN]) == expect_both_main
            seats.add(got.index(MAIN))
        assert seats == {0, 1} or expect_both_main


def _rllib_config(tmp_path, **changes):
    base = dict(
        out_dir=str(tmp_path),
        run_name="tiny",
        total_timesteps=300,
        train_batch_size=150,
        batch_size=50,
        n_epochs=1,
        num_env_runners=0,
        net_arch=[16],
        eval_deals=3,
        eval_every=150,
        checkpoint_every=150,
        snapshot_every=150,
        league_size=2,
        progress_bar=False,
    )
    base.update(changes)
    return RLlibConfig(**base)


def test_bulka_episode_returns_in_rllib(local_ray):
    """What RLlib itself counts: with the carry, each agent's episode return
    is its balance; without it, RLlib loses the first stakes of an agent
    that had not acted yet."""
    from trappola.train.rllib.selfplay import build_algorithm

    for carry in (True, False):
        cfg = _rllib_config(
            ".", env="bulka_v0", n_players=2, max_parties=3, bulka_tokens_scale=1.0, carry_first_rewards=carry
        )
        algo = build_algorithm(cfg)
        try:
            episodes = algo.env_runner.sample(num_episodes=3, random_actions=False)
        finally:
            algo.stop()
        diffs = []
        for ep in episodes:
            if not ep.is_done:
                continue
            for _aid, sa in ep.agent_episodes.items():
                balance = sa.get_infos(-1)["balance"]
                diffs.append(sa.get_return() - balance)
        assert diffs
        if carry:
            assert diffs == pytest.approx([0.0] * len(diffs))
        else:
            assert any(abs(d) > 0 for d in diffs)


def test_export_is_the_module_actor(tmp_path, local_ray):
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from trappola.train.rllib.export import save_rllib_checkpoint
    from trappola.train.rllib.module import MaskedActorCritic

    env = RLlibTrappolaEnv()
    spec = RLModuleSpec(
        module_class=MaskedActorCritic,
        observation_space=env.observation_spaces["player_0"],
        action_space=env.action_spaces["player_0"],
        model_config={"net_arch": [32, 16], "activation": "tanh"},
    )
    module = spec.build()
    obs, _ = env.reset(seed=3)
    (o,) = obs.values()
    batch = {Columns.OBS: {k: torch.as_tensor(v[None]) for k, v in o.items()}}
    logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0].detach().numpy()
    path = save_rllib_checkpoint(module.state_dict(), tmp_path / "x.zip", {"k": 1}, 0, 7, [32, 16], "tanh")
    policy, meta = load_policy(path)
    legal = o[MASK_KEY] > 0
    assert np.allclose(policy.logits(o[OBS_KEY])[legal], logits[legal], atol=1e-5)
    assert (logits[~legal] < -1e7).all()
    assert meta["trainer"] == "rllib" and meta["num_timesteps"] == 7


def test_a_bulka_checkpoint_carries_the_bulka_observation_size(tmp_path):
    from torch import nn

    from trappola.train.rllib.export import save_rllib_checkpoint

    env = RLlibTrappolaEnv({"env": "bulka_v0"})
    n_obs = env.observation_spaces["player_0"][OBS_KEY].shape[0]
    assert n_obs == 366
    state = {
        "pi_trunk.0.weight": nn.Linear(n_obs, 8).weight,
        "pi_trunk.0.bias": nn.Linear(n_obs, 8).bias,
        "pi_head.weight": nn.Linear(8, 49).weight,
        "pi_head.bias": nn.Linear(8, 49).bias,
        "vf_trunk.0.weight": nn.Linear(n_obs, 8).weight,
        "vf_trunk.0.bias": nn.Linear(n_obs, 8).bias,
        "vf_head.weight": nn.Linear(8, 1).weight,
        "vf_head.bias": nn.Linear(8, 1).bias,
    }
    path = save_rllib_checkpoint(
        {k: v.detach() for k, v in state.items()}, tmp_path / "b.zip", {}, 0, 1, [8], "relu", env="bulka_v0"
    )
    policy, meta = load_policy(path, env="bulka_v0")
    assert policy.obs_dim == 366 and meta["signature"]["observation"]["dim"] == 366


def test_tiny_selfplay_run_writes_checkpoints_the_evaluator_plays_and_resumes(tmp_path, local_ray):
    from trappola.train.train_command import cli_main

    overrides = [
        "out_dir=" + str(tmp_path),
        "run_name=tiny",
        "total_timesteps=300",
        "train_batch_size=150",
        "batch_size=50",
        "n_epochs=1",
        "num_env_runners=1",
        "net_arch=[16]",
        "eval_deals=3",
        "eval_every=150",
        "checkpoint_every=150",
        "snapshot_every=150",
        "pool={self: 0.5, rule: 0.25, random: 0.25}",
        "bc=true",
        "bc_deals=4",
        "bc_epochs=1",
        "bc_workers=1",
        "progress_bar=false",
    ]
    assert cli_main(["--config", "rllib_selfplay"] + overrides) == 0
    run = tmp_path / "tiny"
    for name in ("final.zip", "best.zip", "last.zip"):
        assert (run / name).is_file(), name
    meta = read_metadata(run / "final.zip")
    assert meta["trainer"] == "rllib" and meta["num_timesteps"] >= 300
    assert meta["config"]["run_name"] == "tiny" and meta["bc"]["acc"] > 0
    res = head_to_head(f"policy:{run / 'final.zip'}", "random", deals=3, duplicate=True, seed=1, workers=1)
    assert res.summary["parties"] == 6
    summary = json.loads((run / "summary.json").read_text())
    assert summary["timesteps"] >= 300 and summary["evals"]
    log = (run / "train.log").read_text()
    assert "bc done" in log and "snapshot 2" in log
    tags = _scalar_tags(run / "tb")
    assert {"train/policy_gradient_loss", "train/entropy_loss", "train/approx_kl", "rollout/ep_rew_mean"} <= tags
    assert {"time/fps", "eval/score_vs_rule"} <= tags
    # resume: the step count goes on from the checkpoint's up to total_timesteps in all, and the lineage is kept
    done = meta["num_timesteps"]
    again = [o for o in overrides if not o.startswith(("run_name", "total_timesteps", "bc="))]
    assert (
        cli_main(
            [
                "--config",
                "rllib_selfplay",
                *again,
                "run_name=more",
                f"total_timesteps={done + 150}",
                f"resume={run / 'last.zip'}",
            ]
        )
        == 0
    )
    meta2 = read_metadata(tmp_path / "more" / "final.zip")
    assert meta2["num_timesteps"] >= done + 150 and meta2["resumed_from"]["num_timesteps"] == done
    assert f"resumed from {run / 'last.zip'} at {done:,} steps" in (tmp_path / "more" / "train.log").read_text()


def _scalar_tags(tb_dir) -> set:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(tb_dir))
    acc.Reload()
    return set(acc.Tags()["scalars"])


def test_rllib_config_errors(tmp_path, capsys):
    from trappola.train.train_command import cli_main

    assert cli_main(["--config", "rllib_selfplay", "n_envs=4"]) == 2
    assert "config key 'n_envs' does not carry over to trainer 'rllib'" in capsys.readouterr().err
    assert cli_main(["--config", "rllib_selfplay", "n_env=4"]) == 2
    assert "unknown config key" in capsys.readouterr().err
    with pytest.raises(ValueError, match="self_play_prob"):
        RLlibConfig(self_play_prob=2.0)
