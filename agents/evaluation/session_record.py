"""Saved Bulka sessions: every partie of a session as a saved-game record
(``trappola.agents.evaluation.game_record``, format ``trappola-game/1``, one line each in
``games.jsonl``), with the session around it, written by ``trappola
evaluate --session ... --save-games DIR`` and opened by the web Replay view
partie by partie.

Besides the fields of every saved game (``players``: the challenger then
the dealer, the deal, every action, the result), a session partie holds,
before them::

    {"evaluation": "session", "session": 3, "seating": "rule pimc random",
     "partie_index": 7,                      # 0-based, Alifer replays included
     "queue": ["random"],                    # waiting when the partie began, head first
     "pro_offer": {"player": "pimc", "streak": 2, "declared": true},   # or null
     "pro_declarer": "pimc",                 # or null; also set on a Pro partie's replays
     "replay": false,                        # an Alifer replay of the partie before
     "bulka_in": 20, "bulka_won": 0,         # into the Bulka; taken by a Pro winner
     "bulka": 60,                            # the Bulka after the partie (and any Pro award)
     "balances": {"rule": -10, ...},         # every player's balance after the partie
     "advice": [{"step": 0, "adviser": "random", "advice": 57, "name": "advise play 9S"}, ...],
     "final_share": null}                    # on a session's last partie: each one's share of the split Bulka

Balances and the Bulka are before the next partie's stakes and, on the last
partie, before the final split (``final_share``), so a player's final
balance is its last ``balances`` entry plus ``final_share``. ``advice``
(only in sessions played with advice) lists the advice given in the partie:
``step`` is the number of actions before the advised decision, ``advice``
an advice id (docs/rules.md section 9). Numbers that can be fractions
(a split Bulka) are floats.
"""

from __future__ import annotations

from trappola.agents.evaluation.game_record import GameRecorder
from trappola_env.engine.advice import advice_name
from trappola_env.engine.ledger import to_json_number


class SessionRecorder:
    """Collects the parties of one session as saved-game records: pass
    ``recorder.on_partie`` to ``play_session(..., on_partie=...)`` with
    the ``session`` it plays, then call ``finish()``. ``context`` (the
    session's index, its seating...) opens every record."""

    def __init__(self, session, context: dict | None = None):
        self.session = session
        self.context = dict(context or {})  # written first in every record: session index, seating...
        self.records: list[dict] = []
        self._balances = dict.fromkeys(session.players, 0)

    def on_partie(self, partie) -> None:
        """Record the partie the session just settled, with the session fields
        (queue, Pro offer, Bulka, balances, advice) around it."""
        s = self.session
        rec = s.history[-1]
        ch, de = rec.challenger, rec.dealer
        balances = self._balances
        balances[ch] += rec.challenger_tokens
        balances[de] += rec.dealer_tokens
        if rec.pro_stake:
            balances[rec.pro_declarer] -= rec.pro_stake
        if rec.bulka_won:
            balances[rec.winner] += rec.bulka_won
        offer = next((o for o in s.pro_offers if o.partie_index == rec.index), None)
        actions = GameRecorder((None, None))  # no player objects: no search values in session records
        for seat, action in partie.history:
            actions.on_decision(partie, seat, action)
        context = {
            "evaluation": "session",
            **self.context,
            "partie_index": rec.index,
            "queue": list(rec.queue),
            "pro_offer": None
            if offer is None
            else {"player": offer.player, "streak": offer.streak, "declared": offer.declared},
            "pro_declarer": rec.pro_declarer,
            "replay": rec.replay,
            "bulka_in": rec.bulka_in,
            "bulka_won": rec.bulka_won,
            "bulka": to_json_number(rec.bulka),
            "balances": dict(balances),
        }
        if s.advice_on:
            context["advice"] = [
                {"step": step, "adviser": adviser, "advice": a, "name": advice_name(a)}
                for index, step, adviser, a in s.advice_log
                if index == rec.index
            ]
        context["final_share"] = None
        self.records.append(
            actions.record(
                partie.deal,
                partie.result(),
                players=[ch, de],
                config=partie.config,
                stake_multiple=partie.stake_multiple,
                multiplier=partie.multiplier,
                **context,
            )
        )

    def finish(self) -> list[dict]:
        """The records, the last one marked with the final split."""
        if self.records and self.session.final_share is not None:
            self.records[-1]["final_share"] = to_json_number(self.session.final_share)
        return self.records


__all__ = ["SessionRecorder"]
