"""Expert iteration on ``trappola_v0`` (read top to bottom).

    trappola train --config expert_iteration [key=value | --key value ...]
    trappola train --config expert_iteration resume=runs/expert_iteration/last.zip

Expert iteration (Anthony, Tian and Barber 2017) with a determinized search
as the expert: a network (the apprentice) plays, a search better than it
says what each decision is worth, and the network is fitted to the search,
round after round, so the next round's games and searches start from a
better network. Each round:

1. **The expert labels the network's games** (``trappola.train.expert.games``):
   ``deals_per_round`` deals of the current network against itself, seats
   swapped, played by ``workers`` processes; at every decision with a choice
   the search (``expert``, a ``pimc`` search) values the legal cards. With
   ``expert_infer`` its layouts are weighted by the likelihood of the
   opponent's past decisions under the *current network* (``infer=`` the
   round's checkpoint): the network is the model of the opponent, and in
   self-play it is the opponent. The network's prior guides the search's
   choice through the improved policy ``pi' ~ prior^prior_weight *
   exp(q / temperature)``.
2. **The network is fitted** to the labels of the newest ``replay_rounds``
   rounds, ``n_epochs`` epochs from its current weights, by

       loss = CE(pi', pi)                              the search's improved policy
            + kl_coef  * KL(pi_prev || pi)             kept close to the previous network
            + rl_coef  * -(z - V_prev(s)) log pi(a)    self-play policy gradient on its own moves
            + vf_coef  * (V(s) - z)^2                  the value head on outcomes

   with ``z`` the partie's reward for the mover (``reward_mode``; the
   default ``mixed``: win +-1 plus half the points difference over 60). The closeness term is a KL to the previous
   network, not an advantage weighting: the targets are whole
   distributions over the legal cards (the search values every card), so
   a KL between distributions uses all of them, and it bounds how far one
   round of a noisy search (16 layouts per decision) can move the policy,
   the trust region of MPO-style policy iteration. The policy gradient
   uses the actions the network sampled, whose outcomes are on-policy.
3. **The opponent model is refit**: the fitted network is the next round's
   opponent model (``infer=`` its checkpoint), so the search reads the
   opponent's decisions with the policy that now makes them.

The run folder, settings, checkpoints, evaluation, TensorBoard scalars,
``resume`` and Ctrl-C are those of the other trainers
(``trappola.train.run.recorder``, ``trappola.train.run.interrupt``): a
checkpoint's step count is the number of labels so far; each round's
network is ``checkpoints/<labels>.zip`` (the learning curve), its labels
``labels/round_<k>.npz`` (what a resumed run replays), and its figures a
row of ``progress.csv`` and TensorBoard scalars ``expert/*``. Checkpoints
are the shipped model's format, so ``policy:PATH`` plays them.
"""

from __future__ import annotations

import copy
import csv
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor, wait
from pathlib import Path

import numpy as np
import torch

from trappola.agents.evaluation.seeding import derive_seed
from trappola.agents.model_io.checkpoint_format import load_state_dict, read_metadata
from trappola.agents.model_io.model_files import DEFAULT_MODEL, resolve_model_path
from trappola.agents.model_io.numpy_policy import NumpyPolicy
from trappola.agents.players.policy import PolicyPlayer
from trappola.train.devices import resolve_device
from trappola.train.expert.config import ExpertConfig
from trappola.train.expert.games import FIELDS, initializer, play_deals
from trappola.train.expert.networks import MlpActorCritic
from trappola.train.fit.opponent_model import write_model
from trappola.train.run.config import load_players
from trappola.train.run.interrupt import StopOnInterrupt
from trappola.train.run.log import check_run_dir
from trappola.train.run.recorder import RunRecorder
from trappola_env.atomic_file import write_text

#: Deals per task given to a worker: small, so that Ctrl-C and max_minutes are seen within seconds.
CHUNK = 2
#: Metadata of the starting checkpoint that a trained one keeps (its Pro rule and format).
KEPT_META = ("format_version", "signature", "policy_arch", "pro_policy", "package_version")
PROGRESS_FIELDS = (
    "round",
    "labels",
    "learner_steps",
    "minutes",
    "round_labels",
    "search_seconds",
    "agreement_before",
    "loss_target",
    "loss_kl",
    "loss_rl",
    "loss_value",
)


def train(cfg: ExpertConfig, log=None) -> dict:
    """Run the expert iteration ``cfg`` describes (module docstring) and
    return its summary (``trappola.train.run.recorder.RunRecorder.finish``).
    A first SIGINT stops it within a few deals, saved; the summary then
    says ``interrupted``."""
    # 1. settings, seeds, the starting network; everything checked before the run folder is written
    torch.set_num_threads(cfg.torch_threads)
    torch.manual_seed(cfg.seed)
    device = resolve_device(cfg.device)
    check_run_dir(cfg)
    load_players(cfg)
    start = cfg.resume or cfg.init_from or DEFAULT_MODEL
    start_meta = read_metadata(resolve_model_path(start))
    activation = start_meta.get("policy_arch", {}).get("activation", "relu")
    net = MlpActorCritic.from_state_dict(load_state_dict(resolve_model_path(start)), activation).to(device)
    done = dict(start_meta.get("expert_iteration", {}).get("progress", {})) if cfg.resume else {}
    progress = {"round": 0, "labels": 0, "learner_steps": 0, "minutes": 0.0, **done}
    base = resolve_model_path(DEFAULT_MODEL)
    meta_kept = {k: start_meta[k] for k in KEPT_META if k in start_meta}

    def save(network, path: Path, steps: int, **meta) -> Path:
        state = {k: v.detach().cpu() for k, v in network.state_dict().items()}
        about = {"expert_iteration": {"progress": dict(progress)}, **meta}
        full = {**meta_kept, "config": cfg.to_dict(), "num_timesteps": steps, "trainer": cfg.TRAINER, **about}
        return write_model(base, state, full, path)

    def player(network):
        return PolicyPlayer.from_numpy(numpy_policy(network, activation), name="network")

    # watched from here to the end, so a stop signal during the final evaluation ends it too
    stop = StopOnInterrupt().watch()
    recorder = RunRecorder(cfg, save, player, log=log, stop=stop)
    run_dir, say = recorder.run_dir, recorder.say
    (run_dir / "labels").mkdir(exist_ok=True)
    progress_rows = read_progress(run_dir / "progress.csv", progress["round"])
    say(
        f"expert iteration from {start} (round {progress['round']}, {progress['labels']:,} labels so far); "
        f"expert {cfg.expert}{', infer=<the network>' if cfg.expert_infer else ''}, "
        f"{cfg.deals_per_round} deals a round on {cfg.workers} workers, learner on {device}"
    )
    began = time.time()
    # Workers ignore the stop signals (a job's SIGTERM may reach the whole process group): a worker killed
    # while it held the task queue's lock would hang multiprocessing.Pool; the trainer stops them instead.
    pool = ProcessPoolExecutor(cfg.workers, mp_context=multiprocessing.get_context("fork"), initializer=initializer)
    try:
        while progress["labels"] < cfg.total_timesteps and not stop.requested:
            minutes = progress["minutes"] + (time.time() - began) / 60
            if cfg.max_minutes and minutes >= cfg.max_minutes:
                break
            k = progress["round"]
            # 1. the expert labels the network's games; the round's network is the search's opponent model
            model = save(net, run_dir / "opponent_model.zip", progress["labels"])
            expert = f"{cfg.expert},infer={model}" if cfg.expert_infer else cfg.expert
            weights = numpy_policy(net, activation).get_weights()
            first = k * cfg.deals_per_round
            jobs = [
                {
                    "weights": weights,
                    "expert": expert,
                    "tau": cfg.temperature,
                    "prior_weight": cfg.prior_weight,
                    "seed": cfg.seed,
                    "reward": (cfg.reward_mode, cfg.points_scale, cfg.tokens_scale, cfg.points_weight),
                    "deals": list(range(d, min(d + CHUNK, first + cfg.deals_per_round))),
                }
                for d in range(first, first + cfg.deals_per_round, CHUNK)
            ]
            futures = [pool.submit(play_deals, job) for job in jobs]
            pending = set(futures)
            while pending:
                _, pending = wait(pending, timeout=1.0)  # polled: a stop signal is seen within a second
                late = cfg.max_minutes and progress["minutes"] + (time.time() - began) / 60 >= cfg.max_minutes
                if stop.requested or late:
                    break
            parts = [f.result() for f in futures if f.done()]
            if stop.requested:  # the round's games are cut: it is played again on resume
                break
            data = {key: np.concatenate([p[key] for p in parts]) for key in FIELDS}
            search_s = float(sum(p["seconds"] for p in parts))
            # numpy's stub reads the arrays given by name as its allow_pickle flag
            np.savez_compressed(run_dir / "labels" / f"round_{k:03d}.npz", **data)  # type: ignore[arg-type]
            # 2. the network is fitted to the newest rounds' labels, kept close to itself
            replay = load_rounds(run_dir / "labels", k, cfg.replay_rounds)
            gen = torch.Generator().manual_seed(derive_seed(cfg.seed, "expert-fit", k))
            agreement = agreement_with_expert(net, data, device)
            stats = fit(net, replay, cfg, gen, device)
            # 3. the fitted network is the next round's opponent model (saved at the next round's start)
            progress.update(
                round=k + 1,
                labels=progress["labels"] + len(data["action"]),
                learner_steps=progress["learner_steps"] + stats.pop("steps"),
                minutes=round(progress["minutes"] + (time.time() - began) / 60, 2),
            )
            began = time.time()
            row = {
                **progress,
                "round_labels": len(data["action"]),
                "search_seconds": round(search_s, 1),
                "agreement_before": round(agreement, 4),
                **{f"loss_{key}": round(value, 4) for key, value in stats.items()},
            }
            progress_rows.append(row)
            write_progress(run_dir / "progress.csv", progress_rows)
            for key in ("agreement_before", "loss_target", "loss_kl", "loss_rl", "loss_value", "search_seconds"):
                recorder.scalar(f"expert/{key}", row[key], progress["labels"])
            say(
                f"[round {k + 1}] {row['round_labels']:,} labels ({progress['labels']:,} in all, "
                f"{search_s / max(row['round_labels'], 1) * 1000:.0f} ms of search each), "
                f"network agreed with the search on {agreement:.3f} before the fit; "
                f"{progress['learner_steps']:,} learner steps, {progress['minutes']:.1f} min"
            )
            recorder.step(progress["labels"], net)
    finally:
        # the queued chunks are dropped; a worker's running chunk (a few deals) ends before the process exits
        pool.shutdown(wait=False, cancel_futures=True)
    interrupted = stop.requested  # during the games, or during a fit (that round is then complete)
    try:
        # every minute spent counts, a round cut by Ctrl-C included: the curve's x is the compute used
        progress["minutes"] = round(progress["minutes"] + (time.time() - began) / 60, 2)
        return recorder.finish(
            progress["labels"],
            net,
            progress["learner_steps"],
            max(progress["minutes"] * 60, 1e-9),
            interrupted=interrupted,
        )
    finally:
        recorder.close()
        stop.release()


def numpy_policy(net: MlpActorCritic, activation: str) -> NumpyPolicy:
    """The actor of ``net`` as the players' numpy policy."""
    state = {k: v.detach().cpu() for k, v in net.state_dict().items()}
    return NumpyPolicy.from_state_dict(state, activation)


def masked_log_policy(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Log-probabilities over the legal actions (illegal ones at -1e8 before the softmax, as sb3-contrib)."""
    return torch.log_softmax(logits.masked_fill(~mask, -1e8), dim=-1)


def fit(net, data: dict, cfg, gen: torch.Generator, device: str = "cpu") -> dict:
    """One round's fit of ``net`` (in place) on ``data`` (rows of ``FIELDS``;
    module docstring, step 2); ``cfg`` gives ``learning_rate``,
    ``batch_size``, ``n_epochs``, ``kl_coef``, ``rl_coef``, ``vf_coef``
    and ``max_grad_norm``. Returns the mean losses of the last epoch
    (``target``, ``kl``, ``rl``, ``value``) and ``steps``, the gradient steps."""
    t = {k: torch.as_tensor(np.asarray(data[k])).to(device) for k in ("obs", "mask", "history", "target", "action")}
    reward = torch.as_tensor(np.asarray(data["reward"], np.float32)).to(device)
    prev = copy.deepcopy(net).eval()
    with torch.no_grad():
        logits, values = prev(t["obs"], t["history"])
        prev_logp = masked_log_policy(logits, t["mask"])
        advantage = reward - values
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate)
    n, steps = len(reward), 0
    sums: dict[str, float] = {}
    for _ in range(cfg.n_epochs):
        sums = {"target": 0.0, "kl": 0.0, "rl": 0.0, "value": 0.0}
        batches = 0
        for idx in torch.randperm(n, generator=gen).split(cfg.batch_size):
            idx = idx.to(device)
            logits, v = net(t["obs"][idx], t["history"][idx])
            logp = masked_log_policy(logits, t["mask"][idx])
            losses = {
                "target": -(t["target"][idx] * logp).sum(-1).mean(),
                "kl": (prev_logp[idx].exp() * (prev_logp[idx] - logp)).sum(-1).mean(),
                "rl": -(advantage[idx] * logp.gather(1, t["action"][idx, None]).squeeze(1)).mean(),
                "value": ((v - reward[idx]) ** 2).mean(),
            }
            loss = (
                losses["target"]
                + cfg.kl_coef * losses["kl"]
                + cfg.rl_coef * losses["rl"]
                + cfg.vf_coef * losses["value"]
            )
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            opt.step()
            steps += 1
            batches += 1
            for key, value in losses.items():
                sums[key] += float(value.detach())
        sums = {key: value / max(batches, 1) for key, value in sums.items()}
    return {**sums, "steps": steps}


def agreement_with_expert(net, data: dict, device: str = "cpu") -> float:
    """Share of the rows where the network's most likely move is the search's choice."""
    if not len(data["action"]):
        return float("nan")
    with torch.no_grad():
        obs = torch.as_tensor(data["obs"]).to(device)
        logits, _ = net(obs, torch.as_tensor(data["history"]).to(device))
        best = logits.masked_fill(~torch.as_tensor(data["mask"]).to(device), -1e8).argmax(-1).cpu().numpy()
    return float((best == data["expert_action"]).mean())


def load_rounds(folder: Path, last: int, count: int) -> dict:
    """The labels of rounds ``last - count + 1`` .. ``last`` that exist in ``folder``, concatenated."""
    parts = []
    for k in range(max(0, last - count + 1), last + 1):
        path = folder / f"round_{k:03d}.npz"
        if path.is_file():
            with np.load(path) as z:
                parts.append({key: z[key] for key in FIELDS})
    return {key: np.concatenate([p[key] for p in parts]) for key in FIELDS}


def read_progress(path: Path, rounds: int) -> list[dict]:
    """The rows of ``progress.csv`` of the first ``rounds`` rounds (a resumed run drops later ones)."""
    if not path.is_file():
        return []
    with open(path, newline="") as f:
        return [row for row in csv.DictReader(f) if int(row["round"]) <= rounds]


def write_progress(path: Path, rows: list[dict]) -> None:
    """``progress.csv``: one row per round (``PROGRESS_FIELDS``), written whole."""
    lines = [",".join(PROGRESS_FIELDS)] + [",".join(str(row.get(k, "")) for k in PROGRESS_FIELDS) for row in rows]
    write_text(path, "\n".join(lines) + "\n")
