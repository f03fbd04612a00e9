"""Scripted parties for the session tests, and tests that each script
gives exactly the outcome it claims.

Quick outcomes use ``illegal_action="forfeit"`` (Art. 12: a decided loss
for the offender):

* ``dealer_wins(s)``: the challenger opens with "decline Alifer", illegal
  with no proposal pending, and forfeits.
* ``challenger_wins(s)``: the challenger proposes Alifer; the dealer, who
  may only accept or decline, plays a card and forfeits.
* ``alifer(s)``: the challenger proposes Alifer, the dealer accepts.

Real parties (fixed deals, both players then play their lowest legal card,
``play_lowest``), with results worked out below from the engine's rules:

* ``DEAL_CHALLENGER_WINS``: the challenger wins trick 1 with 2S (52 points,
  the dealer pays 20 into the Bulka) and the last trick (6, no payment).
* ``DEAL_TIE``: 25 - 25, a tie (automatic Alifer) that settles its bonus
  payments: each pays 5 into the Bulka.
* ``DEAL_DECLARATION``: the challenger declares Figura of Re (3 Kings, 6
  points, the dealer pays it 5) and loses 18 - 45; the dealer won trick 7
  with a Two (10 points, the challenger pays 5 into the Bulka).

Every helper checks the ledger (sum of balances + Bulka + departed == 0)
after each action.
"""

from __future__ import annotations

import pytest

from trappola_env.engine import RuleConfig, action_id
from trappola_env.engine.actions import ACCEPT_ALIFER, DECLINE_ALIFER, PROPOSE_ALIFER
from trappola_env.engine.seating import Seating
from trappola_env.engine.session import Session

FORFEIT = RuleConfig(illegal_action="forfeit")

DEAL_CHALLENGER_WINS = {
    "challenger": ["CD", "9B", "8C", "BB", "AB", "RC", "AD", "2C", "2S"],
    "dealer": ["7C", "CC", "RB", "TD", "9D", "8D", "CB", "BD", "9C"],
    "stock": [
        "9S",
        "AC",
        "7S",
        "CS",
        "TB",
        "8S",
        "2B",
        "RD",
        "TC",
        "8B",
        "7D",
        "BS",
        "TS",
        "7B",
        "2D",
        "AS",
        "RS",
        "BC",
    ],
}
DEAL_TIE = {
    "challenger": ["2C", "8C", "2D", "8S", "CS", "8D", "7C", "AD", "BD"],
    "dealer": ["TS", "2S", "TB", "7D", "RS", "AS", "9D", "2B", "8B"],
    "stock": [
        "CB",
        "AB",
        "AC",
        "RC",
        "9B",
        "CC",
        "RB",
        "9C",
        "7S",
        "RD",
        "BC",
        "CD",
        "7B",
        "TC",
        "TD",
        "9S",
        "BB",
        "BS",
    ],
}
DEAL_DECLARATION = {
    "challenger": ["8C", "BB", "RC", "BD", "RD", "AB", "TB", "9C", "RB"],
    "dealer": ["AC", "8B", "8S", "CC", "CS", "9D", "9S", "2D", "2C"],
    "stock": [
        "BC",
        "2S",
        "BS",
        "9B",
        "TS",
        "CD",
        "CB",
        "7C",
        "TC",
        "TD",
        "7B",
        "2B",
        "7S",
        "RS",
        "7D",
        "8D",
        "AS",
        "AD",
    ],
}


def make_session(dealer, challenger, queue=(), max_parties=100, config=FORFEIT, **kw) -> Session:
    """A session with explicit seating; names are the seated names."""
    names = [challenger, *queue, dealer]
    s = Session(
        names=names,
        seating=Seating.explicit(dealer, challenger, queue),
        max_parties=max_parties,
        config=config,
        seed=0,
        **kw,
    )
    s.check()
    return s


def act(s: Session, action) -> None:
    s.act(action_id(action) if isinstance(action, str) else action)
    s.check()


def dealer_wins(s: Session) -> None:
    assert s.phase == "partie" and not s.partie.history
    act(s, DECLINE_ALIFER)


def challenger_wins(s: Session) -> None:
    assert s.phase == "partie" and not s.partie.history
    act(s, PROPOSE_ALIFER)
    act(s, 0)


def alifer(s: Session) -> None:
    assert s.phase == "partie" and not s.partie.history
    act(s, PROPOSE_ALIFER)
    act(s, ACCEPT_ALIFER)


def wins(s: Session, name: str) -> None:
    """``name`` (at the table) wins the partie in play."""
    if name == s.dealer:
        dealer_wins(s)
    elif name == s.challenger:
        challenger_wins(s)
    else:
        raise AssertionError(f"{name} is not at the table")


def play_deal(s: Session, deal: dict, first=()) -> None:
    """Play the partie in play on ``deal``: the ``first`` actions, then both
    players play their lowest legal card to the end."""
    s.set_deal(deal)
    s.check()
    partie = s.partie
    for a in first:
        act(s, a)
    while s.partie is partie and not partie.terminal:
        act(s, min(a for a in partie.legal_actions() if a < 36))


def table(s: Session) -> tuple:
    return s.dealer, s.challenger, list(s.queue)


# ------------------------------------------------------------ the scripts


def test_dealer_wins_is_a_forfeit_by_the_challenger():
    s = make_session("A", "B", ["C"])
    dealer_wins(s)
    rec = s.history[-1]
    assert (rec.outcome, rec.winner, rec.loser, rec.forfeited_by) == ("forfeit", "A", "B", "B")
    assert rec.tokens == {"A": -10, "B": -10} and rec.bulka_in == 20


def test_challenger_wins_is_a_forfeit_by_the_dealer():
    s = make_session("A", "B", ["C"])
    challenger_wins(s)
    rec = s.history[-1]
    assert (rec.outcome, rec.winner, rec.forfeited_by) == ("forfeit", "B", "A")


def test_alifer_script_is_an_agreed_alifer():
    s = make_session("A", "B", ["C"])
    alifer(s)
    rec = s.history[-1]
    assert (rec.outcome, rec.winner, rec.loser) == ("agreed_alifer", None, None)


def test_deal_challenger_wins_real_partie_and_settlement():
    s = make_session("A", "B", ["C"])
    play_deal(s, DEAL_CHALLENGER_WINS)
    rec = s.history[-1]
    assert (rec.outcome, rec.winner) == ("decided", "B")
    assert rec.scores == {"B": 84, "A": 14}
    # Stakes 10 each; A pays 20 for B's trick 1 won with a Two.
    assert rec.tokens == {"B": -10, "A": -30}
    assert rec.bulka_in == 40
    # The next partie's stakes (B deals, C challenges) are paid at once.
    assert s.balances == {"A": -30, "B": -20, "C": -10} and s.bulka == 60
    assert {(d["player"], d["what"], d["tokens"]) for d in rec.details} == {
        ("B", "trick 1 with a Two", 20),
        ("B", "last trick", 0),
    }


def test_deal_tie_settles_bonus_payments_and_replays():
    s = make_session("A", "B", ["C"])
    play_deal(s, DEAL_TIE)
    rec = s.history[-1]
    assert (rec.outcome, rec.winner, rec.scores) == ("tie", None, {"B": 25, "A": 25})
    assert rec.tokens == {"B": -15, "A": -15} and rec.bulka == 30
    # The replay's stakes (m = 2) are already paid.
    assert s.multiplier == 2 and s.bulka == 70
    assert s.balances == {"A": -35, "B": -35, "C": 0}


def test_deal_declaration_pays_player_to_player():
    s = make_session("A", "B", ["C"])
    play_deal(s, DEAL_DECLARATION, first=["declare Figura Re"])
    rec = s.history[-1]
    assert (rec.outcome, rec.winner, rec.scores) == ("decided", "A", {"B": 18, "A": 45})
    # B: stake -10, +5 from A for 3 Re, -5 into the Bulka for A's Two in trick 7.
    # A: stake -10, -5 to B. Bulka: 20 stakes + 5.
    assert rec.tokens == {"B": -10, "A": -15}
    assert rec.bulka_in == 25
    # The next partie's stakes (A deals again, C challenges) are paid at once.
    assert s.balances == {"A": -25, "B": -10, "C": -10}
    assert s.bulka == 45


@pytest.mark.parametrize("stake_multiple", [1, 3])
def test_scripted_settlement_scales_with_stake_multiple(stake_multiple):
    s = make_session("A", "B", ["C"], stake_multiple=stake_multiple)
    play_deal(s, DEAL_CHALLENGER_WINS)
    assert s.history[-1].tokens == {"B": -10 * stake_multiple, "A": -30 * stake_multiple}


def test_history_deal_replays_the_same_partie():
    from trappola_env.engine import deal_from_names

    s = make_session("A", "B", ["C"])
    play_deal(s, DEAL_DECLARATION, first=["declare Figura Re"])
    rec = s.history[-1]
    again = make_session("A", "B", ["C"])
    play_deal(again, rec.deal, first=["declare Figura Re"])
    assert again.history[-1].to_dict() == rec.to_dict()
    d, original = deal_from_names(rec.deal), deal_from_names(DEAL_DECLARATION)
    assert (d.hands, d.bottom) == (original.hands, original.bottom)
    assert rec.deal["stock"][-1] == "AD"
