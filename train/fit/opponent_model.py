"""An opponent model for ``pimc:infer=PATH``: a network that imitates a player.

Policy-based inference (``trappola.agents.search.inference``) weighs each layout by how likely
the opponent's decisions were under a model of the opponent. The shipped
network models the shipped network well, and other players badly: it is sure
of moves that ``pimc`` or ``rule`` would not make, and then rules out their
true hands (``benchmarks/bench_inference.py``). This module fits a model of a
given player: it records the player's decisions against itself (``trappola.train.selfplay.bc``:
the ``trappola_v0`` observation, the legal mask and the action at every
decision with a choice) and fine-tunes the shipped network's actor on them by
masked cross-entropy, from its weights (the same architecture, so that the
inference reads it like any checkpoint). The last ``val_share`` of the deals
is held out: the report gives the cross-entropy and the accuracy on them,
before and after the fit.

    python -m trappola.train.fit.opponent_model --teacher pimc:samples=32 --deals 2000 --out runs/opponent/pimc32.zip
    trappola evaluate --players pimc:infer=runs/opponent/pimc32.zip,pimc:samples=32 --deals 300 --duplicate

The file is a checkpoint (``trappola.agents.model_io.checkpoint_format``): the shipped model's zip with
the actor replaced and the fit recorded in its metadata (``opponent_model``).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
import zipfile
from pathlib import Path

import numpy as np

from trappola.agents.model_io.checkpoint_format import META_NAME, POLICY_NAME, load_state_dict, read_metadata
from trappola.agents.model_io.model_files import DEFAULT_MODEL, resolve_model_path
from trappola.train.selfplay import bc

_ACTOR_KEYS = ("mlp_extractor.policy_net.", "action_net.")


def held_out_split(n_rows: int, val_share: float) -> np.ndarray:
    """Boolean mask of the held-out rows: the last ``val_share`` of the rows
    (rows come deal by deal, so this holds out whole deals but the one cut)."""
    if not 0.0 < val_share < 1.0:
        raise ValueError(f"val_share must lie in (0, 1), got {val_share!r}")
    cut = int(round(n_rows * (1.0 - val_share)))
    out = np.zeros(n_rows, dtype=bool)
    out[cut:] = True
    return out


def fit(
    state: dict,
    data: dict,
    epochs: int,
    batch_size: int = 512,
    learning_rate: float = 3e-4,
    val_share: float = 0.1,
    seed: int = 0,
    log=print,
) -> tuple[dict, dict]:
    """Fine-tune the actor of ``state`` (a MaskablePPO state dict) on
    ``data`` (``obs``, ``mask``, ``action``); returns the new state dict and
    the held-out report (``ce_before``, ``acc_before``, ``ce_after``,
    ``acc_after``, ``rows``, ``held_out``)."""
    import torch

    n = len(data["action"])
    if n < 2:
        raise ValueError(f"need at least 2 recorded decisions, got {n}")
    val = held_out_split(n, val_share)
    obs = torch.as_tensor(np.asarray(data["obs"], np.float32))
    mask = torch.as_tensor(np.asarray(data["mask"], bool))
    act = torch.as_tensor(np.asarray(data["action"], np.int64))
    names = [k for k in state if k.startswith(_ACTOR_KEYS)]
    params = {k: torch.nn.Parameter(state[k].detach().clone().float()) for k in names}
    trunk = sorted({int(k.split(".")[2]) for k in names if k.startswith(_ACTOR_KEYS[0])})

    def logits(x):
        for i in trunk:
            x = torch.relu(
                x @ params[f"mlp_extractor.policy_net.{i}.weight"].T + params[f"mlp_extractor.policy_net.{i}.bias"]
            )
        return x @ params["action_net.weight"].T + params["action_net.bias"]

    def evaluate(rows) -> tuple[float, float]:
        with torch.no_grad():
            z = logits(obs[rows]).masked_fill(~mask[rows], -1e8)
            ce = torch.nn.functional.cross_entropy(z, act[rows]).item()
            acc = (z.argmax(-1) == act[rows]).float().mean().item()
        return ce, acc

    val_rows = torch.as_tensor(np.flatnonzero(val))
    train_rows = torch.as_tensor(np.flatnonzero(~val))
    report: dict[str, float] = {"rows": n, "held_out": int(val.sum())}
    report["ce_before"], report["acc_before"] = evaluate(val_rows)
    log(
        f"fit: held-out cross-entropy {report['ce_before']:.3f}, accuracy {report['acc_before']:.3f} "
        f"before the fit ({len(train_rows)} rows to fit, {len(val_rows)} held out)"
    )
    opt = torch.optim.Adam(params.values(), lr=learning_rate)
    gen = torch.Generator().manual_seed(seed)
    for epoch in range(epochs):
        perm = train_rows[torch.randperm(len(train_rows), generator=gen)]
        for i in range(0, len(perm), batch_size):
            idx = perm[i : i + batch_size]
            z = logits(obs[idx]).masked_fill(~mask[idx], -1e8)
            loss = torch.nn.functional.cross_entropy(z, act[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        ce, acc = evaluate(val_rows)
        log(f"fit: epoch {epoch + 1}/{epochs}: held-out cross-entropy {ce:.3f}, accuracy {acc:.3f}")
    report["ce_after"], report["acc_after"] = evaluate(val_rows)
    out = dict(state)
    for k, p in params.items():
        out[k] = p.detach().to(state[k].dtype)
    return out, report


def write_model(base: Path, state: dict, meta: dict, out: Path) -> Path:
    """``base`` (a checkpoint zip) with ``state`` as its weights and ``meta``
    as its metadata, written to ``out`` (through a temporary file)."""
    import torch

    buf = io.BytesIO()
    torch.save(state, buf)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(out.suffix + ".tmp")
    with zipfile.ZipFile(base) as zin, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if info.filename not in (META_NAME, POLICY_NAME):
                zout.writestr(info.filename, zin.read(info.filename))
        zout.writestr(POLICY_NAME, buf.getvalue())
        zout.writestr(META_NAME, json.dumps(meta, indent=1, sort_keys=True, default=str))
    tmp.replace(out)
    return out


def main(argv=None) -> int:
    """The command line: collect the teacher's games, fit the model, write it; the exit code."""
    ap = argparse.ArgumentParser(
        prog="python -m trappola.train.fit.opponent_model", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--teacher", default="pimc:samples=32", help="the player to imitate (a registry spec)")
    ap.add_argument("--deals", type=int, default=2000, help="deals of the teacher against itself")
    ap.add_argument("--base", default=DEFAULT_MODEL, help="checkpoint whose actor the fit starts from")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--val-share", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--data", default=None, help="an .npz of recorded decisions to fit instead of playing")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    if args.deals < 1 or args.epochs < 0 or not 0 < args.val_share < 1 or args.workers < 1:
        ap.error("--deals and --workers must be >= 1, --epochs >= 0, --val-share in (0, 1)")
    base = resolve_model_path(args.base)
    try:
        meta = read_metadata(base)
        state = load_state_dict(base)
    except ValueError as e:
        ap.error(str(e))
    t0 = time.time()
    if args.data:
        with np.load(args.data) as z:
            data = {k: z[k] for k in ("obs", "mask", "action")}
        source = {"data": Path(args.data).name}
    else:
        try:
            data = bc.collect(args.teacher, args.deals, seed=args.seed, random_share=0.0, workers=args.workers)
        except ValueError as e:
            ap.error(str(e))
        source = {"deals": args.deals, "seed": args.seed}
    print(f"{len(data['action']):,} decisions of {args.teacher} ({time.time() - t0:.0f} s)", flush=True)
    state, report = fit(state, data, args.epochs, val_share=args.val_share, seed=args.seed)
    meta = {
        **meta,
        "opponent_model": {
            "teacher": args.teacher,
            "base": args.base,
            "epochs": args.epochs,
            **source,
            **report,
            "minutes": round((time.time() - t0) / 60, 1),
        },
    }
    write_model(base, state, meta, Path(args.out))
    print(
        f"wrote {args.out}: held-out cross-entropy {report['ce_before']:.3f} -> {report['ce_after']:.3f}, "
        f"accuracy {report['acc_before']:.3f} -> {report['acc_after']:.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
