"""Does reading the history help? The MLP against the history network on the same labels and steps.

    python benchmarks/expert_history.py runs/exit_s0 runs/exit_s1

For each run of ``trappola train --config expert_iteration``, both networks
start from the shipped model (the history network's extra inputs at zero
weight, so the two start as the same function) and are fitted by the
trainer's own round fit (``trappola.train.expert.iteration.fit``, the run's
settings) to the labels of every round but the last, the same minibatches
in the same order; the last round is held out. Printed per run, on the
held-out decisions, paired per deal (95% Student-t interval over deals):
cross-entropy to the search's improved policy, agreement of the most likely
move with the search's choice, and the value head's squared error to the
outcome, for each network and history minus MLP.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch
import yaml

from trappola.agents.evaluation.stats import mean_ci
from trappola.agents.model_io.checkpoint_format import load_state_dict
from trappola.agents.model_io.model_files import DEFAULT_MODEL, resolve_model_path
from trappola.train.expert.config import ExpertConfig
from trappola.train.expert.iteration import fit, load_rounds, masked_log_policy
from trappola.train.expert.networks import HistoryActorCritic, MlpActorCritic


def history_from_mlp(mlp: MlpActorCritic, activation: str) -> HistoryActorCritic:
    """A history network computing what ``mlp`` computes: its weights, the GRU's inputs at zero weight."""
    arch = [m.out_features for m in mlp.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    net = HistoryActorCritic(arch, activation)
    state = net.state_dict()
    for key, value in mlp.state_dict().items():
        if state[key].shape == value.shape:
            state[key] = value.clone()
        else:  # the first layers: the observation's columns, then zeros for the GRU's
            state[key] = torch.zeros_like(state[key])
            state[key][:, : value.shape[1]] = value
    net.load_state_dict(state)
    return net


def per_row(net, data: dict) -> dict[str, np.ndarray]:
    """Per held-out row: cross-entropy to the target, agreement with the search, value squared error."""
    with torch.no_grad():
        logits, v = net(torch.as_tensor(data["obs"]), torch.as_tensor(data["history"]))
        logp = masked_log_policy(logits, torch.as_tensor(data["mask"]))
    return {
        "cross-entropy": -(torch.as_tensor(data["target"]) * logp).sum(-1).numpy(),
        "agreement": (logp.argmax(-1).numpy() == data["expert_action"]).astype(float),
        "value error": ((v - torch.as_tensor(data["reward"])) ** 2).numpy(),
    }


def by_deal(values: np.ndarray, deals: np.ndarray) -> list[float]:
    """Per-deal means (a deal's decisions share cards: the deal is the unit)."""
    return [float(values[deals == d].mean()) for d in np.unique(deals)]


def compare(run: Path) -> str:
    """The comparison's lines for one run."""
    cfg = ExpertConfig(**yaml.safe_load((run / "config.yaml").read_text()))
    rounds = sorted((run / "labels").glob("round_*.npz"))
    if len(rounds) < 2:
        return f"{run}: fewer than 2 rounds of labels"
    last = len(rounds) - 1
    train_data = load_rounds(run / "labels", last - 1, last)
    held = load_rounds(run / "labels", last, 1)
    state = load_state_dict(resolve_model_path(DEFAULT_MODEL))
    torch.manual_seed(cfg.seed)
    mlp = MlpActorCritic.from_state_dict(state)
    history = history_from_mlp(mlp, "relu")
    figures = {}
    for name, net in (("mlp", mlp), ("history", history)):
        steps = fit(net, train_data, cfg, torch.Generator().manual_seed(cfg.seed), "cpu")["steps"]
        figures[name] = per_row(net, held)
    lines = [
        f"{run}: fitted on {len(train_data['action']):,} labels of rounds 1-{last} ({steps} steps each), "
        f"held out {len(held['action']):,} labels of round {last + 1} ({len(np.unique(held['deal']))} deals)"
    ]
    for key in figures["mlp"]:
        cells = []
        for name in ("mlp", "history"):
            m, ci = mean_ci(by_deal(figures[name][key], held["deal"]))
            cells.append(f"{name} {m:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]")
        m, ci = mean_ci(by_deal(figures["history"][key] - figures["mlp"][key], held["deal"]))
        cells.append(f"history - mlp {m:+.3f} [{ci[0]:+.3f}, {ci[1]:+.3f}]")
        lines.append(f"  {key}: " + ", ".join(cells))
    return "\n".join(lines)


def main(argv=None) -> int:
    """The command line of the module docstring; returns the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    for run in args.runs:
        print(compare(Path(run)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
