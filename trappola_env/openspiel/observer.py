"""The PyObserver both pyspiel games hand OpenSpiel (``make_py_observer``):
a flat float32 ``tensor``, its named views in ``dict`` (the fields of the
environments' layout tables), ``set_from(state, player)`` and
``string_from(state, player)``.

The tensor is the environment's observation vector of that player, for the
information state (perfect recall) and the observation alike: the vector
already carries the public record a player needs (cards played by trick,
declarations, Manko answers, proposals), as documented in the layout table
of ``trappola_v0`` (and ``bulka_v0`` for the session features). The
strings differ: the information-state string lists every action in order,
so two histories that only the order of declarations tells apart differ.
With ``private_info=NONE`` (a public observer) the vector is what an onlooker
sees (``observation.encode_public``): no hand, no dealt hand.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pyspiel

Tensor = npt.NDArray[np.float32]
#: ``write(state, player, public, out)``: fills ``out`` with ``player``'s vector of ``state``.
Writer = Callable[[Any, int, bool, Tensor], None]
#: ``text(state, player, public, perfect_recall)``: ``player``'s string of ``state``.
Texter = Callable[[Any, int, bool, bool], str]


class TrappolaObserver:
    """Observer of one of the two games for one ``pyspiel.IIGObservationType``."""

    def __init__(self, iig_obs_type: Any, layout: Sequence[tuple[str, int, int]], write: Writer, text: Texter) -> None:
        """``layout``: ``(name, offset, size)`` rows covering the vector;
        ``write(state, player, public, out)`` fills it;
        ``text(state, player, public, perfect_recall)`` gives the string."""
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("private_info=ALL_PLAYERS is not offered: a player never sees another's hand")
        self.public = iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        size = sum(n for _, _, n in layout)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {name: self.tensor[off : off + n] for name, off, n in layout}
        self._write = write
        self._text = text

    def set_from(self, state: Any, player: int) -> None:
        """Write ``player``'s vector of ``state`` into ``tensor``."""
        self._write(state, player, self.public, self.tensor)

    def string_from(self, state: Any, player: int) -> str:
        """``player``'s information (or observation) of ``state`` as a string."""
        return self._text(state, player, self.public, self.perfect_recall)


__all__ = ["Tensor", "Texter", "TrappolaObserver", "Writer"]
