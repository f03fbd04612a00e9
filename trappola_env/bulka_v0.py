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
| Action Shape       | Discrete(49); Discrete(97) with ``advice=True``      |
| Action Values      | Discrete(49); Discrete(97) with ``advice=True``      |
| Observation Shape  | (366,); +96 with ``advice=True``; +27 with ``records=True`` |
| Observation Values | [0, 1]                                               |

## Arguments

``bulka_v0.env(n_players=3, max_parties=100, stake_multiple=1,
render_mode=None, ace_declaration="first_ace", illegal_action="raise",
max_steps=None, advice=False, records=False)``

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
* ``advice``: False (default) or True: the waiting players advise the
  defender of each Pro partie (docs/rules.md section 8, Art. 5.3; see
  "Advice" below). Off, it changes nothing: the spaces, the observations
  and every step are those of a session without advice.
* ``records``: False (default) or True: the observation ends with what
  every player at the table can know of the others, their records so far
  in this session (see "Records" below), for a Pro decision that needs no
  names.

Any other value raises ``ValueError`` naming the choices. ``env()`` wraps
``raw_env`` in PettingZoo's ``OrderEnforcingWrapper`` only, as
``trappola_v0`` does (``aec_base.OrderEnforcing``, which copies fully). ``env.unwrapped.session`` is the session engine
(balances, Bulka, queue, streaks, ``history``); ``env.unwrapped.session.check()``
asserts the ledger.

## Who acts

The selected agent is whoever must act: the next dealer deciding Pro
(its mask is exactly {47, 48}), or one of the two players of the partie in
play, with the same 49-action table, turn structure and masks as
``trappola_v0`` (a declaration keeps the turn; after an Alifer proposal the
opponent has exactly accept/decline). Waiting players are never selected
until the session ends, except as advisers with ``advice=True``. Seating is drawn with cards at ``reset`` (the
lowest card deals first, the highest challenges, ties redraw).

## Advice

With ``advice=True``, before each decision of the defender of a Pro partie
(the challenger: the Pro declarer always deals) the waiting players are
selected one by one, in queue order (head first), to advise it; then the
defender acts. A declaration keeps the defender's turn, so its next
decision is advised again; the declarer is never advised. An adviser's
mask holds advice ids only (the session engine, ``engine.advice``):

* ``49 + a``: advise defender action ``a`` (0..46: a card, a declaration,
  Manko, propose / accept / decline Alifer), for every ``a`` the public
  record leaves possible (a card nobody has seen, outside the suits the
  defender failed to follow; a declaration whose moment has not passed;
  only accept or decline when the declarer's proposal waits);
* ``96``: no advice.

Advisers see the public record only (see the observation below); the
advice is not binding, and misleading advice is allowed. The defender's
own mask is unchanged (0..46). Advice moves no tokens: an adviser's
reward is the token changes of the session, like everyone's, so its
interest in the Pro partie (that the declarer loses, or wins) comes from
the game itself. An illegal advice id raises (``"raise"``) or counts as
no advice (``"forfeit"``: an adviser has no partie to lose).
``session.advice`` holds the advice of the decision at hand,
``session.advice_log`` every advice given.

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
48 do not declare Pro** (the last two only in the Pro decision). With
``advice=True`` also **49..95 advise action id - 49, 96 no advice** (an
adviser's only actions; ``engine.advice.advice_name`` names them). ``step``
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

With ``advice=True`` (``ADVICE_FIELDS``, ``ADVICE_LAYOUT``; the vector has
``ADVICE_OBS_SIZE`` = 462 values, the mask 97): the advice given for the
defender's decision at hand, cleared as soon as it acts. Advice is spoken
at the table, so every agent sees these values.

| field | offset | size | meaning |
|---|---|---|---|
| `advice` | 366 | 94 | per waiting player in queue order (2 x 47): one-hot of the defender action it advises |
| `advice_given` | 460 | 2 | per waiting player in queue order: it has advised this decision (`advice` zeros: none) |

Also with ``advice=True``, a waiting agent's first 347 values are no
longer zeros while a partie is played: they are what an onlooker sees from
the challenger's side (the defender's, in a Pro partie),
``observation.encode_public``: the challenger's observation with `hand`
and `dealt_hand` all zeros, so the public record (cards played, tricks,
declarations, Manko answers, proposals, card points) and nothing hidden.
The phase one-hot reads "partie in play" while advice is given.

### Records

With ``records=True`` the vector ends with 27 more values
(``RECORD_FIELDS``, ``RECORD_SIZE``; after the advice values when both
options are on): for each of the 3 other seats, in order after the
agent's own (``player_{i+1}``, ``player_{i+2}``, ``player_{i+3}``, indices
mod ``n_players``; all zeros for a seat without a player), 9 values in this
order, counted from the session's public history
(``trappola_env.engine.records``):

| value | meaning |
|---|---|
| 0 | the seat has a player |
| 1 | it is my opponent at the table (in a Pro decision: the next challenger) |
| 2 | it heads the queue (my next opponent if I win as dealer) |
| 3, 4 | decided parties it won / lost against me, min(n, 20) / 20 |
| 5, 6 | decided parties it won / lost against anyone, min(n, 50) / 50 |
| 7, 8 | its Pro parties (decided) / those it won, min(n, 10) / 10 |

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

* v0 (package 0.1.0): observation of the 347 values of ``trappola_v0`` and
  19 session features; the ``advice`` and ``records`` options. Changes
  within v0 are listed in ``CHANGELOG.md``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from trappola_env.aec_base import MAX_MULTIPLIER, EnvBase, OrderEnforcing, read_only, shuffled_deal
from trappola_env.engine import N_ACTIONS, Deal, IllegalActionError, InfoState, Partie, deal_from_names
from trappola_env.engine.actions import action_name
from trappola_env.engine.advice import ADVISABLE, N_ACTIONS_WITH_ADVICE
from trappola_env.engine.checks import check_positive_int
from trappola_env.engine.ledger import Tokens
from trappola_env.engine.records import SessionRecords
from trappola_env.engine.render import render_partie
from trappola_env.engine.scoring import BASE_STAKE
from trappola_env.engine.seating import Seating
from trappola_env.engine.session import ADVICE, OVER, PLAYING, PRO_DECISION, Session
from trappola_env.observation import (
    LAYOUT,
    OBS_SIZE,
    Observer,
    decode_observation,
    encode,
    encode_public,
    multiplier_feature,
)
from trappola_env.spaces_and_rewards import mask_array, wide_mask_array

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


def _layout() -> tuple[list[tuple[str, int, int]], int]:
    out: list[tuple[str, int, int]] = []
    off = OBS_SIZE
    for name, size, _ in SESSION_FIELDS:
        out.append((name, off, size))
        off += size
    return out, off


SESSION_LAYOUT, BULKA_OBS_SIZE = _layout()
ADVICE_SLOTS = 2  # at most two players wait (4 players)
# Appended after the session features with advice=True only.
ADVICE_FIELDS = (
    (
        "advice",
        ADVICE_SLOTS * ADVISABLE,
        "per waiting player in queue order: one-hot of the defender action (0..46) it advises for the decision at hand",
    ),
    ("advice_given", ADVICE_SLOTS, "per waiting player in queue order: it has advised this decision"),
)
ADVICE_LAYOUT = [
    ("advice", BULKA_OBS_SIZE, ADVICE_SLOTS * ADVISABLE),
    ("advice_given", BULKA_OBS_SIZE + ADVICE_SLOTS * ADVISABLE, ADVICE_SLOTS),
]
ADVICE_OBS_SIZE = BULKA_OBS_SIZE + ADVICE_SLOTS * (ADVISABLE + 1)  # 462
# Appended last with records=True: 9 values for each of the 3 other seats,
# player_{i+1}, player_{i+2}, player_{i+3} (indices mod n_players) for player_i.
RECORD_SEATS = 3
RECORD_FIELDS = (
    ("present", 1, "this seat has a player in the session"),
    ("opponent", 1, "it is my opponent at the table (in a Pro decision: the next challenger)"),
    ("next", 1, "it heads the queue (my next opponent if I win as dealer)"),
    ("won_vs_me", 1, "decided parties it won against me, min(n, 20) / 20"),
    ("lost_vs_me", 1, "decided parties it lost against me, min(n, 20) / 20"),
    ("won", 1, "decided parties it won, min(n, 50) / 50"),
    ("lost", 1, "decided parties it lost, min(n, 50) / 50"),
    ("pro_declared", 1, "Pro parties it declared (decided), min(n, 10) / 10"),
    ("pro_won", 1, "Pro parties it won, min(n, 10) / 10"),
)
RECORD_SIZE = RECORD_SEATS * len(RECORD_FIELDS)  # 27
_RECORD_CAPS = (20, 20, 50, 50, 10, 10)
OBS_LAYOUT = [*LAYOUT, *SESSION_LAYOUT]  # the whole vector: the partie's fields, then the session's
OBS_DIM = BULKA_OBS_SIZE
SESSION_OFFSET = {name: off for name, off, _ in SESSION_LAYOUT}  # absolute offsets in the vector
_OFF = SESSION_OFFSET
_PHASE_INDEX = {PRO_DECISION: 0, PLAYING: 1, ADVICE: 1, OVER: 2}
_IN_PARTIE = (PLAYING, ADVICE)


def env(**kwargs: Any) -> OrderEnforcing:
    """``raw_env(**kwargs)`` in PettingZoo's order-enforcing wrapper
    (``aec_base.OrderEnforcing``, which also copies fully)."""
    return OrderEnforcing(raw_env(**kwargs))


def signed_log_feature(x: Tokens, unit: float) -> float:
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
    if pro is not None and phase in _IN_PARTIE:
        out[_OFF["pro_partie"] - base] = 1.0
        if pro == agent:
            out[_OFF["pro_declared_by"] - base] = 1.0
        elif pro == opponent:
            out[_OFF["pro_declared_by"] - base + 1] = 1.0
    out[_OFF["n_players"] - base + len(session.players) - 2] = 1.0
    if seat == 2:
        out[_OFF["queue_position"] - base] = (session.queue.index(agent) + 1) / 3
    out[_OFF["parties_left"] - base] = min(session.parties_left / session.max_parties, 1.0)


def encode_advice(session: Session, out: np.ndarray) -> None:
    """Write the advice features (``ADVICE_FIELDS``) of ``session`` into
    ``out`` (float32, ``ADVICE_OBS_SIZE - BULKA_OBS_SIZE`` values, all
    overwritten): the advice given for the defender's decision at hand, by
    queue position. Advice is spoken at the table, so every agent sees it."""
    out.fill(0.0)
    advice = session.advice
    if not advice:
        return
    given = ADVICE_SLOTS * ADVISABLE
    for i, name in enumerate(session.queue[:ADVICE_SLOTS]):
        if name in advice:
            out[given + i] = 1.0
            action = advice[name]
            if action is not None:
                out[i * ADVISABLE + action] = 1.0


def encode_records(
    session: Session, records: SessionRecords, agent: str, agents: list[str], out: npt.NDArray[np.float32]
) -> None:
    """Write the record features (``RECORD_FIELDS``) of ``agent`` into
    ``out`` (float32, ``RECORD_SIZE`` values, all overwritten): for each
    other seat in order after ``agent``'s in ``agents``, who it is at the
    table now and its record in this session (``engine.records``), public
    information only; ``records`` must be up to date with ``session.history``."""
    out.fill(0.0)
    i = agents.index(agent)
    dealer, challenger = session.dealer, session.challenger
    opponent = challenger if agent == dealer else dealer if agent == challenger else None
    head = session.queue[0] if session.queue else None
    width = len(RECORD_FIELDS)
    for k in range(1, min(RECORD_SEATS, len(agents) - 1) + 1):
        x = agents[(i + k) % len(agents)]
        if x not in session.streaks:  # not present
            continue
        base = (k - 1) * width
        out[base] = 1.0
        out[base + 1] = x == opponent
        out[base + 2] = x == head
        for j, (n, cap) in enumerate(zip(records.record(x, agent), _RECORD_CAPS, strict=True)):
            out[base + 3 + j] = min(n, cap) / cap


class raw_env(EnvBase):
    """A Bulka session; see the module docstring."""

    metadata = {"name": "bulka_v0", "render_modes": ["human", "ansi"], "is_parallelizable": False}
    OPTION_KEYS = OPTION_KEYS
    TOKENS_GROW = True

    def __init__(
        self,
        n_players: int = 3,
        max_parties: int = 100,
        stake_multiple: int = 1,
        render_mode: str | None = None,
        ace_declaration: str = "first_ace",
        illegal_action: str = "raise",
        max_steps: int | None = None,
        advice: bool = False,
        records: bool = False,
    ):
        if isinstance(n_players, bool) or not isinstance(n_players, int) or n_players not in (2, 3, 4):
            raise ValueError(f"n_players must be 2, 3 or 4, got {n_players!r}")
        check_positive_int("max_parties", max_parties)
        if not isinstance(advice, bool):
            raise ValueError(f"advice must be True or False, got {advice!r}")
        if not isinstance(records, bool):
            raise ValueError(f"records must be True or False, got {records!r}")
        if max_steps is None:
            max_steps = STEPS_PER_PARTIE * max_parties
        obs_size, n_actions = (ADVICE_OBS_SIZE, N_ACTIONS_WITH_ADVICE) if advice else (BULKA_OBS_SIZE, N_ACTIONS)
        self._records_at = obs_size if records else None  # where the record features start
        obs_size += RECORD_SIZE if records else 0
        super().__init__(
            [f"player_{i}" for i in range(n_players)],
            obs_size,
            render_mode=render_mode,
            stake_multiple=stake_multiple,
            max_steps=max_steps,
            ace_declaration=ace_declaration,
            illegal_action=illegal_action,
            n_actions=n_actions,
        )
        self.advice = bool(advice)
        self.records = bool(records)
        self.obs_size = obs_size
        self._records: SessionRecords | None = None
        self.n_players = n_players
        self.max_parties = max_parties
        self.session: Session | None = None
        self._observer: Observer | None = None
        self._obs_partie: Partie | None = None  # the partie the cached observations (``_obs``) were made of
        self._reported: dict[str, Tokens] = {}  # balance per agent as last reported through rewards
        self._beyond = False  # a balance is beyond TOKEN_BOUND

    # ------------------------------------------------------------- reset
    def _parse_options(self, options: dict[str, Any]) -> tuple[Seating | None, Deal | None]:
        seating = options.get("seating")
        if seating is not None:
            if not isinstance(seating, Seating):
                seating = Seating.from_dict(seating)
            seating.validate(self.possible_agents)
        deal = deal_from_names(options["deal"]) if "deal" in options else None
        return seating, deal

    def _start(self, plan: tuple[Seating | None, Deal | None]) -> None:
        seating, deal = plan
        session = self.session = Session(
            max_parties=self.max_parties,
            stake_multiple=self.stake_multiple,
            config=self.config,
            rng=self.np_random,
            names=self.possible_agents,
            seating=seating,
            deal_source=shuffled_deal,
            advice=self.advice,
        )
        if deal is not None:
            session.set_deal(deal)
        self._reported = dict.fromkeys(self.possible_agents, 0)
        self._beyond = False
        self._records = SessionRecords() if self.records else None
        self._begin({a: {} for a in self.possible_agents})
        self._update_infos()
        self._observer = None
        self.agent_selection = session.to_act

    # -------------------------------------------------------------- step
    def _act(self, agent: str, action: Any) -> None:
        session = self.session
        assert session is not None  # started by reset
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
        if session.final_share is not None:  # set as the session ends (phase OVER)
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
        assert s is not None  # started by reset
        return s.phase != OVER and (self._beyond or s.multiplier > MAX_MULTIPLIER or s.bulka > TOKEN_BOUND)

    def _update_infos(self) -> None:
        s = self.session
        assert s is not None  # started by reset
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
    def observe(self, agent: str) -> dict[str, np.ndarray[Any, Any]]:
        session = self.session
        if session is not None and session.partie is not self._obs_partie:
            # ``session.set_deal`` replaced the partie since these were cached: they describe the old deal.
            self._obs, self._obs_partie = {}, session.partie
        obs = self._obs.get(agent)
        if obs is None:
            if not self._ready:
                self._not_ready("observe")
            assert session is not None  # started by a successful reset
            vec = np.zeros(self.obs_size, np.float32)
            partie = session.partie  # dealt in PLAYING and ADVICE
            in_partie = session.phase in _IN_PARTIE
            if partie is not None and in_partie and (agent == session.challenger or agent == session.dealer):
                observer = self._observer
                if observer is None or observer.partie is not partie:
                    observer = self._observer = Observer(partie)
                else:
                    observer.sync()
                vec[:OBS_SIZE] = observer.vectors[0 if agent == session.challenger else 1]
            elif partie is not None and in_partie and self.advice:
                # A waiting agent sees what any onlooker sees, from the challenger's
                # (the defender's, in a Pro partie) side: the public record only.
                encode_public(InfoState.public(partie, 0), vec[:OBS_SIZE])
            encode_session(session, agent, vec[OBS_SIZE:BULKA_OBS_SIZE])
            if self.advice:
                encode_advice(session, vec[BULKA_OBS_SIZE:ADVICE_OBS_SIZE])
            if self._records is not None:
                encode_records(
                    session, self._records.update(session.history), agent, self.possible_agents, vec[self._records_at :]
                )
            if agent == session.to_act and not self._cut:
                bits = session.legal_mask()
                mask = wide_mask_array(bits, self.n_actions) if self.advice else mask_array(bits)
            else:
                mask = np.zeros(self.n_actions, np.int8)
            obs = self._obs[agent] = read_only({"observation": vec, "action_mask": mask})
        return obs

    # ------------------------------------------------------------ render
    def _render_text(self) -> str:
        s = self.session
        assert s is not None  # render asks a successful reset first
        text = s.render()
        if s.phase in _IN_PARTIE and s.partie is not None:
            pro = f", Pro partie of {s.pro_declarer}" if s.pro_declarer else ""
            text += f"\n{s.challenger} is the challenger, {s.dealer} the dealer{pro}\n" + render_partie(s.partie)
            for name, action in s.advice.items():
                text += f"\n{name} advises {s.challenger}: " + ("no advice" if action is None else action_name(action))
            if s.phase == ADVICE:
                text += f"\n{s.to_act} is advising {s.challenger}"
        elif s.phase == PRO_DECISION:
            text += f"\n{s.dealer} (streak {s.streaks[s.dealer]}) decides whether to declare Pro"
        return text


__all__ = [
    "env",
    "raw_env",
    "encode",
    "encode_session",
    "encode_advice",
    "encode_records",
    "RECORD_FIELDS",
    "RECORD_SEATS",
    "RECORD_SIZE",
    "ADVICE_FIELDS",
    "ADVICE_LAYOUT",
    "ADVICE_OBS_SIZE",
    "ADVICE_SLOTS",
    "decode_observation",
    "mask_array",
    "OBS_SIZE",
    "BULKA_OBS_SIZE",
    "OBS_DIM",
    "OBS_LAYOUT",
    "STEPS_PER_PARTIE",
    "TOKEN_BOUND",
    "SESSION_FIELDS",
    "SESSION_LAYOUT",
    "SESSION_OFFSET",
    "LOG2_SCALE",
    "STREAK_CAP",
    "signed_log_feature",
]
