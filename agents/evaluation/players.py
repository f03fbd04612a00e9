"""How evaluators take players: a registry spec (``"rule:declare=never"``)
or a ``Player`` object.

Specs are checked once here (a bad one raises ``ValueError`` before any
work starts) and rebuilt inside each worker process, cached per process;
``Player`` objects are used as they are (pickled to workers, so they must be
picklable; interactive players force the serial backend). Either way the
evaluator resets every player before every partie, so a cached player's
past never leaks into a result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:
    from trappola.agents.base import Player

PlayerSource = Union[str, "Player"]

_CACHE: dict = {}


def source_of(player) -> PlayerSource:
    """A validated spec (its canonical form) or the ``Player`` itself."""
    from trappola.agents import make_player
    from trappola.agents.base import Player

    if isinstance(player, Player):
        return player
    if isinstance(player, str):
        made = make_player(player)
        if made.interactive:
            return made
        return made.name
    raise ValueError(f"a player is a spec like 'rule' or an agents Player, got {player!r}")


def player_label(source: PlayerSource) -> str:
    """The label of a player source: the spec itself, or the player's name."""
    return source if isinstance(source, str) else source.name


def build_players(sources) -> list:
    """Player objects for ``sources``; specs come from this process's cache
    (one object per spec and position, so a player never plays itself)."""
    from trappola.agents import make_player

    out = []
    for pos, s in enumerate(sources):
        if isinstance(s, str):
            key = (s, pos)
            if key not in _CACHE:
                _CACHE[key] = make_player(s)
            out.append(_CACHE[key])
        else:
            out.append(s)
    return out
