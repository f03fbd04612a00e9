"""The run recorder both trainers use: evaluations by the evaluator,
best.zip kept by score, periodic and final checkpoints, summary.json and
TensorBoard scalars, for an SB3 and an RLlib config alike. The "network"
here is a player spec, so a sequence of evaluations has known strengths:
rule beats random, random is even with random."""

from __future__ import annotations

import json
import zipfile

import pytest

from trappola.agents import make_player
from trappola.agents.model_io.checkpoint_format import META_NAME, POLICY_NAME, read_metadata
from trappola.train.rllib.config import RLlibConfig
from trappola.train.run.config_file import config_from_dict
from trappola.train.run.recorder import RunRecorder
from trappola.train.sb3.config import TrainConfig

SETTINGS = {
    "eval_opponent": "random",
    "eval_deals": 6,
    "eval_every": 100,
    "checkpoint_every": 200,
    "progress_bar": False,
}


def fake_save(network, path, steps, **meta):
    """A checkpoint that records which network it holds (what a trainer's save does, without a model)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(POLICY_NAME, b"")
        zf.writestr(
            META_NAME, json.dumps({"signature": {}, "network": network, "num_timesteps": steps, "seed": 0, **meta})
        )
    return path


def recorder(cls, tmp_path, lines=None, scalars=None, **changes):
    cfg = config_from_dict({**SETTINGS, "out_dir": str(tmp_path), "run_name": "r", **changes}, cls=cls)
    return RunRecorder(
        cfg, fake_save, make_player, log=(lambda m: None) if lines is None else lines.append, scalars=scalars
    )


@pytest.mark.parametrize("cls", [TrainConfig, RLlibConfig])
def test_best_zip_is_the_best_score_and_the_run_is_recorded(cls, tmp_path):
    lines, scalars = [], {}

    def sink(values, steps):
        for k, v in values.items():
            scalars.setdefault(k, []).append((v, steps))

    rec = recorder(cls, tmp_path, lines, sink)
    for steps, network in ((100, "random"), (200, "rule"), (300, "random")):
        assert rec.due(steps)
        rec.step(steps, network)
    assert not rec.due(350)
    run = tmp_path / "r"
    scores = [e["score"] for e in rec.history]
    assert scores[1] > max(scores[0], scores[2])  # rule beats random; random is about even with it
    best = read_metadata(run / "best.zip")
    assert best["network"] == "rule" and best["num_timesteps"] == 200
    assert best["eval"]["random"]["score"] == scores[1] == rec.best_score
    assert read_metadata(run / "last.zip")["num_timesteps"] == 200  # checkpoint_every=200
    assert scalars["eval/score_vs_random"] == list(zip(scores, (100, 200, 300), strict=True))
    summary = rec.finish(400, "random", learned_steps=400, learn_s=2.0, note="x")
    rec.close()
    final = read_metadata(run / "final.zip")
    assert final["network"] == "random" and final["note"] == "x" and final["eval"]["random"]["timesteps"] == 400
    assert read_metadata(run / "last.zip")["num_timesteps"] == 400  # the end is where a resume continues
    assert summary == json.loads((run / "summary.json").read_text())
    assert summary["best"] == str(run / "best.zip") and summary["best_score"] == scores[1]
    assert [e["timesteps"] for e in summary["evals"]] == [100, 200, 300, 400]
    assert summary["trainer"] == cls.TRAINER and summary["learn_steps_per_second"] == 200.0
    log = (run / "train.log").read_text()
    assert log.count("[eval") == 4 and lines and all(line in log for line in lines)
    assert (run / "config.yaml").is_file()


def test_a_resume_inside_the_folder_competes_with_its_best_score(tmp_path):
    rec = recorder(TrainConfig, tmp_path)
    rec.step(100, "rule")
    rec.finish(100, "rule", learned_steps=100, learn_s=1.0)
    rec.close()
    run = tmp_path / "r"
    kept = (run / "best.zip").read_bytes()
    again = recorder(TrainConfig, tmp_path, resume=str(run / "final.zip"))
    assert again.best_score == read_metadata(run / "best.zip")["eval"]["random"]["score"]
    again.step(200, "random")  # worse than the best it already has
    assert (run / "best.zip").read_bytes() == kept and again.best_path == run / "best.zip"
    again.close()
    # evaluations on other deals: the old best.zip is kept aside and best.zip is chosen anew on this run's deals
    lines: list = []
    other = recorder(TrainConfig, tmp_path, lines, resume=str(run / "final.zip"), eval_deals=8)
    assert other.best_score == -1.0 and other.best_path is None and not (run / "best.zip").exists()
    assert (run / "best.other-deals.zip").read_bytes() == kept
    assert any("best.zip was chosen on 6 deals against random (seed 0)" in line for line in lines)
    other.close()
    fresh = recorder(TrainConfig, tmp_path, run_name="s", overwrite=True)  # another folder: no best yet
    assert fresh.best_score == -1.0 and fresh.best_path is None
    fresh.close()


def test_no_evaluation_means_no_best_zip(tmp_path):
    rec = recorder(RLlibConfig, tmp_path, env="bulka_v0")  # the evaluator plays parties, not sessions
    assert not rec.due(100)
    summary = rec.finish(150, "random", learned_steps=150, learn_s=1.0)
    rec.close()
    run = tmp_path / "r"
    assert not (run / "best.zip").exists() and summary["best_score"] is None and summary["evals"] == []
    assert summary["best"] == str(run / "final.zip") and "no evaluation" in (run / "train.log").read_text()


def test_the_search_match_is_logged_but_does_not_choose_best(tmp_path):
    lines, scalars = [], {}
    rec = recorder(
        TrainConfig,
        tmp_path,
        lines,
        lambda values, steps: [scalars.setdefault(k, []).append(v) for k, v in values.items()],
        eval_search_deals=2,
        eval_search_opponent="rule",
        keep_checkpoints=True,
    )
    rec.step(200, "random")
    rec.close()
    res = rec.history[0]
    assert res["search"]["deals"] == 2 and "eval/win_rate_vs_rule" in scalars
    assert any("vs rule in duplicate (2 deals)" in line for line in lines)
    assert read_metadata(tmp_path / "r" / "checkpoints" / "200.zip")["num_timesteps"] == 200


@pytest.mark.parametrize("tensorboard", [True, False])
def test_without_a_trainer_logger_the_recorder_writes_tensorboard_itself(tmp_path, tensorboard):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    rec = recorder(RLlibConfig, tmp_path, tensorboard=tensorboard)
    rec.step(100, "rule")
    rec.close()
    tb = tmp_path / "r" / "tb"
    assert tb.is_dir() == tensorboard
    if tensorboard:
        events = EventAccumulator(str(tb))
        events.Reload()
        (point,) = events.Scalars("eval/score_vs_random")
        assert point.step == 100 and point.value == pytest.approx(rec.history[0]["score"])


@pytest.mark.parametrize("cls", [TrainConfig, RLlibConfig])
def test_an_interrupted_run_is_saved_at_its_step_without_a_final_evaluation(cls, tmp_path):
    rec = recorder(cls, tmp_path)
    rec.step(100, "random")
    summary = rec.finish(137, "rule", learned_steps=137, learn_s=1.0, interrupted=True)
    rec.close()
    final = read_metadata(tmp_path / "r" / "final.zip")
    assert final["interrupted"] is True and final["num_timesteps"] == 137 and final["network"] == "rule"
    assert final["eval"] == {} and [e["timesteps"] for e in summary["evals"]] == [
        100
    ]  # the Ctrl-C was not kept waiting
    assert summary["interrupted"] is True and summary["timesteps"] == 137
    assert json.loads((tmp_path / "r" / "summary.json").read_text()) == summary
    assert read_metadata(tmp_path / "r" / "last.zip")["num_timesteps"] == 137
