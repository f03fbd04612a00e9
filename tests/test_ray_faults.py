"""Ray through lost workers (marked ``slow``: each test starts its own
local Ray): an env runner killed during training is replaced and the run
ends with a checkpoint that plays; a Ray worker killed during an evaluation
has its task played again with the same numbers, or, with no replays left,
the evaluation stops with ``WorkerLostError`` and no partial result.
"""

import json
import os
import signal
import threading
import time

import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")

from ray_helpers import FAST_RULE, tiny  # noqa: E402

from trappola.agents.evaluation import RayBackend, head_to_head  # noqa: E402
from trappola.agents.evaluation.backend import WorkerLostError  # noqa: E402
from trappola.cli.main import main  # noqa: E402
from trappola.train.rllib.pool_env import runner_envs  # noqa: E402
from trappola.train.rllib.selfplay import train  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_a_killed_env_runner_is_replaced_and_the_run_ends_with_a_checkpoint(local_ray, tmp_path):
    import psutil

    killed, pools = {}, []

    def kill_one_then_wait_for_its_successor(algo, steps):
        if not killed:
            pids = algo.env_runner_group.foreach_env_runner(lambda runner: os.getpid(), local_env_runner=False)
            killed.update(pids=set(pids), raylet=psutil.Process(pids[0]).ppid())
            os.kill(pids[0], signal.SIGKILL)
        elif "successor" not in killed:
            # Ray restarts the actor in the background (a minute on a loaded machine); RLlib takes it back into
            # the run at the next iteration after it is up. Hold the run until then, so that it cannot end first.
            deadline = time.time() + 300
            while time.time() < deadline and "successor" not in killed:
                for proc in psutil.Process(killed["raylet"]).children():
                    title = " ".join(proc.cmdline()).strip()  # a process title is padded with blanks
                    if proc.pid not in killed["pids"] and title == "ray::SingleAgentEnvRunner":
                        killed["successor"] = proc.pid
                time.sleep(0.5)
        else:
            report = algo.env_runner_group.foreach_env_runner(
                lambda runner: (os.getpid(), [env.snapshots_seen for env in runner_envs(runner)]),
                local_env_runner=False,
            )
            pools.append(dict(report))

    cfg = tiny(tmp_path, num_env_runners=2, total_timesteps=1400, pool={"self": 1.0})
    summary = train(cfg, log=lambda line: None, callbacks=[kill_one_then_wait_for_its_successor])
    log = (tmp_path / "tiny" / "train.log").read_text()
    assert "successor" in killed and "1 env runner(s) replaced; the run goes on" in log
    # the new env runner is in the run, and its environments got the pool's snapshots
    assert killed["successor"] in pools[-1] and all(seen > 0 for seen in pools[-1][killed["successor"]])
    assert summary["timesteps"] >= 1400
    match = head_to_head(f"policy:{tmp_path / 'tiny' / 'final.zip'}", "random", 2, duplicate=True, seed=1, workers=1)
    assert match.summary["parties"] == 4


def test_a_killed_evaluation_worker_has_its_task_replayed(local_ray, tmp_path):
    marker = tmp_path / "killed"

    def dies_once(task):
        if task == 3 and not marker.exists():
            marker.touch()
            os.kill(os.getpid(), signal.SIGKILL)
        return task * task

    assert RayBackend().map(dies_once, range(6)) == [t * t for t in range(6)]
    assert marker.exists()
    marker.unlink()
    got = []
    with pytest.raises(WorkerLostError, match="no results are reported") as err:
        RayBackend(max_retries=0).map(dies_once, range(6), progress=got.append)
    assert "\n" not in str(err.value) and got == [0, 1, 4]


def test_evaluate_with_a_worker_killed_mid_run_prints_the_undisturbed_numbers(local_ray, tmp_path):
    import psutil

    args = ["evaluate", "--players", f"{FAST_RULE},random", "--deals", "40", "--duplicate", "--seed", "4"]
    assert main(args + ["--backend", "ray", "--json", str(tmp_path / "calm.json")]) == 0
    codes = []
    run = threading.Thread(
        target=lambda: codes.append(main(args + ["--backend", "ray", "--json", str(tmp_path / "hit.json")]))
    )
    run.start()
    killed = None
    while run.is_alive() and killed is None:
        for proc in psutil.process_iter(["name", "cmdline"]):
            title = " ".join(proc.info["cmdline"] or []) or proc.info["name"] or ""
            if title.startswith("ray::_call"):  # a worker busy with a task of the evaluation
                proc.kill()
                killed = proc.pid
                break
        time.sleep(0.02)
    run.join()
    assert killed is not None and codes == [0]
    assert json.loads((tmp_path / "calm.json").read_text()) == json.loads((tmp_path / "hit.json").read_text())
