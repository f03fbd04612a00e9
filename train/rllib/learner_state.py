"""The trained network of an RLlib run, in and out of its learner: weights
and optimizer state, and the three ways a run starts from something other
than a fresh network, as on the SB3 path.

* ``resume``: a lab checkpoint (either trainer's) gives the weights, the
  optimizer state (``trappola.train.rllib.export.remap_optimizer``) and
  the step count the run continues from;
* ``init_from``: a checkpoint's weights, with a fresh optimizer;
* ``bc``: behaviour cloning, ``trappola.train.selfplay.bc`` on a ``MaskablePPO``
  holding the learner's network (``trappola.train.rllib.export.sb3_model``),
  whose weights then go back into the learner.

The module trained is RLlib's ``default_policy`` on ``trappola_v0`` (one
learner seat against the pool) and ``main`` in a ``bulka_v0`` league.
"""

from __future__ import annotations

from typing import Any

from trappola.train.rllib.config import RLlibConfig
from trappola.train.rllib.export import remap_optimizer, rllib_name, rllib_state_dict, sb3_model

MAIN = "main"


def trained_module(cfg: RLlibConfig) -> str:
    """The id of the module a run of ``cfg`` trains."""
    from ray.rllib.core import DEFAULT_MODULE_ID

    return DEFAULT_MODULE_ID if cfg.env == "trappola_v0" else MAIN


def get_weights(algo, module: str) -> dict:
    """The module's weights (numpy), from the learner."""
    state = algo.learner_group.get_state(components="learner/rl_module/" + module)
    return state["learner"]["rl_module"][module]


def get_optimizer(algo, module: str) -> dict:
    """The module's optimizer ``state_dict`` (numpy), from the learner."""
    state = algo.learner_group.get_state(components="learner/optimizer")["learner"]["optimizer"]
    (entry,) = [v for v in state.values() if v["module_id"] == module]
    return entry["state"]


def set_weights(algo, module: str, weights: dict, optimizer: dict | None = None) -> None:
    """Put ``weights`` (and ``optimizer``, a ``state_dict`` in the module's
    parameter order) into the learner and every env runner. (RLlib's weight
    sync would skip the env runners: it sends weights only when their
    sequence number has grown.)"""
    learner = {"rl_module": {module: weights}}
    if optimizer is not None:
        learner["optimizer"] = {
            f"{module}_default_optimizer": {"module_id": module, "state": optimizer},
        }
    try:
        algo.learner_group.set_state({"learner": learner})
    except RuntimeError as exc:  # torch: missing, unexpected or differently shaped weights
        raise ValueError(f"the weights do not fit this config's network: {str(exc).splitlines()[0]}") from None

    def load(env_runner):
        modules = env_runner.module
        (modules[module] if module in getattr(modules, "keys", lambda: ())() else modules).set_state(weights)

    algo.env_runner_group.foreach_env_runner(load, local_env_runner=True)


def checkpoint_state(path: str, order: list[str]) -> tuple[dict, dict, dict]:
    """(weights, optimizer ``state_dict``, metadata) of a lab checkpoint,
    under the ``MaskedActorCritic``'s names, its parameters in ``order``
    (the module's own: the keys of its ``state_dict``)."""
    from trappola.train.run.checkpoint import load_model

    model, meta = load_model(path)
    weights = rllib_state_dict(model.policy.state_dict())
    names = [n for n, _ in model.policy.named_parameters()]
    optimizer = remap_optimizer(model.policy.optimizer.state_dict(), names, order, rllib_name)
    optimizer["state"] = {i: {k: v.numpy() for k, v in st.items()} for i, st in optimizer["state"].items()}
    return weights, optimizer, meta


def start(cfg: RLlibConfig, algo, say, stop=None, scalars=None) -> dict:
    """Start the learner as ``cfg`` says (``resume``, ``init_from`` or
    ``bc``, else as built); returns ``steps`` (the step count the run
    continues from), ``resumed_from`` (the lineage, for the checkpoints'
    metadata) and ``bc`` (behaviour cloning's figures), each None if
    unused. ``stop`` (a ``StopOnInterrupt``) ends behaviour cloning early,
    keeping what was cloned; ``scalars(values, epoch)`` gets its ``bc/*``
    figures."""
    module = trained_module(cfg)
    out: dict[str, Any] = {"steps": 0, "resumed_from": None, "bc": None}
    if cfg.resume:
        weights, optimizer, meta = checkpoint_state(cfg.resume, list(get_weights(algo, module)))
        set_weights(algo, module, weights, optimizer)
        out["steps"] = int(meta.get("num_timesteps", 0))
        out["resumed_from"] = {
            "path": cfg.resume,
            **{k: meta.get(k) for k in ("seed", "num_timesteps", "config", "resumed_from")},
        }
        say(f"resumed from {cfg.resume} at {out['steps']:,} steps")
    elif cfg.init_from:
        from trappola.agents.model_io.checkpoint_format import load_state_dict

        set_weights(algo, module, rllib_state_dict(load_state_dict(cfg.init_from)))
        say(f"network weights from {cfg.init_from}")
    elif cfg.bc:
        from trappola.train.run.interrupt import StopOnInterrupt
        from trappola.train.selfplay import bc as bc_mod

        model = sb3_model(get_weights(algo, module), cfg.net_arch, cfg.activation)
        out["bc"] = bc_mod.warm_start(cfg, model, say, stop or StopOnInterrupt(), scalars)
        set_weights(algo, module, rllib_state_dict(model.policy.state_dict()))
    return out
