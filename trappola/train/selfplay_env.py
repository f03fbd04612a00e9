"""Single-agent gymnasium view of ``trappola_v0`` for self-play training.

``SelfPlayEnv`` turns the two-agent AEC partie into an episode of the
*learner*: each ``step`` applies one learner action and then plays the
opponent's moves (an Alifer answer, declarations, its card) until the
learner is to act again or the partie is over.

* Roles: the learner is ``player_0``; which agent deals is drawn per
  episode, so the learner plays both challenger and dealer.
* Opponent: drawn per episode from the ``OpponentPool`` by weight:
  ``self`` (a frozen snapshot of the learner, a ``NumpyPolicy`` pushed in
  by the training script with ``add_snapshot``), ``rule`` or ``random``.
* Reward: the learner's final reward is read from the environment after
  *every* environment step, its own and the opponent's, so it is received
  also when the opponent's move ends the partie. (The public
  PettingZoo+SB3 tutorial's wrapper only looks after the learner's own
  step and so loses the reward of parties the opponent ends.)
* ``reward_mode``: "win" (+1/-1, 0 for an Alifer), "points" (points
  difference / ``points_scale``), "tokens" (net tokens / ``tokens_scale``)
  or "mixed" (win + ``points_weight`` * points difference / ``points_scale``):
  the win/loss is what is evaluated, the points difference says by how
  much, which gives a denser signal early in training.
* Forced moves: with ``skip_forced`` (default) a learner turn with a single
  legal action is played automatically, since no decision (and no
  gradient) is in it; about a third of a partie's card plays are forced
  (following suit with one card, the last trick).
* Alifer (``alifer_value``): an Alifer is not a draw in Trappola but a
  replay of the partie with a fresh deal (docs/rules.md section 6), so its
  value is that of a fresh partie against the same opponent. With
  "replay" (default) the reward of an Alifer is the running mean (EMA,
  rate ``alifer_ema``) of the learner's rewards against that pool member
  with Alifers counted at that same value, i.e. the fixed point
  ``V = mean of non-Alifer rewards``; against a weak opponent an Alifer is
  worth almost a win, against an equal one about 0. "zero" scores it 0,
  as the one-partie environment does.
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
  the learner's ``trappola.envs.full_deal`` vector (the whole deal), for a
  critic that may see it (``trappola.train.privileged_policy``). Opponents always
  read their plain observation.
* At the end of an episode ``info`` holds ``opponent`` (pool member name),
  ``result`` ("win" | "loss" | "alifer"), ``points_diff`` and ``tokens``.
"""
from __future__ import annotations

import random

import gymnasium
import numpy as np
from gymnasium import spaces

from trappola.envs import trappola_v0
from trappola.engine import N_ACTIONS
from trappola.envs.full_deal import FULL_DEAL_SIZE, encode_full_deal
from trappola.envs.observation import OBS_SIZE
from trappola.envs.seat_adapters import seat_policy

from trappola.agents.numpy_policy import NumpyPolicy

LEARNER, OPPONENT = "player_0", "player_1"
ENV_REWARD_MODE = {"win": "win", "points": "points", "tokens": "tokens", "mixed": "points"}


class SnapshotOpponent:
    """A frozen learner snapshot playing from its own observation."""

    def __init__(self, policy: NumpyPolicy, name: str, deterministic: bool = False):
        self.policy = policy
        self.name = name
        self.deterministic = deterministic

    def act(self, env, agent: str, rng: np.random.Generator) -> int:
        obs = env.observe(agent)
        return self.policy.act(obs["observation"], obs["action_mask"], rng, self.deterministic)


class PlayerOpponent:
    """An ``trappola.agents.base.Player`` (rule, random, ...) shown its ``TurnView``."""

    def __init__(self, player, name: str):
        self.player = player
        self.name = name
        self.policy = seat_policy(player, "policy")

    def reset(self, seed: int) -> None:
        self.player.reset(seed)

    def act(self, env, agent: str, rng) -> int:
        partie = env.partie
        return self.policy(partie.info_state(partie.to_act), partie.legal_mask())


def make_pool_opponent(spec: str) -> PlayerOpponent:
    """A registered computer player (``rule``, ``random``, ``pimc:samples=4``,
    ``policy``...) as a pool member named by its spec."""
    from trappola.agents import make_player

    player = make_player(spec)
    if getattr(player, "interactive", False):
        raise ValueError(f"pool member {spec!r} must be a computer player")
    return PlayerOpponent(player, spec)


class OpponentPool:
    """Draws an opponent per episode. ``weights``: pool member -> weight,
    where a member is "self" or a registered computer player's spec
    ("rule", "random", "pimc:samples=4", "policy"...). Snapshots: the newest ``size`` are kept; "self"
    picks the latest with probability ``latest_prob``, else one uniformly.
    Until a snapshot exists, "self" falls back to the other members."""

    def __init__(self, weights: dict, size: int = 8, latest_prob: float = 0.5, deterministic: bool = False):
        self.weights = {k: float(v) for k, v in weights.items() if v > 0}
        if not self.weights:
            raise ValueError("the opponent pool needs at least one member with a positive weight")
        self.size = size
        self.latest_prob = latest_prob
        self.deterministic = deterministic
        self.snapshots: list[SnapshotOpponent] = []
        self.builtin = {k: make_pool_opponent(k) for k in self.weights if k != "self"}
        self.n_added = 0

    def add_snapshot(self, weights: dict) -> None:
        self.n_added += 1
        self.snapshots.append(SnapshotOpponent(NumpyPolicy.from_weights(weights), f"self{self.n_added}",
                                               self.deterministic))
        del self.snapshots[:-self.size]

    def draw(self, rng: np.random.Generator):
        names = [k for k in self.weights if k != "self" or self.snapshots]
        if not names:
            raise RuntimeError("the pool has only 'self' and no snapshot yet; call add_snapshot first")
        w = np.array([self.weights[k] for k in names])
        name = names[int(rng.choice(len(names), p=w / w.sum()))]
        if name != "self":
            return name, self.builtin[name]
        if len(self.snapshots) == 1 or rng.random() < self.latest_prob:
            return name, self.snapshots[-1]
        return name, self.snapshots[int(rng.integers(len(self.snapshots)))]


class SelfPlayEnv(gymnasium.Env):
    """See the module docstring. ``seed`` seeds the deals, roles, opponent
    draws and the opponents' own randomness."""

    metadata = {"render_modes": []}

    def __init__(self, pool: dict | OpponentPool | None = None, reward_mode: str = "mixed",
                 points_scale: float = 60.0, tokens_scale: float = 30.0, points_weight: float = 0.5,
                 seed: int | None = None, pool_size: int = 8, snapshot_latest_prob: float = 0.5,
                 opponent_deterministic: bool = False, skip_forced: bool = True, alifer_value: str = "replay",
                 alifer_ema: float = 0.01, illegal_action: str = "raise", privileged: bool = False):
        if reward_mode not in ENV_REWARD_MODE:
            raise ValueError(f"reward_mode must be one of {tuple(ENV_REWARD_MODE)}, got {reward_mode!r}")
        if isinstance(pool, OpponentPool):
            self.pool = pool
        else:
            self.pool = OpponentPool(pool or {"rule": 1.0}, pool_size, snapshot_latest_prob,
                                     opponent_deterministic)
        if alifer_value not in ("replay", "zero"):
            raise ValueError(f"alifer_value must be 'replay' or 'zero', got {alifer_value!r}")
        self.reward_mode = reward_mode
        self.alifer_value = alifer_value
        self.alifer_ema = float(alifer_ema)
        self.replay_value: dict[str, float] = {}  # pool member kind -> value of a fresh partie
        self.skip_forced = skip_forced
        self.points_scale = float(points_scale)
        self.tokens_scale = float(tokens_scale)
        self.points_weight = float(points_weight)
        self.env = trappola_v0.raw_env(reward_mode=ENV_REWARD_MODE[reward_mode], illegal_action=illegal_action)
        self.privileged = bool(privileged)
        size = OBS_SIZE + (FULL_DEAL_SIZE if self.privileged else 0)
        self.observation_space = spaces.Box(0.0, 1.0, (size,), np.float32)
        self.action_space = spaces.Discrete(N_ACTIONS)
        # One generator, gymnasium's own (np_random), for roles, opponents and deal seeds.
        self._np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(seed)
        self._deal_seed = None if seed is None else int(self.np_random.integers(2**31))
        self._mask = np.zeros(N_ACTIONS, bool)
        self.opponent = None
        self.opponent_name = None
        self._env_reward = 0.0
        self.forced_opponent = None  # tests: play this opponent instead of drawing one

    # ----------------------------------------------------------- interface
    def add_snapshot(self, weights: dict) -> None:
        self.pool.add_snapshot(weights)

    def action_masks(self) -> np.ndarray:
        return self._mask.copy()

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        options = dict(options or {})
        replay_value = options.pop("replay_value", None)
        if seed is not None:
            self._deal_seed = int(self.np_random.integers(2**31))
            self.replay_value = {}
        if replay_value is not None:
            if not isinstance(replay_value, dict) or not all(
                    isinstance(v, (int, float)) and np.isfinite(v) for v in replay_value.values()):
                raise ValueError(f"options['replay_value'] must map pool members to finite numbers, "
                                 f"got {replay_value!r}")
            self.replay_value = {str(k): float(v) for k, v in replay_value.items()}
        rng = self.np_random
        if "dealer" not in options:
            options["dealer"] = LEARNER if rng.random() < 0.5 else OPPONENT
        env = self.env
        # The first reset seeds the deal generator; later ones continue it.
        env.reset(seed=self._deal_seed, options=options)
        self._deal_seed = None
        if self.forced_opponent is not None:
            self.opponent_name, self.opponent = self.forced_opponent
        else:
            self.opponent_name, self.opponent = self.pool.draw(rng)
        if hasattr(self.opponent, "reset"):
            self.opponent.reset(int(rng.integers(2**31)))
        self._env_reward = 0.0
        done = self._advance()
        if done:  # cannot happen in Trappola (the opponent cannot end a partie before we move)
            raise RuntimeError("the partie ended before the learner's first move")
        obs = env.observe(LEARNER)
        self._mask = obs["action_mask"].astype(bool)
        return self._learner_obs(obs), {"action_mask": self._mask, "role": env.infos[LEARNER]["role"]}

    def step(self, action):
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
    def _learner_obs(self, obs: dict) -> np.ndarray:
        if not self.privileged:
            return obs["observation"]
        seat = 0 if self.env.infos[LEARNER]["role"] == "challenger" else 1
        return np.concatenate([obs["observation"], encode_full_deal(self.env.partie, seat)])

    def _advance(self) -> bool:
        """Play the opponent's moves and the learner's forced moves until the
        learner has a choice; True if the partie ended meanwhile."""
        env = self.env
        partie = env.partie
        while not env.terminations[LEARNER]:
            if env.agent_selection == OPPONENT:
                env.step(self.opponent.act(env, OPPONENT, self.np_random))
            else:
                mask = partie.legal_mask()
                if not self.skip_forced or mask & (mask - 1):
                    return False
                env.step(mask.bit_length() - 1)
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
        r = scale_reward(self._env_reward, info["result"], self.reward_mode, self.points_scale,
                         self.tokens_scale, self.points_weight)
        if self.alifer_value == "replay" and self.reward_mode != "tokens":
            kind = pool_member(self.opponent_name)
            v = self.replay_value.get(kind, 0.0)
            if info["result"] == "alifer":
                r = v
            else:
                self.replay_value[kind] = v + self.alifer_ema * (r - v)
            info["replay_value"] = v
        return r


def pool_member(name: str) -> str:
    """The opponent pool member an opponent name belongs to: snapshots
    ("self3") -> "self", exploiters ("exploiter2") -> "exploiter"; "rule",
    "random" as they are."""
    for member in ("self", "exploiter"):
        if name.startswith(member) and name[len(member):].isdigit():
            return member
    return name


def scale_reward(env_reward: float, result: str, reward_mode: str, points_scale: float = 60.0,
                 tokens_scale: float = 30.0, points_weight: float = 0.5) -> float:
    """The training reward from the environment's reward (in the mode
    ``ENV_REWARD_MODE[reward_mode]``) and the result ("win"/"loss"/"alifer")."""
    if reward_mode == "win":
        return float(env_reward)
    if reward_mode == "points":
        return float(env_reward) / points_scale
    if reward_mode == "tokens":
        return float(env_reward) / tokens_scale
    if reward_mode == "mixed":
        win = {"win": 1.0, "loss": -1.0}.get(result, 0.0)
        return win + points_weight * float(env_reward) / points_scale
    raise ValueError(f"reward_mode must be one of {tuple(ENV_REWARD_MODE)}, got {reward_mode!r}")
