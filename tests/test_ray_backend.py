"""Evaluation on Ray: the same numbers as the local backends for the same
seed, results and progress in task order, Ctrl-C cancels what is still
running, and the CLI's --backend ray. One local Ray with 2 CPUs, started
and shut down here (loopback only)."""

import json
import math
import sys
import time

import pytest

ray = pytest.importorskip("ray")

from trappola.agents.evaluation import RayBackend, head_to_head, make_backend, rate_pool, session_tournament  # noqa: E402
from trappola.cli.main import main  # noqa: E402

FAST_RULE = "rule:answer_rollouts=0,endgame=2"


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_head_to_head_on_ray_equals_serial(local_ray):
    kwargs = dict(deals=24, duplicate=True, seed=5)
    serial = head_to_head(FAST_RULE, "random", backend="serial", **kwargs)
    on_ray = head_to_head(FAST_RULE, "random", backend="ray", chunk=5, **kwargs)
    assert on_ray.records == serial.records
    assert on_ray.summary == serial.summary
    assert ray.is_initialized()  # a Ray the backend did not start is left running


def test_session_tournament_and_ratings_on_ray_equal_local(local_ray):
    players = [FAST_RULE, "random", "random:alifer=false"]
    local = session_tournament(players, sessions=6, parties=6, seed=2, workers=1)
    with RayBackend() as backend:
        remote = session_tournament(players, sessions=6, parties=6, seed=2, backend=backend)
    assert remote.records == local.records and remote.summary == local.summary
    local = rate_pool(players, deals=6, seed=4, workers=1)
    remote = rate_pool(players, deals=6, seed=4, backend="ray")
    assert remote.summary == local.summary


def test_results_and_progress_in_task_order(local_ray):
    seen = []
    backend = RayBackend()
    assert backend.workers == 2
    tasks = list(range(12, 0, -1))  # the first tasks are the slowest: results still come in order
    assert backend.map(math.factorial, tasks, progress=seen.append) == [math.factorial(t) for t in tasks]
    assert seen == [math.factorial(t) for t in tasks]


def test_ctrl_c_cancels_the_remaining_tasks(local_ray):
    backend = RayBackend()

    def interrupt(_):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        backend.map(time.sleep, [0.0] + [60.0] * 4, progress=interrupt)
    # Both CPUs would be busy for a minute with the 60 s tasks had they not been cancelled.
    t0 = time.perf_counter()
    assert backend.map(abs, [-1, -2]) == [1, 2]
    assert time.perf_counter() - t0 < 30


def test_backend_names_and_bad_input():
    assert isinstance(make_backend(kind="ray", address="auto"), RayBackend)
    with pytest.raises(ValueError, match="backend must be one of"):
        make_backend(kind="dask")
    with pytest.raises(ValueError, match="address"):
        make_backend(kind="process", address="auto")
    with pytest.raises(ValueError, match="address"):
        RayBackend(address=" ")
    with pytest.raises(ValueError, match="backend must be one of"):
        head_to_head("rule", "random", 2, backend=3)


def test_cli_backend_ray_prints_the_process_backend_numbers(local_ray, tmp_path, capsys):
    args = ["evaluate", "--players", f"{FAST_RULE},random", "--deals", "10", "--duplicate", "--seed", "8"]
    assert main(args + ["--workers", "1", "--json", str(tmp_path / "a.json")]) == 0
    assert main(args + ["--backend", "ray", "--json", str(tmp_path / "b.json")]) == 0
    assert json.loads((tmp_path / "a.json").read_text()) == json.loads((tmp_path / "b.json").read_text())
    capsys.readouterr()
    assert main(args + ["--address", "auto"]) == 2
    assert "--address needs --backend ray" in capsys.readouterr().err


def test_cli_without_ray_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    assert main(["evaluate", "--players", "random,random", "--deals", "2", "--backend", "ray"]) == 2
    assert "trappola-lab[ray]" in capsys.readouterr().err
    from trappola.train.train_command import cli_main

    assert cli_main(["--config", "rllib_selfplay"]) == 2
    assert "trappola-lab[ray]" in capsys.readouterr().err
