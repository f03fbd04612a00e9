"""``progress.csv`` across a resume: rows are appended under the file's
header (a new key extends it, the old rows padded), and the rows past the
resumed step, which the resumed run trains again, are dropped."""

from __future__ import annotations

import csv

from trappola.train.run.scalars import ProgressCSV


def rows(path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write(progress: ProgressCSV, **values) -> None:
    progress.write(values, {k: None for k in values})


def test_a_resume_appends_under_the_header_and_drops_the_rows_past_its_step(tmp_path):
    path = tmp_path / "progress.csv"
    first = ProgressCSV(path)
    for steps in (128, 256, 384):
        write(first, **{"time/total_timesteps": steps, "train/loss": steps / 1000})
    first.close()
    resumed = ProgressCSV(path, resumed_at=256)  # from a last.zip at 256: the row at 384 is trained again
    write(resumed, **{"train/loss": 0.5, "eval/score": 0.75, "time/total_timesteps": 384})
    resumed.close()
    with open(path) as f:
        header = f.readline().strip().split(",")
    assert header == ["time/total_timesteps", "train/loss", "eval/score"]
    assert rows(path) == [
        {"time/total_timesteps": "128", "train/loss": "0.128", "eval/score": ""},
        {"time/total_timesteps": "256", "train/loss": "0.256", "eval/score": ""},
        {"time/total_timesteps": "384", "train/loss": "0.5", "eval/score": "0.75"},
    ]


def test_a_new_run_starts_the_file_afresh(tmp_path):
    path = tmp_path / "progress.csv"
    path.write_text("time/total_timesteps\n999\n")
    progress = ProgressCSV(path)
    write(progress, **{"time/total_timesteps": 128})
    progress.close()
    assert rows(path) == [{"time/total_timesteps": "128"}]
