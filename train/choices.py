"""The check of a setting that names one of a few choices."""

from __future__ import annotations


def check_choice(name: str, value, choices: tuple):
    """Refuse a value that is not one of ``choices``.

    :param name: the setting's name, for the message
    :param value: its value
    :param choices: the values allowed
    :return: ``value``
    :raises ValueError: for any other value
    """
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value
