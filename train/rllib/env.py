"""``trappola_v0`` and ``bulka_v0`` as RLlib ``MultiAgentEnv``s.

    from trappola.train.rllib.env import RLlibTrappolaEnv
    env = RLlibTrappolaEnv({"env": "trappola_v0", "reward_mode": "mixed"})
    obs, infos = env.reset(seed=0)        # {agent to act: {"observations": ..., "action_mask": ...}}
    obs, rewards, terminateds, truncateds, infos = env.step({agent: action})

RLlib 2.x (new API stack) cannot take the PettingZoo environments as they
are, for three reasons this adapter removes:

* its environment pre-check steps random actions, which are illegal most of
  the time (the engine raises, and RLlib misreports it as an environment not
  following the gymnasium API): the trainer turns the check off
  (``disable_env_checking``); this adapter never needs it;
* its default model has no encoder for a ``Dict`` observation: the trainer
  uses its own module (``trappola.train.rllib.module``), which reads the dict;
* its action-masking convention names the vector ``"observations"``, the
  PettingZoo environments ``"observation"``: the dict here has the keys
  ``"observations"`` (float32) and ``"action_mask"`` (float32, 1 = legal).

Turns: each step returns the observation of the one agent to act next
(RLlib's turn-based multi-agent convention); at the end every agent that
has acted gets its last observation and ``terminateds["__all__"]``. With
``skip_forced`` (default) a move with a single legal action is played by
the adapter, for any agent (no decision, no gradient in it), as the SB3
wrapper does.

Rewards:

* ``trappola_v0``: ``reward_mode`` as in the SB3 config ("win", "points",
  "tokens" or "mixed", scaled by ``trappola.train.selfplay.reward``), paid
  when the partie ends. An Alifer is worth 0 (the SB3 wrapper's "replay"
  value needs a fixed opponent and is not offered here; the forced moves
  are ``trappola.train.selfplay.forced``'s).
* ``bulka_v0``: the environment's token rewards, unscaled unless
  ``tokens_scale`` is set. RLlib credits no reward that reaches an agent
  before its first action (it has no action to credit it to), and the
  stakes of the first partie arrive exactly then (paid at reset, reported
  with the first step). With ``carry_first_rewards`` (default) the adapter
  holds each agent's rewards until it has acted once and adds them to the
  reward that follows that action, so an agent's episode return equals its
  final balance;
  with ``carry_first_rewards=False`` the returns differ from the balances
  by those first stakes. An agent that never acts in a session (possible
  with 3-4 players and few parties) has no return in RLlib at all.

Every agent that has acted gets a reward, 0 included, at every step (RLlib
refuses a next observation without one).

``infos[agent]`` at the end holds the environment's final info (for
``trappola_v0``: ``result``, ``outcome``, ``tokens``...; for ``bulka_v0``:
``balance``, ``final_share``...).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from trappola.train.rllib.config import ENVS
from trappola.train.selfplay.forced import forced_action
from trappola.train.selfplay.reward import POINTS_SCALE, POINTS_WEIGHT, TOKENS_SCALE, RewardShaping
from trappola_env import bulka_v0, trappola_v0

OBS_KEY, MASK_KEY = "observations", "action_mask"


class RLlibTrappolaEnv(MultiAgentEnv):
    """See the module docstring. ``config`` (RLlib's ``env_config``):

    * ``env``: "trappola_v0" (default) or "bulka_v0";
    * ``trappola_v0``: ``reward_mode`` ("mixed"), ``points_scale`` (60),
      ``tokens_scale`` (30), ``points_weight`` (0.5); the dealer is drawn
      per episode;
    * ``bulka_v0``: ``n_players`` (2), ``max_parties`` (20),
      ``tokens_scale`` (1), ``carry_first_rewards`` (True), ``advice``
      (False: with True the waiting players advise in Pro parties, and the
      action space has the 97 ids of ``bulka_v0(advice=True)``);
    * both: ``stake_multiple`` (1), ``skip_forced`` (True)."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        config = dict(config or {})
        self.kind = config.pop("env", "trappola_v0")
        if self.kind not in ENVS:
            raise ValueError(f"env must be one of {ENVS}, got {self.kind!r}")
        self.skip_forced = bool(config.pop("skip_forced", True))
        stake_multiple = config.pop("stake_multiple", 1)
        if self.kind == "trappola_v0":
            self.reward = RewardShaping(
                config.pop("reward_mode", "mixed"),
                config.pop("points_scale", POINTS_SCALE),
                config.pop("tokens_scale", TOKENS_SCALE),
                config.pop("points_weight", POINTS_WEIGHT),
            )
            self.carry_first_rewards = False  # a partie pays only at its end
            self.env = trappola_v0.raw_env(reward_mode=self.reward.env_mode, stake_multiple=stake_multiple)
        else:
            self.tokens_scale = float(config.pop("tokens_scale", 1.0))
            self.carry_first_rewards = bool(config.pop("carry_first_rewards", True))
            self.env = bulka_v0.raw_env(
                n_players=config.pop("n_players", 2),
                max_parties=config.pop("max_parties", 20),
                stake_multiple=stake_multiple,
                advice=config.pop("advice", False),
            )
        config.pop("seed", None)
        if config:
            raise ValueError(f"unknown env_config keys {sorted(config)} for {self.kind}")
        self.names: list[str] = list(self.env.possible_agents)  # RLlib's agents, typed as the env's names
        self.agents = self.possible_agents = list(self.names)
        box = self.env.observation_space(self.names[0])["observation"]
        assert isinstance(box, spaces.Box)  # spaces_and_rewards.observation_space
        n_obs = box.shape[0]
        n_actions = int(self.env.action_space(self.names[0]).n)
        space = spaces.Dict(
            {
                OBS_KEY: spaces.Box(0.0, 1.0, (n_obs,), np.float32),
                MASK_KEY: spaces.Box(0.0, 1.0, (n_actions,), np.float32),
            }
        )
        self.observation_spaces = {a: space for a in self.names}
        self.action_spaces = {a: spaces.Discrete(n_actions) for a in self.agents}
        self._rng = np.random.default_rng()
        self._pending: dict[str, float] = {}
        self._acted: set[str] = set()

    # ------------------------------------------------------------ gym API
    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        options = dict(options or {})
        if self.kind == "trappola_v0" and "dealer" not in options:
            options["dealer"] = self.agents[int(self._rng.integers(2))]
        self.env.reset(seed=int(self._rng.integers(2**31)), options=options)
        self._pending = dict.fromkeys(self.agents, 0.0)
        self._acted = set()
        self._collect()  # nothing at reset in either environment, but cheap and safe
        done = self._advance()
        if done:  # a session or partie cannot end before anyone decides
            raise RuntimeError("the episode ended before the first decision")
        agent = self.env.agent_selection
        return {agent: self._observe(agent)}, {agent: {}}

    def step(self, action_dict):
        env = self.env
        agent = env.agent_selection
        if agent not in action_dict:
            raise ValueError(f"{agent} is to act, got actions for {sorted(action_dict)}")
        env.step(int(action_dict[agent]))
        self._acted.add(agent)
        self._collect()
        done = self._finished() or self._advance()
        rewards = self._pay(final=done)
        if done:
            final = [a for a in self.agents if a in self._acted]
            obs = {a: self._observe(a) for a in final}
            infos = {a: dict(env.infos.get(a, {})) for a in final}
            terminated = {a: True for a in final}
            terminated["__all__"] = True
            return obs, rewards, terminated, {"__all__": False}, infos
        nxt = env.agent_selection
        return {nxt: self._observe(nxt)}, rewards, {"__all__": False}, {"__all__": False}, {nxt: {}}

    # ----------------------------------------------------------- internals
    def _finished(self) -> bool:
        return all(self.env.terminations.values())

    def _advance(self) -> bool:
        """Play forced moves until someone has a choice; True if the episode
        ended meanwhile."""
        env = self.env
        while not self._finished():
            action = forced_action(env.observe(env.agent_selection)["action_mask"]) if self.skip_forced else None
            if action is None:
                return False
            env.step(action)
            self._collect()
        return True

    def _collect(self) -> None:
        for a in self.names:
            self._pending[a] += float(self.env.rewards.get(a, 0.0))

    def _pay(self, final: bool) -> dict:
        """Rewards to hand to RLlib now: only to agents that have acted (see
        the module docstring); at the end, shaped for ``trappola_v0``."""
        out = {}
        for a in self.names:
            acted = a in self._acted
            if self.carry_first_rewards and not acted:
                continue
            if self.kind == "trappola_v0" and not final:
                r = 0.0
            else:
                r = self._pending[a]
                self._pending[a] = 0.0
            if self.kind == "trappola_v0" and final:
                info = self.env.infos[a]
                r = self.reward(r, info["result"])
            elif self.kind == "bulka_v0":
                r /= self.tokens_scale
            # RLlib wants a reward, 0 included, for every agent that has acted and gets its next observation.
            if acted or r:
                out[a] = r
        return out

    def _observe(self, agent: str) -> dict:
        o = self.env.observe(agent)
        # a copy: the environment's arrays are read-only, and torch warns on (and may write into) such arrays
        return {OBS_KEY: np.array(o["observation"], np.float32), MASK_KEY: np.asarray(o["action_mask"], np.float32)}
