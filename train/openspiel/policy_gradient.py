"""Self-play with OpenSpiel's PyTorch policy-gradient learner on ``python_trappola``.

    python -m trappola.train.openspiel.policy_gradient --minutes 20 --out runs/openspiel/pg.pt
    trappola evaluate --players openspiel:runs/openspiel/pg.pt,rule --deals 200 --duplicate

One ``open_spiel.python.pytorch.policy_gradient.PolicyGradient`` agent per
seat (0 = challenger, 1 = dealer; ``--loss`` a2c, rpg, qpg, rm or neurd)
plays against the other through OpenSpiel's ``rl_environment`` over the
game, whose information-state tensor is the environments' observation
vector. Training stops after ``--minutes`` (or ``--episodes``), with a
progress line every ``--report`` seconds: episodes, their rate, the mean
return of each seat over the last episodes, the learners' last losses. The
two policy networks are written to ``--out`` (atomically, also every
``--save-every`` seconds), with what it takes to rebuild them:
``{"format", "game", "params", "info_state_size", "num_actions",
"hidden", "loss", "episodes", "seconds", "networks": [seat 0, seat 1]}``
(torch state dicts of ``nn.Sequential(MLPTorso, Linear)``, the learner's
``policy_logits_network``). The ``openspiel`` player reads it.
"""

from __future__ import annotations

import argparse
import collections
import io
import random
import sys
import time

import numpy as np
import pyspiel
import torch
from open_spiel.python import rl_environment
from open_spiel.python.pytorch.policy_gradient import PolicyGradient

import trappola_env.openspiel  # noqa: F401  (registers the games)
from trappola_env.atomic_file import check_can_write, describe_os_error, write_bytes

FORMAT = "trappola-openspiel-policy/1"
LOSSES = ("a2c", "rpg", "qpg", "rm", "neurd")


def export(agents, path, params: dict, hidden, loss: str, episodes: int, seconds: float) -> None:
    """Write the agents' policy networks to ``path`` (see the module docstring)."""
    payload = {
        "format": FORMAT,
        "game": "python_trappola",
        "params": params,
        "info_state_size": agents[0]._net_torso._layers[0][0].in_features,
        "num_actions": agents[0]._num_actions,
        "hidden": list(hidden),
        "loss": loss,
        "episodes": episodes,
        "seconds": round(seconds, 1),
        "networks": [a.policy_logits_network.state_dict() for a in agents],
    }
    buf = io.BytesIO()
    torch.save(payload, buf)
    write_bytes(path, buf.getvalue())


def train(args) -> dict:
    """Run the self-play loop; returns the last progress figures."""
    # One thread: the networks are small, and torch's thread pool on a busy machine runs ten times slower.
    torch.set_num_threads(args.threads)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    params = {"reward_mode": args.reward_mode}
    game = pyspiel.load_game("python_trappola", params)
    env = rl_environment.Environment(game, chance_event_sampler=rl_environment.ChanceEventSampler(seed=args.seed))
    size = env.observation_spec()["info_state"][0]
    n_actions = env.action_spec()["num_actions"]
    hidden = tuple(args.hidden)
    agents = [
        PolicyGradient(
            p,
            size,
            n_actions,
            loss_str=args.loss,
            hidden_layers_sizes=hidden,
            batch_size=args.batch_size,
            critic_learning_rate=args.critic_lr,
            pi_learning_rate=args.pi_lr,
            entropy_cost=args.entropy,
            num_critic_before_pi=args.critic_before_pi,
            optimizer_str="adam",
        )
        for p in (0, 1)
    ]
    limit = args.minutes * 60.0
    start = last_report = last_save = time.monotonic()
    recent: collections.deque[list[float]] = collections.deque(maxlen=1000)
    episodes = 0
    figures: dict = {}
    while True:
        now = time.monotonic()
        if now - start >= limit or (args.episodes and episodes >= args.episodes):
            break
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            time_step = env.step([agents[player].step(time_step).action])
        for agent in agents:
            agent.step(time_step)
        recent.append(time_step.rewards)
        episodes += 1
        if now - last_report >= args.report:
            last_report = now
            means = np.mean(recent, axis=0)
            figures = {"episodes": episodes, "seconds": now - start, "mean_return": means.tolist()}
            losses = ", ".join(f"{a.loss[1]:.3f}" if a.loss is not None else "-" for a in agents)
            print(
                f"pg {args.loss}: {episodes} episodes, {now - start:.0f}/{limit:.0f} s, "
                f"{episodes / max(now - start, 1e-9):.1f} ep/s, mean return (last {len(recent)}) "
                f"challenger {means[0]:+.3f} dealer {means[1]:+.3f}, pi losses {losses}",
                file=sys.stderr,
                flush=True,
            )
        if now - last_save >= args.save_every:
            last_save = now
            export(agents, args.out, params, hidden, args.loss, episodes, now - start)
    export(agents, args.out, params, hidden, args.loss, episodes, time.monotonic() - start)
    figures.update(episodes=episodes, seconds=time.monotonic() - start)
    return figures


def build_parser() -> argparse.ArgumentParser:
    """The command line (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="where to write the policy networks (.pt)")
    ap.add_argument("--minutes", type=float, default=20.0, help="time limit (default 20)")
    ap.add_argument("--episodes", type=int, default=0, help="stop after this many episodes too (0: no limit)")
    ap.add_argument("--loss", choices=LOSSES, default="a2c")
    ap.add_argument("--reward-mode", choices=("win", "points"), default="win")
    ap.add_argument("--hidden", type=int, nargs="+", default=[256, 128])
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--critic-lr", type=float, default=1e-3)
    ap.add_argument("--pi-lr", type=float, default=3e-4)
    ap.add_argument("--entropy", type=float, default=0.01)
    ap.add_argument("--critic-before-pi", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    ap.add_argument("--report", type=float, default=30.0, help="seconds between progress lines")
    ap.add_argument("--save-every", type=float, default=300.0, help="seconds between saves")
    return ap


def main(argv=None) -> int:
    """Entry point; bad arguments: one line and exit status 2."""
    ap = build_parser()
    args = ap.parse_args(argv)
    try:
        if not args.minutes > 0 or args.episodes < 0 or args.batch_size < 1 or min(args.hidden) < 1 or args.threads < 1:
            raise ValueError(
                "--minutes must be > 0, --episodes >= 0, --batch-size, --hidden and --threads >= 1; got "
                f"minutes={args.minutes}, episodes={args.episodes}, batch_size={args.batch_size}, "
                f"hidden={args.hidden}, threads={args.threads}"
            )
        check_can_write(args.out)
    except (ValueError, OSError) as e:
        msg = describe_os_error(e) if isinstance(e, OSError) else str(e)
        print(f"error: {msg}", file=sys.stderr)
        return 2
    figures = train(args)
    print(f"wrote {args.out} after {figures['episodes']} episodes in {figures['seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
