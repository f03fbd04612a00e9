"""Advice in a Pro partie (docs/rules.md section 8, Art. 5.3): the advice
ids, what the public record leaves possible, who advises when, and that
advice moves no tokens."""

from __future__ import annotations

import random

import pytest
from helpers import act, make_deal_spec, make_partie
from test_session_scripts import FORFEIT, dealer_wins, make_session

from trappola_env.engine import InfoState, RuleConfig, action_id
from trappola_env.engine.actions import ACCEPT_ALIFER, DECLINE_ALIFER, PRO, PROPOSE_ALIFER
from trappola_env.engine.advice import (
    ADVICE_BASE,
    NO_ADVICE,
    advice_id,
    advice_mask,
    advice_name,
    advised_action,
    possible_mask,
)
from trappola_env.engine.cards import card_id
from trappola_env.engine.deal import random_deal
from trappola_env.engine.partie import IllegalActionError, Partie
from trappola_env.engine.session import Session

ALL = (1 << 36) - 1
FIRST_CARD = sum(
    1 << action_id(n)
    for n in (
        "declare Figura Re",
        "declare Figura Cavall",
        "declare Figura Bube",
        "declare Figura Twos",
        "declare Blans",
    )
)
ACES = 1 << action_id("declare Aces")
BIANKA = 1 << action_id("declare Bianka")
MANKO = 1 << action_id("ask Manko")
PROPOSE = 1 << PROPOSE_ALIFER
CH = "RS RC RD 2S 7S 8S 9S TS BS"
DE = "2C 7C 8C 9C TC BC CC AC 2D"


def cards(*names) -> int:
    return sum(1 << card_id(n) for n in names)


def public(p: Partie, seat: int = 0) -> int:
    return possible_mask(InfoState.public(p, seat))


# ---------------------------------------------------------------- ids
def test_advice_ids_follow_the_49_ids_and_name_the_advised_action():
    assert advice_id(0) == 49 and advice_id(DECLINE_ALIFER) == 95 and NO_ADVICE == 96
    assert advised_action(49 + card_id("AS")) == card_id("AS") and advised_action(NO_ADVICE) is None
    assert advice_name(49 + card_id("AS")) == "advise play AS"
    assert advice_name(49 + ACCEPT_ALIFER) == "advise accept Alifer"
    assert advice_name(NO_ADVICE) == "no advice"
    for bad in (PRO, 48, 47 + ADVICE_BASE, -1, True):
        with pytest.raises(ValueError):
            advice_id(bad)
    for bad in (48, 97, True):
        with pytest.raises(ValueError):
            advised_action(bad)


# -------------------------------------------------- the possible mask
def test_first_decision_any_unseen_card_and_every_declaration_but_manko():
    p = make_partie(CH, DE)
    bottom = p.bottom
    assert public(p) == (ALL & ~(1 << bottom)) | FIRST_CARD | ACES | BIANKA | PROPOSE


def test_after_the_first_card_figura_and_blans_are_gone_and_a_court_card_ends_bianka():
    p = act(make_partie(CH, DE), "RS", "2C")  # the defender (challenger) leads RS, wins, leads again
    assert p.to_act == 0
    m = public(p)
    assert not m & FIRST_CARD
    assert m & ACES  # no Ace played yet: Aces stays possible (first_ace)
    assert not m & BIANKA  # a Re was played: the dealt hand was not Bianka
    assert not m & (cards("RS", "2C") | 1 << p.bottom)  # seen cards


def test_without_court_cards_played_bianka_stays_possible_and_first_card_aces_do_not():
    p = act(make_partie("2S 7S 8S 9S TS 2B 7B 8B 9B", DE, config=RuleConfig(ace_declaration="first_card")), "2S", "2C")
    assert p.to_act == 0
    m = public(p)
    assert m & BIANKA and not m & ACES and not m & FIRST_CARD


def test_an_ace_played_ends_aces():
    p = act(make_partie("AS RC RD 2S 7S 8S 9S TS BS", DE), "AS", "2C")
    assert p.to_act == 0 and not public(p) & ACES


def test_a_suit_not_followed_is_excluded():
    # The dealer wins trick 1 with AS and leads Coppe; the defender shows it has no Coppe.
    p = act(make_partie("2S 7S 8S 9S TS BS CS RS 2B", "AS 7C 8C 9C TC BC CC RC 2D"), "2S", "AS", "7C", "7S", "8C")
    assert p.to_act == 0
    m = public(p)
    assert not m & cards("2C", "AC", "9C") and m & cards("8S", "AD", "AB")
    q = act(make_partie("2S 7S 8S 9S TS BS CS RS 2B", "AS 7C 8C 9C TC BC CC RC 2D"), "2S", "AS", "7C")
    assert public(q) & cards("2C", "AC")  # before it failed to follow, Coppe was possible


def test_manko_at_the_second_card_after_a_three_card_figura_of_the_declarer():
    # The dealer declares 3 Re at its first card; the defender may ask Manko at its 2nd card.
    p = act(make_partie("2S 7S 8S 9S TS BS CS 2B AS", "RC RD RB 2C 7C 8C 9C TC AD"), "2S", "declare Figura Re", "2C")
    assert p.to_act == 0
    assert public(p) & MANKO
    p.apply(card_id("7S"))
    p.apply(card_id("7C"))
    assert p.to_act == 0 and not public(p) & MANKO  # its 3rd card: too late


def test_an_alifer_proposal_of_the_declarer_leaves_only_accept_and_decline():
    p = act(make_partie(CH, DE), "2S", "propose Alifer")
    assert p.to_act == 0
    assert public(p) == (1 << ACCEPT_ALIFER) | (1 << DECLINE_ALIFER)


def test_a_used_proposal_and_a_closed_partie_allow_none():
    p = act(make_partie(CH, DE), "propose Alifer", "decline Alifer")
    assert not public(p) & PROPOSE
    q = Partie(make_partie(CH, DE).deal, alifer_allowed=False)
    assert not public(q) & PROPOSE


def test_possible_mask_holds_every_legal_action_of_random_games():
    rng = random.Random(7)
    checked = 0
    for _ in range(300):
        p = Partie(random_deal(rng))
        while not p.terminal:
            seat = p.to_act
            legal = p.legal_mask()
            m = possible_mask(InfoState.public(p, seat))
            assert legal & ~m == 0, (legal, m)
            assert advice_mask(InfoState.public(p, seat)) >> ADVICE_BASE == m | 1 << (NO_ADVICE - ADVICE_BASE)
            checked += 1
            acts = p.legal_actions()
            p.apply(rng.choice(acts))
    assert checked > 3000


# ------------------------------------------------------------ the session
def pro_partie(config=FORFEIT, deal=None) -> Session:
    """A has won twice (B, then C forfeit) and declares Pro against D; B and
    C wait, B at the head of the queue."""
    s = make_session("A", "B", ["C", "D"], config=FORFEIT, advice=True)
    dealer_wins(s)
    dealer_wins(s)
    assert (s.phase, s.dealer, s.challenger, s.queue) == ("pro", "A", "D", ["B", "C"])
    s.config = config  # the Pro partie's own rules (FORFEIT made the two quick wins)
    s.act(PRO)
    if deal is not None:
        s.set_deal(deal)
    return s


PRO_DEAL = make_deal_spec(CH, DE)  # the defender D holds 3 Re


def test_advisers_speak_in_queue_order_before_each_decision_of_the_defender():
    s = pro_partie(RuleConfig())
    assert s.phase == "advice" and s.to_act == "B" and s.pending.defender == "D" and s.pending.declarer == "A"
    assert s.legal_mask() == advice_mask(InfoState.public(s.partie, 0))
    s.act(advice_id(s.partie.legal_actions()[0]))
    assert s.phase == "advice" and s.to_act == "C" and s.pending.advice == {"B": s.partie.legal_actions()[0]}
    s.act(NO_ADVICE)
    assert s.phase == "partie" and s.to_act == "D"
    first = s.partie.legal_actions()[0]
    assert s.advice == {"B": first, "C": None}
    s.act(first)  # a card: the defender's decision is made, the advice is gone
    assert s.advice == {} and s.phase == "partie" and s.to_act == "A"  # the declarer is never advised
    s.act(s.partie.legal_actions()[0])
    if s.partie.to_act == 0:
        assert s.phase == "advice" and s.to_act == "B"
    else:
        assert s.phase == "partie" and s.to_act == "A"
    assert [e[2] for e in s.advice_log] == ["B", "C"] and s.advice_log[0][:2] == (s.parties_played, 0)
    s.check()


def test_a_declaration_keeps_the_turn_and_the_next_decision_is_advised_again():
    s = pro_partie(RuleConfig(), deal=PRO_DEAL)
    s.act(advice_id(action_id("declare Figura Re")))
    s.act(NO_ADVICE)
    assert s.advice == {"B": action_id("declare Figura Re"), "C": None}
    s.act(action_id("declare Figura Re"))
    assert s.phase == "advice" and s.to_act == "B" and s.partie.to_act == 0 and s.advice == {}
    assert not s.legal_mask() >> advice_id(action_id("declare Figura Re")) & 1  # declared: no longer possible


def test_no_advice_outside_a_pro_partie_or_without_the_option():
    s = make_session("A", "B", ["C", "D"], config=FORFEIT, advice=True)
    assert s.phase == "partie" and s.partie.to_act == 0  # the challenger's first decision: no Pro, no advice
    t = make_session("A", "B", ["C", "D"], config=FORFEIT)
    dealer_wins(t)
    dealer_wins(t)
    t.act(PRO)
    assert t.phase == "partie" and t.to_act == "D" and t.advice == {} and not t.advice_log


def test_the_defenders_alifer_answer_is_advised_with_accept_and_decline_only():
    s = pro_partie(RuleConfig())
    while s.phase == "advice":
        s.act(NO_ADVICE)
    s.act(s.partie.legal_actions()[0])  # the defender's first card
    s.act(PROPOSE_ALIFER)  # the declarer proposes
    assert s.phase == "advice"
    assert s.legal_mask() == (1 << advice_id(ACCEPT_ALIFER)) | (1 << advice_id(DECLINE_ALIFER)) | (1 << NO_ADVICE)


def test_illegal_advice_raises_or_counts_as_no_advice():
    s = pro_partie(RuleConfig())
    for bad in (0, PRO, NO_ADVICE + 1, advice_id(s.partie.bottom), "AS", True):
        with pytest.raises(IllegalActionError, match="from B"):
            s.act(bad)
    assert s.to_act == "B" and not s.advice_log
    f = pro_partie(FORFEIT)
    f.act(advice_id(f.partie.bottom))
    assert f.advice == {"B": None} and f.advice_log[-1][2:] == ("B", NO_ADVICE) and f.to_act == "C"


def test_an_adviser_who_leaves_is_skipped():
    s = pro_partie(RuleConfig())
    s.act(NO_ADVICE)
    s.leave("C")
    assert s.phase == "partie" and s.to_act == "D" and s.advice == {"B": None}
    s.check()


def _lowest_session(advice: bool, seed: int):
    """A 4-player session: everyone declares Pro, plays its lowest legal
    action; advisers give no advice."""
    s = Session(n_players=4, max_parties=40, seed=seed, advice=advice)
    while s.phase != "over":
        if s.phase == "pro":
            s.act(PRO)
        elif s.phase == "advice":
            s.act(NO_ADVICE)
        else:
            s.act(s.partie.legal_actions()[0])
        s.check()
    return s


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_advice_moves_no_tokens_and_changes_nothing_else(seed):
    with_advice, without = _lowest_session(True, seed), _lowest_session(False, seed)
    assert with_advice.advice_log and any(d["player"] for d in with_advice.pro_declarations)
    assert with_advice.history_dicts() == without.history_dicts()
    assert with_advice.balances == without.balances
    summary = with_advice.summary()
    assert summary.pop("advice_log") == [list(e) for e in with_advice.advice_log]
    assert summary == without.summary()
    # Advice came only in Pro parties, from waiting players, before the defender's decisions.
    pro_parties = {h.index for h in with_advice.history if h.pro_declarer is not None}
    for index, _, adviser, advice in with_advice.advice_log:
        rec = with_advice.history[index]
        assert index in pro_parties and adviser in rec.queue and advice == NO_ADVICE


def test_a_session_may_start_from_given_streaks():
    s = Session(
        names=["A", "B", "C"],
        seating={"dealer": "A", "challenger": "B", "queue": ["C"]},
        streaks={"A": 2},
        advice=True,
        seed=0,
    )
    assert s.phase == "pro" and s.to_act == "A" and s.streaks == {"A": 2, "B": 0, "C": 0}
    s.act(PRO)
    assert s.phase == "advice" and s.to_act == "C"
    for bad in ({"Z": 2}, {"A": -1}, {"A": True}):
        with pytest.raises(ValueError, match="streaks"):
            Session(names=["A", "B", "C"], streaks=bad)
