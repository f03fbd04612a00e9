"""The activations a trained network may use, written once for every trainer."""
from __future__ import annotations

ACTIVATIONS = ("relu", "tanh")


def check_activation(activation: str) -> str:
    """Refuse an unknown activation.

    :param activation: "relu" or "tanh"
    :return: ``activation``
    :raises ValueError: for any other value
    """
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {list(ACTIVATIONS)}, got {activation!r}")
    return activation


def activation_class(activation: str):
    """The torch module class of an activation.

    :param activation: "relu" or "tanh"
    :return: ``torch.nn.ReLU`` or ``torch.nn.Tanh``
    """
    import torch

    return {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[check_activation(activation)]
