"""Bulka sessions of the session engine whose parties are coins: the check of ``pro_equity``.

Each partie of a ``coin_session`` is decided by one draw: the dealer ``i`` wins against the
challenger ``j`` with probability ``win[i][j]``; the loser forfeits at its first action
(``RuleConfig(illegal_action="forfeit")``: stakes only, nothing else settled, docs/rules.md section 7),
so the tokens are those the equity model counts. Everything else (stakes, Bulka, streaks, Pro offers,
rotation, the split at the end) is the real ``trappola_env.engine.session.Session``. Players are named
``"0"``, ``"1"``, ...; player 0 is the focal one. A Pro rule is ``"always"``, ``"never"``, a Bulka
threshold in stakes, or any ``rule(view: ProView) -> bool`` (``ObservedPro`` reads the records).
The draw of partie ``k`` comes from ``derive_seed(seed, "partie", k)``, so two rules compared on the
same seed meet the same coins while their sessions agree.
"""

from __future__ import annotations

import random

from trappola.agents.evaluation.seeding import derive_seed
from trappola_env.engine import RuleConfig
from trappola_env.engine.actions import ACCEPT_ALIFER
from trappola_env.engine.cards import cards_of
from trappola_env.engine.session import Session

FORFEIT_CONFIG = RuleConfig(illegal_action="forfeit")


class _Coin:
    """One player of a coin session: loses its partie by forfeit when the coin says so."""

    def __init__(self, table, index: int, rule):
        self.table, self.index, self.rule = table, index, rule
        self.name = str(index)

    def act(self, view) -> int:
        """A forfeit (an illegal action) when this partie is the other player's; else the first legal card."""
        if not self.table.wins(self.index):
            return ACCEPT_ALIFER  # never legal in play: the engine forfeits the partie
        return cards_of(view.legal_mask)[0]

    def decide_pro(self, view) -> bool:
        """The player's Pro rule."""
        rule = self.rule
        if callable(rule):
            return bool(rule(view))
        if rule == "always":
            return True
        if rule == "never":
            return False
        return view.bulka >= float(rule) * view.base_stake * view.stake_multiple


class _Table:
    def __init__(self, win, seed: int):
        self.win, self.seed = win, seed
        self.session: Session | None = None
        self._drawn: tuple[int, int | None] = (-1, None)

    def wins(self, index: int) -> bool:
        s = self.session
        assert s is not None  # set once the session is built
        k = s.parties_played
        if self._drawn[0] != k:
            dealer, challenger = int(s.dealer), int(s.challenger)
            u = random.Random(derive_seed(self.seed, "partie", k)).random()
            self._drawn = (k, dealer if u < self.win[dealer][challenger] else challenger)
        return self._drawn[1] == index


def _table(win, rules, seed: int, parties: int, seating=None):

    table = _Table(win, seed)
    players = {str(i): _Coin(table, i, rule) for i, rule in enumerate(rules)}
    if seating is not None:
        seating = {
            "dealer": str(seating["dealer"]),
            "challenger": str(seating["challenger"]),
            "queue": [str(q) for q in seating["queue"]],
        }
    session = Session(
        max_parties=parties,
        config=FORFEIT_CONFIG,
        seed=derive_seed(seed, "session"),
        names=list(players),
        seating=seating,
    )
    table.session = session
    return players, session


def dealer_examples(win, parties: int, seed: int) -> list[tuple]:
    """(``pro_learned.record_features`` of the challenger as the public record stood, 1.0 if won) of
    every decided partie player 0 deals in one coin session of 3 players who always declare Pro:
    the examples ``ObservedPro`` is fitted on."""
    from trappola.agents.pro_learned import record_features
    from trappola_env.engine.records import session_records
    from trappola_env.referee import play_session

    players, session = _table(win, ["always"] * len(win), seed, parties)
    out = []

    def on_partie(partie):
        rec = session.history[-1]
        if rec.dealer != "0" or rec.winner is None:
            return
        names = list(session.players)
        before = session_records(session.history[:-1], "0", names)
        feats = record_features(tuple(before[n] for n in names), names.index("0"), names.index(rec.challenger))
        out.append((feats, 1.0 if rec.winner == "0" else 0.0))

    play_session(players, session=session, on_partie=on_partie)
    return out


def coin_session(win, parties: int, rules, seed: int, seating=None) -> dict:
    """Play one coin session (``rules[i]``: player i's Pro rule) and return ``{"balance": player 0's
    final balance in stakes, "offers": its Pro offers, "declared": how many it declared}``.
    ``seating``: ``{"dealer", "challenger", "queue"}`` of player indices (default: the engine's draw)."""
    from trappola_env.referee import play_session

    players, session = _table(win, rules, seed, parties, seating)
    res = play_session(players, session=session)
    unit = 10 * session.stake_multiple
    offers = [o for o in res.pro_offers if o.player == "0"]
    return {
        "balance": float(res.balances["0"]) / unit,
        "offers": len(offers),
        "declared": sum(o.declared for o in offers),
    }
