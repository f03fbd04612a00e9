"""
# Trappola

One partie of Trappola (the two-player trick-taking game played in the
Bulka, docs/rules.md sections 1-7) as a PettingZoo AEC environment. All rules
live in the engine (``trappola_env.engine``); this module only drives it.

| Import             | `from trappola_env import trappola_v0`             |
|--------------------|----------------------------------------------------|
| Actions            | Discrete                                           |
| Parallel API       | No                                                 |
| Manual Control     | No                                                 |
| Agents             | `agents= ['player_0', 'player_1']`                 |
| Agents             | 2                                                  |
| Action Shape       | Discrete(49)                                       |
| Action Values      | Discrete(49) (47 and 48 are never legal here)      |
| Observation Shape  | (347,)                                             |
| Observation Values | [0, 1]                                             |

## Arguments

``trappola_v0.env(render_mode=None, reward_mode="win", stake_multiple=1,
ace_declaration="first_ace", illegal_action="raise", max_steps=1000)``

* ``render_mode``: None, "human" (prints) or "ansi" (returns the text).
* ``reward_mode``: "win", "points" or "tokens" (see Rewards).
* ``stake_multiple``: the session's stake multiple (an int from 1 to
  ``2**20``); it scales tokens, never points.
* ``ace_declaration``, ``illegal_action``: the engine's ``RuleConfig``
  (docs/rules.md sections 3 and 7).
* ``max_steps``: the episode is truncated after this many steps (positive
  int). A partie ends within 50 steps, so this is only a safety net.

Any other value raises ``ValueError`` naming the choices. ``env()`` wraps
``raw_env`` in PettingZoo's ``OrderEnforcingWrapper`` only (a subclass,
``aec_base.OrderEnforcing``, whose ``copy.copy`` copies fully): the engine
handles illegal actions itself (``illegal_action``), so the classic
``TerminateIllegalWrapper`` and ``AssertOutOfBoundsWrapper`` are not used.
What the two environments share lives in ``trappola_env.aec_base``.

## Roles and turns

``player_0`` is the challenger (leads trick 1) and ``player_1`` the dealer,
unless ``reset(options={"dealer": "player_0"})``. ``infos[agent]["role"]``
is "challenger" or "dealer" from ``reset`` on. A turn is zero or more
declarations and then one card: after a declaration the same agent acts
again. After an Alifer proposal the opponent acts with exactly the two
actions accept (45) and decline (46); after a decline the proposer
continues its turn; an accept ends the partie.

## Reset options

``reset(seed=None, options=None)``; ``options`` may hold

* ``"deal"``: ``{"challenger": [9 names], "dealer": [9 names], "stock":
  [18 names]}`` (the last stock name is the face-up bottom card); a
  malformed deal raises ``ValueError`` saying what is wrong.
* ``"dealer"``: ``"player_0"`` or ``"player_1"`` (default).
* ``"multiplier"``: the Alifer multiplier m of this partie (an int from 1
  to ``2**20``, default 1); it scales stakes and payments (tokens), never
  points.

Other keys are ignored with a warning. Without a ``"deal"`` the 36 cards
are shuffled by ``numpy.random.default_rng(seed).permutation`` and dealt by
the engine (``deal_from_order``: packets of three, the last stock card face
up); ``reset(seed=s)`` (an int >= 0) always gives the same deal, and a
``reset()`` without a seed continues the generator of the last seeded reset
(or one seeded from the OS on first use). A reset that raises changes
nothing, not even the generator: a partie in progress goes on.

## Action space

| id | action |
|---|---|
| 0..35 | play the card with this id (``suit * 9 + rank``; see docs/rules.md section 1) |
| 36 | declare Figura of Re |
| 37 | declare Figura of Cavall |
| 38 | declare Figura of Bube |
| 39 | declare Figura of Twos |
| 40 | declare Aces |
| 41 | declare Blans |
| 42 | declare Bianka |
| 43 | ask Manko |
| 44 | propose Alifer |
| 45 | accept Alifer |
| 46 | decline Alifer |
| 47 | declare Pro (session environment only; never legal here) |
| 48 | do not declare Pro (session environment only; never legal here) |

``action_name(a)`` (re-exported here) names any id, e.g. ``"play AS"``.
``step`` takes an int, a numpy integer, or a numpy integer array of one
element; any other array is an illegal action.

## Observation space

``Dict(observation=Box(0, 1, (347,), float32), action_mask=Box(0, 1, (49,),
int8))``. The mask is all zeros for the agent not to act and after the end.
The vector is written by ``trappola_env.observation.encode(partie, seat)``
and holds exactly what the observing player may know, in "me / opponent"
perspective so one policy can play both roles; ``decode_observation(vec)``
(re-exported here) gives the fields by name. The layout (the same data is
``trappola_env.observation.LAYOUT``; a test checks this table against it):

| field | offset | size | meaning |
|---|---|---|---|
| `hand` | 0 | 36 | cards in my hand now, by card id |
| `dealt_hand` | 36 | 36 | the 9 cards I was dealt |
| `stock_bottom` | 72 | 36 | the face-up bottom card of the stock (one-hot) |
| `played_by_me` | 108 | 36 | cards I have played |
| `played_by_opponent` | 144 | 36 | cards the opponent has played |
| `table_lead` | 180 | 36 | the card led to the current trick, if any (one-hot) |
| `trick_led_by_me` | 216 | 9 | completed trick t was led by me |
| `trick_won_by_me` | 225 | 9 | completed trick t was won by me |
| `trick_won_by_opponent` | 234 | 9 | completed trick t was won by the opponent |
| `declared_by_me` | 243 | 12 | Re3 Re4 Cavall3 Cavall4 Bube3 Bube4 Twos3 Twos4 Aces3 Aces4 Blans Bianka |
| `declared_by_opponent` | 255 | 12 | the opponent's declarations, same order |
| `manko_asked_by_me` | 267 | 1 | I asked Manko |
| `manko_asked_by_opponent` | 268 | 1 | the opponent asked Manko |
| `manko_answer_by_me` | 269 | 16 | missing suit of my 3-card Figura: rank (Re Cavall Bube Twos) x suit (S C D B) |
| `manko_answer_by_opponent` | 285 | 16 | missing suit of the opponent's 3-card Figura, same order |
| `role` | 301 | 2 | one-hot: challenger, dealer |
| `alifer_pending` | 303 | 2 | a proposal awaits its answer: proposed by me, by the opponent |
| `alifer_proposed` | 305 | 2 | already used the one Alifer proposal: me, opponent |
| `played_in_trick` | 307 | 36 | t/9 for a card played in trick t (1..9, the current one included), else 0 |
| `card_points` | 343 | 2 | card points won so far / 72: me, opponent |
| `trick_number` | 345 | 1 | completed tricks / 9 |
| `multiplier` | 346 | 1 | log2(m) / 16, clipped to 1 (m >= 65536 encodes as 1) |

Offsets 0..306 are 0/1. The opponent's hand and the 17 hidden stock cards
never enter the vector. ``observe`` computes an observation at most once
per agent and step and never writes into an array it has returned (a
stored observation stays valid); the same dict is returned again within a
step, and its arrays are read-only (an in-place edit raises instead of
changing what ``last()`` gives the next caller; edit a copy).

## Rewards

Given to both agents when the partie ends (0 before):

| reward_mode | decided partie | Alifer (tie or accepted proposal) | forfeit (Art. 12) |
|---|---|---|---|
| "win" (default) | +1 winner, -1 loser | 0 | -1 offender, +1 opponent |
| "points" | own total minus the opponent's | 0 | offender min(own - opponent, -1), the opponent the negation |
| "tokens" | net tokens of the partie for that agent (stake included; scaled by stake_multiple and m) | same | same |

Rewards are exact: a partie's tokens are below ``2**8 * stake_multiple *
m`` in size, so below ``2**48`` within the bounds above, where every
integer is a float (``trappola_env.aec_base`` has the arithmetic).

"tokens" is the engine's settlement (``PartieResult.tokens``): each player
pays its stake into the Bulka and receives or pays declaration payments and
pays trick-bonus payments; winning a partie earns no tokens by itself (the
Bulka is taken only by a Pro win in the session environment). A tie
settles payments, an accepted Alifer or a forfeit settles only the stakes,
so both get ``-stake`` there. In "points" a tie is 0 by definition; an
abandoned partie counts no points, and a forfeit is always a loss.

## Infos

``infos[agent]["role"]`` from reset on. When the partie ends every agent's
info also has ``result`` ("win" | "loss" | "alifer"), ``outcome`` (the
engine's: "decided" | "tie" | "agreed_alifer" | "forfeit"), ``score``
(``{"card_points", "declaration_points", "bonus_points", "total"}``; for an
abandoned or forfeited partie the points as they stood, without trick
bonuses), ``tokens`` (net token change of the partie) and ``forfeit``
(True only for an agent that lost by an illegal action).

## Illegal actions

With ``illegal_action="raise"`` an illegal action raises ``ValueError``
(the engine's ``IllegalActionError``) naming the agent, the action and the
legal actions; the state is unchanged and the same agent is still to act.
With ``illegal_action="forfeit"`` the offender loses the partie at once
(result "loss", ``forfeit`` True), with no declaration or bonus payments.

## State and length

``env.unwrapped.partie`` is the engine's ``Partie`` (the whole table, for
analysis and search players: ``copy()`` it before changing anything) and
``env.unwrapped.result`` the settled ``PartieResult`` once the partie is
over. A partie ends by itself within 9 tricks (fewer than 50 steps, all
declarations and Alifer answers included). Should it not, ``max_steps``
truncates it: every agent gets ``truncation=True`` (not a termination),
``infos[agent]["truncated"] = "max_steps"``, and all-zero masks.

``copy.deepcopy``, ``copy.copy`` and ``pickle`` of the environment (raw or
wrapped) carry the whole state (the partie, the generator, the agents'
bookkeeping): a copy plays on exactly as the original would, and stepping
it leaves the original unchanged. ``step`` before a successful ``reset``
raises (``RuntimeError`` from ``raw_env``, PettingZoo's error from ``env()``).

## Rendering

``render()`` shows the whole table, both hands included, as a spectator
sees it (it is not a player's view; use ``decode_observation`` for that).
"ansi" returns the text, "human" prints it after every step.

## Version history

* v0 (package 0.1.0): one partie; observation layout of 347 values.
  Changes within v0 are listed in ``CHANGELOG.md``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from trappola_env.aec_base import MAX_MULTIPLIER, EnvBase, OrderEnforcing, check_bounded_int, shuffled_deal
from trappola_env.engine import N_ACTIONS, Deal, IllegalActionError, Partie, action_name, deal_from_names
from trappola_env.engine.partie import DONE
from trappola_env.engine.render import render_partie
from trappola_env.engine.scoring import PartieResult
from trappola_env.observation import OBS_SIZE, Observer, decode_observation, encode
from trappola_env.spaces_and_rewards import (
    REWARD_MODES,
    ROLES,
    check_reward_mode,
    end_info,
    mask_array,
    partie_reward,
    result_name,
    score_dict,
)

_NO_ACTIONS = np.zeros(N_ACTIONS, np.int8)  # the mask of an agent not to act, shared: read-only
_NO_ACTIONS.setflags(write=False)

AGENTS = ("player_0", "player_1")
OPTION_KEYS = ("deal", "dealer", "multiplier")
# engine seat -> agent, and agent -> engine seat, by the dealer's agent
_BY_SEAT = {AGENTS[1]: (AGENTS[0], AGENTS[1]), AGENTS[0]: (AGENTS[1], AGENTS[0])}
_SEAT_OF = {d: {a: i for i, a in enumerate(by_seat)} for d, by_seat in _BY_SEAT.items()}
MAX_STEPS = 1000  # a partie ends within 50 steps; this only guards against engine faults


reward_of = partie_reward  # this module's name for it, which callers import from here


def env(**kwargs: Any) -> OrderEnforcing:
    """``raw_env(**kwargs)`` in PettingZoo's order-enforcing wrapper
    (``aec_base.OrderEnforcing``, which also copies fully)."""
    return OrderEnforcing(raw_env(**kwargs))


class raw_env(EnvBase):
    """One Trappola partie; see the module docstring."""

    metadata = {"name": "trappola_v0", "render_modes": ["human", "ansi"], "is_parallelizable": False}
    OPTION_KEYS = OPTION_KEYS
    ZERO_REWARD = 0

    def __init__(
        self,
        render_mode: str | None = None,
        reward_mode: str = "win",
        stake_multiple: int = 1,
        ace_declaration: str = "first_ace",
        illegal_action: str = "raise",
        max_steps: int = MAX_STEPS,
    ):
        super().__init__(
            list(AGENTS),
            OBS_SIZE,
            render_mode=render_mode,
            stake_multiple=stake_multiple,
            max_steps=max_steps,
            ace_declaration=ace_declaration,
            illegal_action=illegal_action,
        )
        check_reward_mode(reward_mode)
        self.reward_mode = reward_mode
        self.partie: Partie | None = None
        self.result: PartieResult | None = None
        self._observer: Observer | None = None
        self._by_seat = _BY_SEAT[AGENTS[1]]  # engine seat -> agent
        self._seat = _SEAT_OF[AGENTS[1]]  # agent -> engine seat (shared, never modified)

    # ------------------------------------------------------------- reset
    def _parse_options(self, options: dict[str, Any]) -> tuple[str, int, Deal | None]:
        dealer = options.get("dealer", AGENTS[1])
        if dealer not in AGENTS:
            raise ValueError(f"options['dealer'] must be 'player_0' or 'player_1', got {dealer!r}")
        multiplier = check_bounded_int("options['multiplier']", options.get("multiplier", 1), MAX_MULTIPLIER)
        deal = deal_from_names(options["deal"]) if "deal" in options else None
        return dealer, multiplier, deal

    def _start(self, plan: tuple[str, int, Deal | None]) -> None:
        dealer, multiplier, deal = plan
        if deal is None:
            assert self.np_random is not None  # reset seeds it first
            deal = shuffled_deal(self.np_random)
        partie = self.partie = Partie(deal, self.config, self.stake_multiple, multiplier)
        self._observer = Observer(partie)
        self.result = None
        self._by_seat = a0, a1 = _BY_SEAT[dealer]
        self._seat = _SEAT_OF[dealer]
        self._begin({a0: {"role": ROLES[0]}, a1: {"role": ROLES[1]}})
        self.agent_selection = self._by_seat[partie.to_act]

    # -------------------------------------------------------------- step
    def _act(self, agent: str, action: Any) -> None:
        partie = self.partie
        assert partie is not None  # dealt by reset
        try:
            partie.apply(action)
        except IllegalActionError as e:
            raise IllegalActionError(f"{agent} ({ROLES[self._seat[agent]]}): {e}") from None
        if partie.phase == DONE:
            self._finish(agent)
        else:
            self.agent_selection = self._by_seat[partie.to_act]

    def _dead_step(self, action: Any, agent: str) -> None:
        """``AECEnv._was_dead_step`` for this env, where both agents end
        together: remove ``agent`` and select the other one, if any."""
        if action is not None:
            raise ValueError("when an agent is dead, the only valid action is None")
        del self.terminations[agent]
        del self.truncations[agent]
        del self.rewards[agent]
        del self._cumulative_rewards[agent]
        del self.infos[agent]
        agents = self.agents
        agents.remove(agent)
        if agents:
            self.agent_selection = agents[0]
            self.rewards[agents[0]] = 0

    def _finish(self, last_mover: str) -> None:
        assert self.partie is not None  # dealt by reset
        result = self.result = self.partie.result()
        for agent in AGENTS:
            seat = self._seat[agent]
            self.rewards[agent] = partie_reward(result, seat, self.reward_mode)
            self.terminations[agent] = True
            self.infos[agent].update(end_info(result, seat))
        self._accumulate_rewards()
        # The opponent of the last mover is stepped (and sees its reward) first.
        self.agent_selection = AGENTS[1] if last_mover == AGENTS[0] else AGENTS[0]

    # ----------------------------------------------------------- observe
    def observe(self, agent: str) -> dict[str, np.ndarray[Any, Any]]:
        obs = self._obs.get(agent)
        if obs is not None:
            return obs
        if not self._ready:
            self._not_ready("observe")
        partie = self.partie
        observer = self._observer
        assert partie is not None and observer is not None  # set by a successful reset
        seat = self._seat[agent]
        observer.sync()
        if partie.to_act == seat and partie.phase != DONE and not self._cut:
            mask = mask_array(partie.legal_mask(), read_only=True)
        else:
            mask = _NO_ACTIONS
        # Read-only arrays (see aec_base.read_only) built on immutable bytes: cheaper than a copy
        # made read-only afterwards, on the hot path of every step.
        vec = np.frombuffer(observer.vectors[seat].tobytes(), np.float32)
        obs = self._obs[agent] = {"observation": vec, "action_mask": mask}
        return obs

    # ------------------------------------------------------------ render
    def _render_text(self) -> str:
        assert self.partie is not None  # render asks a successful reset first
        return f"{self._by_seat[0]} is the challenger, {self._by_seat[1]} the dealer\n" + render_partie(self.partie)


__all__ = [
    "env",
    "raw_env",
    "action_name",
    "decode_observation",
    "encode",
    "mask_array",
    "OBS_SIZE",
    "AGENTS",
    "ROLES",
    "REWARD_MODES",
    "OPTION_KEYS",
    "MAX_STEPS",
    "reward_of",
    "result_name",
    "score_dict",
]
