"""Behaviour cloning warm start: imitate a teacher's moves before self-play.

``collect(teacher, n_deals, seed, ...)`` plays the teacher against itself
(and, for a fifth of the deals, against ``random``, so that odd positions
are seen too) straight on the engine and records every teacher decision
that had a choice: the ``trappola_v0`` observation of the teacher's seat,
the legal mask, the action, and the final reward of that seat under the
training run's reward mode. ``clone(model, data, ...)`` then fits the
MaskablePPO policy to it: cross-entropy of the masked action distribution
on the teacher's action, plus ``value_coef`` times the squared error of
the value head on the final reward (so PPO starts with a critic that
matches the actor, instead of a random one that would drag the cloned
policy off in the first updates).

The rule player is cheap to run (about a millisecond a partie), so the
data are large: 20,000 deals give roughly half a million decisions.
"""

from __future__ import annotations

import random
import time

import numpy as np

from trappola.agents.evaluation.seeding import derive_seed
from trappola.train.selfplay.alifer import replay_mean, replays
from trappola.train.selfplay.reward import POINTS_SCALE, POINTS_WEIGHT, TOKENS_SCALE, RewardShaping
from trappola_env.engine import random_deal
from trappola_env.full_deal import FULL_DEAL_SIZE, encode_full_deal
from trappola_env.observation import OBS_SIZE, encode
from trappola_env.referee import play_partie
from trappola_env.trappola_v0 import mask_array, result_name, reward_of


def collect(
    teacher: str,
    n_deals: int,
    seed: int,
    reward_mode: str = "mixed",
    points_scale: float = POINTS_SCALE,
    tokens_scale: float = TOKENS_SCALE,
    points_weight: float = POINTS_WEIGHT,
    random_share: float = 0.2,
    alifer_value: str = "replay",
    workers: int = 1,
    privileged: bool = False,
) -> dict:
    """Teacher decisions with a choice, as arrays: ``obs`` (float16;
    with ``privileged``, the observation followed by the seat's full-deal
    vector, as ``SelfPlayEnv(privileged=True)`` gives it),
    ``mask`` (bool), ``action`` (int64), ``ret`` (float32).

    The deals are played in ``workers`` processes, in fixed chunks with
    their own seeds, so the data depend on ``seed`` only. With
    ``alifer_value="replay"`` the return of an Alifer is, as in
    ``SelfPlayEnv``, the mean return of the non-Alifer parties against the
    same opponent kind."""
    chunk = 250  # fixed, so that the data do not depend on the number of workers
    tasks = [
        (
            teacher,
            min(chunk, n_deals - start),
            derive_seed(seed, "bc-chunk", i),
            reward_mode,
            points_scale,
            tokens_scale,
            points_weight,
            random_share,
            privileged,
        )
        for i, start in enumerate(range(0, n_deals, chunk))
    ]
    if workers > 1 and len(tasks) > 1:
        from trappola.agents.evaluation.backend import ProcessBackend

        # Workers that die with the trainer, and a dead worker as a WorkerLostError (a multiprocessing
        # Pool would wait for it forever).
        with ProcessBackend(workers, context="fork") as pool:
            parts = pool.map(_collect_chunk, tasks)
    else:
        parts = [_collect_chunk(t) for t in tasks]
    data = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    if replays(alifer_value, reward_mode):
        # the opponent groups: 0 teacher vs teacher, 1 teacher vs random
        replay_mean(data["ret"], data["alifer"], data["vs_random"])
    return {k: data[k] for k in ("obs", "mask", "action", "ret")}


def collect_for_run(cfg, say, privileged: bool = False) -> dict:
    """``collect`` with a run's settings (its teacher, deals, seed + 1,
    reward and Alifer value, workers), saying how many decisions it got
    and in how long; both trainers warm-start with it.

    :param cfg: the run's config (``trappola.train.run.config.RunConfig``)
    :param say: where the progress line goes
    :param privileged: also the full-deal vectors (a privileged critic)
    :return: ``collect``'s arrays"""
    t0 = time.time()
    data = collect(
        cfg.bc_teacher,
        cfg.bc_deals,
        seed=cfg.seed + 1,
        reward_mode=cfg.reward_mode,
        points_scale=cfg.points_scale,
        tokens_scale=cfg.tokens_scale,
        points_weight=cfg.points_weight,
        alifer_value=cfg.alifer_value,
        workers=cfg.bc_workers,
        privileged=privileged,
    )
    say(
        f"bc: {len(data['action']):,} {cfg.bc_teacher} decisions from {cfg.bc_deals:,} deals in {time.time() - t0:.0f}s"
    )
    return data


def warm_start(cfg, model, say, stop, scalars=None, privileged: bool = False) -> dict | None:
    """Behaviour cloning of a run (``collect_for_run``, then ``clone``
    with its settings) into ``model``, both trainers' step; a stop signal
    (``stop``, a ``trappola.train.run.interrupt.StopOnInterrupt``) ends it
    within a moment, keeping what was cloned. ``scalars(values, epoch)``
    gets the ``bc/*`` figures of each epoch. Returns the figures (None if
    stopped before the teacher's moves were collected)."""
    t0 = time.time()
    try:
        with stop.raising():
            data = collect_for_run(cfg, say, privileged=privileged)
    except KeyboardInterrupt:
        say(f"bc stopped by {stop.signal_name} while playing the teacher's games: nothing cloned")
        return None
    stats = clone(
        model,
        data,
        cfg.bc_epochs,
        cfg.bc_batch_size,
        cfg.bc_learning_rate,
        cfg.bc_value_coef,
        seed=cfg.seed,
        log=say,
        stop=lambda: stop.requested,
        scalars=scalars,
    )
    say(f"bc done in {time.time() - t0:.0f}s")
    return stats


def _collect_chunk(task) -> dict:
    from trappola.agents import make_player

    teacher, n_deals, seed, reward_mode, points_scale, tokens_scale, points_weight, random_share, privileged = task
    rng = random.Random(seed)
    t_a, t_b, rand = make_player(teacher), make_player(teacher), make_player("random")
    cap = n_deals * 24
    obs = np.empty((cap, OBS_SIZE + (FULL_DEAL_SIZE if privileged else 0)), np.float16)
    masks = np.empty((cap, 49), bool)
    actions = np.empty(cap, np.int64)
    rets = np.empty(cap, np.float32)
    alifer = np.zeros(cap, bool)
    vs_rand = np.zeros(cap, np.int8)
    n = 0
    shaping = RewardShaping(reward_mode, points_scale, tokens_scale, points_weight)
    buf = np.empty(OBS_SIZE, np.float32)
    deal_buf = np.empty(FULL_DEAL_SIZE, np.float32)
    for _ in range(n_deals):
        deal = random_deal(rng)
        vs_random = rng.random() < random_share
        teacher_seat = rng.randrange(2)
        players = [t_a, t_b]
        if vs_random:
            players[1 - teacher_seat] = rand
        for p in players:
            p.reset(rng.getrandbits(31))
        recorded = (teacher_seat,) if vs_random else (0, 1)
        start = n
        seats = []

        # play_partie below calls this only during this iteration, so the loop's `recorded` and `seats` are current.
        def on_decision(partie, seat, action):
            nonlocal n
            mask = partie.legal_mask()
            if seat in recorded and mask & (mask - 1):  # noqa: B023
                if n >= cap:
                    raise RuntimeError("more decisions than expected; raise the capacity")
                encode(partie, seat, buf)
                obs[n, :OBS_SIZE] = buf
                if privileged:
                    obs[n, OBS_SIZE:] = encode_full_deal(partie, seat, deal_buf)
                masks[n] = mask_array(mask).astype(bool)
                actions[n] = action
                seats.append(seat)  # noqa: B023
                n += 1

        result = play_partie(players, deal, on_decision=on_decision).result
        for i, seat in zip(range(start, n), seats, strict=True):
            name = result_name(result, seat)
            rets[i] = shaping(reward_of(result, seat, shaping.env_mode), name)
            alifer[i] = name == "alifer"
            vs_rand[i] = vs_random
    return {
        "obs": obs[:n],
        "mask": masks[:n],
        "action": actions[:n],
        "ret": rets[:n],
        "alifer": alifer[:n],
        "vs_random": vs_rand[:n],
    }


def clone(
    model,
    data: dict,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    value_coef: float = 0.5,
    seed: int = 0,
    logger=None,
    log=print,
    stop=None,
    scalars=None,
) -> dict:
    """Fit ``model.policy`` (MaskablePPO) to ``data``; returns the final
    accuracy and losses (of the last whole epoch). ``logger``: an SB3
    logger that gets ``bc/*`` per epoch; ``scalars(values, epoch)``: the
    same figures, elsewhere; ``stop()``: checked before every minibatch,
    True ends the fit there (the figures then say ``stopped``)."""
    import torch

    policy = model.policy
    device = policy.device
    n = len(data["action"])
    if n == 0:
        raise ValueError("no behaviour cloning data")
    obs_all = torch.as_tensor(data["obs"])
    mask_all = torch.as_tensor(data["mask"])
    act_all = torch.as_tensor(data["action"])
    ret_all = torch.as_tensor(data["ret"])
    opt = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    gen = torch.Generator().manual_seed(seed)
    stats: dict = {}
    policy.set_training_mode(True)
    for epoch in range(epochs):
        t0 = time.time()
        perm = torch.randperm(n, generator=gen)
        tot = {"ce": 0.0, "v": 0.0, "acc": 0.0}
        for i in range(0, n, batch_size):
            if stop is not None and stop():
                log(f"bc stopped in epoch {epoch + 1}/{epochs}; the network is kept as cloned so far")
                policy.set_training_mode(False)
                return {**stats, "stopped": True}
            idx = perm[i : i + batch_size]
            obs = obs_all[idx].float().to(device)
            masks = mask_all[idx].to(device)
            acts = act_all[idx].to(device)
            latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs))
            # Same masking as sb3-contrib's MaskableCategorical: illegal logits -> -1e8.
            logits = policy.action_net(latent_pi).masked_fill(~masks, -1e8)
            values = policy.value_net(latent_vf).flatten()
            ce = torch.nn.functional.cross_entropy(logits, acts)
            v_loss = torch.nn.functional.mse_loss(values, ret_all[idx].to(device))
            loss = ce + value_coef * v_loss
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            opt.step()
            acc = (logits.argmax(-1) == acts).float().mean().item()
            k = len(idx)
            tot["ce"] += ce.item() * k
            tot["v"] += v_loss.item() * k
            tot["acc"] += acc * k
        stats = {key: v / n for key, v in tot.items()}
        log(
            f"bc epoch {epoch + 1}/{epochs}: cross-entropy {stats['ce']:.3f}  value mse {stats['v']:.3f}  "
            f"accuracy {stats['acc']:.3f}  ({time.time() - t0:.1f}s)"
        )
        if logger is not None:
            for key, v in stats.items():
                logger.record(f"bc/{key}", v)
            logger.dump(epoch)
        if scalars is not None:
            scalars({f"bc/{key}": v for key, v in stats.items()}, epoch + 1)
    policy.set_training_mode(False)
    return stats
