"""Train the belief model (``trappola.agents.search.belief``): where the opponent's cards are.

    python -m trappola.train.fit.belief_fit --workers 2 --out runs/model/belief.npz

1. **Collect.** Deals are played straight on the engine by the pairs of
   ``--pairs`` (deal ``i`` by pair ``i % len(pairs)``, seats alternating).
   At every turn in which a seat chooses among two or more cards, the row
   records that seat's ``trappola_v0`` observation, the opponent's true
   hand, and the *uniform posterior*: the chance of each card being in that
   hand if every layout consistent with the record were equally likely
   (``trappola.agents.search.sampling``: 1 for a card it must hold, ``k / n`` within a group
   of ``n`` candidates of which it holds ``k``, 0 for the rest). Both seats'
   turns are recorded, so each pair teaches how both of its players play.
2. **Fit.** An MLP from the observation to 36 log-odds *added to the
   uniform posterior's*, trained with binary cross-entropy on the cards the
   record leaves open (uniform posterior strictly between 0 and 1); the
   other cards never differ between the layouts the model weighs. The
   network learns only what play reveals beyond the record: the uniform
   posterior's log-odds are the same for every card of one group, and each
   layout holds the same number of cards of each group, so they cancel out of
   the layout weights and ``pimc`` never needs them. The last
   ``--val-share`` of the deals is held out.
3. **Report.** On the held-out rows, the cross-entropy per open card of the
   model and of the uniform posterior (what ``pimc`` assumes), and the mean
   probability each gives the cards the opponent really holds.

The data depend on ``--seed`` only (fixed chunks with their own seeds, any
number of workers); the fit is seeded too. The model's ``meta`` records how it was made, and
``model_sha256`` the hash of every checkpoint among the players whose games it was fitted on, so a
``policy`` with another checkpoint is warned (``trappola.agents.evaluation.players.belief_warning``).
``--save-data`` keeps the rows (``.npz``) and ``--data`` fits on saved rows instead of playing again.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from trappola.agents import make_player, split_player_list
from trappola.agents.evaluation.backend_choice import make_backend
from trappola.agents.evaluation.progress import progress_bar
from trappola.agents.evaluation.seeding import derive_seed
from trappola.agents.search.belief import BeliefModel
from trappola.agents.search.sampling import constraints_of
from trappola_env.atomic_file import atomic_write
from trappola_env.engine import random_deal
from trappola_env.engine.actions import CARD_ACTIONS
from trappola_env.observation import OBS_SIZE, encode
from trappola_env.referee import play_partie

DEFAULT_PAIRS = ("policy:endgame=0,pimc:samples=8", "policy:endgame=0,rule", "pimc:samples=8,rule")
CHUNK = 100  # deals per task: fixed, so that the data do not depend on the number of workers


def uniform_posterior(info) -> np.ndarray:
    """Per card, its chance of being in the opponent's hand when every
    layout the record allows is equally likely (the bounds of
    ``first_chance`` are not used)."""
    cons = constraints_of(info)
    p = np.zeros(36, np.float32)
    for c in range(36):
        if cons.forced >> c & 1:
            p[c] = 1.0
    for cards, k in cons.groups:
        n = cards.bit_count()
        if n and k:
            for c in range(36):
                if cards >> c & 1:
                    p[c] = k / n
    return p


def _collect_chunk(task) -> dict:
    pairs, start, stop, seed = task
    players = {}
    rows: dict[str, list[Any]] = {"obs": [], "hand": [], "prior": [], "deal": [], "opponent": []}
    buf = np.empty(OBS_SIZE, np.float32)
    for i in range(start, stop):
        pair_index = i % len(pairs)
        specs = pairs[pair_index]
        seated = [specs[(i // len(pairs)) % 2], specs[1 - (i // len(pairs)) % 2]]
        ps = []
        for seat, spec in enumerate(seated):
            key = (spec, seat)
            if key not in players:
                players[key] = make_player(spec)
            p = players[key]
            p.reset(derive_seed(seed, "player", i, seat))
            ps.append(p)

        def on_decision(partie, seat, action, i=i, seated=seated):
            cards = partie.legal_mask() & CARD_ACTIONS
            if cards & (cards - 1):
                rows["obs"].append(encode(partie, seat, buf).astype(np.float16))
                opp = partie.hands[1 - seat]
                rows["hand"].append(np.array([(opp >> c) & 1 for c in range(36)], np.bool_))
                rows["prior"].append(uniform_posterior(partie.info_state(seat)))
                rows["deal"].append(i)
                rows["opponent"].append(seated[1 - seat])

        play_partie(ps, random_deal(random.Random(derive_seed(seed, "deal", i))), on_decision=on_decision)
    rows["n_deals"] = stop - start
    return rows


def collect(pairs, n_deals: int, seed: int, workers: int = 1, progress: bool = True) -> dict:
    """Rows of every card choice in ``n_deals`` deals (see the module docstring)."""
    pairs = [tuple(p) for p in pairs]
    tasks = [(pairs, s, min(s + CHUNK, n_deals), seed) for s in range(0, n_deals, CHUNK)]
    bar = progress_bar("auto" if progress else False, n_deals, "belief data", "deal")
    backend = make_backend(workers)
    try:
        parts = backend.map(_collect_chunk, tasks, progress=(lambda part: bar.update(part["n_deals"])) if bar else None)
    finally:
        if bar:
            bar.close()
        backend.close()
    return {k: np.array([x for part in parts for x in part[k]]) for k in ("obs", "hand", "prior", "deal", "opponent")}


def _bce(logits: np.ndarray, target: np.ndarray, open_: np.ndarray) -> float:
    z = logits.astype(np.float64)
    loss = np.maximum(z, 0) - z * target + np.log1p(np.exp(-np.abs(z)))
    return float((loss * open_).sum() / open_.sum())


def _prior_logit(prior: np.ndarray) -> np.ndarray:
    q = np.clip(prior.astype(np.float64), 1e-6, 1 - 1e-6)
    return np.log(q / (1 - q))


def evaluate(model: BeliefModel, data: dict, rows: np.ndarray) -> dict:
    """Cross-entropy per open card and the mean probability given to the
    cards really held, for the model (its log-odds added to the uniform
    posterior's) and the uniform posterior alone."""
    obs = data["obs"][rows].astype(np.float32)
    hand = data["hand"][rows].astype(np.float64)
    prior = data["prior"][rows].astype(np.float64)
    open_ = (prior > 0) & (prior < 1)
    base = _prior_logit(prior)
    z = base + np.concatenate([model.log_odds(obs[i : i + 4096]) for i in range(0, len(obs), 4096)])
    held = open_ & (hand > 0)
    return {
        "rows": int(len(rows)),
        "bce_model": _bce(z, hand, open_),
        "bce_uniform": _bce(base, hand, open_),
        "p_held_model": float((1 / (1 + np.exp(-z)))[held].mean()),
        "p_held_uniform": float(prior[held].mean()),
    }


def held_out(deals: np.ndarray, val_share: float) -> np.ndarray:
    """Which rows belong to the last ``val_share`` of the deals (fit and report share it)."""
    if val_share <= 0:
        return np.zeros(len(deals), bool)
    return deals >= np.quantile(np.unique(deals), 1 - val_share)


def fit(
    data: dict,
    hidden=(256, 256),
    epochs: int = 8,
    batch_size: int = 1024,
    learning_rate: float = 1e-3,
    val_share: float = 0.1,
    seed: int = 0,
    log=print,
) -> tuple[BeliefModel, dict]:
    """Fit the MLP on the first deals, report on the held-out last ones."""
    import torch

    torch.manual_seed(seed)
    deals = data["deal"]
    held = held_out(deals, val_share)
    train_rows, val_rows = np.flatnonzero(~held), np.flatnonzero(held)
    if not len(train_rows):
        raise ValueError("no training rows: collect more deals or lower --val-share")
    sizes = [OBS_SIZE, *hidden, 36]
    mods = []
    for a, b in itertools.pairwise(sizes):
        mods += [torch.nn.Linear(a, b), torch.nn.ReLU()]
    net = torch.nn.Sequential(*mods[:-1])
    opt = torch.optim.Adam(net.parameters(), lr=learning_rate)
    obs = torch.from_numpy(data["obs"][train_rows].astype(np.float32))
    hand = torch.from_numpy(data["hand"][train_rows].astype(np.float32))
    prior = data["prior"][train_rows]
    open_ = torch.from_numpy(((prior > 0) & (prior < 1)).astype(np.float32))
    base = torch.from_numpy(_prior_logit(prior).astype(np.float32))
    gen = torch.Generator().manual_seed(seed)
    steps = epochs * math.ceil(len(train_rows) / batch_size)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)

    def model_now() -> BeliefModel:
        lin = [m for m in net if isinstance(m, torch.nn.Linear)]
        return BeliefModel([(m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy()) for m in lin])

    for epoch in range(epochs):
        order = torch.randperm(len(train_rows), generator=gen)
        total = 0.0
        for i in range(0, len(order), batch_size):
            idx = order[i : i + batch_size]
            z = base[idx] + net(obs[idx])
            loss = (
                torch.nn.functional.binary_cross_entropy_with_logits(z, hand[idx], reduction="none") * open_[idx]
            ).sum() / open_[idx].sum().clamp(min=1)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        msg = f"epoch {epoch + 1}/{epochs}: train cross-entropy {total / len(order):.4f}"
        if len(val_rows):
            msg += f", held out {evaluate(model_now(), data, val_rows)['bce_model']:.4f}"
        log(msg)
    model = model_now()
    report = evaluate(model, data, val_rows) if len(val_rows) else {}
    return model, report


def save_rows(path, data: dict, pairs, deals: int, seed: int) -> None:
    """Write collected rows and how they were made (``--save-data``) to ``path``."""
    with atomic_write(path, "wb") as f:
        np.savez(
            f, meta=np.array(json.dumps({"pairs": [list(p) for p in pairs], "deals": deals, "seed": seed})), **data
        )


def load_rows(path) -> dict:
    """Rows written by ``save_rows``, with their ``pairs``, ``deals`` and ``seed``;
    ``ValueError`` if not such a file."""
    try:
        with np.load(path, allow_pickle=False) as z:
            out = {k: z[k] for k in ("obs", "hand", "prior", "deal", "opponent")}
            meta = json.loads(str(z["meta"]))
    except (OSError, KeyError, ValueError) as e:
        raise ValueError(f"{path!r} is not a file of belief rows (--save-data): {e}") from None
    out["pairs"] = [tuple(p) for p in meta["pairs"]]
    out["deals"], out["seed"] = meta["deals"], meta["seed"]
    return out


def fitted_models(pairs) -> dict[str, str]:
    """``{spec: sha256}`` of every model file the players of ``pairs`` play (``policy``'s checkpoint),
    recorded in the belief's meta so that a player using the belief can tell whether it was fitted on
    its own model's games (``trappola.agents.evaluation.players.belief_warning``)."""
    from trappola.agents.evaluation.players import describe_player

    out = {}
    for spec in sorted({s for p in pairs for s in p}):
        for f in describe_player(spec)["files"]:
            if f["role"] == "model" and f["sha256"]:
                out[spec] = f["sha256"]
    return out


def parse_pairs(text: str) -> list[tuple[str, str]]:
    """``"A,B;C,D"`` into player pairs; each side is a registry spec, which
    may hold commas of its own (``split_player_list``)."""
    pairs = []
    for part in text.split(";"):
        specs = split_player_list(part)
        if len(specs) != 2:
            raise ValueError(f"a pair is two players 'A,B', got {part!r}")
        pairs.append((specs[0], specs[1]))
    return pairs


def main(argv=None) -> int:
    """The command line of the module docstring; returns the exit status."""
    ap = argparse.ArgumentParser(prog="python -m trappola.train.fit.belief_fit", description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=60000, help="deals to play (default 60000)")
    ap.add_argument(
        "--pairs",
        default=";".join(DEFAULT_PAIRS),
        help=f"';'-separated 'A,B' player pairs that play the deals in turn (default {';'.join(DEFAULT_PAIRS)!r})",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1, help="processes playing the deals")
    ap.add_argument("--epochs", type=int, default=3, help="passes over the data (default 3: more overfit)")
    ap.add_argument("--hidden", default="256,256", help="hidden layer sizes (default 256,256)")
    ap.add_argument("--val-share", type=float, default=0.1, help="last share of the deals held out (default 0.1)")
    ap.add_argument("--out", required=True, help="the .npz to write")
    ap.add_argument("--save-data", help="also write the collected rows to this .npz")
    ap.add_argument(
        "--data",
        help="fit on rows written by --save-data instead of playing "
        "(--deals, --pairs and --seed are then read from the file)",
    )
    args = ap.parse_args(argv)
    if args.deals < 1:
        ap.error("--deals must be at least 1")
    if not 0 <= args.val_share < 1:
        ap.error("--val-share must be in [0, 1)")
    try:
        pairs = parse_pairs(args.pairs)
        hidden = tuple(int(h) for h in args.hidden.split(",") if h.strip())
        for pair in pairs:  # a bad spec fails now, not in a worker after minutes
            for spec in pair:
                make_player(spec)
    except ValueError as e:
        ap.error(str(e))
    t0 = time.time()
    if args.data:
        try:
            data = load_rows(args.data)
        except ValueError as e:
            ap.error(str(e))
        pairs, args.deals, args.seed = data.pop("pairs"), data.pop("deals"), data.pop("seed")
        print(f"read {len(data['deal'])} card choices from {args.data}")
    else:
        data = collect(pairs, args.deals, args.seed, workers=args.workers)
        print(
            f"collected {len(data['deal'])} card choices from {args.deals} deals in {(time.time() - t0) / 60:.1f} min"
        )
        if args.save_data:
            save_rows(args.save_data, data, pairs, args.deals, args.seed)
    model, report = fit(data, hidden=hidden, epochs=args.epochs, val_share=args.val_share, seed=args.seed)
    held = held_out(data["deal"], args.val_share)
    by_opponent = (
        {
            str(opp): evaluate(model, data, np.flatnonzero(held & (data["opponent"] == opp)))
            for opp in sorted(set(data["opponent"]))
        }
        if held.any()
        else {}
    )
    model.meta = {
        "pairs": [list(p) for p in pairs],
        "model_sha256": fitted_models(pairs),
        "deals": args.deals,
        "seed": args.seed,
        "hidden": list(hidden),
        "epochs": args.epochs,
        "val_share": args.val_share,
        "rows": int(len(data["deal"])),
        "held_out": report,
        "held_out_by_opponent": by_opponent,
        "minutes": round((time.time() - t0) / 60, 1),
        "command": "python -m trappola.train.fit.belief_fit " + " ".join(argv if argv is not None else sys.argv[1:]),
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(out)
    print(json.dumps({"held_out": report, "held_out_by_opponent": by_opponent}, indent=2))
    print(f"wrote {out} ({model.meta['minutes']} min in all)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
