"""A Ray cluster's ``address``, checked before anything waits for it.

``ray.init(address="host:port")`` waits minutes for a head that does not
answer; ``check_reachable`` refuses such an address in one line within
seconds, before Ray (or the trainer) is even imported.
"""

from __future__ import annotations


def check_reachable(address: str, timeout: float = 10.0) -> None:
    """Refuse in one line a Ray ``address`` (``host:port``, ``ray://host:port``)
    where nothing answers within ``timeout`` seconds (``ray.init`` would wait
    for minutes); ``auto`` and ``local`` are Ray's to resolve."""
    import socket

    if address in ("auto", "local"):
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return  # a form Ray reads its own way
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise ValueError(f"cannot reach a Ray cluster at {address!r}: {exc.strerror or exc}") from None
