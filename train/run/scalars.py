"""A run's scalars, both trainers': an SB3 logger writing ``progress.csv``
and TensorBoard in the run's ``tb/``, kept across a resume and failing in
one line. The SB3 trainer's model logs its rollouts to it; the RLlib
trainer writes one row per PPO iteration; both write the evaluations and
behaviour cloning's figures as rows of their own at their exact step
(``write_row``).

SB3's own CSV writer opens ``progress.csv`` with ``w+``, so a resumed run
erased the learning curve; ``ProgressCSV`` appends under the file's
header instead (a row with keys the header lacks extends it, the old rows
padded), and on a resume drops the rows past the resumed step (those of
the stretch after the checkpoint, which the resumed run trains again).
TensorBoard's scalars are written at the model's step count, which a
resume continues. A write that fails (a full disk) raises an ``OSError``
naming the file or folder, and TensorBoard's writer thread prints no
traceback (``trappola.train.run.log.quiet_tensorboard_threads``).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from stable_baselines3.common.logger import KVWriter, Logger, TensorBoardOutputFormat, filter_excluded_keys

from trappola.train.run.log import naming, quiet_tensorboard_threads
from trappola_env.atomic_file import write_text

#: The column of ``progress.csv`` holding the step count of each row.
STEPS_KEY = "time/total_timesteps"


def read_progress(path: Path) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of a ``progress.csv``; ([], []) when there is none."""
    if not path.is_file():
        return [], []
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return (rows[0], rows[1:]) if rows else ([], [])


def is_past(steps: str, resumed_at: int) -> bool:
    """Whether a row's step count (text) lies past ``resumed_at``; a blank
    or unreadable one is kept."""
    try:
        return float(steps) > resumed_at
    except ValueError:
        return False


class ProgressCSV(KVWriter):
    """``progress.csv`` at ``path``, appended to (module docstring);
    ``resumed_at``: the step count a resumed run starts from (None: a new
    run, which starts the file afresh)."""

    def __init__(self, path: Path, resumed_at: int | None = None):
        self.path = Path(path)
        self.keys, rows = read_progress(self.path) if resumed_at is not None else ([], [])
        if not self.keys:
            self._rewrite([])
        elif STEPS_KEY in self.keys:
            col = self.keys.index(STEPS_KEY)
            assert resumed_at is not None  # rows are read only on a resume
            kept = [r for r in rows if not is_past(r[col] if col < len(r) else "", resumed_at)]
            if len(kept) != len(rows):
                self._rewrite(kept)
        self.file = self._open()

    def _open(self):
        try:
            return open(self.path, "a", newline="")
        except OSError as exc:
            raise naming(exc, self.path) from None

    def _rewrite(self, rows: list[list[str]]) -> None:
        """The file whole: the header ``keys`` and ``rows`` padded to it."""
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        if self.keys:
            writer.writerow(self.keys)
        writer.writerows(r + [""] * (len(self.keys) - len(r)) for r in rows)
        write_text(self.path, buf.getvalue())

    def write(self, key_values: dict, key_excluded: dict, step: int = 0) -> None:
        """One row, in the header's column order."""
        values = filter_excluded_keys(key_values, key_excluded, "csv")
        try:
            extra = [k for k in values if k not in self.keys]
            if extra:
                _, rows = read_progress(self.path)
                self.file.close()
                self.keys += extra
                self._rewrite(rows)
                self.file = self._open()
            row = ["" if values.get(k) is None else str(values[k]) for k in self.keys]
            csv.writer(self.file, lineterminator="\n").writerow(row)
            self.file.flush()
        except OSError as exc:
            raise naming(exc, self.path) from None

    def close(self) -> None:
        """Close the file."""
        try:
            self.file.close()
        except OSError as exc:
            raise naming(exc, self.path) from None


class QuietTensorBoard(TensorBoardOutputFormat):
    """SB3's TensorBoard output whose failures name the folder and whose
    writer thread prints nothing (module docstring)."""

    def __init__(self, folder: Path):
        quiet_tensorboard_threads()
        self.folder = Path(folder)
        try:
            super().__init__(str(folder))
        except OSError as exc:
            raise naming(exc, self.folder) from None

    def write(self, key_values: dict, key_excluded: dict, step: int = 0) -> None:
        """The scalars at ``step``."""
        try:
            super().write(key_values, key_excluded, step)
        except OSError as exc:
            raise naming(exc, self.folder) from None

    def close(self) -> None:
        """Flush and close the writer."""
        try:
            super().close()
        except OSError as exc:
            raise naming(exc, self.folder) from None


def run_logger(folder: Path, tensorboard: bool, resumed_at: int | None = None) -> Logger:
    """The logger of a run writing to ``folder`` (``progress.csv``, and
    TensorBoard with ``tensorboard``); ``resumed_at`` as for ``ProgressCSV``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    formats: list[KVWriter] = [ProgressCSV(folder / "progress.csv", resumed_at)]
    if tensorboard:
        formats.append(QuietTensorBoard(folder))
    return Logger(folder=str(folder), output_formats=formats)


def write_row(logger: Logger, values: dict, steps: int, csv_steps: int | None = None) -> None:
    """``values`` as one row of ``logger``'s outputs at exactly ``steps``
    (``progress.csv`` with its step column, TensorBoard at that step),
    whatever the logger holds for its next rollout row (left untouched):
    the evaluations and behaviour cloning are logged where they happened.
    ``csv_steps``: the step column's value when TensorBoard's step is
    another axis (behaviour cloning's epochs)."""
    row = {**values, STEPS_KEY: int(steps if csv_steps is None else csv_steps)}
    excluded: dict = {key: None for key in values}
    excluded[STEPS_KEY] = ("tensorboard",)  # TensorBoard has its own step axis
    for output in logger.output_formats:
        output.write(row, excluded, int(steps))
