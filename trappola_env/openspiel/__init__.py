"""Trappola in OpenSpiel: importing this package registers two pyspiel games
(needs the ``openspiel`` extra: ``pip install 'trappola-lab[openspiel]'``).

* ``python_trappola`` (``partie_game``): one partie, two-player zero-sum;
  parameters ``reward_mode`` ("win" | "points"), ``ace_declaration``,
  ``alifer``.
* ``python_bulka`` (``session_game``): a whole Bulka session with the Pro
  decision, general-sum, the token balances as returns; parameters
  ``players`` (2-4), ``max_parties``, ``stake_multiple``,
  ``ace_declaration``.

    import pyspiel
    import trappola_env.openspiel  # registers the games
    game = pyspiel.load_game("python_trappola", {"reward_mode": "points"})

Chance nodes deal the cards in the order the rules give; the information
state and observation tensors are the environments' observation vectors
(``observer``); ``serialize``/``deserialize`` and ``clone`` work;
``resample_from_infostate`` draws the hidden layout uniformly among those
the seat's record allows (``layouts.uniform_hand``), with this package alone,
so OpenSpiel's own ``ISMCTSBot`` runs on it; importing
``trappola.agents.players.openspiel_bots`` installs the lab's sampler in its place
(``layouts.set_layout_sampler``, the same distribution). Importing
``trappola_env`` alone never imports pyspiel.

Utility bounds: ``python_trappola``'s are +-1 (``win``) or a bound on the
point difference summed from the rules' tables (``points``,
``partie_game.MAX_POINTS``); ``python_bulka``'s bound the balance a session of
that length can reach, from the rules' tables (``bounds.balance_bound``),
exponential in ``max_parties`` because an Alifer doubles every payment of
its replay.

Two of OpenSpiel's own tools fail on Python games, this one included:
``evaluate_bots`` calls ``restart_at``, which ``ISMCTSBot`` does not
implement, and the C++ ``pyspiel.MCTSBot`` crashes the process at its first
step (use ``open_spiel.python.algorithms.mcts.MCTSBot``).
``benchmarks/openspiel_algorithms.py`` has a loop that plays bots without
``restart_at``.
"""

from trappola_env.openspiel.layouts import deal_order, set_layout_sampler, uniform_hand
from trappola_env.openspiel.partie_game import TrappolaGame, TrappolaState
from trappola_env.openspiel.session_game import BulkaGame, BulkaState

__all__ = [
    "BulkaGame",
    "BulkaState",
    "TrappolaGame",
    "TrappolaState",
    "deal_order",
    "set_layout_sampler",
    "uniform_hand",
]
