"""``python_trappola``: one partie of Trappola as a pyspiel game.

Players 0 (challenger) and 1 (dealer), the engine's seats. The first 36
moves are chance nodes dealing the shuffled deck card by card in the order
the rules deal it (docs/rules.md section 2.2, ``engine.deal_from_order``):
three cards to the challenger, three to the dealer, twice more, then the 18
stock cards, the last of them face up. Each chance outcome is the id of the
card dealt, uniform over the cards not yet dealt. Then the players act
with the environments' 49-action table (47 and 48, Pro, are never legal
here), and the partie ends as in ``trappola_v0``.

Parameters: ``reward_mode`` ("win": +1/-1/0, or "points": own total minus
the opponent's, as ``trappola_v0``), ``ace_declaration`` ("first_ace" or
"first_card", the engine's ``RuleConfig``) and ``alifer`` (false makes
proposing Alifer illegal, as in the last replays of a session). Bad values
raise ``ValueError`` naming them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyspiel

from trappola_env.engine import N_ACTIONS, Partie, RuleConfig, action_name, card_name, cards_of, deal_from_order
from trappola_env.engine.cards import N_CARDS
from trappola_env.engine.checks import check_choice
from trappola_env.engine.infostate import InfoState
from trappola_env.engine.render import render_partie
from trappola_env.observation import LAYOUT, OBS_SIZE, encode, encode_public
from trappola_env.openspiel.layouts import SEAT_POSITIONS, layout_order, layout_sampler, rng_from
from trappola_env.openspiel.observer import Tensor, TrappolaObserver
from trappola_env.spaces_and_rewards import partie_reward

REWARD_MODES = ("win", "points")
# A bound on |own total - opponent's|: all 72 card points, every declaration one hand could make
# (Figura 12 * 3 + 20, Aces 40, Blans 10, Bianka 20) and every trick bonus (Marc 30, a Two in
# trick 1 52, in tricks 2..8 10 each, the last three with Twos 78, the last trick 6).
MAX_POINTS = 72 + (3 * 12 + 20 + 40 + 10 + 20) + (30 + 52 + 7 * 10 + 78 + 6)
# Player moves in a partie: 18 cards, at most 8 declarations or questions per seat, and each
# seat's one Alifer proposal with its answer.
MAX_MOVES = 18 + 2 * 8 + 2 * 2
_OWNER = [0] * 36  # deal position -> seat (2 = stock)
for _seat, _positions in enumerate(SEAT_POSITIONS):
    for _p in _positions:
        _OWNER[_p] = _seat
for _p in range(18, 36):
    _OWNER[_p] = 2

GAME_TYPE = pyspiel.GameType(
    short_name="python_trappola",
    long_name="Python Trappola (one partie)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"reward_mode": "win", "ace_declaration": "first_ace", "alifer": True},
)


def _game_info(reward_mode: str) -> Any:
    bound = 1.0 if reward_mode == "win" else float(MAX_POINTS)
    return pyspiel.GameInfo(
        num_distinct_actions=N_ACTIONS,
        max_chance_outcomes=N_CARDS,
        num_players=2,
        min_utility=-bound,
        max_utility=bound,
        utility_sum=0.0,
        max_game_length=MAX_MOVES,
    )


class TrappolaGame(pyspiel.Game):
    """The ``python_trappola`` game (see the module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        unknown = sorted(set(params) - set(GAME_TYPE.parameter_specification))
        if unknown:
            raise ValueError(f"python_trappola has no parameter {', '.join(unknown)}")
        self.reward_mode = check_choice("reward_mode", params.get("reward_mode", "win"), REWARD_MODES)
        self.config = RuleConfig(ace_declaration=params.get("ace_declaration", "first_ace"))
        self.alifer = check_choice("alifer", params.get("alifer", True), (True, False))
        super().__init__(GAME_TYPE, _game_info(self.reward_mode), params)

    def new_initial_state(self) -> TrappolaState:
        """A state before the first card is dealt."""
        return TrappolaState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> TrappolaObserver:
        """The observer of the information state or the observation (see ``observer``)."""
        if params:
            raise ValueError(f"python_trappola's observer takes no parameters, got {params!r}")
        return TrappolaObserver(iig_obs_type, LAYOUT, _write_vector, _text)


class TrappolaState(pyspiel.State):
    """A partie in progress: the deal so far, then the engine's ``Partie``."""

    def __init__(self, game: TrappolaGame) -> None:
        super().__init__(game)
        self._reward_mode = game.reward_mode
        self._config = game.config
        self._alifer = game.alifer
        self.order: list[int] = []  # card ids dealt so far, in deal order
        self.partie: Partie | None = None

    # ------------------------------------------------------------ pyspiel API
    def live(self) -> Partie:
        """The partie, once dealt (``ValueError`` while dealing)."""
        if self.partie is None:
            raise ValueError("the cards are still being dealt")
        return self.partie

    def current_player(self) -> int:
        """The seat to act, ``CHANCE`` while dealing, ``TERMINAL`` at the end."""
        if self.partie is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.partie.terminal:
            return int(pyspiel.PlayerId.TERMINAL)
        return self.partie.to_act

    def _legal_actions(self, player: int) -> list[int]:
        return cards_of(self.live().legal_mask())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The cards not dealt yet, each with the same probability."""
        left = sorted(set(range(N_CARDS)) - set(self.order))
        p = 1.0 / len(left)
        return [(c, p) for c in left]

    def _apply_action(self, action: int) -> None:
        if self.partie is None:
            self.order.append(int(action))
            if len(self.order) == N_CARDS:
                self.partie = Partie(deal_from_order(self.order), self._config, alifer_allowed=self._alifer)
        else:
            self.partie.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {card_name(action)}"
        return action_name(action)

    def is_terminal(self) -> bool:
        """Whether the partie is over."""
        return self.partie is not None and self.partie.terminal

    def returns(self) -> list[float]:
        """The players' returns (``reward_mode``; 0 before the end)."""
        if self.partie is None or not self.partie.terminal:
            return [0.0, 0.0]
        result = self.partie.result()
        return [partie_reward(result, seat, self._reward_mode) for seat in (0, 1)]

    def resample_from_infostate(self, player_id: int, probability_sampler: Callable[[], float]) -> TrappolaState:
        """A state ``player_id`` cannot tell from this one: the opponent's hand
        and the hidden stock drawn by the layout sampler (``layouts``: uniform
        over the hands that voids, declarations and Manko answers allow), this
        history replayed on them."""
        return self.resample_with(player_id, rng_from(probability_sampler))

    def resample_with(self, player: int, rng: random.Random) -> TrappolaState:
        """``resample_from_infostate`` drawing with ``rng`` (a ``random.Random``)."""
        if self.partie is None:
            raise ValueError("resample_from_infostate needs a dealt partie; this state is still dealing")
        game: TrappolaGame = self.get_game()
        return state_from_info(game, InfoState(self.partie, player), rng, self.order)

    def __str__(self) -> str:
        if self.partie is None:
            return f"dealing: {len(self.order)} of {N_CARDS} cards dealt"
        return render_partie(self.partie)


#: ``inform(state, player, action)``: told of an action before it is applied to ``state``.
Inform = Callable[[TrappolaState, int, int], None]
# Deal positions a seat sees: its own cards and the face-up bottom card.
_SEEN_POSITIONS = tuple(frozenset((*SEAT_POSITIONS[seat], N_CARDS - 1)) for seat in (0, 1))


def state_from_info(
    game: TrappolaGame,
    info: InfoState,
    rng: random.Random,
    order: Sequence[int] | None = None,
    inform: Inform | None = None,
) -> TrappolaState:
    """A state of ``game`` that ``info.seat`` cannot tell from the partie
    ``info`` describes: its own cards where ``order`` dealt them (by default
    in ascending order), the hidden layout drawn by the layout sampler with
    ``rng``, and the partie's actions replayed.

    ``inform``, if given, is called before each action the seat sees is
    applied: the chance outcomes that deal its own cards and the face-up
    card (as ``pyspiel.PlayerId.CHANCE``), then every action of the record
    with the seat that made it."""
    if order is None:
        own = [0] * N_CARDS
        for p, c in zip(SEAT_POSITIONS[info.seat], cards_of(info.dealt), strict=True):
            own[p] = c
        order = own
    hand = layout_sampler()(info, rng)
    state = game.new_initial_state()
    seen = _SEEN_POSITIONS[info.seat]
    for p, c in enumerate(layout_order(order, info, hand)):
        if inform is not None and p in seen:
            inform(state, int(pyspiel.PlayerId.CHANCE), c)
        state.apply_action(c)
    for seat, a in info.history:
        if inform is not None:
            inform(state, seat, a)
        state.apply_action(a)
    return state


def _write_vector(state: TrappolaState, player: int, public: bool, out: Tensor) -> None:
    if state.partie is None:
        out.fill(0.0)
    elif public:
        encode_public(InfoState.public(state.partie, player), out)
    else:
        encode(state.partie, player, out)


def _text(state: TrappolaState, player: int, public: bool, perfect_recall: bool) -> str:
    if state.partie is None:
        if public:
            return f"p{player} dealing {len(state.order)}"
        mine = sum(1 << c for p, c in enumerate(state.order) if _OWNER[p] == player)
        return f"p{player} dealing {len(state.order)} hand {mine:x}"
    partie = state.partie
    head = f"p{player} up {partie.bottom}" if public else f"p{player} hand {partie.dealt[player]:x} up {partie.bottom}"
    if perfect_recall:
        return head + " | " + " ".join(str(a) for _, a in partie.history)
    vec = np.zeros(OBS_SIZE, np.float32)
    _write_vector(state, player, public, vec)
    return head + " | " + vec.tobytes().hex()


pyspiel.register_game(GAME_TYPE, TrappolaGame)

__all__ = [
    "GAME_TYPE",
    "Inform",
    "MAX_MOVES",
    "MAX_POINTS",
    "REWARD_MODES",
    "TrappolaGame",
    "TrappolaState",
    "state_from_info",
]
