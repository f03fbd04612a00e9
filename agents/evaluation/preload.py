"""What the fork server of ``ProcessBackend`` loads once, before it forks
any worker: imported there by name (``multiprocessing``'s
``set_forkserver_preload``), so importing this module does the work.

A worker that started bare spent 6-9 s before its first deal, most of it
importing torch (to read checkpoints) and loading the numba-compiled
search code, against about 0.5 s per duplicate deal of ``policy`` against
``pimc:samples=32`` afterwards (``benchmarks/bench_eval_scaling.py``).
Sixteen workers did that sixteen times at once. Forked from a server that
has done it, each starts with it done. Playing one short partie here
loads the compiled code the players use; nothing of it reaches a result,
since every partie of an evaluation resets its players from its own seed.
"""

from __future__ import annotations

import contextlib


def warm_up() -> None:
    """Import what the players need and load their compiled code: one
    partie of ``pimc:samples=1`` against ``rule`` on a fixed deal."""
    import random

    import torch  # noqa: F401  (checkpoints are read with it)

    from trappola.agents import make_player
    from trappola.agents.players.policy import PolicyPlayer  # noqa: F401
    from trappola_env.engine import random_deal
    from trappola_env.referee import play_partie

    players = [make_player("pimc:samples=1"), make_player("rule")]
    for seat, player in enumerate(players):
        player.reset(seat)
    play_partie(players, random_deal(random.Random(0)))


# A failure here must not stop the fork server: its workers then load it all themselves.
with contextlib.suppress(Exception):
    warm_up()
