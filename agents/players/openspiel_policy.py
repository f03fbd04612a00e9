"""``openspiel``: a policy trained by OpenSpiel's own learner
(``python -m trappola.train.openspiel.policy_gradient``), played through the
``BotPlayer`` adapter (needs the ``openspiel`` and ``train`` extras).

``openspiel:PATH`` reads the file the training script writes: one policy
network per seat, over the ``python_trappola`` information-state tensor
(the environments' observation vector). Its bot (``PolicyBot``, a
``pyspiel.Bot``) takes the most likely legal action, or with
``sample=true`` draws one from the policy. A damaged or foreign file is a
``ValueError`` naming it.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pyspiel
import torch
from open_spiel.python.pytorch.policy_gradient import MLPTorso
from torch import nn

from trappola.agents.base import pro_settings
from trappola.agents.players.openspiel_bots import BotPlayer
from trappola.agents.settings import Setting

FORMAT = "trappola-openspiel-policy/1"


def load_policy_file(path: str) -> dict:
    """The payload of a file written by the training script, its networks
    rebuilt (``"nets"``: one ``nn.Sequential`` per seat, in eval mode)."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise ValueError(f"cannot read the OpenSpiel policy {path!r}: {e.strerror or e}") from None
    try:
        payload = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many types for a damaged pickle
        raise ValueError(f"{path!r} is not an OpenSpiel policy file ({type(e).__name__})") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise ValueError(f"{path!r} is not an OpenSpiel policy file written by trappola.train.openspiel")
    nets = []
    for state_dict in payload["networks"]:
        hidden = payload["hidden"]
        net = nn.Sequential(MLPTorso(payload["info_state_size"], hidden), nn.Linear(hidden[-1], payload["num_actions"]))
        net.load_state_dict(state_dict)
        net.eval()
        nets.append(net)
    return {**payload, "nets": nets}


class PolicyBot(pyspiel.Bot):
    """A ``pyspiel.Bot`` playing per-seat policy networks over the
    information-state tensor: the most likely legal action, or a draw."""

    def __init__(self, nets, sample: bool, seed: int):
        super().__init__()
        self.nets = nets
        self.sample = sample
        self.rng = np.random.RandomState(seed)

    def policy(self, state) -> np.ndarray:
        """The network's probabilities over the legal actions (0 elsewhere)."""
        player = state.current_player()
        x = torch.as_tensor(np.asarray(state.information_state_tensor(player), np.float32))[None]
        with torch.no_grad():
            logits = self.nets[player](x)[0].numpy().astype(np.float64)
        legal = state.legal_actions()
        out = np.zeros_like(logits)
        z = logits[legal] - logits[legal].max()
        out[legal] = np.exp(z) / np.exp(z).sum()
        return out

    def step(self, state):
        """The chosen action."""
        probs = self.policy(state)
        if self.sample:
            return int(self.rng.choice(len(probs), p=probs))
        return int(np.argmax(probs))

    def restart_at(self, state):
        """Nothing to forget: the bot keeps no memory between moves."""


class OpenSpielPolicyPlayer(BotPlayer):
    """The ``openspiel`` player (see the module docstring)."""

    kind = "openspiel"
    HELP = "a policy trained by OpenSpiel's learner (python -m trappola.train.openspiel.policy_gradient)"
    POSITIONAL = "path"
    SETTINGS = {
        "path": Setting(str, "", "policy file written by python -m trappola.train.openspiel.policy_gradient"),
        "sample": Setting(bool, False, "sample moves from the policy (default: its most likely move)"),
        **pro_settings("threshold"),
    }

    def __init__(self, **settings):
        super().__init__(**settings)
        if not self.settings.path:
            raise ValueError("player 'openspiel' needs a policy file: openspiel:PATH")
        self.payload = load_policy_file(self.settings.path)
        self.reward_mode = self.payload["params"].get("reward_mode", "win")

    def make_bot(self, game, player_id: int, seed: int) -> pyspiel.Bot:
        """A ``PolicyBot`` over the file's networks."""
        return PolicyBot(self.payload["nets"], self.settings.sample, seed)


__all__ = ["OpenSpielPolicyPlayer", "PolicyBot", "load_policy_file"]
