"""``python_bulka``: a whole Bulka session (docs/rules.md section 8) as a
pyspiel game, general-sum, the token balances as returns.

Players ``0 .. players-1`` are the session's ``player_0 .. player_{n-1}``.
The first move is a chance node: the seating, one outcome per order of the
players (challenger, queue from its head, dealer), all equally likely, as
the draw of cards gives them (``engine.seating``: the draw is symmetric in
the players, so every order has probability ``1 / n!``). Each partie, Alifer
replays included, is then dealt by 36 chance nodes in the rules' order, as
in ``python_trappola``. The player to act is the session's: the next
dealer deciding Pro (47 declare, 48 do not) or one of the two at the
table, with the 49-action table; waiting players never act (the session
is played without advice).

Returns are the players' token balances as they stand (stakes, Pro stakes,
declaration and bonus payments, the Bulka taken by a Pro winner, the final
equal split), so ``rewards()`` is the change of balance since the last decision
(the first decision's holds the first stakes, paid at seating: OpenSpiel's
``rl_environment``, which reports no reward at reset, leaves them out, as
PettingZoo's ``reset`` does; ``bulka_v0`` adds them to the first step's) and at the
end the returns are the final balances (``bulka_v0``'s summed rewards).
Parameters: ``players`` (2-4), ``max_parties``, ``stake_multiple`` and
``ace_declaration``. The utility bounds bound the balance such a session
can reach, from the rules' tables (``bounds.balance_bound``; 1.1e8 tokens within 20
parties at ``stake_multiple=1``, because each Alifer doubles the replay's
payments, and more for the rare chain of tied Pro replays past them): a
learner should scale returns by the stake, ``10 * stake_multiple``, not by
them. Tensors are ``bulka_v0``'s 366-value observation: the
partie's 347 values for a player at the table (zeros while dealing or
waiting), then the 19 session features (``bulka_v0.SESSION_LAYOUT``; in
the observer's ``dict`` the session's ``multiplier`` is ``session_multiplier``,
the partie's keeps its name).

``resample_from_infostate`` redraws the hidden cards of the partie in play
from the acting player's side (the layout sampler, as in
``python_trappola``) and replays the session; earlier parties, which no
longer matter to anyone's future, keep their cards. In a Pro decision
nothing hidden is live, and the state is its own sample.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel

from trappola_env.bulka_v0 import BULKA_OBS_SIZE, OBS_LAYOUT, encode_session
from trappola_env.engine import N_ACTIONS, Partie, RuleConfig, action_name, card_name, deal_from_order
from trappola_env.engine.cards import N_CARDS
from trappola_env.engine.checks import check_choice, check_positive_int
from trappola_env.engine.deal import Deal
from trappola_env.engine.infostate import InfoState
from trappola_env.engine.render import render_partie
from trappola_env.engine.seating import Seating
from trappola_env.engine.session import OVER, PLAYING, Session
from trappola_env.observation import OBS_SIZE, encode, encode_public
from trappola_env.openspiel.bounds import balance_bound
from trappola_env.openspiel.layouts import layout_order, layout_sampler, rng_from
from trappola_env.openspiel.observer import Tensor, TrappolaObserver
from trappola_env.openspiel.partie_game import MAX_MOVES

# A live Pro partie is replayed past max_parties until it is decided; more than this many ties in a
# row (each a few percent likely) is beyond any bound a game length needs.
EXTRA_REPLAYS = 16
_PLACEHOLDER = deal_from_order(list(range(N_CARDS)))  # replaced by the dealt cards before any move


def _placeholder_deal(rng: object) -> Deal:
    """The session's deal source: a fixed deal, replaced by the chance nodes' cards before any move."""
    return _PLACEHOLDER


GAME_TYPE = pyspiel.GameType(
    short_name="python_bulka",
    long_name="Python Trappola Bulka session",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"players": 3, "max_parties": 20, "stake_multiple": 1, "ace_declaration": "first_ace"},
)


class BulkaGame(pyspiel.Game):
    """The ``python_bulka`` game (see the module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        unknown = sorted(set(params) - set(GAME_TYPE.parameter_specification))
        if unknown:
            raise ValueError(f"python_bulka has no parameter {', '.join(unknown)}")
        n = params.get("players", 3)
        self.n_players = check_choice("players", n, (2, 3, 4))
        self.max_parties = check_positive_int("max_parties", params.get("max_parties", 20), 1000)
        self.stake_multiple = check_positive_int("stake_multiple", params.get("stake_multiple", 1), 2**20)
        self.config = RuleConfig(ace_declaration=params.get("ace_declaration", "first_ace"))
        self.seatings = list(itertools.permutations(range(n)))
        parties = self.max_parties + EXTRA_REPLAYS
        bound = float(balance_bound(self.max_parties, self.stake_multiple, EXTRA_REPLAYS))
        info = pyspiel.GameInfo(
            num_distinct_actions=N_ACTIONS,
            max_chance_outcomes=max(N_CARDS, len(self.seatings)),
            num_players=n,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=None,
            max_game_length=parties * (MAX_MOVES + 1),
        )
        super().__init__(GAME_TYPE, info, params)

    def new_initial_state(self) -> BulkaState:
        """A session before the seating is drawn."""
        return BulkaState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> TrappolaObserver:
        """The observer of the information state or the observation (see ``observer``)."""
        if params:
            raise ValueError(f"python_bulka's observer takes no parameters, got {params!r}")
        # Both the partie and the session have a "multiplier" field: the observer's views need distinct names.
        partie_names = {name for name, off, _ in OBS_LAYOUT if off < OBS_SIZE}
        layout = [
            (f"session_{name}" if off >= OBS_SIZE and name in partie_names else name, off, size)
            for name, off, size in OBS_LAYOUT
        ]
        return TrappolaObserver(iig_obs_type, layout, _write_vector, _text)


class BulkaState(pyspiel.State):
    """A session in progress: the seating, the deals, the session engine."""

    def __init__(self, game: BulkaGame) -> None:
        super().__init__(game)
        self._n = game.n_players
        self.names = [f"player_{i}" for i in range(self._n)]
        self._game_params = (game.max_parties, game.stake_multiple, game.config, game.seatings)
        self.session: Session | None = None
        self.order: list[int] = []  # cards of the partie being dealt (or last dealt), in deal order
        self.deal_start = 0  # moves before the current partie's first card
        self._undealt = True  # the partie in play waits for its cards (a flag: copies keep no identities)
        self._moves = 0
        self._before = [0.0] * self._n  # balances at the last decision
        # (who sees it: -1 everyone, or a player; text): what the information-state strings hold.
        self.log: list[tuple[int, str]] = []

    # ------------------------------------------------------------ helpers
    def sess(self) -> Session:
        """The session engine (``ValueError`` before the seating is drawn)."""
        if self.session is None:
            raise ValueError("the seating has not been drawn yet")
        return self.session

    def partie_in_play(self) -> Partie:
        """The partie in play (``ValueError`` in a Pro decision or at the end)."""
        partie = self.sess().partie
        if partie is None:
            raise ValueError("no partie is in play")
        return partie

    def dealing(self) -> bool:
        """Whether the partie in play still waits for its cards."""
        return self.session is None or self._undealt

    def seat(self, player: int) -> int | None:
        """``player``'s seat in the partie in play: 0, 1 or None (waiting)."""
        table = self.sess().table
        return table.index(self.names[player]) if self.names[player] in table else None

    def balances(self) -> list[float]:
        """Every player's balance now (0 before the seating)."""
        if self.session is None:
            return [0.0] * self._n
        b = self.session.balances
        return [float(b[name]) for name in self.names]

    # ------------------------------------------------------------ pyspiel API
    def current_player(self) -> int:
        """The player to act, ``CHANCE`` while seating or dealing, ``TERMINAL`` at the end."""
        if self.dealing():
            return int(pyspiel.PlayerId.CHANCE)
        to_act = self.sess().to_act
        if to_act is None:
            return int(pyspiel.PlayerId.TERMINAL)
        return self.names.index(to_act)

    def _legal_actions(self, player: int) -> list[int]:
        mask = self.sess().legal_mask()
        return [a for a in range(N_ACTIONS) if mask >> a & 1]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Seating orders, or the cards not dealt yet, each equally likely."""
        if self.session is None:
            k = len(self._game_params[3])
            return [(i, 1.0 / k) for i in range(k)]
        left = sorted(set(range(N_CARDS)) - set(self.order))
        return [(c, 1.0 / len(left)) for c in left]

    def _apply_action(self, action: int) -> None:
        action = int(action)
        self._moves += 1
        if self.session is None:
            self._seat(action)
        elif self.dealing():
            self._deal(action)
        else:
            # Rewards run from one decision to the next: the seating's stakes, paid at a chance
            # node, arrive with the first decision (as bulka_v0 gives them with the first step).
            self._before = self.balances()
            s = self.session
            before = s.partie
            s.act(action)
            self.log.append((-1, str(action)))
            if s.phase == PLAYING and s.partie is not before:
                self._undealt = True
                self.order = []
                self.deal_start = self._moves

    def _seat(self, k: int) -> None:
        max_parties, stake_multiple, config, seatings = self._game_params
        order = [self.names[i] for i in seatings[k]]
        session = self.session = Session(
            max_parties=max_parties,
            stake_multiple=stake_multiple,
            config=config,
            names=self.names,
            seating=Seating.explicit(order[-1], order[0], order[1:-1]),
            deal_source=_placeholder_deal,
        )
        self.log.append((-1, f"s{k}"))
        self._undealt = session.phase == PLAYING
        self.order = []
        self.deal_start = self._moves

    def _deal(self, card: int) -> None:
        self.order.append(card)
        if len(self.order) < N_CARDS:
            return
        s = self.sess()
        s.set_deal(deal_from_order(self.order))
        self._undealt = False
        partie = self.partie_in_play()
        for seat, name in enumerate(s.table):
            self.log.append((self.names.index(name), f"h{partie.dealt[seat]:x}"))
        self.log.append((-1, f"u{partie.bottom}"))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self.session is None:
                return "seating " + " ".join(f"player_{i}" for i in self._game_params[3][action])
            return f"deal {card_name(action)}"
        return action_name(action)

    def is_terminal(self) -> bool:
        """Whether the session is over."""
        return self.session is not None and self.session.phase == OVER

    def returns(self) -> list[float]:
        """The token balances so far (the final ones at the end)."""
        return self.balances()

    def rewards(self) -> list[float]:
        """Each player's change of balance since the last decision (chance moves count with the next one)."""
        return [a - b for a, b in zip(self.balances(), self._before, strict=True)]

    def resample_from_infostate(self, player_id: int, probability_sampler: Callable[[], float]) -> BulkaState:
        """A state ``player_id`` cannot tell from this one (see the module docstring)."""
        return self.resample_with(player_id, rng_from(probability_sampler))

    def resample_with(self, player: int, rng: random.Random) -> BulkaState:
        """``resample_from_infostate`` drawing with ``rng`` (a ``random.Random``)."""
        if self.dealing():
            raise ValueError("resample_from_infostate needs a dealt partie or a Pro decision; this state is dealing")
        s = self.sess()
        seat = self.seat(player) if s.phase == PLAYING else None
        if seat is None:
            same: BulkaState = self.clone()
            return same
        info = InfoState(self.partie_in_play(), seat)
        order = layout_order(self.order, info, layout_sampler()(info, rng))
        history = self.history()
        state: BulkaState = self.get_game().new_initial_state()
        for a in history[: self.deal_start] + order + history[self.deal_start + N_CARDS :]:
            state.apply_action(a)
        return state

    def __str__(self) -> str:
        if self.session is None:
            return "seating not drawn yet"
        text = self.session.render()
        if self.dealing():
            return text + f"\ndealing: {len(self.order)} of {N_CARDS} cards dealt"
        if self.session.phase == PLAYING:
            text += "\n" + render_partie(self.partie_in_play())
        return text


def _write_vector(state: BulkaState, player: int, public: bool, out: Tensor) -> None:
    out.fill(0.0)
    s = state.session
    if s is None:
        return
    if not state.dealing() and s.phase == PLAYING:
        seat = state.seat(player)
        if public:
            encode_public(InfoState.public(state.partie_in_play(), 0), out[:OBS_SIZE])
        elif seat is not None:
            encode(state.partie_in_play(), seat, out[:OBS_SIZE])
    encode_session(s, state.names[player], out[OBS_SIZE:BULKA_OBS_SIZE])


def _text(state: BulkaState, player: int, public: bool, perfect_recall: bool) -> str:
    if perfect_recall:
        return f"p{player} " + " ".join(t for who, t in state.log if who == -1 or (who == player and not public))
    vec = np.zeros(BULKA_OBS_SIZE, np.float32)
    _write_vector(state, player, public, vec)
    return f"p{player} " + vec.tobytes().hex()


pyspiel.register_game(GAME_TYPE, BulkaGame)

__all__ = ["EXTRA_REPLAYS", "GAME_TYPE", "BulkaGame", "BulkaState"]
