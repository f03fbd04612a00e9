"""What ``trappola_v0`` and ``bulka_v0`` share as PettingZoo AEC
environments: the constructor's common arguments, spaces, ``reset`` with its
option checks and seeding, the step counter that truncates an episode,
actions given as numpy arrays, dead steps, ``render``, ``close`` and
copying. Each environment adds only what it drives (a ``Partie`` or a
``Session``) through a few hooks.

Seeding: one numpy ``Generator`` per environment, ``np_random``.
``reset(seed=s)`` makes it ``numpy.random.default_rng(s)``; a ``reset()``
without a seed continues it (on first use it is seeded from the OS). The
options are checked before the generator is touched, so a refused
``reset`` changes nothing: the episode in progress, if any, goes on.

Copying: ``copy.deepcopy``, ``pickle`` and ``copy.copy`` of an environment
(raw or wrapped by ``env()``) carry its whole state: the engine, the
generator and the agents' bookkeeping. A copy continues exactly as the
original would, and stepping one leaves the other unchanged (``copy.copy``
is a full copy too: a copy sharing the engine would be stepped by both).

Bounds that keep every reward exact: a token amount of one partie is less
than ``2**8 * stake_multiple * m`` (a stake of 10 units, at most 55 units
of declarations and 95 of trick bonuses, ``docs/rules.md`` sections 2, 4
and 5). With ``stake_multiple <= MAX_STAKE_MULTIPLE`` and
``m <= MAX_MULTIPLIER`` (both ``2**20``) that is below ``2**48``, far
inside the integers a float holds exactly (``2**53``).
"""

from __future__ import annotations

import copy
import warnings
from typing import Any, NoReturn

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from trappola_env.engine import N_ACTIONS, Deal, RuleConfig, deal_from_order
from trappola_env.engine.cards import N_CARDS
from trappola_env.engine.checks import check_positive_int
from trappola_env.spaces_and_rewards import observation_space

RENDER_MODES = ("human", "ansi")
MAX_MULTIPLIER = 2**20
MAX_STAKE_MULTIPLE = 2**20


def shuffled_deal(rng: np.random.Generator) -> Deal:
    """A deal of the 36 cards shuffled by ``rng.permutation``, dealt by the
    engine (``deal_from_order``: packets of three, the last stock card face up)."""
    return deal_from_order(rng.permutation(N_CARDS).tolist())


def check_bounded_int(name: str, value: object, bound: int) -> int:
    """``value`` if it is an int in 1..``bound``, else ``ValueError``."""
    value = check_positive_int(name, value)
    if value > bound:
        raise ValueError(
            f"{name} must be at most {bound} (2**{bound.bit_length() - 1}) so that every reward is exact, got {value!r}"
        )
    return value


def as_action(action: Any) -> Any:
    """An action id from what a caller passed: an int stays; a numpy
    array of one integer becomes that int; any other array becomes a list,
    which the engine refuses as an illegal action naming it."""
    if isinstance(action, np.ndarray):
        if action.size == 1 and action.dtype.kind in "iu":
            return int(action.reshape(()))
        return action.tolist()
    return action


def read_only(obs: dict[str, np.ndarray[Any, Any]]) -> dict[str, np.ndarray[Any, Any]]:
    """``obs`` with its arrays made read-only, in place: an observation is
    cached until the next step and handed to every caller, so an in-place
    edit by one caller would change what ``last()`` gives the next (numpy
    raises instead; a caller that wants to edit takes a copy)."""
    for value in obs.values():
        value.setflags(write=False)
    return obs


class OrderEnforcing(OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` whose ``copy.copy`` is a full
    copy (a shallow copy would share the environment it wraps) and for
    which a refused ``reset`` does not count as one: a ``step`` after a
    failed first reset gets PettingZoo's "reset() needs to be called"."""

    _has_reset: bool  # PettingZoo's wrapper sets it

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        had_reset: bool = self._has_reset
        try:
            super().reset(seed=seed, options=options)
        except BaseException:
            self._has_reset = had_reset
            raise

    def __copy__(self) -> OrderEnforcing:
        return copy.deepcopy(self)

    def __str__(self) -> str:
        return str(self.env)


class EnvBase(AECEnv):
    """The shared part of the two environments (see the module docstring).

    A subclass sets ``metadata``, ``OPTION_KEYS`` and ``ZERO_REWARD`` and
    implements ``_parse_options(options)`` (check the options, return what
    ``_start`` needs, change nothing), ``_start(plan)`` (begin an episode:
    the engine, ``agents``, ``rewards``, ``infos``, ``agent_selection``...),
    ``_act(agent, action)`` (apply one action of the selected agent and set
    rewards, terminations and the next selection), ``observe`` and
    ``_render_text``; with ``TOKENS_GROW``, ``_token_bound_exceeded``."""

    OPTION_KEYS: tuple[str, ...] = ()
    ZERO_REWARD = 0.0
    TOKENS_GROW = False  # whether _token_bound_exceeded needs asking after each step

    def __init__(
        self,
        agents: list[str],
        obs_size: int,
        *,
        render_mode: str | None,
        stake_multiple: int,
        max_steps: int,
        ace_declaration: str,
        illegal_action: str,
        n_actions: int = N_ACTIONS,
    ):
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, got {render_mode!r}")
        check_bounded_int("stake_multiple", stake_multiple, MAX_STAKE_MULTIPLE)
        check_positive_int("max_steps", max_steps)
        self.config = RuleConfig(ace_declaration=ace_declaration, illegal_action=illegal_action)
        self.render_mode = render_mode
        self.stake_multiple = stake_multiple
        self.max_steps = max_steps
        self.possible_agents = list(agents)
        self.n_actions = n_actions
        self.action_spaces: dict[str, spaces.Discrete[Any]] = {
            a: spaces.Discrete(n_actions) for a in self.possible_agents
        }
        self.observation_spaces = {a: observation_space(obs_size, n_actions) for a in self.possible_agents}
        self.np_random: np.random.Generator | None = None
        self._ready = False  # a reset has succeeded
        self._cut = False  # the episode was truncated
        self._steps = 0
        self._obs: dict[str, dict[str, np.ndarray[Any, Any]]] = {}

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete[Any]:
        return self.action_spaces[agent]

    # ------------------------------------------------------------- reset
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        name = self.metadata["name"]
        if options is None:
            options = {}
        elif not isinstance(options, dict):
            raise ValueError(f"options must be a dict, got {type(options).__name__}")
        unknown = [k for k in options if k not in self.OPTION_KEYS]
        if unknown:
            warnings.warn(
                f"{name}.reset ignores unknown options {unknown}; known: {list(self.OPTION_KEYS)}", stacklevel=2
            )
        if seed is not None:
            seed = check_seed(seed)
        plan = self._parse_options(options)
        if seed is not None or self.np_random is None:
            self.np_random = np.random.default_rng(seed)
        self._ready = False
        self._start(plan)
        self._steps = 0
        self._cut = False
        self._obs = {}
        self._ready = True
        if self.render_mode == "human":
            self.render()

    def _begin(self, infos: dict[str, dict[str, Any]]) -> None:
        """Every agent alive, rewards zero, ``infos`` as given."""
        agents = self.agents = list(self.possible_agents)
        zero = self.ZERO_REWARD
        self.rewards = dict.fromkeys(agents, zero)
        self._cumulative_rewards = dict.fromkeys(agents, zero)
        self.terminations = dict.fromkeys(agents, False)
        self.truncations = dict.fromkeys(agents, False)
        self.infos = infos

    # -------------------------------------------------------------- step
    def step(self, action: Any) -> None:
        if not self._ready:
            self._not_ready("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._dead_step(action, agent)
            return
        if type(action) is not int:
            action = as_action(action)
        self._act(agent, action)
        self._obs = {}
        steps = self._steps = self._steps + 1
        if steps >= self.max_steps:
            self._truncate("max_steps")
        elif self.TOKENS_GROW and self._token_bound_exceeded():
            self._truncate("token_bound")
        if self.render_mode == "human":
            self.render()

    def _dead_step(self, action: Any, agent: str) -> None:
        self._was_dead_step(action)

    def _token_bound_exceeded(self) -> bool:
        return False

    # The subclass's part (see the class docstring).
    def _parse_options(self, options: dict[str, Any]) -> Any:
        raise NotImplementedError

    def _start(self, plan: Any) -> None:
        raise NotImplementedError

    def _act(self, agent: str, action: Any) -> None:
        raise NotImplementedError

    def _render_text(self) -> str:
        raise NotImplementedError

    def _truncate(self, reason: str) -> None:
        """Cut the episode: every live agent that has not terminated is
        truncated (``infos[agent]["truncated"] = reason``)."""
        if all(self.terminations[a] for a in self.agents):
            return
        self._cut = True
        for a in self.agents:
            if not self.terminations[a]:
                self.truncations[a] = True
                self.infos[a]["truncated"] = reason

    def _not_ready(self, what: str) -> NoReturn:
        raise RuntimeError(f"{self.metadata['name']}: {what}() needs a successful reset() first")

    def last(self, observe: bool = True) -> Any:
        if not self._ready:
            self._not_ready("last")
        return super().last(observe)

    # ------------------------------------------------------------ render
    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if not self._ready:
            self._not_ready("render")
        text = self._render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # ------------------------------------------------------------- copy
    def __copy__(self) -> EnvBase:
        return copy.deepcopy(self)


def check_seed(seed: object) -> int:
    """A reset seed: an int >= 0 (numpy's rule), else ``ValueError``."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be None or an int >= 0, got {seed!r}")
    return int(seed)


__all__ = [
    "EnvBase",
    "OrderEnforcing",
    "RENDER_MODES",
    "MAX_MULTIPLIER",
    "MAX_STAKE_MULTIPLE",
    "shuffled_deal",
    "check_bounded_int",
    "check_seed",
    "as_action",
    "read_only",
]
