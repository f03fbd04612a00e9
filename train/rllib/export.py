"""An RLlib network written in the project's checkpoint format.

An RLlib run (``trappola.train.rllib.selfplay``) trains a ``MaskedActorCritic``
(``trappola.train.rllib.module``), whose layers are those of SB3's
``MaskableActorCriticPolicy``. ``save_rllib_checkpoint`` renames its
weights (``sb3_state_dict``), loads them into a ``MaskablePPO`` of the same
``net_arch`` and activation, and saves that with ``trappola.train.run.checkpoint``:
the same zip, metadata and signature as an SB3 run, so the evaluator plays
it as ``policy:PATH`` (``trappola.agents.model_io.checkpoint_format.load_policy``) and
``trappola.train.run.checkpoint.load_model`` can continue it with SB3. The zip
holds the run's PPO settings under SB3's names (``sb3_hyperparameters``);
a resume applies its own config's anyway. With ``optimizer`` (RLlib's Adam state) the zip
also holds the optimizer state, under the SB3 policy's parameter order
(``remap_optimizer``), so either trainer resumes from it.
``rllib_state_dict`` and ``remap_optimizer`` go the other way, from any
lab checkpoint into an RLlib learner (``resume``, ``init_from``,
behaviour cloning). Nothing here needs Ray.
"""

from __future__ import annotations

from pathlib import Path

import gymnasium
import numpy as np
from gymnasium import spaces

from trappola.train.networks import activation_class
from trappola.train.run.checkpoint import build_metadata, save_checkpoint
from trappola_env.engine import N_ACTIONS

_NAMES = {
    "pi_trunk": "mlp_extractor.policy_net",
    "vf_trunk": "mlp_extractor.value_net",
    "pi_head": "action_net",
    "vf_head": "value_net",
}


def sb3_state_dict(state: dict) -> dict:
    """The weights of a ``MaskedActorCritic`` (its ``state_dict``: torch
    tensors or numpy arrays) under the names of an SB3
    ``MaskableActorCriticPolicy`` with the same ``net_arch``."""
    import torch

    out = {}
    for key, value in state.items():
        prefix, _, rest = key.partition(".")
        if prefix not in _NAMES:
            raise ValueError(f"unexpected weight {key!r} in a MaskedActorCritic state")
        out[f"{_NAMES[prefix]}.{rest}"] = torch.as_tensor(np.asarray(value))
    return out


def rllib_state_dict(state: dict) -> dict:
    """The weights of an SB3 ``MaskableActorCriticPolicy`` (its
    ``state_dict``) under the names of a ``MaskedActorCritic``, as numpy
    arrays (what an RLlib learner's ``set_state`` takes)."""
    out = {}
    for key, value in state.items():
        for prefix, sb3_prefix in _NAMES.items():
            if key.startswith(sb3_prefix + "."):
                out[prefix + key[len(sb3_prefix) :]] = np.asarray(
                    value.detach().cpu() if hasattr(value, "detach") else value
                )
                break
    return out


def remap_optimizer(state: dict, names_from: list[str], names_to: list[str], rename) -> dict:
    """A torch optimizer ``state_dict`` (one parameter group, parameters by
    index in ``names_from`` order) for the same parameters indexed in
    ``names_to`` order; ``rename`` maps a name of the first to the second."""
    index = {name: i for i, name in enumerate(names_to)}
    to = {i: index[rename(name)] for i, name in enumerate(names_from)}
    if len(state["param_groups"]) != 1 or sorted(to.values()) != list(range(len(names_to))):
        raise ValueError(f"optimizer state does not fit the network: {names_from} -> {names_to}")
    group = {**state["param_groups"][0], "params": list(range(len(names_to)))}
    return {"state": {to[int(i)]: v for i, v in state["state"].items()}, "param_groups": [group]}


def sb3_name(name: str) -> str:
    """A ``MaskedActorCritic`` parameter's name in the SB3 policy."""
    prefix, _, rest = name.partition(".")
    return f"{_NAMES[prefix]}.{rest}"


def rllib_name(name: str) -> str:
    """An SB3 policy parameter's name in the ``MaskedActorCritic``."""
    for prefix, sb3_prefix in _NAMES.items():
        if name.startswith(sb3_prefix + "."):
            return prefix + name[len(sb3_prefix) :]
    raise ValueError(f"unexpected parameter {name!r} in an SB3 policy")


class _Spaces(gymnasium.Env):
    """Only the spaces: what ``MaskablePPO`` needs to build its policy."""

    def __init__(self, obs_dim: int):
        self.observation_space = spaces.Box(0.0, 1.0, (obs_dim,), np.float32)
        self.action_space = spaces.Discrete(N_ACTIONS)

    def action_masks(self):
        return np.ones(N_ACTIONS, bool)


def sb3_hyperparameters(config: dict) -> dict:
    """The ``MaskablePPO`` settings of an RLlib run's ``config`` (its
    settings as a dict): the PPO settings under SB3's names, a rollout of
    ``train_batch_size`` decisions as ``n_steps``, so the SB3 zip of an
    RLlib run holds what it trained with."""
    keys = ("batch_size", "n_epochs", "gamma", "gae_lambda", "clip_range", "ent_coef", "vf_coef", "max_grad_norm")
    out = {k: config[k] for k in keys if k in config}
    if "learning_rate" in config:
        out["learning_rate"] = config["learning_rate"]
    if "train_batch_size" in config:
        out["n_steps"] = config["train_batch_size"]
    return out


def sb3_model(state: dict, net_arch, activation: str, num_timesteps: int = 0, **hyperparameters):
    """A ``MaskablePPO`` holding the weights of a ``MaskedActorCritic``
    (with ``hyperparameters``, ``MaskablePPO``'s settings, if given)."""
    from sb3_contrib import MaskablePPO

    weights = sb3_state_dict(state)
    obs_dim = weights["mlp_extractor.policy_net.0.weight"].shape[1]
    act = activation_class(activation)
    model = MaskablePPO(
        "MlpPolicy",
        _Spaces(obs_dim),
        device="cpu",
        verbose=0,
        policy_kwargs=dict(net_arch=dict(pi=list(net_arch), vf=list(net_arch)), activation_fn=act),
    )
    # Set, not built with: the zip records them, and no rollout buffer of their size is made for a save.
    for key, value in hyperparameters.items():
        setattr(model, key, value)
    missing, unexpected = model.policy.load_state_dict(weights, strict=False)
    if unexpected or any(k.startswith(("mlp_extractor", "action_net", "value_net")) for k in missing):
        raise ValueError(
            f"RLlib weights do not fit net_arch {list(net_arch)}: missing {missing}, unexpected {unexpected}"
        )
    model.num_timesteps = int(num_timesteps)
    return model


def save_rllib_checkpoint(
    state: dict,
    path: str | Path,
    config: dict,
    seed: int,
    num_timesteps: int,
    net_arch,
    activation: str,
    env: str = "trappola_v0",
    optimizer: dict | None = None,
    **extra_meta,
) -> Path:
    """Write the weights of a ``MaskedActorCritic`` to ``path`` in the
    project's checkpoint format (metadata: ``config``, ``seed``,
    ``num_timesteps``, the signature of ``env``, ``trainer: "rllib"`` and
    ``extra_meta``), with ``optimizer`` (the learner's optimizer
    ``state_dict``, its parameters in ``state``'s order) if given; returns
    the path."""
    model = sb3_model(state, net_arch, activation, num_timesteps, **sb3_hyperparameters(config))
    if optimizer is not None:
        import torch

        names = [n for n, _ in model.policy.named_parameters()]
        sb3_state = remap_optimizer(optimizer, list(state), names, sb3_name)
        sb3_state["state"] = {
            i: {k: torch.as_tensor(np.asarray(v)) for k, v in st.items()} for i, st in sb3_state["state"].items()
        }
        model.policy.optimizer.load_state_dict(sb3_state)
    meta = build_metadata(config, seed, num_timesteps, env=env, trainer="rllib", **extra_meta)
    return save_checkpoint(model, path, meta)
