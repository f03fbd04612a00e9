"""A table where a person plays a computer player: one partie or a whole
Bulka session (docs/rules.md section 8), driven on the session engine.

The page sends the person's actions (``PlayTable.act``) and polls the
state (``PlayTable.state``). The computer player is asked through the
player interface (``TurnView``, ``ProView``) in a background thread, and
the table's lock is not held while it thinks, so the page never waits on
it. After each partie the table pauses until the person asks for the next
(``next_partie``), so both dealt hands and the settlement can be read.

``advisers`` (computer players) make the session one of 3 or 4 players
with advice (docs/rules.md section 8): they wait in the queue at first,
and in a Pro partie the waiting players advise its defender before each of
its decisions. The person sees the advice given to it when it defends
(``state()["partie"]["advice"]``), advises in its turn when it waits
(advice ids, ``trappola_env.engine.advice``), and watches the parties it
is not in from the onlookers' side (``InfoState.public``).
"""
from __future__ import annotations

import operator
import random
import secrets
import threading
from collections import OrderedDict

from trappola_env.engine import ACTION_NAMES, InfoState, N_ACTIONS, action_name, cards_of
from trappola_env.engine.advice import ADVICE_BASE, N_ACTIONS_WITH_ADVICE, advice_name
from trappola_env.engine.session import ADVICE, OVER, PLAYING, PRO_DECISION, Session
from trappola_env.interface import TurnView
from trappola_env.referee import advice_view, pro_view
from evaluation.seeding import derive_seed

from . import render

HUMAN = "you"
MAX_PARTIES = 200
MAX_ADVISERS = 2


def any_action_name(action: int) -> str:
    """The name of an action id, advice ids included."""
    return advice_name(action) if action >= ADVICE_BASE else action_name(action)


def _distinct(name: str, taken: list) -> str:
    out, k = name, 2
    while out in taken:
        out, k = f"{name}#{k}", k + 1
    return out


class TableError(ValueError):
    """A request the table refuses; ``status`` is the HTTP status to answer."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


class PlayTable:
    """One person (named ``"you"``) against ``opponent`` (a player object of
    ``agents``). ``parties=1`` is a single partie; more is a Bulka session
    of that many parties. ``seat`` is the person's role in the first
    partie; later seats follow the session's rotation."""

    def __init__(self, opponent, *, parties: int = 1, seat: str = "challenger", seed: int | None = None,
                 advisers=()):
        advisers = list(advisers)
        for p in [opponent, *advisers]:
            if getattr(p, "interactive", False):
                raise TableError(f"the other players must be computer players, not {p.name!r}")
        if len(advisers) > MAX_ADVISERS:
            raise TableError(f"at most {MAX_ADVISERS} advisers (4 players in all), got {len(advisers)}")
        if isinstance(parties, bool) or not isinstance(parties, int) or not 1 <= parties <= MAX_PARTIES:
            raise TableError(f"parties must be an integer from 1 to {MAX_PARTIES}, got {parties!r}")
        if seat not in ("challenger", "dealer"):
            raise TableError(f"seat must be 'challenger' or 'dealer', got {seat!r}")
        if seed is None:
            seed = random.SystemRandom().randrange(1 << 31)
        elif isinstance(seed, bool) or not isinstance(seed, int):
            raise TableError(f"seed must be an integer, got {seed!r}")
        self.id = secrets.token_hex(8)
        self.opponent = opponent
        self.opp_name = opponent.name if opponent.name != HUMAN else f"{opponent.name} (computer)"
        self.seed = seed
        first = {"challenger": HUMAN, "dealer": self.opp_name} if seat == "challenger" else \
            {"challenger": self.opp_name, "dealer": HUMAN}
        names = [HUMAN, self.opp_name]
        for p in advisers:
            names.append(_distinct(p.name, names))
        self.computers = dict(zip(names[1:], [opponent, *advisers]))
        self.session = Session(names=names, max_parties=parties, seed=seed,
                               seating={**first, "queue": names[2:]}, advice=bool(advisers))
        self.parties = parties
        self.lock = threading.Lock()
        self.thinking = False
        self.error: str | None = None
        self.paused = False  # a partie has just ended; the person reads it, then asks for the next
        self.last_partie: dict | None = None
        self.log: list[str] = []
        self.version = 0  # bumped on every change, so the page redraws only when needed
        self._reset_for = -1
        self._start_opponent()

    # --------------------------------------------------------------- queries
    def _human_turn(self) -> bool:
        s = self.session
        return s.phase != OVER and not self.paused and self.error is None and s.to_act == HUMAN

    def _partie_view(self) -> dict:
        """The partie in play as the person may see it: from its seat, or
        from the onlookers' side when it waits; with the advice given."""
        s = self.session
        partie = s.partie
        if HUMAN in s.table:
            me = s.table.index(HUMAN)
            info = InfoState(partie, me)
        else:
            me, info = None, InfoState.public(partie, 0)
        pub = render.public_state(info, s.table)
        pub["me"] = me
        pub["hand"] = render.cards(info.hand)
        pub["advice"] = [{"adviser": n, "name": "no advice" if a is None else action_name(a)}
                         for n, a in s.advice.items()]
        return pub

    def state(self) -> dict:
        """Everything the page shows, from the person's side only."""
        with self.lock:
            s = self.session
            out = {"id": self.id, "version": self.version, "opponent": self.opp_name, "you": HUMAN,
                   "seed": self.seed, "parties": self.parties, "phase": s.phase, "paused": self.paused,
                   "thinking": self.thinking, "error": self.error, "your_turn": self._human_turn(),
                   "log": list(self.log[-40:]), "last_partie": self.last_partie, "ledger": self._ledger(),
                   "partie": None, "legal": None, "pro": None}
            if s.phase == PLAYING or s.phase == ADVICE:
                out["partie"] = self._partie_view()
            elif s.phase == PRO_DECISION:
                out["pro"] = {"dealer": s.dealer, "streak": s.streaks[s.dealer], "extra_stake": s.pending.extra_stake,
                              "bulka": s.bulka}
            if out["your_turn"]:
                mask = s.legal_mask()
                legal = cards_of(mask)
                out["legal"] = {"cards": [a for a in legal if a < 36],
                                "buttons": [{"action": a, "name": any_action_name(a)} for a in legal if a >= 36]}
            return out

    def _ledger(self) -> dict:
        s = self.session
        names = list(s.balances) + list(s.departed)
        return {
            "players": names,
            "balances": {n: float(v) for n, v in s.balances.items()},
            "bulka": float(s.bulka), "streaks": dict(s.streaks),
            "parties_played": s.parties_played, "max_parties": s.max_parties,
            "multiplier": s.multiplier, "pro_declarer": s.pro_declarer,
            "dealer": s.dealer, "challenger": s.challenger,
            "history": [{"index": r.index, "challenger": r.challenger, "dealer": r.dealer, "outcome": r.outcome,
                         "winner": r.winner, "multiplier": r.multiplier, "pro": r.pro_declarer,
                         "tokens": {n: float(v) for n, v in r.tokens.items()}, "bulka": float(r.bulka)}
                        for r in s.history],
            "final_share": None if s.final_share is None else float(s.final_share),
        }

    # -------------------------------------------------------------- actions
    def act(self, action) -> None:
        """The person's action (an action id, docs/rules.md section 9);
        ``TableError`` if it is not the person's turn or not legal."""
        with self.lock:
            if self.session.phase == OVER:
                raise TableError("the game is over", 409)
            if not self._human_turn():
                raise TableError("it is not your turn" + (f": {self.opp_name} is thinking" if self.thinking else ""),
                                 409)
            try:
                a = None if isinstance(action, bool) else operator.index(action)
            except TypeError:
                a = None
            mask = self.session.legal_mask()
            n = N_ACTIONS_WITH_ADVICE if self.session.advice_on else N_ACTIONS
            if a is None or not 0 <= a < n or not mask >> a & 1:
                what = f"{a} ({any_action_name(a)})" if a is not None and 0 <= a < n else repr(action)
                legal = ", ".join(f"{x} ({any_action_name(x)})" for x in cards_of(mask))
                raise TableError(f"illegal action {what}; legal now: {legal}")
            self._apply(HUMAN, a)
        self._start_opponent()

    def next_partie(self) -> None:
        """Go on after a finished partie."""
        with self.lock:
            if not self.paused:
                raise TableError("no finished partie is waiting", 409)
            self.paused = False
            self.log = []
            self.version += 1
        self._start_opponent()

    def _apply(self, who: str, action: int) -> None:
        """Apply ``who``'s action under the lock; a partie that ends pauses the table."""
        s = self.session
        before = s.parties_played
        partie = s.partie
        s.act(action)
        self.log.append(f"{who}: {any_action_name(action)}")
        if s.parties_played > before and partie is not None:
            rec = s.history[-1]
            names = (rec.challenger, rec.dealer)
            for seat, name in enumerate(names):
                hook = getattr(self.computers.get(name), "observe_result", None)
                if hook is not None:
                    hook(partie.info_state(seat), partie.result())
            self.last_partie = {
                "index": rec.index, "names": list(names),
                "dealt": [render.cards(partie.dealt[0]), render.cards(partie.dealt[1])],
                "bottom": render.card(partie.bottom), "result": render.result(partie.result(), names),
                "declarations": [render.declarations(InfoState(partie, 0), k) for k in (0, 1)],
            }
            self.paused = s.phase != OVER
        self.version += 1

    # ------------------------------------------------------------- opponent
    def _start_opponent(self) -> None:
        with self.lock:
            s = self.session
            if self.thinking or self.paused or self.error or s.phase == OVER or s.to_act not in self.computers:
                return
            self.thinking = True
            self.version += 1
        threading.Thread(target=self._opponent_moves, name=f"table-{self.id}", daemon=True).start()

    def _opponent_moves(self) -> None:
        try:
            while True:
                with self.lock:
                    s = self.session
                    if self.paused or s.phase == OVER or s.to_act not in self.computers:
                        break
                    who = s.to_act
                    player = self.computers[who]
                    if s.phase != PRO_DECISION and self._reset_for != s.parties_played:
                        for k, p in enumerate(self.computers.values()):
                            # The first computer keeps the seeds it had before advisers existed.
                            p.reset(derive_seed(self.seed, "player", s.parties_played, *((k,) if k else ())))
                        self._reset_for = s.parties_played
                    if s.phase == PRO_DECISION:
                        view, kind = pro_view(s), "pro"
                    elif s.phase == ADVICE:
                        view, kind = advice_view(s), "advice"
                    else:
                        seat = s.partie.to_act
                        view, kind = TurnView(s.partie.info_state(seat), opponent=s.table[1 - seat],
                                              advice=tuple(s.advice.items())), "act"
                # Thinking happens outside the lock: the page keeps polling.
                if kind == "pro":
                    action = 47 if player.decide_pro(view) else 48
                elif kind == "advice":
                    action = operator.index(player.advise(view))
                else:
                    action = player.act(view)
                    if not view.is_legal(action):
                        raise ValueError(f"{who} chose illegal action {action!r}")
                    action = operator.index(action)
                with self.lock:
                    self._apply(who, action)
        except Exception as e:  # a broken player stops this table, not the server
            with self.lock:
                self.error = f"{self.session.to_act} failed: {e}"
        finally:
            with self.lock:
                self.thinking = False
                self.version += 1


class Tables:
    """The open tables, the oldest dropped beyond ``limit``."""

    def __init__(self, limit: int = 32):
        self.limit = limit
        self._tables: OrderedDict[str, PlayTable] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, table: PlayTable) -> PlayTable:
        with self._lock:
            self._tables[table.id] = table
            while len(self._tables) > self.limit:
                self._tables.popitem(last=False)
        return table

    def get(self, table_id: str) -> PlayTable:
        with self._lock:
            table = self._tables.get(table_id)
        if table is None:
            raise TableError(f"no table {table_id!r} (it may have been closed)", 404)
        return table
