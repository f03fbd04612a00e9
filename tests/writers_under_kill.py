"""Every writer of the project, killed at random points (run by
``tests/test_atomic_file.py`` as ``python tests/writers_under_kill.py DIR KILLS SEED``).

The parent writes one round of every file, then forks a child that
rewrites them all in a loop (each round with a different size), kills it
with SIGKILL after a random delay, and checks that every file is still
present and complete by the project's own loaders. It prints one JSON line:
``{"kills": n, "broken": [...], "checks": n}``.
"""

from __future__ import annotations

import csv
import json
import os
import random
import signal
import sys
import time
from pathlib import Path

import numpy as np
import torch

from trappola.agents.evaluation.game_record import GAMES_FILE, write_games
from trappola.agents.evaluation.report import write_csv, write_json
from trappola.agents.model_io.checkpoint_format import CheckpointError, load_policy
from trappola.agents.search.belief import BeliefModel
from trappola.train.run.checkpoint import build_metadata, save_checkpoint
from trappola_env.atomic_file import write_text


def tiny_model():
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from trappola.train.selfplay.env import SelfPlayEnv

    env = DummyVecEnv([lambda: SelfPlayEnv(pool={"random": 1.0}, seed=0)])
    return MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=32,
        batch_size=32,
        seed=0,
        device="cpu",
        policy_kwargs=dict(net_arch=dict(pi=[256, 256], vf=[256])),
    )


def write_round(model, d: Path, n: int) -> None:
    """One round of every file; ``n`` (its size) is recorded inside each, so
    a check can tell a whole file from a cut one."""
    save_checkpoint(model, d / "best.zip", build_metadata({"n": n}, 0, n))
    write_json({"n": n, "rows": list(range(n))}, d / "summary.json")
    write_csv([{"i": i, "n": n} for i in range(n)], d / "records.csv")
    write_games([{"i": i, "n": n} for i in range(n)], d / "games")
    rng = np.random.default_rng(n)
    BeliefModel(
        [
            (rng.random((n, 347), dtype=np.float32), np.zeros(n, np.float32)),
            (rng.random((36, n), dtype=np.float32), np.zeros(36, np.float32)),
        ],
        {"n": n},
    ).save(d / "belief.npz")
    write_text(d / "config.yaml", "".join(f"k{i}: {n}\n" for i in range(n)) + "end: true\n")


def broken_files(d: Path) -> list[str]:
    """The files that are missing or not complete, with the reason."""
    bad = []

    def check(name, fn):
        try:
            if not fn(d / name):
                bad.append(f"{name}: incomplete")
        except (OSError, ValueError, KeyError, EOFError, CheckpointError) as e:
            bad.append(f"{name}: {type(e).__name__}: {e}"[:200])

    def summary(p):
        s = json.loads(p.read_text())
        return len(s["rows"]) == s["n"]

    def records(p):
        with open(p, newline="") as f:
            rows = list(csv.DictReader(f))
        return rows and len(rows) == int(rows[0]["n"])

    def games(p):
        rows = [json.loads(line) for line in p.read_text().splitlines()]
        return rows and len(rows) == rows[0]["n"]

    def belief(p):
        m = BeliefModel.load(p)
        return m.layers[0][0].shape[0] == m.meta["n"]

    def config(p):
        lines = p.read_text().splitlines()
        return lines[-1] == "end: true" and len(lines) == int(lines[0].split(": ")[1]) + 1

    check("best.zip", lambda p: load_policy(p)[1]["config"]["n"] >= 1)
    check("summary.json", summary)
    check("records.csv", records)
    check(f"games/{GAMES_FILE}", games)
    check("belief.npz", belief)
    check("config.yaml", config)
    return bad


def main(argv) -> int:
    d, kills, seed = Path(argv[0]), int(argv[1]), int(argv[2])
    torch.set_num_threads(1)
    model = tiny_model()
    (d / "games").mkdir(parents=True, exist_ok=True)
    write_round(model, d, 1)
    rng = random.Random(seed)
    t0 = time.perf_counter()
    write_round(model, d, 2)
    round_s = time.perf_counter() - t0
    broken = []
    for k in range(kills):
        pid = os.fork()
        if pid == 0:  # the writer: rewrites everything until killed
            n = 3 + 97 * k % 300
            while True:
                write_round(model, d, n)
                n = 3 + (n + 41) % 300
        time.sleep(rng.uniform(0.2, 1.0) * round_s * 3)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        broken += [f"kill {k}: {b}" for b in broken_files(d)]
    print(json.dumps({"kills": kills, "broken": broken, "round_s": round_s}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
