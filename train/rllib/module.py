"""The RLlib network: the SB3 ``MaskablePPO`` MLP policy, layer for layer.

``MaskedActorCritic`` is a torch ``RLModule`` for RLlib's PPO (new API
stack) reading the adapter's dict observation (``trappola.train.rllib.env``):

* actor: ``pi_trunk`` (Linear, activation, ... over ``net_arch``) and
  ``pi_head`` (Linear to the 49 actions); illegal actions get the logit
  -1e8, as in sb3-contrib, so they are never sampled and carry no gradient;
* critic: ``vf_trunk`` and ``vf_head`` (Linear to 1), separate from the
  actor as in the SB3 ``MlpPolicy``.

The trunks are ``nn.Sequential`` in SB3's order (Linear at 0, 2, 4, ...),
so ``trappola.train.rllib.export.sb3_state_dict`` renames the weights one to one
into a ``MaskableActorCriticPolicy``'s (``mlp_extractor.policy_net``,
``action_net``, ``mlp_extractor.value_net``, ``value_net``): that is how
an RLlib run writes the project's checkpoint format.

``model_config``: ``net_arch`` (list of ints, default [256, 256]) and
``activation`` ("relu" or "tanh").
"""

from __future__ import annotations

from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from torch import nn

from trappola.train.networks import activation_class, check_activation
from trappola.train.rllib.env import MASK_KEY, OBS_KEY

MASKED_LOGIT = -1e8  # sb3-contrib's value: finite, so the entropy of a masked distribution stays finite


def _trunk(n_in: int, net_arch, activation: str) -> nn.Sequential:
    layers = []
    for n_out in net_arch:
        layers += [nn.Linear(n_in, n_out), activation_class(activation)()]
        n_in = n_out
    return nn.Sequential(*layers)


class MaskedActorCritic(TorchRLModule, ValueFunctionAPI):
    """See the module docstring."""

    def setup(self):
        cfg = dict(self.model_config or {})
        net_arch = list(cfg.get("net_arch", [256, 256]))
        activation = check_activation(cfg.get("activation", "relu"))
        n_obs = self.observation_space[OBS_KEY].shape[0]
        n_actions = self.action_space.n
        self.pi_trunk = _trunk(n_obs, net_arch, activation)
        self.pi_head = nn.Linear(net_arch[-1], n_actions)
        self.vf_trunk = _trunk(n_obs, net_arch, activation)
        self.vf_head = nn.Linear(net_arch[-1], 1)

    def _forward(self, batch, **kwargs):
        obs = batch[Columns.OBS]
        logits = self.pi_head(self.pi_trunk(obs[OBS_KEY]))
        logits = logits.masked_fill(obs[MASK_KEY] < 0.5, MASKED_LOGIT)
        return {Columns.ACTION_DIST_INPUTS: logits}

    def compute_values(self, batch, embeddings=None):
        return self.vf_head(self.vf_trunk(batch[Columns.OBS][OBS_KEY])).squeeze(-1)
