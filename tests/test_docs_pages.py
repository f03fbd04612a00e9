"""Every command of the getting-started page and the how-to guides runs.

Each page's ```sh and ```python blocks are read from the page itself and run in order, in one fresh
folder (a later command reads what an earlier one wrote, as a reader's would), at a tiny size: the
sizes on the page (deals, minutes, steps) are shrunk by ``SHRINK``, and training runs take ``TINY_TRAIN``
on top. A command no test can run here (it would recurse, or needs a cluster or a GPU) is listed in
``NOT_RUN`` with the reason and the test that covers it instead; a listed command the pages no longer
show fails, so the list cannot go stale either.
"""

from __future__ import annotations

import os
import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = ("docs/getting-started.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs/guides").glob("*.md")))
BLOCK = re.compile(r"^```(sh|python)[^\n]*\n(.*?)^```", re.S | re.M)

# Commands shown but not run here, each with why and what tests it instead.
NOT_RUN = {
    "make demo": "creates .venv and trains for minutes; tests/test_train_demo.py runs its function on a tiny budget",
    "make test": "the suite itself; running it from a test would recurse",
}

# A training run of a few seconds: the settings of tests/test_train_demo.py.
TINY_TRAIN = (
    "total_timesteps=256 n_envs=2 vec_env=dummy n_steps=64 batch_size=64 n_epochs=1 net_arch=[32] "
    "bc_deals=30 bc_epochs=1 eval_every=256 eval_deals=3 eval_search_deals=0 snapshot_every=128 "
    "checkpoint_every=256 progress_bar=false tensorboard=false"
)
# The same for RLlib (tests/test_rllib.py's tiny run), whose config refuses the SB3-only settings.
TINY_RLLIB = (
    "total_timesteps=300 train_batch_size=150 batch_size=50 n_epochs=1 num_env_runners=1 net_arch=[16] "
    "bc_deals=4 bc_epochs=1 bc_workers=1 eval_deals=3 eval_every=150 checkpoint_every=150 snapshot_every=150 "
    "progress_bar=false"
)
# Pages whose commands start Ray (a local cluster per command, a minute or more here): marked slow.
SLOW_PAGES = ("docs/guides/ray.md",)
SHRINK = (
    (re.compile(r"--deals \d+"), "--deals 4"),
    (re.compile(r"--sessions \d+"), "--sessions 2"),
    (re.compile(r"--learn-sessions \d+"), "--learn-sessions 4"),
    (re.compile(r"--parties \d+"), "--parties 4"),
    (re.compile(r"--minutes [\d.]+"), "--minutes 0.05"),
    (re.compile(r"max_minutes=[\d.]+"), "max_minutes=1"),
)
SERVER_START_S = 60


def page_blocks(page: str) -> list[tuple[str, str]]:
    """(language, code) of each ```sh and ```python block of ``page``, in order; a shell block is split
    into its commands, comments dropped."""
    out: list[tuple[str, str]] = []
    for lang, code in BLOCK.findall((ROOT / page).read_text(encoding="utf-8")):
        if lang == "python":
            out.append((lang, code))
            continue
        for line in re.sub(r"\s*\\\n\s*", " ", code).splitlines():
            command = line.split("  #", 1)[0].split(" # ", 1)[0].strip()
            if command and not command.startswith("#"):
                out.append((lang, command))
    return out


def shrunk(command: str) -> list[str]:
    """``command`` as the test runs it: tiny sizes, this interpreter, one worker."""
    for pattern, small in SHRINK:
        command = pattern.sub(small, command)
    argv = shlex.split(command)
    if argv[0] == "trappola":
        argv = [sys.executable, "-m", "trappola.cli", *argv[1:]]
        if argv[3] == "train":
            argv += (TINY_RLLIB if "rllib_selfplay" in argv else TINY_TRAIN).split()
        if argv[3] in ("evaluate", "analyze", "exploit") and "--workers" not in argv:
            argv += ["--workers", "1"]
        if argv[3] == "evaluate":
            argv += ["--no-progress"]
    elif argv[0] == "python":
        argv[0] = sys.executable
    return argv


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(argv: list[str], cwd: Path, env: dict) -> None:
    """Start the server, fetch its page, stop it."""
    port = _free_port()
    proc = subprocess.Popen(
        [*argv, "--port", str(port)], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        deadline = time.monotonic() + SERVER_START_S
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
                    assert r.status == 200 and b"<html" in r.read().lower()
                    return
            except OSError:
                assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else "server exited"
                assert time.monotonic() < deadline, "the server did not answer"
                time.sleep(0.5)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def run_page(page: str, cwd: Path) -> list[str]:
    """Run every block of ``page`` in ``cwd``; returns the commands run."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "TRAPPOLA_DOCS_TEST": "1"}
    ran = []
    for lang, code in page_blocks(page):
        if lang == "sh" and code in NOT_RUN:
            continue
        if lang == "python":
            argv, stdin = [sys.executable, "-c", code], None
        else:
            argv, stdin = shrunk(code), None
            if argv[3:4] == ["serve"]:
                serve(argv, cwd, env)
                ran.append(code)
                continue
            if argv[3:4] == ["play"]:
                stdin = "q\n"
        proc = subprocess.run(argv, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{page}: {code!r} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        ran.append(code)
    return ran


@pytest.mark.parametrize("page", [pytest.param(p, marks=pytest.mark.slow) if p in SLOW_PAGES else p for p in PAGES])
def test_every_command_of_the_page_runs(page, tmp_path):
    assert page_blocks(page), f"{page} shows no command"
    run_page(page, tmp_path)


def test_commands_not_run_are_still_shown():
    shown = {code for page in (*PAGES, "README.md") for lang, code in page_blocks(page) if lang == "sh"}
    assert set(NOT_RUN) <= shown, f"NOT_RUN lists commands no page shows: {sorted(set(NOT_RUN) - shown)}"


def test_the_reader_splits_and_shrinks_commands():
    text = "```sh\nmake demo   # note\n# a comment\ntrappola evaluate --players a,b \\\n  --deals 500\n```\n"
    page = ROOT / "build" / "docs-test-page.md"
    page.parent.mkdir(exist_ok=True)
    page.write_text(text, encoding="utf-8")
    try:
        blocks = page_blocks(str(page.relative_to(ROOT)))
    finally:
        page.unlink()
    assert blocks == [("sh", "make demo"), ("sh", "trappola evaluate --players a,b --deals 500")]
    argv = shrunk(blocks[1][1])
    assert argv[:4] == [sys.executable, "-m", "trappola.cli", "evaluate"] and "--deals" in argv
    assert argv[argv.index("--deals") + 1] == "4"
    assert shrunk("trappola train --config demo max_minutes=5")[-len(TINY_TRAIN.split()) :] == TINY_TRAIN.split()


def test_the_readme_example_runs_and_its_commands_are_tested(tmp_path):
    """The README's example runs; its other commands are the getting-started page's, run above."""
    blocks = page_blocks("README.md")
    examples = [code for lang, code in blocks if lang == "python"]
    assert examples
    for code in examples:
        proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
    shown = {code for lang, code in page_blocks("docs/getting-started.md") if lang == "sh"}
    untested = [c for lang, c in blocks if lang == "sh" and c not in shown and c not in NOT_RUN]
    assert not untested, f"README.md shows commands no page test runs: {untested}"
