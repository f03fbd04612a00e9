"""Single-agent gymnasium view of ``trappola_v0`` for self-play training.

``SelfPlayEnv`` turns the two-agent AEC partie into an episode of the
*learner*: each ``step`` applies one learner action and then plays the
opponent's moves (an Alifer answer, declarations, its card) until the
learner is to act again or the partie is over.

* Roles: the learner is ``player_0``; which agent deals is drawn per
  episode, so the learner plays both challenger and dealer.
* Opponent: drawn per episode from the ``trappola.train.selfplay.pool.OpponentPool``
  by weight: ``self`` (a frozen snapshot of the learner, a ``NumpyPolicy``
  pushed in by the training script with ``add_snapshot``), ``rule``,
  ``random`` or any registered player, or a player of ``players``. Every
  opponent decides from its ``TurnView`` (its seat's information state),
  never from the environment.
* Reward: the learner's final reward is read from the environment after
  *every* environment step, its own and the opponent's, so it is received
  also when the opponent's move ends the partie. (The public
  PettingZoo+SB3 tutorial's wrapper only looks after the learner's own
  step and so loses the reward of parties the opponent ends.)
* ``reward_mode`` (``trappola.train.selfplay.reward``), forced moves
  (``skip_forced``, default: a learner turn with a single legal action is
  played for it, ``trappola.train.selfplay.forced``) and the Alifer value
  (``alifer_value``, ``alifer_ema``: ``trappola.train.selfplay.alifer``,
  a running mean per pool member) are the self-play core's.
  The running means are episode-to-episode state: a seeded ``reset``
  restores them to their start (none: 0 for every member), so a seeded
  episode plays and scores as in a fresh environment;
  ``reset(options={"replay_value": {...}})`` sets them explicitly.
* Illegal learner actions follow ``illegal_action`` (the environment's
  setting): "raise" (default) raises the engine's ``IllegalActionError``;
  "forfeit" ends the episode as a loss by forfeit, which lets an unmasked
  agent (or an environment checker's random actions) step the environment.
* ``action_masks()`` gives the learner's legal actions (sb3-contrib's
  interface). The mask is also put into every ``info`` (and reset info)
  under ``"action_mask"`` so that ``MaskCacheVecEnv`` can serve it
  without one extra inter-process round trip per step.
* ``privileged``: the observation is the ``trappola_v0`` vector followed by
  the learner's ``trappola_env.full_deal`` vector (the whole deal), for a
  critic that may see it (``trappola.train.sb3.privileged_policy``). Opponents always
  read their plain observation.
* At the end of an episode ``info`` holds ``opponent`` (pool member name),
  ``result`` ("win" | "loss" | "alifer"), ``points_diff`` and ``tokens``.
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces

from trappola.agents.players.policy import PolicyPlayer
from trappola.train.selfplay.alifer import AliferValue
from trappola.train.selfplay.forced import forced_action
from trappola.train.selfplay.pool import LEARNER_NAME, OpponentPool, PlayerOpponent, pool_member
from trappola.train.selfplay.reward import RewardShaping
from trappola.train.selfplay.settings import SelfPlaySettings, settings_of
from trappola_env import trappola_v0
from trappola_env.engine import N_ACTIONS
from trappola_env.full_deal import FULL_DEAL_SIZE, encode_full_deal
from trappola_env.interface import TurnView
from trappola_env.observation import OBS_SIZE

LEARNER, OPPONENT = "player_0", "player_1"


class SelfPlayEnv(gymnasium.Env):
    """See the module docstring.

    :param pool: pool member -> weight, or an ``OpponentPool``; default ``{"rule": 1.0}``
    :param settings: the self-play settings (``trappola.train.selfplay.settings.SelfPlaySettings``)
    :param seed: seeds the deals, roles, opponent draws and the opponents' own randomness
    :param illegal_action: "raise" or "forfeit"
    :param players: pool name -> player, for members that are no registered player
    :param changes: fields of ``SelfPlaySettings`` to change (``reward_mode="win"``)
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        pool: dict | OpponentPool | None = None,
        settings: SelfPlaySettings | None = None,
        seed: int | None = None,
        illegal_action: str = "raise",
        players: dict | None = None,
        **changes,
    ):
        s = settings_of(settings, changes)
        self.settings = s
        self.reward = RewardShaping(s.reward_mode, s.points_scale, s.tokens_scale, s.points_weight)
        self.alifer = AliferValue(s.alifer_value, s.reward_mode, s.alifer_ema)
        if isinstance(pool, OpponentPool):
            self.pool = pool
        else:
            self.pool = OpponentPool(
                pool or {"rule": 1.0}, s.pool_size, s.snapshot_latest_prob, s.opponent_deterministic, players
            )
        self.skip_forced = s.skip_forced
        self.env = trappola_v0.raw_env(reward_mode=self.reward.env_mode, illegal_action=illegal_action)
        self.privileged = bool(s.privileged)
        size = OBS_SIZE + (FULL_DEAL_SIZE if self.privileged else 0)
        self.observation_space = spaces.Box(0.0, 1.0, (size,), np.float32)
        self.action_space = spaces.Discrete(N_ACTIONS)
        # One generator, gymnasium's own (np_random), for roles, opponents and deal seeds.
        self._np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(seed)
        self._deal_seed = None if seed is None else int(self.np_random.integers(2**31))
        self._mask = np.zeros(N_ACTIONS, bool)
        self._opponents: dict[str, PlayerOpponent] = {}  # opponent name -> the player that plays it
        self.opponent: PlayerOpponent | None = None
        self.opponent_name: str | None = None
        self._env_reward = 0.0

    @property
    def replay_value(self) -> dict:
        """The running value of a replay (an Alifer) per pool member."""
        return self.alifer.values

    # ----------------------------------------------------------- interface
    def add_snapshot(self, weights: dict) -> None:
        """Push a frozen learner snapshot into the pool.

        :param weights: ``NumpyPolicy.get_weights()`` of the learner's actor
        """
        self.pool.add_snapshot(weights, keep=[self.opponent_name] if self.opponent_name else ())

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions, ``(49,)`` bool."""
        return self._mask.copy()

    def reset(self, *, seed=None, options=None):
        """Start an episode (gymnasium's ``reset``).

        :param seed: reseeds the environment; the replay values start again at 0
        :param options: ``trappola_v0``'s reset options, and ``replay_value`` (pool member -> value)
        :return: the learner's observation, and an info with ``action_mask`` and ``role``
        """
        super().reset(seed=seed)
        options = dict(options or {})
        replay_value = options.pop("replay_value", None)
        if seed is not None:
            self._deal_seed = int(self.np_random.integers(2**31))
            self.alifer.restart()
        if replay_value is not None:
            self.alifer.restart(replay_value)
        rng = self.np_random
        if "dealer" not in options:
            options["dealer"] = LEARNER if rng.random() < 0.5 else OPPONENT
        env = self.env
        # The first reset seeds the deal generator; later ones continue it.
        env.reset(seed=self._deal_seed, options=options)
        self._deal_seed = None
        self.opponent_name = self.pool.draw(rng)[0]
        self.opponent = self._opponent(self.opponent_name)
        self.opponent.reset(int(rng.integers(2**31)))
        self._env_reward = 0.0
        done = self._advance()
        if done:  # cannot happen in Trappola (the opponent cannot end a partie before we move)
            raise RuntimeError("the partie ended before the learner's first move")
        obs = env.observe(LEARNER)
        self._mask = obs["action_mask"].astype(bool)
        return self._learner_obs(obs), {"action_mask": self._mask, "role": env.infos[LEARNER]["role"]}

    def step(self, action):
        """Apply the learner's action, then the opponent's and forced moves.

        :param action: a legal action id
        :return: gymnasium's (observation, reward, terminated, truncated, info)
        """
        env = self.env
        if env.agent_selection != LEARNER or env.terminations[LEARNER]:
            raise RuntimeError("step() called when the learner is not to act; call reset()")
        # Refused as by the PettingZoo envs: 2.9, "3" or True is not an action (int() made them 2, 3, 1).
        env.step(int(action) if isinstance(action, np.integer) else action)
        self._env_reward += env.rewards[LEARNER]
        done = env.terminations[LEARNER] or self._advance()
        obs = env.observe(LEARNER)
        if done:
            self._mask = np.zeros(N_ACTIONS, bool)
            info = self._final_info()
            return self._learner_obs(obs), self._final_reward(info), True, False, info
        self._mask = obs["action_mask"].astype(bool)
        return self._learner_obs(obs), 0.0, False, False, {"action_mask": self._mask}

    # ------------------------------------------------------------ internals
    def _opponent(self, name: str) -> PlayerOpponent:
        """The player of a drawn opponent: a pool player, or a snapshot's
        network as a ``PolicyPlayer`` (the network alone)."""
        if name in self.pool.players:
            return self._opponents.setdefault(name, PlayerOpponent(self.pool.players[name], name))
        if name not in self._opponents:
            entry = self.pool.network(name)
            assert entry is not None  # a drawn name is a pool player or a network
            policy, deterministic = entry
            player = PolicyPlayer.from_numpy(policy, name=name, sample=not deterministic)
            self._opponents = {k: v for k, v in self._opponents.items() if k in self.pool.players}
            self._opponents[name] = PlayerOpponent(player, name)
        return self._opponents[name]

    def _opponent_action(self) -> int:
        """The opponent's move, decided from its ``TurnView`` alone. A
        snapshot reads the view's observation vector, which the environment
        already keeps for that seat (encoded from the same information)."""
        env = self.env
        partie = env.partie
        assert partie is not None and self.opponent is not None  # both set by reset
        obs = env.observe(OPPONENT)["observation"] if self.opponent_name not in self.pool.players else None
        return self.opponent.player.act(
            TurnView(partie.info_state(partie.to_act), partie.legal_mask(), obs, opponent=LEARNER_NAME)
        )

    def _learner_obs(self, obs: dict) -> np.ndarray:
        if not self.privileged:
            return obs["observation"]
        seat = 0 if self.env.infos[LEARNER]["role"] == "challenger" else 1
        assert self.env.partie is not None  # dealt by reset
        return np.concatenate([obs["observation"], encode_full_deal(self.env.partie, seat)])

    def _advance(self) -> bool:
        """Play the opponent's moves and the learner's forced moves until the
        learner has a choice; True if the partie ended meanwhile."""
        env = self.env
        partie = env.partie
        assert partie is not None  # dealt by reset
        while not env.terminations[LEARNER]:
            if env.agent_selection == OPPONENT:
                env.step(self._opponent_action())
            else:
                action = forced_action(partie.legal_mask()) if self.skip_forced else None
                if action is None:
                    return False
                env.step(action)
            # The learner's reward of a partie the opponent ends arrives here.
            self._env_reward += env.rewards[LEARNER]
        return True

    def _final_info(self) -> dict:
        env = self.env
        mine, theirs = env.infos[LEARNER], env.infos[OPPONENT]
        return {
            "action_mask": self._mask,
            "opponent": self.opponent_name,
            "result": mine["result"],
            "outcome": mine["outcome"],
            "role": mine["role"],
            "points_diff": mine["score"]["total"] - theirs["score"]["total"],
            "tokens": mine["tokens"],
            "env_reward": self._env_reward,
        }

    def _final_reward(self, info: dict) -> float:
        # self._env_reward: accumulated from the environment's own rewards.
        assert self.opponent_name is not None  # drawn by reset
        r, value = self.alifer.score(
            pool_member(self.opponent_name), self.reward(self._env_reward, info["result"]), info["result"]
        )
        if value is not None:
            info["replay_value"] = value
        return r
