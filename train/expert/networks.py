"""The networks expert iteration trains.

``MlpActorCritic``: the shipped network's layout (separate actor and critic
MLPs over the ``trappola_v0`` observation), its parameters named as in the
SB3 policy's state dict, so a trained one is written into a checkpoint that
``policy:PATH`` plays and ``pimc:infer=PATH`` reads.

``HistoryActorCritic``: the same MLPs, each with a GRU's summary of the
partie's actions (``trappola.train.expert.games.history_tokens``: who did
what, in order) beside the observation. The observation already holds what
was played; the order of the opponent's decisions (what it led, when it
declared, what it kept) is what the GRU adds.
"""

from __future__ import annotations

import torch
from torch import nn

from trappola.train.expert.games import HISTORY_TOKENS, N_ACTIONS
from trappola.train.networks import activation_class
from trappola_env.observation import OBS_SIZE


def _mlp(inputs: int, arch: list[int], activation: str) -> nn.Sequential:
    layers: list[nn.Module] = []
    for width in arch:
        layers += [nn.Linear(inputs, width), activation_class(activation)()]
        inputs = width
    return nn.Sequential(*layers)


class _Extractor(nn.Module):
    def __init__(self, inputs: int, arch: list[int], activation: str):
        super().__init__()
        self.policy_net = _mlp(inputs, arch, activation)
        self.value_net = _mlp(inputs, arch, activation)


class MlpActorCritic(nn.Module):
    """Actor and critic MLPs (``net_arch`` hidden layers each); ``forward(obs,
    history)`` returns (logits over the 49 actions, values); ``history`` is
    ignored."""

    def __init__(self, arch: list[int], activation: str = "relu", extra_inputs: int = 0):
        super().__init__()
        self.mlp_extractor = _Extractor(OBS_SIZE + extra_inputs, arch, activation)
        self.action_net = nn.Linear(arch[-1], N_ACTIONS)
        self.value_net = nn.Linear(arch[-1], 1)

    def heads(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits, values) of the inputs ``x``."""
        pi = self.action_net(self.mlp_extractor.policy_net(x))
        v = self.value_net(self.mlp_extractor.value_net(x)).squeeze(-1)
        return pi, v

    def forward(self, obs: torch.Tensor, history: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.heads(obs)

    @classmethod
    def from_state_dict(cls, state: dict, activation: str = "relu") -> MlpActorCritic:
        """The network of an SB3 policy state dict (a checkpoint's ``load_state_dict``)."""
        arch = [
            int(state[k].shape[0])
            for k in sorted(state, key=lambda k: int(k.split(".")[2]) if k.startswith("mlp_extractor.policy") else 0)
            if k.startswith("mlp_extractor.policy_net.") and k.endswith(".weight")
        ]
        net = cls(arch, activation)
        net.load_state_dict({k: v.float() for k, v in state.items()})
        return net


class HistoryActorCritic(MlpActorCritic):
    """``MlpActorCritic`` whose actor and critic also read a GRU's last
    state over the history tokens (``hidden`` units, tokens embedded in
    ``embed``)."""

    def __init__(self, arch: list[int], activation: str = "relu", embed: int = 32, hidden: int = 64):
        super().__init__(arch, activation, extra_inputs=hidden)
        self.embed = nn.Embedding(HISTORY_TOKENS, embed, padding_idx=0)
        self.gru = nn.GRU(embed, hidden, batch_first=True)

    def forward(self, obs: torch.Tensor, history: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        _, last = self.gru(self.embed(history.long()))
        return self.heads(torch.cat([obs, last[-1]], dim=-1))
