"""Small RLlib runs for the Ray tests (tests/test_ray_cluster.py, tests/test_ray_faults.py)."""

import ray

from trappola.train.rllib.config import RLlibConfig
from trappola.train.rllib.pool_env import runner_envs

FAST_RULE = "rule:answer_rollouts=0,endgame=2"


def tiny(tmp_path, **changes) -> RLlibConfig:
    """A run of a few PPO iterations of 200 decisions on a small network."""
    base = dict(
        out_dir=str(tmp_path),
        run_name="tiny",
        total_timesteps=800,
        train_batch_size=200,
        batch_size=100,
        n_epochs=1,
        net_arch=[16],
        pool={"self": 0.5, "random": 0.5},
        eval_deals=2,
        eval_every=0,
        checkpoint_every=400,
        snapshot_every=200,
        progress_bar=False,
    )
    base.update(changes)
    return RLlibConfig(**base)


def work_by_node(algo) -> list[tuple[str, int]]:
    """(node id, decisions played) of every remote env runner."""

    def report(runner):
        return ray.get_runtime_context().get_node_id(), sum(env.decisions for env in runner_envs(runner))

    return algo.env_runner_group.foreach_env_runner(report, local_env_runner=False)
