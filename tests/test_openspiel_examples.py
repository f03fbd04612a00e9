"""OpenSpiel's own algorithms on ``python_trappola`` (benchmarks/openspiel_algorithms.py):
outcome-sampling MCCFR, DQN and ISMCTSBot run a few iterations on the game untouched, and the
loop that replaces ``evaluate_bots`` plays whole games."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel")

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "openspiel_algorithms.py"


def test_mccfr_dqn_and_ismcts_run_a_few_iterations_in_a_process_of_their_own():
    cmd = [sys.executable, str(SCRIPT), "--mccfr-iterations", "5", "--dqn-episodes", "5", "--games", "2"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "outcome-sampling MCCFR",
        "DQN (PyTorch) self-play",
        "ISMCTSBot (30 simulations)",
    ]
    assert "5 iterations" in lines[0] and "5 episodes" in lines[1]


def test_evaluate_bots_fails_on_ismcts_where_the_loop_without_restart_at_plays():
    # OpenSpiel's own evaluate_bots calls restart_at, which ISMCTSBot does not implement; the
    # docs say so and show the loop instead.
    import numpy as np
    from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts

    import trappola_env.openspiel  # noqa: F401

    sys.path.insert(0, str(SCRIPT.parent))
    try:
        from openspiel_algorithms import play_bots
    finally:
        sys.path.remove(str(SCRIPT.parent))
    game = pyspiel.load_game("python_trappola")
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), 2.0, 10)
    rand = pyspiel.make_uniform_random_bot(1, 0)
    with pytest.raises(Exception, match="RestartAt"):
        evaluate_bots.evaluate_bots(game.new_initial_state(), [bot, rand], np.random.RandomState(0))
    returns = play_bots(game, [bot, rand], np.random.RandomState(0))
    assert returns in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])
