"""OpenSpiel's own algorithms on ``python_trappola``, untouched, and the
loop to play OpenSpiel bots against each other on it.

Run:  nice -n 10 .venv/bin/python benchmarks/openspiel_algorithms.py [--mccfr-iterations 200]
          [--dqn-episodes 200] [--games 20] [--seed 0]

Nothing here is the lab's code: the game is registered by ``import
trappola_env.openspiel`` and everything else is OpenSpiel's.

1. Outcome-sampling MCCFR (Lanctot et al. 2009,
   ``open_spiel.python.algorithms.outcome_sampling_mccfr``) for
   ``--mccfr-iterations`` iterations; its average policy (uniform at the
   information states it never visited: nearly all, as the challenger's
   first move alone has C(36, 9) * 27 = 2.5e9) then plays ``--games`` games against a uniform random bot.
2. DQN (``open_spiel.python.pytorch.dqn``) for both seats in self-play
   through ``rl_environment`` for ``--dqn-episodes`` episodes; its greedy
   policy then plays ``--games`` games against a uniform random bot.
3. OpenSpiel's ``ISMCTSBot`` against a uniform random bot for ``--games``
   games (30 simulations a move), its layouts drawn by the game's own
   ``resample_from_infostate``.

Games are played by ``play_bots``: OpenSpiel's ``evaluate_bots`` without
its opening ``restart_at`` call, which ``ISMCTSBot`` (like most Python bots)
does not implement ("RestartAt not implemented"). Printed: per algorithm,
its training size and the mean return of its seat ("win" returns: +1, -1,
0) over the games, half played in each seat. These are smoke runs of a
few seconds, not strength measurements: at these sizes no learner here is
expected to beat random play.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np
import pyspiel
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import ismcts, mcts, outcome_sampling_mccfr
from open_spiel.python.bots.policy import PolicyBot

import trappola_env.openspiel  # noqa: F401  (registers python_trappola)


def play_bots(game, bots: Sequence[pyspiel.Bot], rng: np.random.RandomState) -> list[float]:
    """One game between ``bots`` (one per seat): chance outcomes drawn with
    ``rng``, each bot told every action it did not choose, as OpenSpiel's
    ``evaluate_bots`` does, but without ``restart_at``. Returns the returns."""
    for bot in bots:
        bot.restart()
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            action = int(rng.choice(outcomes, p=probs))
            acting = int(pyspiel.PlayerId.CHANCE)
        else:
            acting = state.current_player()
            action = bots[acting].step(state)
        for seat, bot in enumerate(bots):
            if seat != acting:
                bot.inform_action(state, acting, action)
        state.apply_action(action)
    return state.returns()


def mean_return(game, make_bot, games: int, seed: int) -> float:
    """Mean return of ``make_bot(seat)`` against a uniform random bot over
    ``games`` games, alternating seats."""
    rng = np.random.RandomState(seed)
    total = 0.0
    for g in range(games):
        seat = g % 2
        bots = [make_bot(seat), pyspiel.make_uniform_random_bot(1 - seat, seed + g)]
        total += play_bots(game, bots if seat == 0 else bots[::-1], rng)[seat]
    return total / games


class GreedyDQNBot(pyspiel.Bot):
    """A trained DQN agent's greedy move, from the information-state tensor."""

    def __init__(self, agent, player_id: int):
        super().__init__()
        self.agent, self.player_id = agent, player_id

    def step(self, state):
        info = state.information_state_tensor(self.player_id)
        legal = state.legal_actions(self.player_id)
        return int(self.agent.act_epsilon_greedy(info, legal, 0.0)[0])


def run_mccfr(game, iterations: int, games: int, seed: int) -> tuple[int, float]:
    """Outcome-sampling MCCFR: (information states visited, mean return vs random)."""
    np.random.seed(seed)  # the solver samples with numpy's global generator
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(iterations):
        solver.iteration()
    policy = solver.average_policy()
    rng = np.random.RandomState(seed)
    return len(solver._infostates), mean_return(game, lambda seat: PolicyBot(seat, rng, policy), games, seed)


def run_dqn(game, episodes: int, games: int, seed: int) -> tuple[int, float]:
    """DQN in self-play: (environment steps, mean return vs random)."""
    from open_spiel.python.pytorch import dqn

    env = rl_environment.Environment(game)
    size = env.observation_spec()["info_state"][0]
    agents = [
        dqn.DQN(
            player_id=p,
            state_representation_size=size,
            num_actions=env.action_spec()["num_actions"],
            hidden_layers_sizes=(64,),
            replay_buffer_capacity=10_000,
            batch_size=32,
            min_buffer_size_to_learn=64,
            learn_every=4,
            epsilon_decay_duration=max(1, 20 * episodes),
            seed=seed + p,
        )
        for p in range(2)
    ]
    steps = 0
    for _ in range(episodes):
        time_step = env.reset()
        while not time_step.last():
            p = time_step.observations["current_player"]
            time_step = env.step([agents[p].step(time_step).action])
            steps += 1
        for agent in agents:
            agent.step(time_step)
    return steps, mean_return(game, lambda seat: GreedyDQNBot(agents[seat], seat), games, seed)


def run_ismcts(game, games: int, seed: int) -> float:
    """ISMCTS (30 simulations, random rollouts): mean return vs random."""

    def make(seat: int) -> pyspiel.Bot:
        evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed + seat))
        return ismcts.ISMCTSBot(game, evaluator, 2.0, 30, random_state=np.random.RandomState(seed + seat))

    return mean_return(game, make, games, seed)


def main(argv: list[str] | None = None) -> int:
    """Run the three algorithms and print one line each."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mccfr-iterations", type=int, default=200)
    ap.add_argument("--dqn-episodes", type=int, default=200)
    ap.add_argument("--games", type=int, default=20, help="games against the random bot per algorithm")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    game = pyspiel.load_game("python_trappola")
    states, mccfr_return = run_mccfr(game, args.mccfr_iterations, args.games, args.seed)
    print(
        f"outcome-sampling MCCFR: {args.mccfr_iterations} iterations, {states} information states visited, "
        f"mean return vs random {mccfr_return:+.3f} over {args.games} games"
    )
    steps, dqn_return = run_dqn(game, args.dqn_episodes, args.games, args.seed)
    print(
        f"DQN (PyTorch) self-play: {args.dqn_episodes} episodes, {steps} steps, "
        f"mean return vs random {dqn_return:+.3f} over {args.games} games"
    )
    print(
        f"ISMCTSBot (30 simulations): mean return vs random {run_ismcts(game, args.games, args.seed):+.3f} "
        f"over {args.games} games"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
