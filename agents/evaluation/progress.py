"""Progress of a long evaluation on stderr: a tqdm bar on a terminal, plain
lines in a log.

``progress`` (the evaluators' argument) is one of

* ``False`` / ``"none"``: nothing;
* ``True`` / ``"auto"``: the bar when stderr is a terminal, else lines;
* ``"bar"``: the bar even when stderr is not a terminal;
* ``"lines"``: a line such as ``rule vs random: 400/1000 deals (40%), 12 s``
  at each further tenth of the work and at least every ``LINE_SECONDS``
  while it advances (a bar's carriage returns make an unreadable log).
"""

from __future__ import annotations

import sys
import time

MODES = ("none", "auto", "bar", "lines")
LINE_SECONDS = 30.0


def progress_mode(progress, stream=None) -> str:
    """The mode of a ``progress`` argument (see the module docstring)."""
    if progress is False or progress is None:
        return "none"
    if progress is True:
        progress = "auto"
    if progress not in MODES:
        raise ValueError(f"progress must be True, False or one of {', '.join(MODES)}, got {progress!r}")
    if progress == "auto":
        stream = sys.stderr if stream is None else stream
        return "bar" if _isatty(stream) else "lines"
    return progress


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class ProgressLines:
    """A tqdm-like counter (``update``, ``close``) that prints a plain line
    at each further tenth of ``total`` and at least every ``seconds``."""

    def __init__(
        self, total: int, desc: str, unit: str, stream=None, seconds: float = LINE_SECONDS, clock=time.monotonic
    ):
        self.total, self.desc, self.unit = total, desc, unit
        self.stream = sys.stderr if stream is None else stream
        self.seconds = seconds
        self.clock = clock
        self.n = 0
        self.start = self.last = clock()
        self.next_tenth = 1

    def update(self, n: int = 1) -> None:
        """Count ``n`` more items; print a line at a new tenth or after ``seconds``."""
        self.n += n
        now = self.clock()
        tenth = self.n * 10 // self.total if self.total else 10
        if tenth >= self.next_tenth or now - self.last >= self.seconds:
            self.next_tenth = tenth + 1
            self.last = now
            pct = f" ({100 * self.n // self.total}%)" if self.total else ""
            print(
                f"{self.desc}: {self.n}/{self.total} {self.unit}s{pct}, {now - self.start:.0f} s",
                file=self.stream,
                flush=True,
            )

    def close(self) -> None:
        """Nothing to release (tqdm's interface)."""
        pass


def progress_bar(progress, total: int, desc: str, unit: str):
    """A counter for ``total`` items (``update(n)``, ``close()``), or None
    when ``progress`` asks for nothing."""
    mode = progress_mode(progress)
    if mode == "none":
        return None
    if mode == "lines":
        return ProgressLines(total, desc, unit)
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=False)
