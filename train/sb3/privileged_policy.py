"""A MaskablePPO policy whose critic sees the whole deal and whose actor
does not (the PerfectDou scheme).

The environment gives the learner one flat vector: the ``trappola_v0``
observation (``OBS_SIZE`` values) followed by the privileged vector of
``trappola_env.full_deal`` (the opponent's hand, its dealt hand and the
stock order). ``PrivilegedCriticPolicy`` cuts it: the actor's MLP reads only
the first ``actor_dim`` values, the critic's MLP reads all of them. A value
estimate that knows the hidden cards has less variance, which is what the
advantages need; the actor stays a function of the information set.

The actor keeps the layout of SB3's ``MlpPolicy``
(``mlp_extractor.policy_net.*``, ``action_net``), so checkpoints are read
for play by ``trappola.agents.model_io.checkpoint_format`` like any other: the ``policy`` player runs
only the actor, on the plain observation, and never sees privileged data.
"""

from __future__ import annotations

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from trappola_env.observation import OBS_SIZE


def _mlp(in_dim: int, sizes: list[int], activation_fn) -> tuple[nn.Sequential, int]:
    layers: list[nn.Module] = []
    for size in sizes:
        layers += [nn.Linear(in_dim, size), activation_fn()]
        in_dim = size
    return nn.Sequential(*layers), in_dim


class PrivilegedMlpExtractor(nn.Module):
    """SB3's ``MlpExtractor`` contract (``forward``, ``forward_actor``,
    ``forward_critic``, ``latent_dim_pi``, ``latent_dim_vf``) with an actor
    that reads only the first ``actor_dim`` features."""

    def __init__(self, feature_dim: int, actor_dim: int, net_arch, activation_fn):
        super().__init__()
        if not 0 < actor_dim < feature_dim:
            raise ValueError(f"actor_dim must be between 1 and the observation size {feature_dim - 1}, got {actor_dim}")
        pi = list(net_arch.get("pi", [])) if isinstance(net_arch, dict) else list(net_arch)
        vf = list(net_arch.get("vf", [])) if isinstance(net_arch, dict) else list(net_arch)
        self.actor_dim = actor_dim
        self.policy_net, self.latent_dim_pi = _mlp(actor_dim, pi, activation_fn)
        self.value_net, self.latent_dim_vf = _mlp(feature_dim, vf, activation_fn)

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        """The actor's latent from the observation part of ``features`` only."""
        return self.policy_net(features[..., : self.actor_dim])

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        """The critic's latent from the whole of ``features`` (observation and full deal)."""
        return self.value_net(features)


class PrivilegedCriticPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` with a ``PrivilegedMlpExtractor``.

    Use with an observation space of ``actor_dim + FULL_DEAL_SIZE`` values
    (``SelfPlayEnv(privileged=True)``); ``actor_dim`` defaults to the
    ``trappola_v0`` observation size. The features extractor must be the
    default flatten, so that the actor's input is the raw observation."""

    def __init__(self, *args, actor_dim: int = OBS_SIZE, **kwargs):
        self.actor_dim = actor_dim
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        # SB3 declares an MlpExtractor; this one has its interface (latent_dim_pi/vf, forward_actor/critic).
        self.mlp_extractor = PrivilegedMlpExtractor(  # type: ignore[assignment]
            self.features_dim, self.actor_dim, self.net_arch, self.activation_fn
        ).to(self.device)

    def _get_constructor_parameters(self) -> dict:
        return {**super()._get_constructor_parameters(), "actor_dim": self.actor_dim}
