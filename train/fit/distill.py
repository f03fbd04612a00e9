"""Search in the training loop: DAgger, the network imitating the search on its own states.

Each round plays ``deals`` deals of the current network (greedy, the
``policy:endgame=0`` player of the current weights) against ``opponent``; at
every decision of the network with a choice, the ``expert`` (a search player,
``pimc:samples=32`` by default) is asked what it would do in the network's
seat, and the observation, the legal mask and the expert's action are kept.
The states are the learner's own (DAgger: Ross, Gordon and Bagnell 2011), so
the labels cover the positions the network reaches, not the expert's. The
rows of all rounds so far are pooled, and the actor is fitted to them by masked
cross-entropy from its current weights (``trappola.train.fit.opponent_model.fit``, with
its held-out share); the next round plays the new weights.

    python -m trappola.train.fit.distill --rounds 2 --deals 500 --out runs/distill/model.zip
    trappola evaluate --players policy:runs/distill/model.zip,endgame=0,pimc:samples=32 --deals 300 --duplicate

The file is a checkpoint like the shipped one, with the run in its
metadata (``distill``: the rounds' rows and held-out figures).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

from trappola.agents import make_player
from trappola.agents.evaluation.seeding import derive_seed
from trappola.agents.model_io.checkpoint_format import load_state_dict, read_metadata
from trappola.agents.model_io.model_files import DEFAULT_MODEL, resolve_model_path
from trappola.agents.model_io.numpy_policy import NumpyPolicy
from trappola.agents.players.policy import PolicyPlayer
from trappola.train.fit.opponent_model import fit, write_model
from trappola_env.engine import random_deal
from trappola_env.interface import TurnView
from trappola_env.observation import OBS_SIZE, encode
from trappola_env.referee import play_partie
from trappola_env.trappola_v0 import mask_array


def collect_round(state: dict, activation: str, expert_spec: str, opponent_spec: str, deals: int, seed: int) -> dict:
    """The network of ``state`` plays ``deals`` deals against the opponent,
    in both seats; at each of its decisions with a choice the expert's
    action in its place is recorded (``obs``, ``mask``, ``action``)."""
    learner = PolicyPlayer.from_numpy(NumpyPolicy.from_state_dict(state, activation), name="learner")
    expert, opponent = make_player(expert_spec), make_player(opponent_spec)
    obs, masks, actions = [], [], []
    for i in range(deals):
        deal = random_deal(random.Random(derive_seed(seed, "distill-deal", i)))
        for seat in (0, 1):
            for k, pl in enumerate((learner, expert, opponent)):
                pl.reset(derive_seed(seed, "distill-player", i, seat, k))

            def on_decision(p, to_act, action, seat=seat):
                mask = p.legal_mask()
                if to_act == seat and mask & (mask - 1):  # the expert in the learner's place
                    obs.append(encode(p, seat))
                    masks.append(mask_array(mask).astype(bool))
                    actions.append(expert.act(TurnView(p.info_state(seat))))

            play_partie((learner, opponent) if seat == 0 else (opponent, learner), deal, on_decision=on_decision)
    return {
        "obs": np.array(obs, np.float32).reshape(-1, OBS_SIZE),
        "mask": np.array(masks, bool).reshape(-1, 49),
        "action": np.array(actions, np.int64),
    }


def main(argv=None) -> int:
    """The command line of the module docstring; returns the exit status."""
    ap = argparse.ArgumentParser(prog="python -m trappola.train.fit.distill", description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default=DEFAULT_MODEL, help="the checkpoint to start from (default: the shipped one)")
    ap.add_argument("--expert", default="pimc:samples=32")
    ap.add_argument("--opponent", default="pimc:samples=32")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--deals", type=int, default=500, help="deals per round, each played in both seats")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--learning-rate", type=float, default=1e-4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.deals < 1 or args.epochs < 1 or not args.learning_rate > 0:
        ap.error("--rounds, --deals and --epochs must be >= 1, --learning-rate > 0")
    base = resolve_model_path(args.base)
    try:
        meta = read_metadata(base)
        state = load_state_dict(base)
        make_player(args.expert), make_player(args.opponent)
    except ValueError as e:
        ap.error(str(e))
    activation = meta.get("policy_arch", {}).get("activation", "relu")
    pooled: dict = {}
    rounds = []
    t0 = time.time()
    for r in range(args.rounds):
        data = collect_round(
            state, activation, args.expert, args.opponent, args.deals, derive_seed(args.seed, "distill-round", r)
        )
        pooled = data if not pooled else {k: np.concatenate([pooled[k], data[k]]) for k in data}
        print(
            f"round {r + 1}/{args.rounds}: {len(data['action']):,} decisions labelled by {args.expert} "
            f"({len(pooled['action']):,} pooled, {time.time() - t0:.0f} s)",
            flush=True,
        )
        state, report = fit(state, pooled, args.epochs, learning_rate=args.learning_rate, seed=args.seed + r)
        rounds.append({"rows": len(data["action"]), **report})
    meta = {
        **meta,
        "distill": {
            "base": args.base,
            "expert": args.expert,
            "opponent": args.opponent,
            "deals_per_round": args.deals,
            "epochs": args.epochs,
            "seed": args.seed,
            "learning_rate": args.learning_rate,
            "rounds": rounds,
            "minutes": round((time.time() - t0) / 60, 1),
        },
    }
    meta.pop("opponent_model", None)
    write_model(base, state, meta, Path(args.out))
    print(
        f"wrote {args.out}: agreement with {args.expert} on held-out decisions "
        f"{rounds[0]['acc_before']:.3f} -> {rounds[-1]['acc_after']:.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
