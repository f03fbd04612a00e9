"""The base class of the project's players and its settings.

What a player sees and answers (``TurnView``, ``ProView``) is the
environment layer's interface (``trappola_env.interface``); the referee
that drives players is ``trappola_env.referee``. This module adds what the
registry needs: named, validated settings and a seeded ``rng``.

Contract for implementers (``Player`` subclasses):

* The registry row, declared on the class once: ``kind`` (the name),
  ``HELP`` (one line; a class whose own body sets it is a registered
  player), ``SETTINGS`` (the options the registry may pass, ``Setting``
  objects with their bounds; ``agents.make_player("name:key=value")``
  validates and converts them), ``ENDGAME`` (the endgame searches it offers
  the ``policy`` player) and ``WEB`` (the settings the web table offers, with
  its own bounds; None: not offered). ``trappola.agents.registry`` derives
  every list of players from these rows.
* ``reset(seed)``: called before every partie the evaluator plays; after it
  the player's behaviour must depend only on ``seed`` and what it is shown
  (all randomness from ``self.rng``, a ``random.Random`` the player owns),
  so that evaluations reproduce whatever process plays which deal.
* ``act(view)`` returns a legal action id; ``decide_pro(view)`` a bool
  (the default applies the player's Pro rule, ``trappola.agents.pro_rules``);
  ``advise(view)`` an advice id for the defender of a Pro partie (the
  default gives no advice; ``trappola.agents.advice`` has honest advice and
  ``heed``, taking it).
* ``observe_result(info, result)``: optional hook at the end of a partie
  (``info`` is the final ``InfoState`` of the player's seat).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from trappola.agents.pro_rules import ProRule, pro_settings
from trappola.agents.settings import Setting, Values, WebBound
from trappola_env.engine.advice import NO_ADVICE
from trappola_env.engine.infostate import InfoState
from trappola_env.interface import AdviceView, ProView, TurnView

__all__ = ["Player", "Setting", "pro_settings"]


class Player:
    """Base class. Subclasses set ``kind`` (the registry name), ``SETTINGS``
    and implement ``act``."""

    kind = "player"
    #: One line for ``trappola players`` and the web table; set in a class's own body, it registers the class.
    HELP: str | None = None
    SETTINGS: dict[str, Setting] = {}
    #: Endgame searches this class offers the ``policy`` player: choice name -> settings beyond the endgame ones.
    ENDGAME: Mapping[str, Mapping[str, Any]] = {}
    #: Settings the web table offers (setting -> its web bound); None: the web table does not offer the player.
    WEB: Mapping[str, WebBound] | None = None
    #: The spec that names the class when it is not registered by ``kind`` (a user's file, ``path.py:Class``).
    SPEC_NAME: str | None = None
    #: A setting that may be given bare as the spec's first item (``policy:model.zip``).
    POSITIONAL: str | None = None
    #: True for players that talk to a person: evaluators run them serially.
    interactive = False

    def __init__(self, **settings):
        self.settings = self._validate(settings)
        self.name = (self.SPEC_NAME or self.kind) + _settings_suffix(self.settings, self.SETTINGS, self.POSITIONAL)
        self.rng = random.Random(0)
        self.pro_rule = ProRule.from_settings(self.settings)

    @classmethod
    def _validate(cls, settings: Mapping[str, Any]) -> Values:
        unknown = sorted(set(settings) - set(cls.SETTINGS))
        if unknown:
            known = ", ".join(sorted(cls.SETTINGS)) or "none"
            raise ValueError(f"player {cls.kind!r} has no setting {', '.join(unknown)}; its settings: {known}")
        out = {k: s.default for k, s in cls.SETTINGS.items()}
        for k, v in settings.items():
            out[k] = cls.SETTINGS[k].convert(k, v)
        return Values(out)

    def reset(self, seed: int | None = None) -> None:
        """Start afresh: behaviour after this depends only on ``seed``."""
        self.rng = random.Random(seed)

    def act(self, view: TurnView) -> int:
        """The action id to play at this turn (a legal one of ``view.legal_mask``)."""
        raise NotImplementedError

    def decide_pro(self, view: ProView) -> bool:
        """Whether to declare Pro before the next partie; the default asks the
        player's ``ProRule`` (its ``pro``, ``pro_bulka`` and ``pro_vs`` settings)."""
        return self.pro_rule.decide(view, self.rng)

    def advise(self, view: AdviceView) -> int:
        """The advice id for the defender's decision; the default is no advice."""
        return NO_ADVICE

    def observe_result(self, info: InfoState, result) -> None:
        """Called once at the end of each partie the referee plays."""

    # The referee skips the end-of-partie bookkeeping for players that keep this no-op.
    observe_result.is_default_noop = True  # type: ignore[attr-defined]  # a marker on the function itself

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def _settings_suffix(values: dict, spec: dict, positional: str | None) -> str:
    changed = [f"{k}={_fmt(v)}" for k, v in values.items() if v != spec[k].default and k != positional]
    if positional is not None and values.get(positional) != spec[positional].default:
        changed.insert(0, _fmt(values[positional]))
    return (":" + ",".join(changed)) if changed else ""


def _fmt(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)
