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
``resample_from_infostate`` draws the hidden layout with the lab's sampler,
installed through ``layouts.set_layout_sampler`` (the ``ismcts`` player,
``trappola.agents.players.openspiel_bots``, installs it). Importing
``trappola_env`` alone never imports pyspiel.
"""

from trappola_env.openspiel.layouts import deal_order, set_layout_sampler
from trappola_env.openspiel.partie_game import TrappolaGame, TrappolaState
from trappola_env.openspiel.session_game import BulkaGame, BulkaState

__all__ = ["BulkaGame", "BulkaState", "TrappolaGame", "TrappolaState", "deal_order", "set_layout_sampler"]
