"""The actor of a MaskablePPO MLP policy as plain numpy.

One torch forward pass on a single observation costs ~100 us of framework
overhead; the same small MLP in numpy costs a few microseconds. Frozen
self-play opponents (run inside every environment worker) and the
``policy`` player use this copy; the learner itself stays in torch.

Masked sampling follows sb3-contrib: illegal logits are set to -1e8 before
the softmax, so an illegal action is never chosen.
"""

from __future__ import annotations

import numpy as np


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0, out=x)


def _tanh(x: np.ndarray) -> np.ndarray:
    return np.tanh(x, out=x)


# Named functions, not lambdas: a policy (and a ``policy`` player holding
# one) must pickle, to reach evaluation worker processes.
ACTIVATIONS = {"relu": _relu, "tanh": _tanh}


class NumpyPolicy:
    """``layers``: [(W, b), ...] of the policy trunk, then the action head."""

    def __init__(self, layers: list, head: tuple, activation: str = "relu"):
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {activation!r}")
        self.layers = [(np.ascontiguousarray(w, dtype=np.float32), np.asarray(b, dtype=np.float32)) for w, b in layers]
        self.head = (np.ascontiguousarray(head[0], dtype=np.float32), np.asarray(head[1], dtype=np.float32))
        shapes = [(w.shape, b.shape) for w, b in [*self.layers, self.head]]
        for i, (w_shape, b_shape) in enumerate(shapes):
            if len(w_shape) != 2 or b_shape != w_shape[:1] or (i and w_shape[1] != shapes[i - 1][0][0]):
                raise ValueError(
                    f"layer {i} has weights {w_shape} and bias {b_shape}, which do not chain "
                    f"with the layers before: {shapes}"
                )
        self.activation = activation
        self._act = ACTIVATIONS[activation]
        self.obs_dim = self.layers[0][0].shape[1] if self.layers else self.head[0].shape[1]
        self.n_actions = self.head[0].shape[0]

    @classmethod
    def from_state_dict(cls, state: dict, activation: str = "relu") -> NumpyPolicy:
        """From the ``state_dict`` of an SB3 ``MaskableActorCriticPolicy``
        whose features extractor is a flatten (MlpPolicy)."""

        def arr(t):
            return t.detach().cpu().numpy() if hasattr(t, "detach") else np.asarray(t)

        layers = []
        i = 0
        while f"mlp_extractor.policy_net.{i}.weight" in state:
            layers.append(
                (arr(state[f"mlp_extractor.policy_net.{i}.weight"]), arr(state[f"mlp_extractor.policy_net.{i}.bias"]))
            )
            i += 2  # Linear, activation, Linear, ...
        if "action_net.weight" not in state:
            raise ValueError("state dict has no action_net: not a MaskablePPO MLP policy")
        head = (arr(state["action_net.weight"]), arr(state["action_net.bias"]))
        return cls(layers, head, activation)

    @classmethod
    def from_sb3(cls, policy, activation: str = "relu") -> NumpyPolicy:
        """From a live SB3 ``MaskableActorCriticPolicy`` (see ``from_state_dict``)."""
        return cls.from_state_dict(policy.state_dict(), activation)

    def get_weights(self) -> dict:
        """A picklable form (sent to environment workers)."""
        return {"layers": self.layers, "head": self.head, "activation": self.activation}

    @classmethod
    def from_weights(cls, weights: dict) -> NumpyPolicy:
        """From the picklable form ``get_weights`` returns."""
        return cls(weights["layers"], weights["head"], weights["activation"])

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """The actor's action logits for one observation (or a batch, one row each)."""
        x = np.asarray(obs, dtype=np.float32)
        for w, b in self.layers:
            x = self._act(x @ w.T + b)
        w, b = self.head
        return x @ w.T + b

    def act(
        self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None, deterministic: bool = True
    ) -> int:
        """One action for one observation; ``mask`` is the legal-action mask."""
        legal = np.asarray(mask, dtype=bool)
        if not legal.any():
            raise ValueError("no legal action in the mask")
        z = np.where(legal, self.logits(obs), -np.inf)
        if deterministic or rng is None:
            return int(np.argmax(z))
        c = np.cumsum(np.exp(z - z.max()))
        # rng.choice(p=...) validates p on every call; a cumsum draw is 10x cheaper.
        return int(min(np.searchsorted(c, rng.random() * c[-1], side="right"), len(c) - 1))

    def probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The action probabilities for one observation, over the legal actions of ``mask`` only."""
        legal = np.asarray(mask, dtype=bool)
        z = np.where(legal, self.logits(obs), -np.inf)
        z = z - z.max()
        p = np.exp(z)
        return p / p.sum()
