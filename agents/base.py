"""The one interface every player implements, and the referee that drives it.

A player sees only what its seat may know. At each of its turns in a partie
it receives a ``TurnView``:

* ``view.info``: the engine's ``InfoState`` for its seat (own hand, dealt
  hand, the face-up stock card, the public record of tricks, declarations,
  Manko answers, card points, multiplier). It holds no reference to the
  opponent's hand, the hidden stock or the ``Partie``.
* ``view.legal_mask`` (an ``int`` bit set over the 49 action ids) and
  ``view.legal_actions`` (the same as a sorted list).
* ``view.observation``: the ``trappola_v0`` observation vector
  (``trappola_env.observation``, built from the ``InfoState`` alone by
  ``agents.policy_player.observation_of_info``), computed on first access only (the
  random and rule players never touch it, so they never pay for it); an
  environment that already has the vector passes it in.

and returns an action id (0..48) that must be legal. Before a partie of a
Bulka session in which it may declare Pro it receives a ``ProView`` and
answers ``decide_pro(view) -> bool``.

Contract for implementers (``Player`` subclasses):

* ``SETTINGS``: the options the registry may pass (``Setting`` objects);
  ``agents.make_player("name:key=value")`` validates and converts them.
* ``reset(seed)``: called before every partie the evaluator plays; after it
  the player's behaviour must depend only on ``seed`` and what it is shown
  (all randomness from ``self.rng``, a ``random.Random`` the player owns),
  so that evaluations reproduce whatever process plays which deal.
* ``act(view)`` returns a legal action id; ``decide_pro(view)`` a bool
  (the default applies the player's Pro rule, ``agents.pro_rules``).
* ``observe_result(info, result)``: optional hook at the end of a partie
  (``info`` is the final ``InfoState`` of the player's seat).

``play_partie`` is the referee used by the evaluator and the CLI: it owns
the ``Partie`` and shows each player only its own ``TurnView``.
"""
from __future__ import annotations

import operator
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from trappola_env.engine import DEFAULT_CONFIG, N_ACTIONS, Partie, RuleConfig, action_name, mask_to_actions
from trappola_env.engine.infostate import InfoState

from .pro_rules import ProRule, ProView, pro_settings
from .settings import Setting

__all__ = ["Player", "Setting", "TurnView", "ProView", "PartieRecord", "play_partie", "pro_settings"]


class TurnView:
    """What a seat may see when it is to act (see the module docstring)."""

    __slots__ = ("info", "legal_mask", "opponent", "_observation", "_encoder")

    def __init__(self, info: InfoState, legal_mask: int | None = None, observation=None,
                 encoder: Callable | None = None, opponent: str | None = None):
        if not isinstance(info, InfoState):
            raise TypeError(f"TurnView needs an InfoState, got {type(info).__name__}")
        self.info = info
        self.legal_mask = info.legal_mask if legal_mask is None else int(legal_mask)
        self.opponent = opponent
        self._observation = observation
        self._encoder = encoder

    @property
    def seat(self) -> int:
        return self.info.seat

    @property
    def legal_actions(self) -> list[int]:
        return mask_to_actions(self.legal_mask)

    def is_legal(self, action) -> bool:
        """Whether ``action`` (an int or numpy integer; never a bool) is legal."""
        if isinstance(action, bool):
            return False
        try:
            a = operator.index(action)
        except TypeError:
            return False
        return 0 <= a < N_ACTIONS and bool(self.legal_mask >> a & 1)

    @property
    def observation(self):
        """The encoded observation, computed once, on first access."""
        if self._observation is None:
            encoder = self._encoder or _default_encoder()
            self._observation = encoder(self.info)
        return self._observation


def _default_encoder() -> Callable:
    # observation.encode reads a Partie; the policy player owns the adapter
    # that feeds it one seat's InfoState (nothing hidden reaches it).
    try:
        from agents.policy_player import observation_of_info
    except ImportError as e:
        raise RuntimeError(
            f"this player needs observation vectors but the InfoState encoder is not available ({e}); "
            "pass observation= or encoder= to TurnView"
        ) from None
    return observation_of_info


class Player:
    """Base class. Subclasses set ``kind`` (the registry name), ``SETTINGS``
    and implement ``act``."""

    kind = "player"
    SETTINGS: dict[str, Setting] = {}
    #: A setting that may be given bare as the spec's first item (``policy:model.zip``).
    POSITIONAL: str | None = None
    #: True for players that talk to a person: evaluators run them serially.
    interactive = False

    def __init__(self, **settings):
        self.settings = self._validate(settings)
        self.name = self.kind + _settings_suffix(self.settings, self.SETTINGS, self.POSITIONAL)
        self.rng = random.Random(0)
        self.pro_rule = ProRule.from_settings(self.settings)

    @classmethod
    def _validate(cls, settings: dict) -> dict:
        unknown = sorted(set(settings) - set(cls.SETTINGS))
        if unknown:
            known = ", ".join(sorted(cls.SETTINGS)) or "none"
            raise ValueError(f"player {cls.kind!r} has no setting {', '.join(unknown)}; its settings: {known}")
        out = {k: s.default for k, s in cls.SETTINGS.items()}
        for k, v in settings.items():
            out[k] = cls.SETTINGS[k].convert(k, v)
        return out

    def reset(self, seed: int | None = None) -> None:
        """Start afresh: behaviour after this depends only on ``seed``."""
        self.rng = random.Random(seed)

    def act(self, view: TurnView) -> int:
        raise NotImplementedError

    def decide_pro(self, view: ProView) -> bool:
        return self.pro_rule.decide(view, self.rng)

    def observe_result(self, info: InfoState, result) -> None:
        """Called once at the end of each partie the referee plays."""

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


@dataclass
class PartieRecord:
    """A finished partie as the referee saw it."""

    result: Any  # scoring.PartieResult
    history: tuple  # (seat, action) in order
    deal: Any
    infos: tuple = field(default=())  # final InfoState per seat


def play_partie(players: Sequence[Player], deal, config: RuleConfig = DEFAULT_CONFIG, stake_multiple: int = 1,
                multiplier: int = 1, names: Sequence[str] | None = None,
                on_action: Callable[[int, int], None] | None = None) -> PartieRecord:
    """Play one partie: ``players[0]`` is the challenger, ``players[1]`` the
    dealer. Each player is shown only its own ``TurnView``; an illegal
    answer raises ``ValueError`` naming the player (a bug in that player:
    the referee never turns it into a forfeit). ``on_action(seat, action)``
    is called after every applied action (for logging and displays)."""
    if len(players) != 2:
        raise ValueError(f"a partie needs exactly 2 players, got {len(players)}")
    names = tuple(names) if names is not None else tuple(p.name for p in players)
    partie = Partie(deal, config, stake_multiple=stake_multiple, multiplier=multiplier)
    while not partie.terminal:
        seat = partie.to_act
        info = partie.info_state(seat)
        view = TurnView(info, opponent=names[1 - seat])
        action = players[seat].act(view)
        if not view.is_legal(action):
            legal = ", ".join(f"{a} ({action_name(a)})" for a in view.legal_actions)
            raise ValueError(f"player {names[seat]!r} (seat {seat}) chose illegal action {action!r}; "
                             f"legal: {legal}")
        action = operator.index(action)
        partie.apply(action)
        if on_action is not None:
            on_action(seat, action)
    result = partie.result()
    infos = (partie.info_state(0), partie.info_state(1))
    for seat in (0, 1):
        players[seat].observe_result(infos[seat], result)
    return PartieRecord(result=result, history=tuple(partie.history), deal=deal, infos=infos)
