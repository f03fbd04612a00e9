"""Which torch device a run trains on: ``device`` in both trainers'
configs and in ``trappola exploit``.

``auto`` (the default) is CUDA when torch sees a GPU, else the CPU;
``cpu`` and ``cuda`` force one. ``cuda`` on a machine without a GPU is
refused before anything runs. Checkpoints are device-free whichever
device trained them (``trappola.agents.model_io.checkpoint_format``
loads every tensor with ``map_location="cpu"``).
"""

from __future__ import annotations

DEVICES = ("auto", "cpu", "cuda")


def cuda_available() -> bool:
    """Whether torch sees a CUDA GPU."""
    import torch

    return bool(torch.cuda.is_available())


def check_device(device: str) -> None:
    """Raise ``ValueError`` unless ``device`` is one of ``DEVICES`` and,
    for ``cuda``, torch sees a GPU (torch is imported only then)."""
    if device not in DEVICES:
        raise ValueError(f"device must be one of {', '.join(DEVICES)}, got {device!r}")
    if device == "cuda" and not cuda_available():
        raise ValueError("device=cuda, but torch sees no CUDA GPU on this machine (use device=auto or cpu)")


def resolve_device(device: str) -> str:
    """The torch device ``device`` names: ``cuda`` or ``cpu`` (``auto``:
    CUDA when torch sees a GPU)."""
    check_device(device)
    if device == "auto":
        return "cuda" if cuda_available() else "cpu"
    return device
