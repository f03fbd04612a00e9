"""OpenSpiel's bots as players (needs the ``openspiel`` extra).

``BotPlayer`` is the adapter: it plays any ``pyspiel.Bot`` through the
player interface (``trappola.agents.base.Player``), so the evaluator, the
referee's sessions, the web table and ``trappola exploit`` take it like any
other player. Subclasses set ``make_bot(game, player_id, seed)``;
``BotPlayer.wrapping(factory)`` makes a player class from any
``factory(game, player_id, seed) -> pyspiel.Bot`` in one line::

    RandomBot = BotPlayer.wrapping(lambda game, player_id, seed: pyspiel.make_uniform_random_bot(player_id, seed))

How the adapter treats a bot, following OpenSpiel's own loop
(``open_spiel.python.algorithms.evaluate_bots``):

* One bot per seat (and per rule variant), built for that seat's
  ``player_id``: a bot that binds its seat at construction plays that seat.
  At the first decision of a partie the bot is told ``restart()``.
* At each decision the adapter builds a ``python_trappola`` state the seat
  cannot tell from the real partie: its own hand, the public record
  replayed, the hidden cards drawn afresh by the layout sampler. Before the
  bot's ``step`` it calls ``inform_action(state, player, action)`` for every
  action the seat has seen since the bot last stepped, on that state's
  history: at a partie's first decision the chance outcomes that dealt the
  seat's cards and the face-up card, then the opponent's actions and the
  seat's own forced ones (a turn with one legal action is played without
  asking the bot). A bot never sees the true hidden cards.
* A perfect-information bot (one that reads the whole state, like
  OpenSpiel's ``MCTSBot``) is therefore given a fresh guessed layout at every
  decision: it plays as determinized search with one layout per decision.
  OpenSpiel's C++ ``MCTSBot`` cannot run on a Python game at all (it fails in
  OpenSpiel itself on every Python game).

``ismcts``: OpenSpiel's ``ISMCTSBot`` (Cowling, Powley and Whitehouse
2012) over ``python_trappola``, each simulation starting from a layout the
game's ``resample_from_infostate`` draws. Settings: ``simulations`` per
decision, ``uct_c`` (the UCT exploration constant), ``final_policy``
(``max_visit_count``, ``normalized_visited_count`` or ``max_value``: how the
root's statistics choose the move), ``rollouts`` (random playouts per new
node: uniform over the legal cards and declarations, never proposing
Alifer and declining a proposal, run on the engine for speed) and
``objective`` (the returns searched: ``win`` or ``points``).

Importing this module installs the lab's sampler (``sample_layout``,
``trappola.agents.search.sampling``) as the games' layout sampler, in place
of ``trappola_env.openspiel``'s own uniform draw; both draw the same
distribution.
"""

from __future__ import annotations

import random

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import trappola_env.openspiel  # noqa: F401  (registers the games)
from trappola.agents.base import Player, TurnView, pro_settings
from trappola.agents.pro_rules import PRO_WEB
from trappola.agents.search.sampling import constraints_of
from trappola.agents.settings import Setting
from trappola_env.engine.actions import ACCEPT_ALIFER, DECLINE_ALIFER, PROPOSE_ALIFER
from trappola_env.engine.infostate import InfoState
from trappola_env.openspiel.layouts import set_layout_sampler
from trappola_env.openspiel.partie_game import state_from_info
from trappola_env.spaces_and_rewards import partie_reward

FINAL_POLICIES = {
    "max_visit_count": ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
    "normalized_visited_count": ismcts.ISMCTSFinalPolicyType.NORMALIZED_VISITED_COUNT,
    "max_value": ismcts.ISMCTSFinalPolicyType.MAX_VALUE,
}
_NO_PROPOSAL = ~(1 << PROPOSE_ALIFER)


def sample_layout(info: InfoState, rng: random.Random) -> int:
    """The opponent's current hand, drawn uniformly among those ``info``
    allows (``constraints_of``: voids, declarations, Manko answers)."""
    return int(constraints_of(info).sample(rng, 1)[0])


set_layout_sampler(sample_layout)


class BotPlayer(Player):
    """Plays a ``pyspiel.Bot`` over ``python_trappola`` (see the module docstring)."""

    kind = "bot"
    #: The game's ``reward_mode`` the bot is built for.
    reward_mode = "win"

    def __init__(self, **settings):
        super().__init__(**settings)
        self._games: dict = {}
        self._bots: dict = {}
        self._seed = 0
        # (seat, dealt hand, face-up card) of the partie each bot is in, and the record entries it was told of.
        self._partie: dict = {}
        self._told: dict = {}

    def make_bot(self, game, player_id: int, seed: int) -> pyspiel.Bot:
        """The bot to play seat ``player_id`` of ``game``, its randomness from ``seed``."""
        raise NotImplementedError

    @classmethod
    def wrapping(cls, factory, kind: str = "bot") -> type[BotPlayer]:
        """A ``BotPlayer`` class whose bots are ``factory(game, player_id, seed)``."""

        def make_bot(self, game, player_id: int, seed: int) -> pyspiel.Bot:
            return factory(game, player_id, seed)

        return type(f"{kind}_player", (cls,), {"kind": kind, "make_bot": make_bot})

    def reset(self, seed: int | None = None) -> None:
        """Start afresh: new bots, their randomness and the layouts' from ``seed``."""
        super().reset(seed)
        self._seed = self.rng.getrandbits(31)
        self._bots = {}
        self._partie = {}
        self._told = {}

    def game(self, info: InfoState):
        """The ``python_trappola`` game with ``info``'s rules."""
        key = (info.ace_declaration, info.alifer_allowed)
        game = self._games.get(key)
        if game is None:
            params: dict[str, object] = {"reward_mode": self.reward_mode, "ace_declaration": info.ace_declaration}
            params["alifer"] = info.alifer_allowed
            game = self._games[key] = pyspiel.load_game("python_trappola", params)
        return game

    def _key(self, info: InfoState) -> tuple[int, int]:
        return id(self.game(info)), info.seat

    def bot(self, info: InfoState) -> pyspiel.Bot:
        """The bot of ``info``'s seat and rules (built on first use)."""
        key = self._key(info)
        bot = self._bots.get(key)
        if bot is None:
            bot = self._bots[key] = self.make_bot(self.game(info), info.seat, self._seed + info.seat)
        return bot

    def act(self, view: TurnView) -> int:
        """The bot's action in a state drawn from what this seat knows."""
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]  # the bot is told of it before its next step
        info = view.info
        bot, key = self.bot(info), self._key(info)
        partie = (info.seat, info.dealt, info.bottom)
        fresh = self._partie.get(key) != partie or self._told.get(key, 0) > len(info.history)
        if fresh:
            bot.restart()
            self._partie[key], self._told[key] = partie, 0
        told = self._told[key]

        def inform(state, player: int, action: int) -> None:
            if state.partie is None:
                if fresh:
                    bot.inform_action(state, player, action)
            elif len(state.partie.history) >= told:
                bot.inform_action(state, player, action)

        state = state_from_info(self.game(info), info, self.rng, inform=inform)
        action = int(bot.step(state))
        if not view.is_legal(action):
            raise ValueError(f"bot {type(bot).__name__} chose illegal action {action}; legal: {legal}")
        self._told[key] = len(info.history) + 1  # its own step: nothing to tell it
        return action


class EngineRollouts(mcts.Evaluator):
    """Random playouts of a ``python_trappola`` state on the engine (``Partie``)
    itself: uniform over the legal actions, never proposing Alifer, declining
    a proposal. Priors are uniform."""

    def __init__(self, n_rollouts: int, reward_mode: str, rng: random.Random):
        self.n_rollouts = n_rollouts
        self.reward_mode = reward_mode
        self.rng = rng

    def evaluate(self, state):
        """Mean returns of ``n_rollouts`` playouts from ``state``."""
        total = np.zeros(2)
        rng = self.rng
        for _ in range(self.n_rollouts):
            partie = state.partie.copy()
            while not partie.terminal:
                mask = partie.legal_mask()
                if mask >> ACCEPT_ALIFER & 1:
                    partie.apply(DECLINE_ALIFER)
                    continue
                mask &= _NO_PROPOSAL
                actions = []
                while mask:
                    low = mask & -mask
                    actions.append(low.bit_length() - 1)
                    mask ^= low
                partie.apply(actions[rng.randrange(len(actions))])
            result = partie.result()
            total += (partie_reward(result, 0, self.reward_mode), partie_reward(result, 1, self.reward_mode))
        return total / self.n_rollouts

    def prior(self, state):
        """Uniform over the legal actions."""
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


class IsmctsPlayer(BotPlayer):
    """The ``ismcts`` player (see the module docstring)."""

    kind = "ismcts"
    HELP = "OpenSpiel's information-set MCTS over the python_trappola game"
    # IS-MCTS costs about 0.2 ms of CPU per simulation: 400 keep a decision near a tenth of a second.
    WEB = {
        "simulations": (1, 400),
        "uct_c": (0, 10),
        "final_policy": None,
        "rollouts": (1, 4),
        "objective": None,
        **PRO_WEB,
    }
    SETTINGS = {
        "simulations": Setting(int, 200, "IS-MCTS simulations per decision", low=1, high=100_000),
        "uct_c": Setting(float, 2.0, "UCT exploration constant", low=0, high=100),
        "final_policy": Setting(tuple(FINAL_POLICIES), "max_visit_count", "how the root's statistics pick the move"),
        "rollouts": Setting(int, 1, "random playouts per new node", low=1, high=64),
        "objective": Setting(("win", "points"), "win", "the returns searched: win/loss or the points difference"),
        **pro_settings("threshold"),
    }

    def __init__(self, **settings):
        super().__init__(**settings)
        self.reward_mode = self.settings.objective

    def make_bot(self, game, player_id: int, seed: int) -> pyspiel.Bot:
        """An ``ISMCTSBot`` resampling with this player's generator (it reads
        the seat to play from each state)."""
        s = self.settings
        evaluator = EngineRollouts(s["rollouts"], self.reward_mode, random.Random(seed))
        bot = ismcts.ISMCTSBot(
            game,
            evaluator,
            s["uct_c"],
            s["simulations"],
            random_state=np.random.RandomState(seed),
            final_policy_type=FINAL_POLICIES[s["final_policy"]],
        )
        # OpenSpiel's default resampler draws from a generator of its own; this one follows reset(seed).
        bot.set_resampler(lambda state, player: state.resample_with(player, self.rng))
        return bot


__all__ = ["BotPlayer", "EngineRollouts", "IsmctsPlayer", "sample_layout"]
