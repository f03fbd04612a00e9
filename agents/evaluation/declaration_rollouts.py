"""Paired rollouts at the declaration decisions of one partie (docs/rules.md sections 3, 4 and 6).

``partie_points(players, deal, seed)`` plays a partie (the *main line*, the players deciding for
themselves) and, at every declaration decision point it meets, plays the partie to its end once per
option. A decision point is a seat's turn at which a declaration is legal and not yet made (Figura,
Blans, Aces, Bianka, Manko: one point per action id and turn), a proposal of Alifer the player makes,
and every answer to a proposal. The options:

==========  =====================================================================================
kind        options
==========  =====================================================================================
figura      ``now`` (declare at this turn), ``never``
blans       ``now``, ``never``
aces        ``now``, ``later`` (at the last moment: just before the first Ace is played), ``never``
bianka      ``now``, ``later`` (not now; then at the ninth card), ``never``
manko       ``ask``, ``not``
alifer      ``propose``, ``not`` (not at this decision; the player may propose later)
answer      ``accept``, ``decline``
==========  =====================================================================================

``later`` exists where the declaration stays legal after this turn (Aces under ``first_ace`` before
the ninth card, Bianka before the ninth). Common random numbers: every branch starts from a copy of
the partie at the decision point with both players ``reset`` to the same seeds
(``derive_seed(seed, "branch", j, seat)``), so the branches differ only by the option and what it
changes; after the branches the main line goes on from seeds of its own, so it depends on the seed
only. Every later decision in a branch is the players' own, except the one the option fixes.

A branch is played to a decided partie: a tie or an accepted Alifer replays it with a fresh deal
(``derive_seed(seed, "replay", r)``) at double the multiplier (section 6), at most ``MAX_REPLAYS``
times. Per option the row holds the decider's points difference in the partie of the decision, its
wins minus losses of the deciding partie (0 when still undecided), and its net tokens summed over the
partie and its replays.

What the other seat learned (``info_nats``): the entropy, in nats, of the belief model's distribution
of the decider's hand as the opponent sees it (``trappola.agents.search.belief``: uniform over the
hands the record allows, tilted by the model's log-odds, estimated from ``INFO_DRAWS`` draws), without
the declaration minus with it, right after it is made. For Manko it is what the asker learns about
the declarer's hand. Alifer moves no information about the cards: no figure.
"""

from __future__ import annotations

import math
import random

import numpy as np

from trappola.agents.evaluation.seeding import derive_seed
from trappola.agents.search.belief import load_belief
from trappola.agents.search.sampling import constraints_of
from trappola_env.engine import random_deal
from trappola_env.engine.actions import (
    ACCEPT_ALIFER,
    ACES,
    BIANKA,
    BLANS,
    DECLINE_ALIFER,
    FIGURA_BUBE,
    FIGURA_CAVALL,
    FIGURA_RE,
    FIGURA_TWOS,
    MANKO,
    PROPOSE_ALIFER,
)
from trappola_env.engine.cards import ACE
from trappola_env.engine.partie import ALIFER_ANSWER, PLAY, Partie
from trappola_env.engine.scoring import AGREED_ALIFER, TIE
from trappola_env.interface import TurnView
from trappola_env.observation import encode_info

KIND_OF = {
    FIGURA_RE: "figura",
    FIGURA_CAVALL: "figura",
    FIGURA_BUBE: "figura",
    FIGURA_TWOS: "figura",
    BLANS: "blans",
    ACES: "aces",
    BIANKA: "bianka",
    MANKO: "manko",
}
OPTIONS = {
    "figura": ("now", "never"),
    "blans": ("now", "never"),
    "aces": ("now", "later", "never"),
    "bianka": ("now", "later", "never"),
    "manko": ("ask", "not"),
    "alifer": ("propose", "not"),
    "answer": ("accept", "decline"),
}
KINDS = tuple(OPTIONS)
DECLARATION_BITS = sum(1 << a for a in KIND_OF)
MAX_REPLAYS = 4
INFO_DRAWS = 256
LAST_TURN = 8  # a seat's ninth card is its card number 8, counting from 0


class _Forced:
    """A branch's player at the decider's seat: the player itself, but the option of the branch
    fixes one decision (``act`` pre-empts or masks the action)."""

    def __init__(self, player, partie: Partie, seat: int, action: int, option: str, turn: int):
        self.player, self.partie, self.seat = player, partie, seat
        self.action, self.option, self.turn = action, option, turn
        self.name = getattr(player, "name", None)
        self._card = None  # "later" Aces: the card to play once they are declared

    def act(self, view: TurnView) -> int:
        """The action the option fixes, or the player's own choice among the legal actions it leaves."""
        mask, bit = view.legal_mask, 1 << self.action
        k = self.partie.ncards[self.seat]
        if self._card is not None:
            card, self._card = self._card, None
            return card
        opt = self.option
        if opt in ("now", "ask", "propose", "accept", "decline") and k == self.turn and mask & bit:
            self.option = "done"
            return self.action
        if opt == "never" or (opt == "not" and k == self.turn):
            mask &= ~bit
        elif opt == "later" and mask & bit:
            if self.action == BIANKA and k == LAST_TURN:
                return BIANKA
            if self.action == ACES:  # the last moment may be this very turn, if an Ace goes now
                choice = self.player.act(TurnView(view.info, mask & ~bit, opponent=view.opponent))
                if choice < 36 and choice % 9 == ACE:
                    self._card = choice
                    return ACES
                return choice
            mask &= ~bit
        if mask == view.legal_mask:
            return self.player.act(view)
        return self.player.act(TurnView(view.info, mask, opponent=view.opponent))

    def decide_pro(self, view) -> bool:
        """Never asked in a partie; here for the referee's interface."""
        return False


def _info(partie: Partie, observer: int, rng: np.random.Generator) -> float:
    """Entropy (nats) of the belief model's distribution of the other seat's hand, as ``observer`` sees it."""
    info = partie.info_state(observer)
    cons = constraints_of(info)
    n = cons.count()
    hands = cons.sample_array(rng, INFO_DRAWS)
    w = load_belief("default").layout_weights(encode_info(info), hands)
    w = w[w > 0]
    return math.log(n) - float(np.sum(w * np.log(len(hands) * w)))


def info_nats(partie: Partie, seat: int, action: int, seed: int) -> float | None:
    """What the declaration ``action`` of ``seat`` tells the other seat about ``seat``'s hand (for
    Manko: what the asker learns), in nats; see the module docstring. None for Alifer."""
    if action not in KIND_OF:
        return None
    after = partie.copy()
    after.apply(action)
    observer, _ = (seat, 1 - seat) if action == MANKO else (1 - seat, seat)
    h0 = _info(partie, observer, np.random.default_rng(derive_seed(seed, "info")))
    h1 = _info(after, observer, np.random.default_rng(derive_seed(seed, "info")))
    return h0 - h1


def _outcome(result, seat: int) -> int:
    return 0 if result.winner is None else (1 if result.winner == seat else -1)


def play_out(players, partie: Partie, seed: int) -> tuple:
    """Play ``partie`` (both seats' ``players``, challenger first) to its end, replaying a tie or an
    agreed Alifer on fresh deals at double the multiplier; returns (first result, last result, tokens
    per seat summed over the partie and its replays)."""
    from trappola_env.referee import Referee

    Referee.for_partie(players, partie).run()
    first = last = partie.result()
    tokens = list(first.tokens)
    r = 0
    while last.outcome in (TIE, AGREED_ALIFER) and r < MAX_REPLAYS:
        r += 1
        replay = Partie(
            random_deal(random.Random(derive_seed(seed, "replay", r))),
            partie.config,
            stake_multiple=partie.stake_multiple,
            multiplier=partie.multiplier * 2**r,
        )
        Referee.for_partie(players, replay).run()
        last = replay.result()
        tokens = [t + d for t, d in zip(tokens, last.tokens, strict=True)]
    return first, last, tokens


def _points_of(partie: Partie, seat: int) -> list:
    """The legal declaration decisions of ``seat`` at the start of its turn: (kind, action, options)."""
    mask = partie.legal_mask() & DECLARATION_BITS & ~partie.done[seat]
    out = []
    k = partie.ncards[seat]
    for a in sorted(KIND_OF):
        if mask >> a & 1:
            kind = KIND_OF[a]
            options = OPTIONS[kind]
            late = kind == "bianka" or partie.config.ace_declaration == "first_ace"
            if "later" in options and (k >= LAST_TURN or not late):
                options = tuple(o for o in options if o != "later")
            out.append((kind, a, options))
    return out


def _reset(players, seed: int, *path) -> None:
    for s, p in enumerate(players):
        p.reset(derive_seed(seed, *path, s))


def partie_points(players, deal, seed: int, config=None, alifer: bool = True) -> list[dict]:
    """The decision points of one partie (``players[0]`` the challenger) with a row per point: its
    ``kind``, ``action``, ``seat``, ``turn`` (the seat's card number, 1..9), the ``options``, the
    option the main line ``taken``, per option ``points``/``wl``/``tokens`` (the decider's), and
    ``info_nats``. ``alifer``: also the proposals and answers of Alifer."""
    from trappola_env.engine import DEFAULT_CONFIG
    from trappola_env.referee import Referee

    partie = Partie(deal, config or DEFAULT_CONFIG)
    _reset(players, seed, "player")
    referee = Referee.for_partie(players, partie)
    rows: list[dict] = []
    seen_turns = set()
    declared_at: dict = {}  # (seat, action) -> turn of the main line's declaration
    j = 0
    while not referee.over:
        seat = partie.to_act
        turn_key = (seat, partie.ncards[seat])
        here = []
        if partie.phase == PLAY and turn_key not in seen_turns:
            seen_turns.add(turn_key)
            here = [(kind, a, opts) for kind, a, opts in _points_of(partie, seat)]
        if alifer and partie.phase == ALIFER_ANSWER:
            here = [("answer", ACCEPT_ALIFER, OPTIONS["answer"])]
        pending = None
        if alifer and partie.phase == PLAY:
            pending = referee.ask(referee.turn())
            if pending == PROPOSE_ALIFER:
                here.append(("alifer", PROPOSE_ALIFER, OPTIONS["alifer"]))
        for kind, action, options in here:
            row = {
                "kind": kind,
                "action": action,
                "seat": seat,
                "turn": partie.ncards[seat] + 1,
                "options": list(options),
                "values": {},
                "info_nats": info_nats(partie, seat, action, derive_seed(seed, "point", j)),
            }
            for option in options:
                branch = partie.copy()
                _reset(players, seed, "branch", j)
                seated = list(players)
                forced_action = DECLINE_ALIFER if option == "decline" else action
                seated[seat] = _Forced(players[seat], branch, seat, forced_action, option, branch.ncards[seat])
                first, last, tokens = play_out(seated, branch, derive_seed(seed, "branch", j))
                row["values"][option] = {
                    "points": first.scores[seat].total - first.scores[1 - seat].total,
                    "wl": _outcome(last, seat),
                    "tokens": tokens[seat],
                }
            rows.append(row)
            j += 1
        if here:
            _reset(players, seed, "main", j)
            pending = None  # the reset players decide afresh
        action = pending if pending is not None else referee.ask(referee.turn())
        for row in rows[len(rows) - len(here) :]:
            if row["kind"] == "answer":
                row["taken"] = "accept" if action == ACCEPT_ALIFER else "decline"
            elif row["kind"] == "alifer":
                row["taken"] = "propose" if action == PROPOSE_ALIFER else "not"
        if partie.phase == PLAY and action in KIND_OF:
            declared_at.setdefault((seat, action), partie.ncards[seat] + 1)
        referee.answer(action)
    for row in rows:
        if "taken" not in row:
            row["taken"] = _taken(row, declared_at)
    return rows


def _taken(row: dict, declared_at: dict) -> str:
    seat, action, kind, turn = row["seat"], row["action"], row["kind"], row["turn"]
    at = declared_at.get((seat, action))
    if kind == "manko":
        return "ask" if at == turn else "not"
    if at == turn:
        return "now"
    if at is not None and at > turn:
        return "later"
    return "never"
