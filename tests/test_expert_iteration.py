"""Expert iteration (``trappola.train.expert``): the improved policy, the fit,
a few-hundred-label run end to end, its resume, and Ctrl-C on a real process."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from trappola.agents import make_player
from trappola.agents.model_io.checkpoint_format import load_state_dict, read_metadata
from trappola.agents.model_io.model_files import DEFAULT_MODEL, resolve_model_path
from trappola.train.expert.games import history_tokens, improved_policy, play_deals
from trappola.train.expert.iteration import fit, train
from trappola.train.expert.networks import HistoryActorCritic, MlpActorCritic
from trappola.train.run.config_file import load_config, resolve_config

# A cheap search, so that a round of a few deals takes seconds.
TINY = [
    "expert=pimc:samples=4,infer_draws=8",
    "deals_per_round=3",
    "workers=1",
    "eval_deals=0",
    "tensorboard=false",
]


def rows(path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_the_improved_policy_is_the_prior_tilted_by_the_search_values():
    legal = np.zeros(49, bool)
    legal[[3, 7, 11]] = True
    prior = np.zeros(49)
    prior[[3, 7, 11]] = [0.5, 0.25, 0.25]
    q = np.zeros(49)
    q[[3, 7, 11]] = [0.0, 0.1, -0.1]
    p = improved_policy(prior, q, legal, tau=0.1, weight=1.0)
    expected = np.array([0.5, 0.25 * np.e, 0.25 / np.e])
    assert np.allclose(p[[3, 7, 11]], expected / expected.sum())
    assert p[~legal].sum() == 0
    # without the prior, the search's values alone; a sharp temperature picks the best card
    assert np.allclose(
        improved_policy(prior, q, legal, 0.1, 0.0)[[3, 7, 11]], np.exp([0, 1, -1]) / np.exp([0, 1, -1]).sum()
    )
    assert improved_policy(prior, q, legal, 1e-3, 1.0).argmax() == 7


def test_history_tokens_say_who_did_what_from_the_movers_side():
    tokens = history_tokens([(0, 5), (1, 40), (0, 2)], seat=1)
    assert tokens[-3:].tolist() == [1 + 49 + 5, 1 + 40, 1 + 49 + 2] and not tokens[:-3].any()


def test_the_fit_moves_the_network_to_the_targets_and_starts_at_zero_kl():
    torch.set_num_threads(1)  # as the trainer (torch_threads=1): two threads on busy cores wait for each other
    shipped = MlpActorCritic.from_state_dict(load_state_dict(resolve_model_path(DEFAULT_MODEL)))
    from trappola.agents.model_io.numpy_policy import NumpyPolicy

    weights = NumpyPolicy.from_state_dict(load_state_dict(resolve_model_path(DEFAULT_MODEL))).get_weights()
    job = {
        "weights": weights,
        "expert": "pimc:samples=4",
        "tau": 0.1,
        "prior_weight": 1.0,
        "seed": 3,
        "deals": [0, 1],
        "reward": ("mixed", 60.0, 30.0, 0.5),
    }
    data = play_deals(job)
    n = len(data["action"])
    assert n > 10 and np.allclose(data["target"].sum(1), 1.0, atol=1e-5)
    assert not (data["target"] * ~data["mask"]).any() and set(np.unique(data["reward"]).round(3)) - {0.0}
    cfg = SimpleNamespace(
        learning_rate=1e-3, batch_size=16, n_epochs=1, kl_coef=0.0, rl_coef=0.0, vf_coef=0.5, max_grad_norm=0.5
    )
    still = fit(shipped, data, SimpleNamespace(**{**vars(cfg), "learning_rate": 1e-12}), torch.Generator())
    assert still["kl"] < 1e-6  # the previous network is the network itself until it moves
    first = fit(shipped, data, cfg, torch.Generator().manual_seed(0))
    cfg.n_epochs = 20
    last = fit(shipped, data, cfg, torch.Generator().manual_seed(0))
    assert last["target"] < first["target"] and last["value"] < first["value"] and last["kl"] > still["kl"]
    # the history network reads the same rows
    history = HistoryActorCritic([32])
    assert fit(history, data, cfg, torch.Generator().manual_seed(0))["steps"] == 20 * ((n + 15) // 16)


def test_a_run_of_a_few_hundred_labels_writes_a_playable_checkpoint_and_resumes(tmp_path):
    argv = [*TINY, f"out_dir={tmp_path}", "run_name=a", "total_timesteps=150"]
    first = train(load_config(resolve_config("expert_iteration"), argv), log=lambda m: None)
    run = tmp_path / "a"
    progress = rows(run / "progress.csv")
    labels = int(progress[-1]["labels"])
    assert first["timesteps"] == labels >= 150 and not first["interrupted"]
    assert [int(r["round"]) for r in progress] == list(range(1, len(progress) + 1))
    assert sum(int(r["round_labels"]) for r in progress) == labels
    assert sorted(p.name for p in (run / "labels").iterdir()) == [f"round_{k:03d}.npz" for k in range(len(progress))]
    meta = read_metadata(run / "final.zip")
    assert meta["num_timesteps"] == labels and meta["expert_iteration"]["progress"]["round"] == len(progress)
    shipped, trained = load_state_dict(resolve_model_path(DEFAULT_MODEL)), load_state_dict(run / "final.zip")
    assert any(not torch.equal(shipped[k], trained[k]) for k in shipped)
    make_player(f"policy:{run / 'final.zip'},endgame=0")  # plays like any checkpoint
    assert (run / "checkpoints" / f"{labels}.zip").is_file()

    resumed = train(
        load_config(
            resolve_config("expert_iteration"),
            [*argv[:-1], f"total_timesteps={labels + 1}", f"resume={run / 'final.zip'}"],
        ),
        log=lambda m: None,
    )
    after = rows(run / "progress.csv")
    assert after[: len(progress)] == progress and int(after[-1]["round"]) == len(progress) + 1
    assert resumed["timesteps"] == int(after[-1]["labels"]) > labels
    assert (run / "labels" / f"round_{len(progress):03d}.npz").is_file()


@pytest.mark.parametrize(
    "sig, status, group",
    [(signal.SIGINT, 130, False), (signal.SIGTERM, 143, True)],
    ids=["ctrl-c", "sigterm-to-the-process-group"],
)
def test_a_stop_signal_saves_the_run_and_exits_with_its_status(tmp_path, sig, status, group):
    # To the whole group (as a job scheduler stops a job) the signal reaches the game workers too.
    argv = [*TINY, f"out_dir={tmp_path}", "run_name=a", "total_timesteps=1000000"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "trappola.cli", "train", "--config", "expert_iteration", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=group,
    )
    log = tmp_path / "a" / "train.log"
    deadline = time.time() + 180
    while not (log.is_file() and "[round 1]" in log.read_text()):
        assert time.time() < deadline and proc.poll() is None, proc.communicate()
        time.sleep(0.2)
    if group:
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == status, err
    assert "Traceback" not in err, err
    meta = read_metadata(tmp_path / "a" / "final.zip")
    done = meta["expert_iteration"]["progress"]
    assert meta["interrupted"] is True and done["round"] >= 1 and meta["num_timesteps"] == done["labels"]
    assert len(rows(tmp_path / "a" / "progress.csv")) == done["round"]
