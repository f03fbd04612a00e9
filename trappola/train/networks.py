"""The activations a trained network may use, written once for every trainer."""
from __future__ import annotations

from functools import partial

from .choices import check_choice

ACTIVATIONS = ("relu", "tanh")


# Refuses an activation other than ``ACTIVATIONS``; returns it.
check_activation = partial(check_choice, "activation", choices=ACTIVATIONS)


def activation_class(activation: str):
    """The torch module class of an activation.

    :param activation: "relu" or "tanh"
    :return: ``torch.nn.ReLU`` or ``torch.nn.Tanh``
    """
    import torch

    return {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[check_activation(activation)]
