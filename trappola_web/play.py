"""A table where a person plays a computer player: one partie or a whole
Bulka session (docs/rules.md section 8), driven on the session engine.

The page sends the person's actions (``PlayTable.act``) and polls the
state (``PlayTable.state``). The computer player is asked through the
player interface (``TurnView``, ``ProView``) one decision at a time on the
shared thinking pool (``thinking``), and the table's lock is not held while
it thinks, so the page never waits on it. After each partie the table
pauses until the person asks for the next (``next_partie``): the board
and the ledger stay as the partie ended (both dealt hands, the settlement,
the balances before the next stakes) until then.

``Tables`` holds the open tables: a bounded number, the least recently
used one closed to make room only once it has been idle a while, every
table closed after a long idle time, and a closed table's id remembered so
that its page is told why it is gone.
"""
from __future__ import annotations

import operator
import random
import secrets
import threading
import time
from collections import OrderedDict

from trappola_env.engine import ACTION_NAMES, InfoState, N_ACTIONS, action_name, cards_of
from trappola_env.engine.session import OVER, PLAYING, PRO_DECISION, Session
from trappola_env.interface import TurnView
from trappola_env.referee import pro_view
from evaluation.seeding import derive_seed

from . import render
from .errors import WebError

HUMAN = "you"
MAX_PARTIES = 200


def _inline(task):
    """Run a task at once (tables built without a pool: tests, scripts)."""
    task()


def partie_change(rec, name: str):
    """What partie record ``rec`` changed in ``name``'s balance: its tokens
    (stake, declarations, bonuses), less the extra Pro stake it paid, plus
    the Bulka it took by winning Pro (docs/rules.md section 8)."""
    change = rec.tokens.get(name, 0)
    if rec.pro_declarer == name:
        change += rec.bulka_won - rec.pro_stake
    return change


class PlayTable:
    """One person (named ``"you"``) against ``opponent`` (a player object of
    ``agents``). ``parties=1`` is a single partie; more is a Bulka session
    of that many parties. ``seat`` is the person's role in the first
    partie; later seats follow the session's rotation."""

    def __init__(self, opponent, *, parties: int = 1, seat: str = "challenger", seed: int | None = None,
                 submit=None):
        """``submit(task)`` runs the opponent's decisions (a
        ``ThinkingPool.submit``; default: at once, in the caller)."""
        if getattr(opponent, "interactive", False):
            raise WebError(f"the opponent must be a computer player, not {opponent.name!r}")
        if isinstance(parties, bool) or not isinstance(parties, int) or not 1 <= parties <= MAX_PARTIES:
            raise WebError(f"parties must be an integer from 1 to {MAX_PARTIES}, got {parties!r}")
        if seat not in ("challenger", "dealer"):
            raise WebError(f"seat must be 'challenger' or 'dealer', got {seat!r}")
        if seed is None:
            seed = random.SystemRandom().randrange(1 << 31)
        elif isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 1 << 63:
            raise WebError(f"seed must be an integer from 0 to 2**63 - 1, got {seed!r}")
        self.id = secrets.token_hex(8)
        self.human = HUMAN
        self.opponent = opponent
        self.opp_name = opponent.name if opponent.name != HUMAN else f"{opponent.name} (computer)"
        self.seed = seed
        first = {"challenger": HUMAN, "dealer": self.opp_name} if seat == "challenger" else \
            {"challenger": self.opp_name, "dealer": HUMAN}
        self.session = Session(names=[HUMAN, self.opp_name], max_parties=parties, seed=seed,
                               seating={**first, "queue": []})
        self.parties = parties
        self.submit = submit or _inline
        self.lock = threading.Lock()
        self.thinking = False
        self.closed: str | None = None  # why the table was closed; its decisions stop
        self.error: str | None = None
        self.paused = False  # a partie has just ended; the person reads it, then asks for the next
        self.last_partie: dict | None = None
        self.finished_board: dict | None = None  # the ended partie's board, shown while paused
        self.log: list[str] = []
        self.version = 0  # bumped on every change, so the page redraws only when needed
        self._reset_for = -1
        self.hint_player = None  # built by the first hint (hint.py)

    # --------------------------------------------------------------- queries
    def human_turn(self) -> bool:
        """Whether the person is to act now (call under ``lock``)."""
        s = self.session
        return (s.phase != OVER and not self.paused and self.error is None and self.closed is None
                and s.to_act == HUMAN)

    def state(self) -> dict:
        """Everything the page shows, from the person's side only."""
        with self.lock:
            s = self.session
            out = {"id": self.id, "version": self.version, "opponent": self.opp_name, "you": HUMAN,
                   "seed": self.seed, "parties": self.parties, "phase": s.phase, "paused": self.paused,
                   "thinking": self.thinking, "error": self.error, "your_turn": self.human_turn(),
                   "log": list(self.log[-60:]), "last_partie": self.last_partie, "ledger": self._ledger(),
                   "partie": None, "legal": None, "pro": None}
            if (self.paused or s.phase == OVER) and self.finished_board is not None:
                out["partie"] = self.finished_board
            elif s.phase == PLAYING:
                partie = s.partie
                me = s.table.index(HUMAN)
                info = InfoState(partie, me)
                pub = render.public_state(info, s.table)
                pub["me"] = me
                pub["hand"] = render.cards(info.hand)
                pub["pro_declarer"] = s.pro_declarer
                pub["replay"] = s.pending.replay
                out["partie"] = pub
            elif s.phase == PRO_DECISION:
                pending = s.pending
                out["pro"] = {"dealer": s.dealer, "streak": s.streaks[s.dealer], "extra_stake": pending.extra_stake,
                              "stake": pending.extra_stake, "bulka": float(s.bulka), "opponent": s.challenger}
            if out["your_turn"]:
                mask = s.legal_mask()
                legal = cards_of(mask)
                info = InfoState(s.partie, s.table.index(HUMAN)) if s.phase == PLAYING else None
                out["legal"] = {"cards": [a for a in legal if a < 36],
                                "buttons": [{"action": a, "name": ACTION_NAMES[a],
                                             "help": render.action_help(a, info, self.opp_name)}
                                            for a in legal if a >= 36]}
            return out

    def _ledger(self) -> dict:
        """The session's accounts. While a finished partie is shown (paused),
        the balances and the Bulka are those at its end: the next partie's
        stakes, already paid into the Bulka, are not counted yet."""
        s = self.session
        names = list(s.balances) + list(s.departed)
        history, running = [], dict.fromkeys(names, 0)
        for r in s.history:
            change = {n: float(partie_change(r, n)) for n in r.tokens}
            for n, v in change.items():
                running[n] += v
            history.append({"index": r.index, "challenger": r.challenger, "dealer": r.dealer, "outcome": r.outcome,
                            "winner": r.winner, "multiplier": r.multiplier, "replay": r.replay,
                            "pro": r.pro_declarer, "pro_result": r.pro_result, "pro_stake": r.pro_stake,
                            "bulka_won": r.bulka_won, "tokens": {n: float(v) for n, v in r.tokens.items()},
                            "change": change, "balance": dict(running), "bulka": float(r.bulka)})
        if self.paused and history:
            balances, bulka = history[-1]["balance"], history[-1]["bulka"]
        else:
            balances, bulka = {n: float(v) for n, v in s.balances.items()}, float(s.bulka)
        return {
            "players": names, "balances": balances, "bulka": bulka, "streaks": dict(s.streaks),
            "parties_played": s.parties_played, "max_parties": s.max_parties,
            "multiplier": s.multiplier, "pro_declarer": s.pro_declarer,
            "dealer": s.dealer, "challenger": s.challenger, "history": history,
            "final_share": None if s.final_share is None else float(s.final_share),
        }

    # -------------------------------------------------------------- actions
    def act(self, action) -> None:
        """The person's action (an action id, docs/rules.md section 9);
        ``WebError`` if it is not the person's turn or not legal."""
        with self.lock:
            if self.session.phase == OVER:
                raise WebError("the game is over", 409)
            if not self.human_turn():
                raise WebError("it is not your turn" + (f": {self.opp_name} is thinking" if self.thinking else ""),
                               409)
            try:
                a = None if isinstance(action, bool) else operator.index(action)
            except TypeError:
                a = None
            mask = self.session.legal_mask()
            if a is None or not 0 <= a < N_ACTIONS or not mask >> a & 1:
                what = f"{a} ({action_name(a)})" if a is not None and 0 <= a < N_ACTIONS else repr(action)
                legal = ", ".join(f"{x} ({action_name(x)})" for x in cards_of(mask))
                raise WebError(f"illegal action {what}; legal now: {legal}")
            self._apply(HUMAN, a)
        self._start_opponent()

    def next_partie(self) -> None:
        """Go on after a finished partie."""
        with self.lock:
            if not self.paused:
                raise WebError("no finished partie is waiting", 409)
            self.paused = False
            self.finished_board = None
            self.log = []
            self.version += 1
        self._start_opponent()

    def _apply(self, who: str, action: int) -> None:
        """Apply ``who``'s action under the lock; a partie that ends pauses the table."""
        s = self.session
        before = s.parties_played
        partie = s.partie
        s.act(action)
        self.log.append(f"{who}: {action_name(action)}")
        if s.parties_played > before and partie is not None:
            rec = s.history[-1]
            names = (rec.challenger, rec.dealer)
            hook = getattr(self.opponent, "observe_result", None)
            if hook is not None:
                hook(partie.info_state(names.index(self.opp_name)), partie.result())
            me = names.index(HUMAN)
            self.last_partie = {
                "index": rec.index, "names": list(names),
                "dealt": [render.cards(partie.dealt[0]), render.cards(partie.dealt[1])],
                "bottom": render.card(partie.bottom), "result": render.result(partie.result(), names),
                "declarations": [render.declarations(InfoState(partie, 0), k) for k in (0, 1)],
                "change": {n: float(partie_change(rec, n)) for n in names},
                "pro": rec.pro_declarer, "pro_result": rec.pro_result, "pro_stake": rec.pro_stake,
                "bulka_won": rec.bulka_won, "bulka": float(rec.bulka), "multiplier": rec.multiplier,
                "next": "over" if s.phase == OVER else ("replay" if rec.winner is None else "next"),
            }
            board = render.public_state(InfoState(partie, me), names)
            board.update(me=me, hand=[], pro_declarer=rec.pro_declarer, replay=rec.replay)
            self.finished_board = board
            self.paused = s.phase != OVER
        self.version += 1

    # ------------------------------------------------------------- opponent
    def start(self) -> None:
        """Let the opponent move if it is its turn (call once the table is
        registered: its decisions run on the pool)."""
        self._start_opponent()

    def close(self, reason: str) -> None:
        """Stop the table: queued decisions return without thinking, one in
        progress is dropped; ``reason`` is told to the page that asks."""
        with self.lock:
            if self.closed is None:
                self.closed = reason
                self.version += 1

    def _start_opponent(self) -> None:
        with self.lock:
            s = self.session
            if self.thinking or self.paused or self.error or self.closed or s.phase == OVER \
                    or s.to_act != self.opp_name:
                return
            self.thinking = True
            self.version += 1
        self.submit(self._decide_once)

    def _decide_once(self) -> None:
        """One decision of the opponent, then the next one queued behind the
        other tables' (the pool is shared), or the turn handed back."""
        again = False
        try:
            with self.lock:
                s = self.session
                if self.closed or self.paused or s.phase == OVER or s.to_act != self.opp_name:
                    return
                if s.phase == PRO_DECISION:
                    view, pro = pro_view(s), True
                else:
                    if self._reset_for != s.parties_played:
                        self.opponent.reset(derive_seed(self.seed, "player", s.parties_played))
                        self._reset_for = s.parties_played
                    seat = s.partie.to_act
                    view, pro = TurnView(s.partie.info_state(seat), opponent=HUMAN), False
                before = self.version
            # Thinking happens outside the lock: the page keeps polling.
            if pro:
                action = 47 if self.opponent.decide_pro(view) else 48
            else:
                action = self.opponent.act(view)
                if not view.is_legal(action):
                    raise ValueError(f"{self.opp_name} chose illegal action {action!r}")
                action = operator.index(action)
            with self.lock:
                if self.closed or self.version != before:
                    return
                self._apply(self.opp_name, action)
                s = self.session
                again = not self.paused and s.phase != OVER and s.to_act == self.opp_name
        except Exception as e:  # a broken player stops this table, not the server
            with self.lock:
                self.error = f"{self.opp_name} failed: {e}"
        finally:
            with self.lock:
                if not again or self.closed:
                    again = False
                    self.thinking = False
                    self.version += 1
        if again:
            self.submit(self._decide_once)


class Tables:
    """The open tables. At most ``limit``: to open one more, the least
    recently used table is closed if no request has reached it for
    ``make_room_after`` seconds, else the new one is refused (503). A table
    idle for ``expire_after`` seconds is closed. The ids of closed tables
    are remembered (the latest ``remember``) with the reason, which a later
    request for them is told (410)."""

    def __init__(self, limit: int = 32, *, make_room_after: float = 600.0, expire_after: float = 6 * 3600.0,
                 remember: int = 4096, clock=time.monotonic):
        self.limit = limit
        self.make_room_after = make_room_after
        self.expire_after = expire_after
        self.remember = remember
        self.clock = clock
        self._tables: OrderedDict[str, PlayTable] = OrderedDict()  # least recently used first
        self._used: dict[str, float] = {}
        self._closed: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._tables)

    def _close(self, table_id: str, reason: str) -> None:
        table = self._tables.pop(table_id)
        self._used.pop(table_id, None)
        table.close(reason)
        self._closed[table_id] = reason
        while len(self._closed) > self.remember:
            self._closed.popitem(last=False)

    def _expire(self, now: float) -> None:
        for table_id in [t for t, used in self._used.items() if now - used >= self.expire_after]:
            self._close(table_id, f"no request reached it for {self.expire_after / 3600:g} hours")

    def add(self, table: PlayTable) -> PlayTable:
        """Register ``table`` and let its opponent start; ``WebError`` (503)
        when every place is taken by a table in use."""
        with self._lock:
            now = self.clock()
            self._expire(now)
            if len(self._tables) >= self.limit:
                oldest = next(iter(self._tables))
                idle = now - self._used[oldest]
                if idle < self.make_room_after:
                    raise WebError(f"the server already has {self.limit} games in play; finish or close one, "
                                   f"or try again in {max(1, round((self.make_room_after - idle) / 60))} min", 503)
                self._close(oldest, f"{self.limit} games were open and it was the least recently used, "
                                    f"idle for {idle / 60:.0f} min, when a new game needed its place")
            self._tables[table.id] = table
            self._used[table.id] = now
        table.start()
        return table

    def get(self, table_id: str) -> PlayTable:
        """The open table ``table_id`` (now its most recent use); ``WebError``
        410 for a closed one, saying why, 404 for an unknown id."""
        with self._lock:
            now = self.clock()
            self._expire(now)
            table = self._tables.get(table_id)
            if table is not None:
                self._tables.move_to_end(table_id)
                self._used[table_id] = now
                return table
            reason = self._closed.get(table_id)
        if reason is not None:
            raise WebError(f"this game has expired: {reason}", 410)
        raise WebError(f"no table {table_id!r} on this server (it may have been closed before a restart)", 404)

    def close(self, table_id: str, reason: str = "its player closed it") -> None:
        """Close an open table (its opponent stops thinking); unknown ids are ignored."""
        with self._lock:
            if table_id in self._tables:
                self._close(table_id, reason)

    def close_all(self, reason: str = "the server stopped") -> None:
        """Close every table (the server is shutting down)."""
        with self._lock:
            for table_id in list(self._tables):
                self._close(table_id, reason)
