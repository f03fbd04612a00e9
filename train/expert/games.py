"""Games of a round: the network plays itself, the search labels every decision.

Each deal is played twice, seats swapped, by the current network sampling
its moves (so the states are the network's own, as in DAgger, and its moves
are on-policy for the policy-gradient term). At every decision with a
choice the expert search is asked, from the information state of the seat
to act:

* a card to play, when only cards are legal: the search's value of each
  legal card (``PimcPlayer.card_values``: the mean of its objective over the
  layouts it solves), the *action values* ``q``; the *improved policy* is
  ``pi'(a) ~ prior(a)^w * exp(q(a) / tau)`` over the legal cards, the
  closed form of maximising ``E_pi'[q] - tau * KL(pi' || prior^w)``: the
  network's prior guides the choice, the search's values move it;
* any other decision (declarations, Manko, Alifer, a first card beside a
  declaration): the search's own choice, as a one-hot target.

Every row keeps the observation, the legal mask, the history of the partie
as tokens (for a network that reads it), the prior, the target, the
search's choice, the network's move and, once the partie ends, its reward
from the mover's seat (``scale_reward``, the run's ``reward_mode`` and scales).
"""

from __future__ import annotations

import random
import signal

import numpy as np

from trappola.agents import make_player
from trappola.agents.evaluation.seeding import derive_seed
from trappola.agents.model_io.numpy_policy import NumpyPolicy
from trappola.agents.players.policy import PolicyPlayer
from trappola.train.selfplay.reward import ENV_REWARD_MODE, scale_reward
from trappola_env.engine import random_deal
from trappola_env.interface import TurnView
from trappola_env.observation import OBS_SIZE, encode
from trappola_env.referee import play_partie
from trappola_env.trappola_v0 import mask_array

N_ACTIONS = 49
_CARDS = (1 << 36) - 1
#: Tokens of the history: 0 pads; 1 + who * 49 + action, who 0 = the seat to act, 1 = its opponent.
HISTORY_TOKENS = 1 + 2 * N_ACTIONS
HISTORY_LENGTH = 64
#: The arrays of a round's labels, with their dtypes.
FIELDS = {
    "obs": np.float32,
    "mask": bool,
    "history": np.int16,
    "prior": np.float32,
    "target": np.float32,
    "q": np.float32,
    "expert_action": np.int64,
    "action": np.int64,
    "reward": np.float32,
    "deal": np.int64,
}


def history_tokens(history, seat: int) -> np.ndarray:
    """The last ``HISTORY_LENGTH`` actions of a partie's ``history`` ((seat,
    action) pairs) as tokens from ``seat``'s side, left-padded with 0."""
    out = np.zeros(HISTORY_LENGTH, np.int16)
    tail = history[-HISTORY_LENGTH:]
    for i, (who, action) in enumerate(tail):
        out[HISTORY_LENGTH - len(tail) + i] = 1 + (who != seat) * N_ACTIONS + action
    return out


def improved_policy(prior: np.ndarray, q: np.ndarray, legal: np.ndarray, tau: float, weight: float) -> np.ndarray:
    """``pi' ~ prior^weight * exp(q / tau)`` over ``legal`` (module docstring)."""
    with np.errstate(divide="ignore"):
        z = np.where(legal, weight * np.log(np.maximum(prior, 1e-12)) + q / tau, -np.inf)
    p = np.exp(z - z.max())
    return p / p.sum()


def _ignore_interrupt() -> None:
    # The stop signals are the trainer's to act on (trappola.train.run.interrupt): a Ctrl-C or a job's
    # SIGTERM may reach the whole process group, and the trainer stops the workers itself.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)


def play_deals(job: dict) -> dict:
    """Play and label the deals ``job["deals"]`` (indices; see the module
    docstring). ``job``: ``weights`` (``NumpyPolicy.get_weights()`` of the
    network), ``expert`` (a pimc spec, its opponent model included),
    ``tau``, ``prior_weight``, ``seed``, ``reward`` (``reward_mode``,
    ``points_scale``, ``tokens_scale``, ``points_weight``). Returns the rows, one array per
    ``FIELDS`` entry, plus ``seconds`` of search and ``parties``."""
    import time

    policy = NumpyPolicy.from_weights(job["weights"])
    network = PolicyPlayer.from_numpy(policy, name="network", sample=True)
    expert = make_player(job["expert"])
    rows: dict[str, list] = {k: [] for k in FIELDS}
    searched = 0.0
    for i in job["deals"]:
        deal = random_deal(random.Random(derive_seed(job["seed"], "expert-deal", i)))
        for swap in (0, 1):
            network.reset(derive_seed(job["seed"], "expert-network", i, swap))
            expert.reset(derive_seed(job["seed"], "expert-search", i, swap))
            start = len(rows["action"])
            movers: list[int] = []

            def on_decision(p, to_act, action, movers=movers, deal_index=i):
                mask = p.legal_mask()
                if not mask & (mask - 1):
                    return
                nonlocal searched
                t0 = time.perf_counter()
                info = p.info_state(to_act)
                obs = encode(p, to_act)
                legal = mask_array(mask).astype(bool)
                prior = policy.probabilities(obs[:OBS_SIZE], legal)
                q = np.zeros(N_ACTIONS, np.float32)
                if mask & ~_CARDS == 0:
                    values = expert.card_values(info)
                    for card, (objective, _sign, _points) in values.items():
                        q[card] = objective
                    target = improved_policy(prior, q, legal, job["tau"], job["prior_weight"])
                    choice = max(values, key=lambda c: (values[c][0], values[c][2], -c))
                else:
                    choice = expert.act(TurnView(info))
                    target = np.zeros(N_ACTIONS)
                    target[choice] = 1.0
                searched += time.perf_counter() - t0
                movers.append(to_act)
                for key, value in (
                    ("obs", obs[:OBS_SIZE]),
                    ("mask", legal),
                    ("history", history_tokens(p.history, to_act)),
                    ("prior", prior),
                    ("target", target),
                    ("q", q),
                    ("expert_action", choice),
                    ("action", action),
                    ("deal", deal_index),
                ):
                    rows[key].append(value)

            record = play_partie((network, network), deal, on_decision=on_decision)
            result = record.result
            for seat in movers:
                rows["reward"].append(seat_reward(result, seat, *job["reward"]))
            assert len(rows["reward"]) == len(rows["action"]) == start + len(movers)
    out = {k: np.array(rows[k], dtype) if rows[k] else empty(k) for k, dtype in FIELDS.items()}
    out["seconds"] = np.array(searched)
    out["parties"] = np.array(2 * len(job["deals"]))
    return out


def empty(key: str) -> np.ndarray:
    """No rows of ``FIELDS[key]``, in its shape."""
    width = {
        "obs": OBS_SIZE,
        "mask": N_ACTIONS,
        "history": HISTORY_LENGTH,
        "prior": N_ACTIONS,
        "target": N_ACTIONS,
        "q": N_ACTIONS,
    }.get(key)
    return np.zeros((0, width) if width else (0,), FIELDS[key])


def seat_reward(
    result, seat: int, mode: str = "mixed", points_scale: float = 60.0, tokens_scale: float = 30.0, weight: float = 0.5
) -> float:
    """The training reward of ``seat`` in a settled partie ``result``
    (``scale_reward``; the default, ``mixed``: the win, and half the points
    difference over 60)."""
    diff = result.scores[seat].total - result.scores[1 - seat].total
    outcome = "alifer" if result.winner is None else "win" if result.winner == seat else "loss"
    env = {
        "points": float(diff),
        "win": {"win": 1.0, "loss": -1.0}.get(outcome, 0.0),
        "tokens": float(result.tokens[seat]),
    }
    return scale_reward(env[ENV_REWARD_MODE[mode]], outcome, mode, points_scale, tokens_scale, weight)


def initializer() -> None:
    """Worker start: leave Ctrl-C to the trainer."""
    _ignore_interrupt()
