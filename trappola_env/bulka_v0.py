# noqa: D212, D415
"""
# Bulka

A whole Bulka session of Trappola (docs/rules.md section 8: 2 to 4 players
taking turns at one table, a pot, streaks, Pro, Alifer replays, the final
split) as a PettingZoo AEC environment. All rules live in the session
engine (``trappola_env.engine.session``); this module only drives it.

| Import             | `from trappola_env import bulka_v0`                  |
|--------------------|------------------------------------------------------|
| Actions            | Discrete                                             |
| Parallel API       | No                                                   |
| Manual Control     | No                                                   |
| Agents             | `agents= ['player_0', ..., 'player_{n-1}']`          |
| Agents             | 2, 3 (default) or 4                                  |
| Action Shape       | Discrete(49)                                         |
| Action Values      | Discrete(49)                                         |
| Observation Shape  | (366,)                                               |
| Observation Values | [0, 1]                                               |

## Arguments

``bulka_v0.env(n_players=3, max_parties=100, stake_multiple=1,
render_mode=None, ace_declaration="first_ace", illegal_action="raise",
max_steps=None)``

* ``n_players``: 2, 3 or 4; the agents are ``player_0`` .. ``player_{n-1}``.
* ``max_parties``: the session ends after this many parties (Alifer
  replays count); a live Pro partie is still played out through its
  replays, in which proposing Alifer is then illegal (a tie still
  replays), and a pending non-Pro replay is dropped (docs/rules.md
  section 8, End). So every session ends.
* ``stake_multiple``: the session's stake multiple (an int from 1 to ``2**20``).
* ``render_mode``: None, "human" (prints) or "ansi" (returns the text).
* ``ace_declaration``, ``illegal_action``: the engine's ``RuleConfig``
  (docs/rules.md sections 3 and 7).
* ``max_steps``: the episode is truncated after this many steps (positive
  int; None, the default, means ``STEPS_PER_PARTIE * max_parties`` =
  ``1000 * max_parties``, twenty times what a session of fewer than 52
  steps per partie needs). A safety net against policies that never end.

Any other value raises ``ValueError`` naming the choices. ``env()`` wraps
``raw_env`` in PettingZoo's ``OrderEnforcingWrapper`` only, as
``trappola_v0`` does (``env_base.OrderEnforcing``, which copies fully). ``env.unwrapped.session`` is the session engine
(balances, Bulka, queue, streaks, ``history``); ``env.unwrapped.session.check()``
asserts the ledger.

## Who acts

The selected agent is whoever must act: the next dealer deciding Pro
(its mask is exactly {47, 48}), or one of the two players of the partie in
play, with the same 49-action table, turn structure and masks as
``trappola_v0`` (a declaration keeps the turn; after an Alifer proposal the
opponent has exactly accept/decline). Waiting players are never selected
until the session ends. Seating is drawn with cards at ``reset`` (the
lowest card deals first, the highest challenges, ties redraw).

## Reset options

``reset(seed=None, options=None)``; ``options`` may hold

* ``"seating"``: ``{"dealer": name, "challenger": name, "queue": [names]}``
  instead of drawing (every agent seated exactly once).
* ``"deal"``: the first partie's deal, ``{"challenger": [9 names],
  "dealer": [9 names], "stock": [18 names]}`` (the last stock name is the
  face-up bottom card); later parties are shuffled.

Other keys are ignored with a warning. The seating draw and every deal come
from ``numpy.random.default_rng(seed)`` (deals as in ``trappola_v0``:
``permutation`` of the 36 cards, dealt by the engine); ``reset(seed=s)``
(an int >= 0) always gives the same session for the same actions, and a
``reset()`` without a seed continues the generator of the last reset (or
one seeded from the OS on first use). A reset that raises changes
nothing, not even the generator.

## Action space

The shared table (docs/rules.md section 9): 0..35 play that card, 36..39
declare Figura of Re / Cavall / Bube / Twos, 40 Aces, 41 Blans, 42 Bianka,
43 ask Manko, 44 propose Alifer, 45 accept, 46 decline, **47 declare Pro,
48 do not declare Pro** (the last two only in the Pro decision). ``step``
takes an int, a numpy integer, or a numpy integer array of one element.

## Observation space

``Dict(observation=Box(0, 1, (366,), float32), action_mask=Box(0, 1, (49,),
int8))``. The mask is all zeros for every agent but the one to act, and
after the end. Both arrays are read-only, as in ``trappola_v0``.

The first 347 values are exactly the ``trappola_v0`` observation
(``trappola_env.observation.encode``; see the ``trappola_v0`` page for the
table) of the partie in play, for the agent's seat in it. They are all
zeros for a waiting agent, during a Pro decision (no partie has been dealt
yet) and after the session's end. ``decode_observation`` reads that part of
a ``bulka_v0`` vector too.

The session features follow (``SESSION_LAYOUT`` holds the same as data,
``SESSION_OFFSET`` the offsets by name; a test checks this table against
it; ``OBS_LAYOUT`` is the whole vector's layout and ``OBS_DIM`` its size,
366, as checkpoints record them). "Opponent" means the other player at
the table (for a Pro decision: the next challenger); a waiting agent has
none. ``u = 10 * stake_multiple`` (one base stake).

| field | offset | size | meaning |
|---|---|---|---|
| `phase` | 347 | 3 | one-hot: deciding Pro, partie in play, session over |
| `seat` | 350 | 3 | one-hot: challenger, dealer, waiting |
| `balance` | 353 | 1 | own balance b: 0.5 + 0.5 * clip(sign(b) * log2(1 + abs(b) / u) / 16, -1, 1) |
| `bulka` | 354 | 1 | the Bulka B: min(log2(1 + B / u) / 16, 1) |
| `streak` | 355 | 2 | min(streak, 8) / 8: me, opponent |
| `multiplier` | 357 | 1 | the session's Alifer multiplier m now: min(log2(m) / 16, 1) |
| `pro_partie` | 358 | 1 | the partie in play is a Pro partie (its replays included) |
| `pro_declared_by` | 359 | 2 | the Pro declarer is: me, the opponent |
| `n_players` | 361 | 3 | one-hot: 2, 3, 4 players |
| `queue_position` | 364 | 1 | 0 at the table; (i + 1) / 3 for the i-th waiting player (0 = head, waits longest) |
| `parties_left` | 365 | 1 | parties still to play / max_parties, clipped to [0, 1] |

## Rewards

Token changes as they happen, to every agent they concern: stakes paid
into the Bulka (when a partie starts, right after the previous one ends),
the Pro stake, declaration payments received or paid, trick-bonus payments,
the Bulka taken by a Pro winner, and the final equal split of the Bulka
among all agents. So an agent's summed rewards equal its final balance
(``infos[agent]["balance"]``). The stakes of the first partie, paid at
``reset``, arrive with the first step's rewards (PettingZoo's API has no
reward at reset). Rewards are floats; every payment is a whole number of
tokens, only the final split can be a fraction (a Bulka of 100 among 3),
which the session keeps exact (``fractions.Fraction``) and the reward
rounds to the nearest float.

Every other reward is an exact integer. The episode is truncated
(``truncation=True`` for every agent, ``infos[agent]["truncated"] =
"token_bound"``) as soon as the multiplier exceeds ``2**20``
(``MAX_MULTIPLIER``: 21 Alifers in a row) or the Bulka or a balance
exceeds ``2**50`` (``TOKEN_BOUND``). Before each step these bounds hold,
so one step moves fewer than ``2**51`` tokens (a partie's payments are
below ``2**8 * stake_multiple * m`` <= ``2**48``, plus at most the whole
Bulka): far inside the ``2**53`` integers a float holds exactly.

## Infos

``infos[agent]`` holds ``balance`` (float), ``streak`` (int) and ``seat``
("dealer" | "challenger" | "waiting", for the partie in play or about to
be decided) after every step; ``parties_played``; and at the end
``final_share`` (each agent's part of the split Bulka, float); after a
truncation, ``truncated`` ("max_steps" or "token_bound").

## Truncation and copies

A truncated episode (``max_steps`` reached, or the token bound above)
reports ``truncation=True`` for every agent, never a termination, with
all-zero masks; the session engine stays as it was (``env.unwrapped.session``).
``copy.deepcopy``, ``copy.copy`` and ``pickle`` of the environment (raw or
wrapped) carry the whole state (session, generator, the agents'
bookkeeping): a copy plays on exactly as the original would, and stepping
it leaves the original unchanged. ``step`` before a successful ``reset``
raises (``RuntimeError`` from ``raw_env``, PettingZoo's error from ``env()``).

## Illegal actions

With ``illegal_action="raise"`` an illegal action raises ``ValueError``
(the engine's ``IllegalActionError``) naming the agent, the action and the
legal actions; the state is unchanged. With ``"forfeit"`` the offender loses
the partie at once (Art. 12); an illegal action in the Pro decision forfeits
the coming partie (its stakes are paid, nothing is dealt, no Pro).

## Rendering

``render()`` shows the session (balances, streaks, queue, Bulka) and the
table with both hands, as a spectator sees it. "ansi" returns the text,
"human" prints it after every step.

## Version history

* v0: initial release (observation: the 347 values of ``trappola_v0`` and
  19 session features). Since then: seeding by numpy's generator (a seed
  gives another session than before), ``max_steps`` truncation, the token
  bound, full copies, and the end-of-session Alifer ruling.
"""
from __future__ import annotations

import math

import numpy as np

from .engine import N_ACTIONS, IllegalActionError, deal_from_names
from .engine.render import render_partie
from .engine.scoring import BASE_STAKE
from .engine.seating import Seating
from .engine.session import OVER, PLAYING, PRO_DECISION, Session
from .env_base import MAX_MULTIPLIER, EnvBase, OrderEnforcing, read_only, shuffled_deal
from .envs_common import check_positive_int, mask_array
from .observation import LAYOUT, OBS_SIZE, Observer, decode_observation, encode, multiplier_feature

OPTION_KEYS = ("seating", "deal")
SEATS = ("challenger", "dealer", "waiting")
STREAK_CAP = 8
LOG2_SCALE = 16
STEPS_PER_PARTIE = 1000  # the default max_steps per partie; a partie takes fewer than 52
TOKEN_BOUND = 2**50  # a balance or Bulka beyond this truncates the episode

# (name, size, meaning). The order is the vector's order after OBS_SIZE.
SESSION_FIELDS = (
    ("phase", 3, "one-hot: deciding Pro, partie in play, session over"),
    ("seat", 3, "one-hot: challenger, dealer, waiting"),
    ("balance", 1, "own balance, signed log scale"),
    ("bulka", 1, "the Bulka, log scale"),
    ("streak", 2, "min(streak, 8) / 8: me, opponent"),
    ("multiplier", 1, "the session's Alifer multiplier now"),
    ("pro_partie", 1, "the partie in play is a Pro partie"),
    ("pro_declared_by", 2, "the Pro declarer is: me, the opponent"),
    ("n_players", 3, "one-hot: 2, 3, 4 players"),
    ("queue_position", 1, "0 at the table; (i + 1) / 3 for the i-th waiting player"),
    ("parties_left", 1, "parties still to play / max_parties"),
)


def _layout():
    out, off = [], OBS_SIZE
    for name, size, _ in SESSION_FIELDS:
        out.append((name, off, size))
        off += size
    return out, off


SESSION_LAYOUT, BULKA_OBS_SIZE = _layout()
OBS_LAYOUT = [*LAYOUT, *SESSION_LAYOUT]  # the whole vector: the partie's fields, then the session's
OBS_DIM = BULKA_OBS_SIZE
SESSION_OFFSET = {name: off for name, off, _ in SESSION_LAYOUT}  # absolute offsets in the vector
_OFF = SESSION_OFFSET
_PHASE_INDEX = {PRO_DECISION: 0, PLAYING: 1, OVER: 2}


def env(**kwargs):
    """``raw_env(**kwargs)`` in PettingZoo's order-enforcing wrapper
    (``env_base.OrderEnforcing``, which also copies fully)."""
    return OrderEnforcing(raw_env(**kwargs))


def signed_log_feature(x, unit) -> float:
    """0.5 + 0.5 * clip(sign(x) * log2(1 + |x| / unit) / 16, -1, 1)."""
    v = min(math.log2(1.0 + abs(float(x)) / unit) / LOG2_SCALE, 1.0)
    return 0.5 + 0.5 * (v if x >= 0 else -v)


def encode_session(session: Session, agent: str, out: np.ndarray) -> None:
    """Write the session features of ``agent`` into ``out`` (a float32 array
    of ``BULKA_OBS_SIZE - OBS_SIZE`` values, all overwritten)."""
    out.fill(0.0)
    base = OBS_SIZE
    phase = session.phase
    out[_OFF["phase"] - base + _PHASE_INDEX[phase]] = 1.0
    dealer, challenger = session.dealer, session.challenger
    if agent == challenger:
        seat, opponent = 0, dealer
    elif agent == dealer:
        seat, opponent = 1, challenger
    else:
        seat, opponent = 2, None
    out[_OFF["seat"] - base + seat] = 1.0
    unit = BASE_STAKE * session.stake_multiple
    out[_OFF["balance"] - base] = signed_log_feature(session.balances[agent], unit)
    out[_OFF["bulka"] - base] = min(math.log2(1.0 + float(session.bulka) / unit) / LOG2_SCALE, 1.0)
    streaks = session.streaks
    out[_OFF["streak"] - base] = min(streaks[agent], STREAK_CAP) / STREAK_CAP
    if opponent is not None:
        out[_OFF["streak"] - base + 1] = min(streaks[opponent], STREAK_CAP) / STREAK_CAP
    out[_OFF["multiplier"] - base] = multiplier_feature(session.multiplier)
    pro = session.pro_declarer
    if pro is not None and phase == PLAYING:
        out[_OFF["pro_partie"] - base] = 1.0
        if pro == agent:
            out[_OFF["pro_declared_by"] - base] = 1.0
        elif pro == opponent:
            out[_OFF["pro_declared_by"] - base + 1] = 1.0
    out[_OFF["n_players"] - base + len(session.players) - 2] = 1.0
    if seat == 2:
        out[_OFF["queue_position"] - base] = (session.queue.index(agent) + 1) / 3
    out[_OFF["parties_left"] - base] = min(session.parties_left / session.max_parties, 1.0)


class raw_env(EnvBase):
    """A Bulka session; see the module docstring."""

    metadata = {"name": "bulka_v0", "render_modes": ["human", "ansi"], "is_parallelizable": False}
    OPTION_KEYS = OPTION_KEYS
    TOKENS_GROW = True

    def __init__(self, n_players: int = 3, max_parties: int = 100, stake_multiple: int = 1,
                 render_mode: str | None = None, ace_declaration: str = "first_ace",
                 illegal_action: str = "raise", max_steps: int | None = None):
        if isinstance(n_players, bool) or not isinstance(n_players, int) or n_players not in (2, 3, 4):
            raise ValueError(f"n_players must be 2, 3 or 4, got {n_players!r}")
        check_positive_int("max_parties", max_parties)
        if max_steps is None:
            max_steps = STEPS_PER_PARTIE * max_parties
        super().__init__([f"player_{i}" for i in range(n_players)], BULKA_OBS_SIZE, render_mode=render_mode,
                         stake_multiple=stake_multiple, max_steps=max_steps, ace_declaration=ace_declaration,
                         illegal_action=illegal_action)
        self.n_players = n_players
        self.max_parties = max_parties
        self.session = None
        self._observer = None
        self._reported = {}  # balance per agent as last reported through rewards
        self._beyond = False  # a balance is beyond TOKEN_BOUND

    # ------------------------------------------------------------- reset
    def _parse_options(self, options: dict) -> tuple:
        seating = options.get("seating")
        if seating is not None:
            if not isinstance(seating, Seating):
                seating = Seating.from_dict(seating)
            seating.validate(self.possible_agents)
        deal = deal_from_names(options["deal"]) if "deal" in options else None
        return seating, deal

    def _start(self, plan: tuple) -> None:
        seating, deal = plan
        self.session = Session(max_parties=self.max_parties, stake_multiple=self.stake_multiple,
                               config=self.config, rng=self.np_random, names=self.possible_agents,
                               seating=seating, deal_source=shuffled_deal)
        if deal is not None:
            self.session.set_deal(deal)
        self._reported = dict.fromkeys(self.possible_agents, 0)
        self._beyond = False
        self._begin({a: {} for a in self.possible_agents})
        self._update_infos()
        self._observer = None
        self.agent_selection = self.session.to_act

    # -------------------------------------------------------------- step
    def _act(self, agent: str, action) -> None:
        session = self.session
        try:
            session.act(action)
        except IllegalActionError as e:
            raise IllegalActionError(f"{agent} ({session.seat_of(agent)}): {e}") from None
        self._cumulative_rewards[agent] = 0.0
        balances = session.balances
        reported = self._reported
        rewards = self.rewards
        for a in self.agents:
            new = balances[a]
            old = reported[a]
            if new != old:
                rewards[a] = float(new - old)
                reported[a] = new
                if not -TOKEN_BOUND <= new <= TOKEN_BOUND:
                    self._beyond = True
            else:
                rewards[a] = 0.0
        self._update_infos()
        if session.phase == OVER:
            share = float(session.final_share)
            for a in self.agents:
                self.terminations[a] = True
                self.infos[a]["final_share"] = share
            self._accumulate_rewards()
            # Agents are stepped dead in their order, starting with the last mover.
            self.agent_selection = agent
        else:
            self._accumulate_rewards()
            self.agent_selection = session.to_act

    def _token_bound_exceeded(self) -> bool:
        s = self.session
        return s.phase != OVER and (self._beyond or s.multiplier > MAX_MULTIPLIER or s.bulka > TOKEN_BOUND)

    def _update_infos(self) -> None:
        s = self.session
        balances, streaks = s.balances, s.streaks
        dealer, challenger = s.dealer, s.challenger
        n = s.parties_played
        for a in self.agents:
            info = self.infos[a]
            info["balance"] = float(balances[a])
            info["streak"] = streaks[a]
            info["seat"] = "dealer" if a == dealer else ("challenger" if a == challenger else "waiting")
            info["parties_played"] = n

    # ----------------------------------------------------------- observe
    def observe(self, agent):
        obs = self._obs.get(agent)
        if obs is None:
            if not self._ready:
                self._not_ready("observe")
            session = self.session
            vec = np.zeros(BULKA_OBS_SIZE, np.float32)
            if session.phase == PLAYING and (agent == session.challenger or agent == session.dealer):
                observer = self._observer
                if observer is None or observer.partie is not session.partie:
                    observer = self._observer = Observer(session.partie)
                else:
                    observer.sync()
                vec[:OBS_SIZE] = observer.vectors[0 if agent == session.challenger else 1]
            encode_session(session, agent, vec[OBS_SIZE:])
            if agent == session.to_act and not self._cut:
                mask = mask_array(session.legal_mask())
            else:
                mask = np.zeros(N_ACTIONS, np.int8)
            obs = self._obs[agent] = read_only({"observation": vec, "action_mask": mask})
        return obs

    # ------------------------------------------------------------ render
    def _render_text(self) -> str:
        s = self.session
        text = s.render()
        if s.phase == PLAYING:
            pro = f", Pro partie of {s.pro_declarer}" if s.pro_declarer else ""
            text += (f"\n{s.challenger} is the challenger, {s.dealer} the dealer{pro}\n"
                     + render_partie(s.partie))
        elif s.phase == PRO_DECISION:
            text += f"\n{s.dealer} (streak {s.streaks[s.dealer]}) decides whether to declare Pro"
        return text


__all__ = ["env", "raw_env", "encode", "encode_session", "decode_observation", "mask_array", "OBS_SIZE",
           "BULKA_OBS_SIZE", "OBS_DIM", "OBS_LAYOUT", "STEPS_PER_PARTIE", "TOKEN_BOUND", "SESSION_FIELDS",
           "SESSION_LAYOUT", "SESSION_OFFSET", "LOG2_SCALE", "STREAK_CAP", "signed_log_feature"]
