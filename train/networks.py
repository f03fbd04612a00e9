"""The activations a trained network may use, written once for every trainer."""

from __future__ import annotations

from functools import partial

from trappola_env.engine.checks import check_choice

ACTIVATIONS = ("relu", "tanh")


# Refuses an activation other than ``ACTIVATIONS``; returns it.
check_activation = partial(check_choice, "activation", choices=ACTIVATIONS)


def _torch_activations(activation: str) -> tuple:
    import torch

    table = {"relu": (torch.nn.ReLU, torch.relu_), "tanh": (torch.nn.Tanh, torch.tanh_)}
    return table[check_activation(activation)]


def activation_class(activation: str):
    """The torch module class of an activation.

    :param activation: "relu" or "tanh"
    :return: ``torch.nn.ReLU`` or ``torch.nn.Tanh``
    """
    return _torch_activations(activation)[0]


def activation_inplace(activation: str):
    """The in-place torch function of an activation, for forward passes
    outside autograd (no new tensor per layer).

    :param activation: "relu" or "tanh"
    :return: ``torch.relu_`` or ``torch.tanh_``
    """
    return _torch_activations(activation)[1]
