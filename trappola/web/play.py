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

With ``advisers`` (up to two more computer players) the session has 3 or
4 players and advice (docs/rules.md section 8): the advisers start in the
queue, and before each decision of the defender of a Pro partie the
waiting players advise it, in queue order, from the public record only
(``referee.advice_view``). When the person defends, ``state()`` shows each
adviser's advice beside its hand (``partie["advice"]``, by
``render.action_words``); the person is free to ignore it. When the person waits,
it gives no advice (its turn to advise is answered "no advice" at once,
so the two computer players' partie never waits on the page) and it
watches that partie from the onlookers' side: the public record, no hand,
and no advice (advice is for the defender: the moves list holds it only
when the person defends).

While the person waits, the two computer players' decisions are paced
(``pace`` seconds apart, ``set_pace``) so that a person can follow them.
Every finished partie is kept as a saved-game record (``games``: the
``games.jsonl`` lines Replay opens, ``session_record``). The ledger's
``rows`` list every change of the person's balance on its own (a stake,
each declaration or bonus payment, a Pro stake, a Bulka won, the final
split), so they add up to the balance at every moment.

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
from typing import Any

from trappola.agents.evaluation.seeding import derive_seed
from trappola.agents.evaluation.session_record import SessionRecorder
from trappola.web.errors import WebError
from trappola_env.engine import ACTION_NAMES, N_ACTIONS, InfoState, cards_of
from trappola_env.engine.actions import NO_PRO, PROPOSE_ALIFER
from trappola_env.engine.actions import PRO as DECLARE_PRO
from trappola_env.engine.advice import NO_ADVICE, advice_id
from trappola_env.engine.session import ADVICE, OVER, PLAYING, PRO_DECISION, ProDecision, Session
from trappola_env.referee import ACT, PRO, Referee

from . import render
from .tokens import alifer_if_accepted, partie_change, token_parts

HUMAN = "you"
MAX_PARTIES = 200
MAX_ADVISERS = 2  # a Bulka session seats at most 4 players
#: Most seconds between two decisions of the computer players the person watches.
MAX_PACE = 5.0


def _distinct(name: str, taken: list) -> str:
    """``name``, or ``name#2``, ``name#3``... if it is taken (two advisers
    of the same kind, or a computer player named like the person)."""
    out, k = name, 2
    while out in taken:
        out, k = f"{name}#{k}", k + 1
    return out


def _inline(task):
    """Run a task at once (tables built without a pool: tests, scripts)."""
    task()


class PlayTable:
    """One person (named ``"you"``) against ``opponent`` (a player object of
    ``agents``). ``parties=1`` is a single partie; more is a Bulka session
    of that many parties. ``seat`` is the person's role in the first
    partie; later seats follow the session's rotation. ``advisers``: up to
    two more computer players, who wait in the queue at first and advise
    the defender of a Pro partie (see the module docstring)."""

    def __init__(
        self,
        opponent,
        *,
        parties: int = 1,
        seat: str = "challenger",
        seed: int | None = None,
        submit=None,
        advisers=(),
        streaks: dict | None = None,
        setup: dict | None = None,
        pace: float = 0.0,
    ):
        """``submit(task)`` runs the computer players' decisions (a
        ``ThinkingPool.submit``; default: at once, in the caller).
        ``streaks``: ``{name: streak}`` to start from (``Session``; tests
        and scripts start at a Pro offer with it). ``setup``: what the page
        asked for (the player specs), shown back to it after a reload and
        used for a rematch. ``pace``: ``set_pace``."""
        advisers = list(advisers)
        for p in [opponent, *advisers]:
            if getattr(p, "interactive", False):
                raise WebError(f"the other players must be computer players, not {p.name!r}")
        if len(advisers) > MAX_ADVISERS:
            raise WebError(f"at most {MAX_ADVISERS} advisers (4 players in all), got {len(advisers)}")
        if isinstance(parties, bool) or not isinstance(parties, int) or not 1 <= parties <= MAX_PARTIES:
            raise WebError(f"parties must be an integer from 1 to {MAX_PARTIES}, got {parties!r}")
        if advisers and parties < 2:
            raise WebError("advisers take part in a Bulka session: set parties to 2 or more")
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
        self.set_pace(pace)
        self.setup = {
            "opponent": opponent.name,
            "advisers": [p.name for p in advisers],
            **(setup or {}),
            "parties": parties,
            "seat": seat,
            "seed": seed,
        }
        first = (
            {"challenger": HUMAN, "dealer": self.opp_name}
            if seat == "challenger"
            else {"challenger": self.opp_name, "dealer": HUMAN}
        )
        names = [HUMAN, self.opp_name]
        for p in advisers:
            names.append(_distinct(p.name, names))
        self.computers = dict(zip(names[1:], [opponent, *advisers], strict=True))
        try:
            self.session = Session(
                names=names,
                max_parties=parties,
                seed=seed,
                seating={**first, "queue": names[2:]},
                advice=bool(advisers),
                streaks=streaks,
            )
        except ValueError as e:
            raise WebError(str(e)) from None
        self.recorder = SessionRecorder(self.session, {"session": 0, "seating": " ".join(names)})
        # The referee's loop, advanced one decision at a time: the person's turns are answered by act().
        self.referee = Referee.for_session({HUMAN: None, **self.computers}, self.session, display={n: n for n in names})
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
        # Whether the partie in play is an Alifer replay: the session tells it
        # only in its "partie" phase, not while advice is given.
        self._replaying = False
        self._advise_for_person()

    def set_pace(self, pace) -> None:
        """Seconds between two decisions of the computer players while the
        person waits and watches them (0 to ``MAX_PACE``)."""
        if isinstance(pace, bool) or not isinstance(pace, (int, float)) or not 0 <= pace <= MAX_PACE:
            raise WebError(f"pace must be a number of seconds from 0 to {MAX_PACE:g}, got {pace!r}")
        self.pace = float(pace)

    # --------------------------------------------------------------- queries
    def games(self) -> list[dict]:
        """The finished parties as saved-game records (``games.jsonl``
        lines, ``session_record``), the last one with the final split."""
        with self.lock:
            return [dict(r) for r in self.recorder.finish()]

    def human_turn(self) -> bool:
        """Whether the person is to act now (call under ``lock``)."""
        s = self.session
        return s.phase != OVER and not self.paused and self.error is None and self.closed is None and s.to_act == HUMAN

    def state(self) -> dict:
        """Everything the page shows, from the person's side only."""
        with self.lock:
            s = self.session
            out = {
                "id": self.id,
                "version": self.version,
                "opponent": self.opp_name,
                "you": HUMAN,
                "seed": self.seed,
                "parties": self.parties,
                "setup": dict(self.setup),
                "pace": self.pace,
                "watching": s.phase in (PLAYING, ADVICE) and HUMAN not in s.table and not self.paused,
                "phase": s.phase,
                "paused": self.paused,
                "thinking": self.thinking,
                "error": self.error,
                "your_turn": self.human_turn(),
                "log": list(self.log[-60:]),
                "last_partie": self.last_partie,
                "ledger": self._ledger(),
                "partie": None,
                "legal": None,
                "pro": None,
            }
            if (self.paused or s.phase == OVER) and self.finished_board is not None:
                out["partie"] = self.finished_board
            elif s.phase in (PLAYING, ADVICE):
                out["partie"] = self._partie_view()
            elif s.phase == PRO_DECISION:
                pending = s.pending
                assert isinstance(pending, ProDecision)  # the phase is PRO_DECISION
                out["pro"] = {
                    "dealer": s.dealer,
                    "streak": s.streaks[s.dealer],
                    "extra_stake": pending.extra_stake,
                    "stake": pending.extra_stake,
                    "bulka": float(s.bulka),
                    # What a won Pro partie takes: the Bulka now, the extra stake and both
                    # stakes of the partie (trick-bonus payments made in it come on top).
                    "prize": float(s.bulka + pending.extra_stake + 2 * pending.extra_stake),
                    "opponent": s.challenger,
                }
            if out["your_turn"]:
                mask = s.legal_mask()
                legal = cards_of(mask)
                info = InfoState(s.partie, s.table.index(HUMAN)) if s.phase == PLAYING and s.partie else None
                other = s.challenger if s.dealer == HUMAN else s.dealer
                out["legal"] = {
                    "cards": [a for a in legal if a < 36],
                    "buttons": [
                        {
                            "action": a,
                            "name": ACTION_NAMES[a],
                            "worth": render.action_worth(a, info),
                            "help": render.action_help(a, info, other),
                            **(
                                {"if_accepted": alifer_if_accepted(s.partie, (s.challenger, s.dealer))}
                                if a == PROPOSE_ALIFER and s.partie is not None
                                else {}
                            ),
                        }
                        for a in legal
                        if a >= 36
                    ],
                }
            return out

    def _partie_view(self) -> dict:
        """The partie in play as the person may see it (call under
        ``lock``): from its seat with its own hand, or, while it waits, from
        the onlookers' side (``InfoState.public``: no hand at all). The
        advice of the waiting players is shown only to the defender, and
        only while it is to decide: it is advice for that decision."""
        s = self.session
        partie = s.partie
        assert partie is not None  # called in PLAYING and ADVICE, where a partie is dealt
        if HUMAN in s.table:
            me = s.table.index(HUMAN)
            info = InfoState(partie, me)
        else:
            me, info = None, InfoState.public(partie, 0)
        pub = render.public_state(info, s.table)
        pub["me"] = me
        pub["hand"] = render.cards(info.hand) if me is not None else []
        pub["pro_declarer"] = s.pro_declarer
        pub["replay"] = self._replaying
        advice = []
        if s.phase == PLAYING and s.challenger == HUMAN and s.to_act == HUMAN:
            advice = [
                {"adviser": n, "advice": "no advice" if a is None else render.action_words(advice_id(a))}
                for n, a in s.advice.items()
            ]
        pub["advice"] = advice
        pub["advisers"] = list(s.queue) if s.advice_on else []
        return pub

    def _ledger(self) -> dict:
        """The session's accounts. While a finished partie is shown (paused),
        the balances and the Bulka are those at its end: the next partie's
        stakes, already paid into the Bulka, are not counted yet."""
        s = self.session
        names = list(s.balances) + list(s.departed)
        history: list[dict[str, Any]] = []
        running: dict[str, float] = dict.fromkeys(names, 0.0)
        for r in s.history:
            change = {n: float(partie_change(r, n)) for n in r.tokens}
            for n, v in change.items():
                running[n] += v
            history.append(
                {
                    "index": r.index,
                    "challenger": r.challenger,
                    "dealer": r.dealer,
                    "outcome": r.outcome,
                    "winner": r.winner,
                    "multiplier": r.multiplier,
                    "replay": r.replay,
                    "pro": r.pro_declarer,
                    "pro_result": r.pro_result,
                    "pro_stake": r.pro_stake,
                    "bulka_won": r.bulka_won,
                    "tokens": {n: float(v) for n, v in r.tokens.items()},
                    "change": change,
                    "balance": dict(running),
                    "bulka": float(r.bulka),
                }
            )
        if self.paused and history:
            balances, bulka = history[-1]["balance"], history[-1]["bulka"]
        else:
            balances, bulka = {n: float(v) for n, v in s.balances.items()}, float(s.bulka)
        return {
            "players": names,
            "balances": balances,
            "bulka": bulka,
            "streaks": dict(s.streaks),
            "parties_played": s.parties_played,
            "max_parties": s.max_parties,
            "multiplier": s.multiplier,
            "pro_declarer": s.pro_declarer,
            "dealer": s.dealer,
            "challenger": s.challenger,
            "history": history,
            "rows": self._rows(balances.get(HUMAN, 0.0)),
            "final_share": None if s.final_share is None else float(s.final_share),
        }

    def _rows(self, balance: float) -> list[dict]:
        """Every change of the person's balance as its own row, with the
        balance after it (call under ``lock``): the rows add up to
        ``balance``, the balance shown now."""
        s = self.session
        rows, running = [], 0.0

        def row(partie, label, change):
            nonlocal running
            running += change
            rows.append({"partie": partie, "label": label, "change": float(change), "balance": running})

        for r in s.history:
            k = r.index + 1
            if HUMAN not in (r.challenger, r.dealer):
                row(k, "you waited", 0)
                continue
            me = (r.challenger, r.dealer).index(HUMAN)
            row(k, "stake into the Bulka", -r.stake)
            moved = -r.stake
            for seat, what, _points, tokens in r.seat_details:
                if not tokens:
                    continue
                if render.is_bonus(what):  # the other seat pays it into the Bulka
                    change = -tokens if seat != me else 0
                    label = f"{what}: {'you pay' if seat != me else 'the other pays'} into the Bulka"
                else:  # the other seat pays the declarer
                    change = tokens if seat == me else -tokens
                    label = f"{what}: {'paid to you' if seat == me else 'you pay'}"
                if change:
                    row(k, label, change)
                    moved += change
            if r.tokens[HUMAN] != moved:  # a forfeit's settlement, say: whatever the rows above missed
                row(k, "settlement", r.tokens[HUMAN] - moved)
            if r.pro_declarer == HUMAN and r.pro_stake:
                row(k, "your Pro stake into the Bulka", -r.pro_stake)
            if r.pro_declarer == HUMAN and r.bulka_won:
                row(k, "you take the Bulka", r.bulka_won)
        rest = balance - running
        if rest:
            if s.phase == OVER:
                row(None, "the Bulka split at the end", rest)
            else:
                label = "stake into the Bulka" + (" and your Pro stake" if s.pro_declarer == HUMAN else "")
                row(s.parties_played + 1, label, rest)
        return rows

    # -------------------------------------------------------------- actions
    def act(self, action) -> None:
        """The person's action (an action id, docs/rules.md section 9);
        ``WebError`` if it is not the person's turn or not legal."""
        with self.lock:
            if self.session.phase == OVER:
                raise WebError("the game is over", 409)
            if not self.human_turn():
                who = self.session.to_act
                raise WebError("it is not your turn" + (f": {who} is thinking" if self.thinking else ""), 409)
            try:
                a = None if isinstance(action, bool) else operator.index(action)
            except TypeError:
                a = None
            mask = self.session.legal_mask()
            if a is None or not 0 <= a < N_ACTIONS or not mask >> a & 1:
                if a is not None and 0 <= a < N_ACTIONS:
                    what = f"{a} ({render.action_words(a)})"
                elif a is not None:  # never echo a huge number whole
                    what = str(a) if abs(a) < 10**6 else "(a number far outside 0..48)"
                else:
                    what = repr(action)[:40]
                legal = ", ".join(f"{x} ({render.action_words(x)})" for x in cards_of(mask))
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
        # Advice is for the defender's ears: the person reads it only when it defends.
        heard = s.phase != ADVICE or HUMAN in (who, s.challenger)
        self.referee.answer(action == DECLARE_PRO if s.phase == PRO_DECISION else action)
        if heard:
            self.log.append(f"{who}: {render.action_words(action)}")
        if s.parties_played > before and partie is not None:
            self.recorder.on_partie(partie)
            rec = s.history[-1]
            res = partie.result()
            names = (rec.challenger, rec.dealer)
            me = names.index(HUMAN) if HUMAN in names else None
            self.last_partie = {
                "index": rec.index,
                "names": list(names),
                "dealt": [render.cards(partie.dealt[0]), render.cards(partie.dealt[1])],
                "bottom": render.card(partie.bottom),
                "result": render.result(res, names),
                "declarations": [render.declarations(InfoState(partie, 0), k) for k in (0, 1)],
                "change": {n: float(partie_change(rec, n)) for n in names},
                "tokens": [token_parts(res, rec, k) for k in (0, 1)],
                "pro": rec.pro_declarer,
                "pro_result": rec.pro_result,
                "pro_stake": rec.pro_stake,
                "bulka_won": rec.bulka_won,
                "bulka": float(rec.bulka),
                "multiplier": rec.multiplier,
                "next": "over" if s.phase == OVER else ("replay" if rec.winner is None else "next"),
                "played": me is not None,
            }
            board = render.public_state(InfoState(partie, 0 if me is None else me), names)
            board.update(me=me, hand=[], pro_declarer=rec.pro_declarer, replay=rec.replay, advice=[], advisers=[])
            self.finished_board = board
            self.paused = s.phase != OVER
            self._replaying = rec.winner is None and s.phase != OVER
        self._advise_for_person()
        self.version += 1

    def _advise_for_person(self) -> None:
        """The person's turn to advise (it waits in a Pro partie) is
        answered "no advice" at once (call under ``lock``): the page has no
        advice buttons, and the computer players' partie goes on."""
        s = self.session
        while s.phase == ADVICE and s.to_act == HUMAN:
            self.referee.answer(NO_ADVICE)
            self.log.append(f"{HUMAN}: {render.action_words(NO_ADVICE)}")

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
            if (
                self.thinking
                or self.paused
                or self.error
                or self.closed
                or s.phase == OVER
                or s.to_act not in self.computers
            ):
                return
            self.thinking = True
            self.version += 1
        self.submit(self._decide_once)

    def _reset_players(self) -> None:
        """Reset every computer player for the partie about to be played
        (call under ``lock``). The opponent keeps the seeds it had before
        advisers existed; each adviser gets its own."""
        s = self.session
        if self._reset_for == s.parties_played:
            return
        for k, (name, player) in enumerate(self.computers.items()):
            player.reset(derive_seed(self.seed, "player", s.parties_played, *((name,) if k else ())))
        self._reset_for = s.parties_played

    def _decide_once(self) -> None:
        """One decision of the computer player to act (the opponent, or an
        adviser), then the next one queued behind the other tables' (the
        pool is shared), or the turn handed back."""
        again = False
        delay = 0.0
        who = None
        try:
            with self.lock:
                s = self.session
                if self.closed or self.paused or s.phase == OVER or s.to_act not in self.computers:
                    return
                if s.phase != PRO_DECISION:
                    self._reset_players()
                turn = self.referee.turn()  # the adviser's view is the public record only
                who = turn.who
                before = self.version
            # Thinking happens outside the lock: the page keeps polling.
            action = self.referee.ask(turn)
            if turn.kind == PRO:
                action = DECLARE_PRO if action else NO_PRO
            elif turn.kind == ACT and not turn.view.is_legal(action):
                raise ValueError(f"{who} chose illegal action {action!r}")
            else:
                a = None if isinstance(action, bool) else operator.index(action)
                if turn.kind != ACT and (a is None or a < 0 or not turn.view.legal_mask >> a & 1):
                    raise ValueError(f"{who} gave illegal advice {action!r}")
                action = a
            with self.lock:
                if self.closed or self.version != before:
                    return
                self._apply(who, action)
                s = self.session
                again = not self.paused and s.phase != OVER and s.to_act in self.computers
                # A person watching the other two play needs time to follow each move.
                delay = self.pace if again and HUMAN not in s.table else 0.0
        except Exception as e:  # a broken player stops this table, not the server
            with self.lock:
                self.error = f"{who or self.opp_name} failed: {e}"
        finally:
            with self.lock:
                if not again or self.closed:
                    again = False
                    self.thinking = False
                    self.version += 1
        if again and delay:
            timer = threading.Timer(delay, self.submit, (self._decide_once,))
            timer.daemon = True
            timer.start()
        elif again:
            self.submit(self._decide_once)


class Tables:
    """The open tables. At most ``limit``: to open one more, the least
    recently used table is closed if no request has reached it for
    ``make_room_after`` seconds, else the new one is refused (503). A table
    idle for ``expire_after`` seconds is closed. The ids of closed tables
    are remembered (the latest ``remember``) with the reason, which a later
    request for them is told (410)."""

    def __init__(
        self,
        limit: int = 32,
        *,
        make_room_after: float = 600.0,
        expire_after: float = 6 * 3600.0,
        remember: int = 4096,
        clock=time.monotonic,
    ):
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
                    raise WebError(
                        f"the server already has {self.limit} games in play; finish or close one, "
                        f"or try again in {max(1, round((self.make_room_after - idle) / 60))} min",
                        503,
                    )
                self._close(
                    oldest,
                    f"{self.limit} games were open and it was the least recently used, "
                    f"idle for {idle / 60:.0f} min, when a new game needed its place",
                )
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
        shown = table_id if len(table_id) <= 40 else table_id[:16] + "..."  # never echo a long id whole
        raise WebError(f"no table {shown!r} on this server (it may have been closed before a restart)", 404)

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
