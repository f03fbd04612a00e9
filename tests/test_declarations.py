"""Declarations: when each is legal (docs/rules.md section 3) and what it scores
and costs the opponent (section 4).

Every deal is hand-built; the hand-computed expectation is in a comment.
Declaration points and payments do not depend on the card play (except
Aces, whose success does), so most tests finish with ``play_lowest``.
"""

import pytest
from helpers import act, make_partie, play_lowest

from trappola_env.engine import RuleConfig
from trappola_env.engine.actions import (
    ACES,
    BIANKA,
    BLANS,
    FIGURA_BUBE,
    FIGURA_CAVALL,
    FIGURA_RE,
    FIGURA_TWOS,
    MANKO,
)
from trappola_env.engine.cards import CAVALL, COURT_MASK, RE, TWO

DECLS = {FIGURA_RE, FIGURA_CAVALL, FIGURA_BUBE, FIGURA_TWOS, ACES, BLANS, BIANKA, MANKO}
S, C, D, B = range(4)


def decls(partie) -> set[int]:
    """The declaration/question actions legal now (Alifer proposal left out)."""
    return set(partie.legal_actions()) & DECLS


# ----------------------------------------------------------------- Figura

FILLERS = ["7S", "7C", "8S", "8C", "9S", "9C", "TS", "TC"]  # no triple, no court, no Ace
RANK_CODE = {FIGURA_RE: "R", FIGURA_CAVALL: "C", FIGURA_BUBE: "B", FIGURA_TWOS: "2"}
OTHER_DEALER = "7D 8D 9D TD 7B 8B 9B TB AD"
# (points, opponent pays) per docs/rules.md section 4.
FIGURA_TABLE = {
    (FIGURA_RE, 3): (6, 5),
    (FIGURA_CAVALL, 3): (6, 5),
    (FIGURA_BUBE, 3): (6, 5),
    (FIGURA_TWOS, 3): (10, 5),
    (FIGURA_RE, 4): (12, 10),
    (FIGURA_CAVALL, 4): (12, 10),
    (FIGURA_BUBE, 4): (12, 10),
    (FIGURA_TWOS, 4): (20, 10),
}


def figura_hand(action, n):
    return [RANK_CODE[action] + s for s in "SCDB"[:n]] + FILLERS[: 9 - n]


@pytest.mark.parametrize("action", sorted(RANK_CODE))
@pytest.mark.parametrize("n", [2, 3, 4])
def test_figura_legal_at_first_card_only_with_3_or_4(action, n):
    p = make_partie(figura_hand(action, n), OTHER_DEALER)
    # Only this Figura can be true of the hand (fillers hold no triple); the
    # hand has courts unless it is the Twos hand, which has no court and no
    # Ace, so it may also say Blans and Bianka.
    no_court = {BLANS, BIANKA} if action == FIGURA_TWOS else set()
    expected = ({action} if n >= 3 else set()) | no_court
    assert decls(p) == expected
    if n < 3:
        with pytest.raises(ValueError):
            p.apply(action)


@pytest.mark.parametrize("action, n", sorted(FIGURA_TABLE))
def test_figura_points_and_payment_by_count(action, n):
    pts, pay = FIGURA_TABLE[(action, n)]
    p = make_partie(figura_hand(action, n), OTHER_DEALER)
    p.apply(action)
    # The count declared is the count held, and the same seat acts again.
    assert p.counts[0] == {action: n}
    assert p.to_act == 0 and not p.terminal
    assert action not in p.legal_actions()  # at most once
    with pytest.raises(ValueError):
        p.apply(action)
    r = play_lowest(p).result()
    assert r.scores[0].declaration_points == pts
    assert r.scores[1].declaration_points == 0
    assert r.declaration_tokens == (pay, 0)


@pytest.mark.parametrize("action, n", [(FIGURA_RE, 3), (FIGURA_TWOS, 4)])
def test_figura_payment_scales_with_stake_multiple_and_m_points_do_not(action, n):
    pts, pay = FIGURA_TABLE[(action, n)]
    p = make_partie(figura_hand(action, n), OTHER_DEALER, stake_multiple=3, multiplier=2)
    p.apply(action)
    r = play_lowest(p).result()
    assert r.scores[0].declaration_points == pts
    assert r.declaration_tokens == (pay * 6, 0)


def test_figura_not_legal_at_second_card():
    # Challenger holds 3 Re; it plays 7S without declaring. Dealer: TS wins
    # trick 1 (TS > 7S) and leads 7D; the challenger's 2nd card: too late.
    p = make_partie(figura_hand(FIGURA_RE, 3), "TS 7D 8D 9D TD 7B 8B 9B AD")
    act(p, "7S", "TS", "7D")
    assert p.to_act == 0 and p.ncards[0] == 1
    assert FIGURA_RE not in p.legal_actions()
    with pytest.raises(ValueError):
        p.apply(FIGURA_RE)


def test_dealer_declares_figura_at_its_first_card_as_follower_not_later():
    # Dealer holds 4 Cavall. At trick 1 it follows: its 1st card.
    p = make_partie("7D 8D 9D TD 7B 8B 9B TB AD", figura_hand(FIGURA_CAVALL, 4))
    assert FIGURA_CAVALL not in p.legal_actions()  # challenger's turn: not its hand
    act(p, "9D")
    assert FIGURA_CAVALL in p.legal_actions()
    act(p, "declare Figura Cavall")
    assert p.counts[1] == {FIGURA_CAVALL: 4} and p.to_act == 1
    # Dealer's only Denari CD beats 9D: it leads trick 2, its 2nd card.
    act(p, "CD")
    assert p.to_act == 1 and p.ncards[1] == 1
    assert FIGURA_CAVALL not in p.legal_actions()


def test_dealer_that_did_not_declare_at_first_card_cannot_at_second():
    p = make_partie("7D 8D 9D TD 7B 8B 9B TB AD", figura_hand(FIGURA_BUBE, 3))
    act(p, "9D")
    assert FIGURA_BUBE in p.legal_actions()
    act(p, "BD")  # beats 9D: the dealer leads trick 2, its 2nd card
    assert p.to_act == 1 and FIGURA_BUBE not in p.legal_actions()


def test_two_figure_declarations_in_one_turn():
    # 3 Re + 3 Twos: both at the 1st card, 6 + 10 points, 5 + 5 paid.
    p = make_partie("RC RD RB 2S 2C 2B 7S 7C 7D", "BS BC BD BB CS CD CB 8S 8C")
    assert decls(p) == {FIGURA_RE, FIGURA_TWOS}
    act(p, "declare Figura Re", "declare Figura Twos")
    assert p.counts[0] == {FIGURA_RE: 3, FIGURA_TWOS: 3}
    r = play_lowest(p).result()
    assert r.scores[0].declaration_points == 16
    assert r.declaration_tokens == (10, 0)


# ------------------------------------------------------------------ Blans


def test_blans_legal_at_first_card_with_no_court_aces_allowed():
    # No Bube/Cavall/Re; two Aces are fine for Blans.
    hand = "AS AC 7S 7C 8S 8C 9S 9C TS"
    p = make_partie(hand, OTHER_DEALER)
    assert decls(p) == {BLANS}  # an Ace rules out Bianka; 2 Aces are not Aces
    act(p, "declare Blans")
    assert p.to_act == 0 and BLANS not in p.legal_actions()
    r = play_lowest(p).result()
    assert r.scores[0].declaration_points == 10
    assert r.declaration_tokens == (5, 0)


@pytest.mark.parametrize("court", ["BD", "CD", "RD"])
def test_blans_not_legal_with_one_court_card(court):
    p = make_partie(["AS", "AC", "7S", "7C", "8S", "8C", "9S", "9C", court], "7D 8D 9D TD 7B 8B 9B TB AD")
    assert BLANS not in p.legal_actions()
    with pytest.raises(ValueError):
        p.apply(BLANS)


def test_blans_not_legal_at_second_card():
    p = make_partie("AS AC 7S 7C 8S 8C 9S 9C TS", "TC 7D 8D 9D TD 7B 8B 9B AD")
    # 7C led, dealer follows TC and wins; leads 7D: challenger's 2nd card.
    act(p, "7C", "TC", "7D")
    assert p.to_act == 0 and BLANS not in p.legal_actions()


# ------------------------------------------------------------------- Aces

THREE_ACES = "AS AC AD 7S 7C 7D 8S 8C 8D"


def test_aces_three_all_led_score_30_pay_5():
    # Challenger declares 3 Aces and leads them; a led Ace always wins.
    p = make_partie(THREE_ACES, "2S 9S 2C 9C 2D 9D TS TC TD")
    assert decls(p) == {ACES, BLANS}  # no court: Blans too; Aces rule out Bianka
    act(p, "declare Aces")
    assert p.counts[0] == {ACES: 3}
    act(p, "AS", "2S", "AC", "2C", "AD", "2D")
    assert p.card_points == [18, 0] and not p.aces_failed[0]
    r = play_lowest(p).result()
    assert r.scores[0].declaration_points == 30
    assert r.declaration_tokens == (5, 0)


def test_aces_one_thrown_on_another_suit_fails_6_and_its_points_go_to_trick_winner():
    # Challenger void in Bastoni. Trick 1: 7S led, dealer's 9S wins.
    # Trick 2: dealer leads 7B; the challenger throws AD, which loses: the
    # Aces declaration fails (6 points instead of 30) and AD's 6 card points
    # go to the dealer.
    p = make_partie(THREE_ACES, "9S 2B 7B 8B 9B TB 2C 2D 9C")
    act(p, "declare Aces", "7S", "9S", "7B")
    # Void in Bastoni: any of its 8 cards.
    assert {a for a in p.legal_actions() if a < 36} == {8, 17, 26, 10, 19, 2, 11, 20}
    act(p, "AD")
    assert p.aces_failed[0]
    assert p.card_points == [0, 6]
    assert p.tricks[-1] == (1, 28, 26, 1)  # 7B (28) led by dealer, AD (26), dealer wins
    r = play_lowest(p).result()
    assert r.scores[0].declaration_points == 6
    assert r.declaration_tokens == (5, 0)  # paid whatever the outcome


def test_aces_played_to_own_suit_win_and_keep_30():
    # Dealer leads spades and clubs after winning trick 1; the challenger
    # follows with AS and AC (own suit), each wins; then leads AD.
    p = make_partie(THREE_ACES, "9S TS 9C 2D 9D TD 2B 7B 8B")
    act(p, "declare Aces", "7S", "9S")  # dealer wins trick 1, leads
    act(p, "TS", "AS")  # challenger's AS beats TS
    assert p.tricks[-1][3] == 0
    act(p, "AC", "9C", "AD", "2D")
    assert not p.aces_failed[0]
    r = play_lowest(p).result()
    assert r.scores[0].declaration_points == 30


def test_four_aces_40_success_12_failure_pay_10():
    hand = "AS AC AD AB 7S 7C 7D 8S 8C"
    ok = make_partie(hand, "2S 9S 2C 9C 2D 9D 2B 9B TS")
    act(ok, "declare Aces", "AS", "2S", "AC", "2C", "AD", "2D", "AB", "2B")
    assert ok.counts[0] == {ACES: 4}
    r = play_lowest(ok).result()
    assert r.scores[0].declaration_points == 40 and r.declaration_tokens == (10, 0)

    # Holding all four Aces, a player is void in a suit only once its Ace of
    # that suit is gone: AS led and wins (trick 1); 7C loses to 9C (trick 2);
    # the dealer leads 8S and the challenger, now void in Spade, throws AC.
    bad = make_partie("AS AC AD AB 7C 7D 8C 8D TC", "9C 7S 8S 9S TS 2D 9D 2B 9B")
    act(bad, "declare Aces", "AS", "7S", "7C", "9C", "8S")
    assert not bad.aces_failed[0]
    act(bad, "AC")
    assert bad.aces_failed[0]
    r = play_lowest(bad).result()
    assert r.scores[0].declaration_points == 12 and r.declaration_tokens == (10, 0)


def test_aces_legal_up_to_and_including_the_turn_of_the_first_ace():
    # Trick 1: challenger leads 7S without declaring; dealer 9S wins, leads 9C.
    p = make_partie(THREE_ACES, "9S 2B 7B 8B 9B TB 2C 2D 9C")
    act(p, "7S", "9S", "9C")
    assert ACES in p.legal_actions()  # 2nd card, no Ace played yet
    # Declared on the same turn as its first Ace, which wins (own suit).
    act(p, "declare Aces")
    assert p.to_act == 0 and ACES not in p.legal_actions()  # at most once
    act(p, "AC")
    assert p.counts[0] == {ACES: 3} and not p.aces_failed[0]


def test_aces_not_legal_after_an_ace_was_played_undeclared():
    p = make_partie(THREE_ACES, "9S 2B 7B 8B 9B TB 2C 2D 9C")
    act(p, "AS", "9S")  # challenger's first Ace, undeclared; it wins and leads
    assert p.to_act == 0
    assert ACES not in p.legal_actions()  # still holds AC, AD: chance lost
    with pytest.raises(ValueError):
        p.apply(ACES)


def test_aces_with_first_card_config_only_at_the_first_card():
    cfg = RuleConfig(ace_declaration="first_card")
    p = make_partie(THREE_ACES, "9S 2B 7B 8B 9B TB 2C 2D 9C", config=cfg)
    assert ACES in p.legal_actions()
    act(p, "7S", "9S", "9C")
    assert ACES not in p.legal_actions()  # 2nd card, Aces all still held
    default = make_partie(THREE_ACES, "9S 2B 7B 8B 9B TB 2C 2D 9C")
    act(default, "7S", "9S", "9C")
    assert ACES in default.legal_actions()


def test_aces_not_legal_with_two():
    p = make_partie("AS AC 7S 7C 7D 8S 8C 8D 9S", "2S 9C 2C TC 2D 9D TS TD AD")
    assert ACES not in p.legal_actions()


def test_no_manko_for_aces():
    # Dealer declares 3 Aces at its 1st card; the challenger's 2nd card has no Manko.
    p = make_partie("9S 2B 7B 8B 9B TB 2C 2D 9C", THREE_ACES)
    act(p, "9S", "declare Aces", "AS", "AC")  # dealer wins trick 1, leads AC
    assert p.ncards[0] == 1 and p.to_act == 0
    assert MANKO not in p.legal_actions()


# ----------------------------------------------------------------- Bianka

BIANKA_HAND = "2S 7S 8S 9S TS 2C 7C 8C 9C"  # no court, no Ace


def test_bianka_legal_at_every_turn_until_declared():
    # Check each of the challenger's 9 turns (cards played lowest first),
    # declaring only at the last: 20 points, the dealer pays 10.
    p = make_partie(BIANKA_HAND, "TC BC CC RC AC BS CS RS AS")
    turns = 0
    while not p.terminal:
        if p.to_act == 0:
            turns += 1
            assert BIANKA in p.legal_actions(), f"turn {turns}"
            if turns == 9:
                act(p, "declare Bianka")
                assert p.to_act == 0 and BIANKA not in p.legal_actions()
        p.apply([a for a in p.legal_actions() if a < 36][0])
    assert turns == 9
    r = p.result()
    assert r.scores[0].declaration_points == 20
    assert r.declaration_tokens == (10, 0)


def test_bianka_and_blans_together_score_30_pay_15():
    p = make_partie(BIANKA_HAND, OTHER_DEALER)
    assert decls(p) == {BLANS, BIANKA}
    act(p, "declare Bianka", "declare Blans")
    r = play_lowest(p).result()
    assert r.scores[0].declaration_points == 30
    assert r.declaration_tokens == (15, 0)


def test_bianka_not_legal_with_an_ace():
    p = make_partie("2S 7S 8S 9S TS 2C 7C 8C AC", OTHER_DEALER)
    assert BIANKA not in p.legal_actions() and BLANS in p.legal_actions()


def test_bianka_condition_is_on_the_dealt_hand_courts_played_away_do_not_qualify():
    # Challenger's only court is BS; it leads it at trick 1 and has no court
    # left, yet Bianka stays illegal at all its turns (the dealt hand held a Bube).
    p = make_partie("BS 7S 8S 9S TS 2C 7C 8C 9C", "2S 2D 7D 8D 9D TD 7B 8B 9B")
    assert BIANKA not in p.legal_actions()
    act(p, "BS", "2S")
    assert p.to_act == 0 and p.hands[0] & COURT_MASK == 0
    while not p.terminal:
        if p.to_act == 0:
            assert BIANKA not in p.legal_actions()
        p.apply([a for a in p.legal_actions() if a < 36][0])


def test_dealer_may_declare_bianka_at_a_late_turn():
    p = make_partie("7D 8D 9D TD 7B 8B 9B TB RD", "2D 7S 8S 9S TS 2C 7C 8C 9C")
    # Four tricks by the lowest legal card, then the dealer declares at its turn.
    while p.trick < 4 or p.to_act != 1:
        p.apply([a for a in p.legal_actions() if a < 36][0])
    assert p.ncards[1] >= 4 and BIANKA in p.legal_actions()
    act(p, "declare Bianka")
    r = play_lowest(p).result()
    assert r.scores[1].declaration_points == 20 and r.declaration_tokens == (0, 10)


# ------------------------------------------------------------------ Manko

# Challenger: 3 Re (RS missing) + 3 Twos (2D missing).
MANKO_CH = "RC RD RB 2S 2C 2B 7S 7C 7D"
# Dealer: 4 Bube + 3 Cavall (CC missing).
MANKO_DE = "BS BC BD BB CS CD CB 8S 8C"


def test_first_card_declarations_of_both_hands():
    p = make_partie(MANKO_CH, MANKO_DE)
    assert decls(p) == {FIGURA_RE, FIGURA_TWOS}
    act(p, "declare Figura Re", "declare Figura Twos", "7S")
    # Dealer's 1st card: no Manko yet (it is not its 2nd card).
    assert decls(p) == {FIGURA_CAVALL, FIGURA_BUBE}


def test_manko_answers_every_3_card_figura_and_both_observe():
    p = make_partie(MANKO_CH, MANKO_DE)
    act(p, "declare Figura Re", "declare Figura Twos", "7S")
    act(p, "declare Figura Bube", "declare Figura Cavall", "8S")  # 8S wins trick 1
    assert p.counts[1] == {FIGURA_BUBE: 4, FIGURA_CAVALL: 3}
    # Dealer leads trick 2: its 2nd card; the challenger declared 3-card Figuras.
    assert p.to_act == 1 and MANKO in p.legal_actions()
    act(p, "ask Manko")
    # Re lacks Spade, Twos lack Denari.
    expected = ((RE, S), (TWO, D))
    assert p.manko_answer[0] == expected
    assert p.info_state(0).manko_answer[0] == expected
    assert p.info_state(1).manko_answer[0] == expected
    assert p.to_act == 1 and MANKO not in p.legal_actions()  # once
    with pytest.raises(ValueError):
        p.apply(MANKO)
    act(p, "8C")
    # Challenger's 2nd card: the dealer declared 3 Cavall (and 4 Bube, no Manko
    # for that): the answer names only the Cavall's missing Coppe.
    assert p.to_act == 0 and MANKO in p.legal_actions()
    act(p, "ask Manko")
    both = (((RE, S), (TWO, D)), ((CAVALL, C),))
    assert tuple(p.manko_answer) == both
    assert p.info_state(0).manko_answer == both
    assert p.info_state(1).manko_answer == both
    assert p.to_act == 0  # the asker still plays its card
    # Manko scores and costs nothing: declarations 6+10 and 12+6.
    r = play_lowest(p).result()
    assert r.scores[0].declaration_points == 16
    assert r.scores[1].declaration_points == 18
    assert r.declaration_tokens == (10, 15)


def test_manko_answer_uses_the_dealt_hand_after_a_figura_card_was_played():
    # 3 Re: RS RC RD, RB missing. The challenger leads RS at trick 1, so its
    # current hand lacks both RS and RB; the answer must still be Bastoni.
    p = make_partie("RS RC RD 7S 7C 7D 8S 8C 8D", "AS 9S 9C 9D TS TC TD 2B 7B")
    act(p, "declare Figura Re", "RS", "AS")  # AS wins; the dealer leads: its 2nd card
    act(p, "ask Manko")
    assert p.manko_answer[0] == ((RE, B),)


def test_manko_not_at_first_or_third_card():
    p = make_partie(MANKO_CH, MANKO_DE)
    act(p, "declare Figura Re", "7S")
    assert MANKO not in p.legal_actions()  # dealer's 1st card
    act(p, "8S", "8C")  # dealer wins, leads 8C (2nd card) without asking
    act(p, "2C")  # challenger's 2C loses to 8C; dealer leads again: its 3rd card
    assert p.to_act == 1 and p.ncards[1] == 2
    assert MANKO not in p.legal_actions()


def test_manko_not_for_4_card_figura_only():
    # Dealer declares only its 4 Bube: the challenger may not ask.
    p = make_partie(MANKO_CH, MANKO_DE)
    act(p, "7S", "declare Figura Bube", "8S", "8C")  # dealer wins trick 1, leads 8C
    assert p.to_act == 0 and p.ncards[0] == 1
    assert MANKO not in p.legal_actions()


def test_manko_not_when_figura_held_but_not_declared():
    p = make_partie(MANKO_CH, MANKO_DE)
    act(p, "7S", "8S")  # nobody declares
    assert p.to_act == 1 and p.ncards[1] == 1
    assert MANKO not in p.legal_actions()


def test_no_manko_for_blans():
    # Challenger declares Blans; the dealer's 2nd card has no Manko.
    p = make_partie("AS AC 7S 7C 8S 8C 9S 9C TS", "TC 7D 8D 9D TD 7B 8B 9B AD")
    act(p, "declare Blans", "7C", "TC")  # dealer wins, leads: its 2nd card
    assert p.to_act == 1 and p.ncards[1] == 1
    assert MANKO not in p.legal_actions()


def test_manko_is_legal_for_the_challenger_at_its_second_card_as_leader():
    # Trick 1: RC led, the dealer declares 3 Cavall and follows 8C: RC wins,
    # so the challenger leads trick 2, its 2nd card.
    p = make_partie(MANKO_CH, MANKO_DE)
    act(p, "RC", "declare Figura Cavall", "8C")
    assert p.to_act == 0 and p.lead < 0 and p.ncards[0] == 1
    assert MANKO in p.legal_actions()
    act(p, "ask Manko")
    assert p.manko_answer[1] == ((CAVALL, C),)


# -------------------------------------------------------- combinations


def test_seeds_example_aces_twos_blans_together():
    # AS AC AD + 2S 2C 2D + no court: Aces (3), Figura of Twos (3) and Blans,
    # all at the 1st card. The Aces are led and all win: 30 + 10 + 10 = 50
    # points; the dealer pays 5 + 5 + 5 = 15.
    p = make_partie("AS AC AD 2S 2C 2D 7S 7C 7D", "9S 9C 9D TS TC TD 8B 9B TB")
    assert decls(p) == {ACES, FIGURA_TWOS, BLANS}
    act(p, "declare Aces", "declare Figura Twos", "declare Blans")
    assert p.to_act == 0
    assert p.counts[0] == {ACES: 3, FIGURA_TWOS: 3, BLANS: 1}
    act(p, "AS", "9S", "AC", "9C", "AD", "9D")
    r = play_lowest(p).result()
    assert r.scores[0].declaration_points == 50
    assert r.declaration_tokens == (15, 0)
    names = [d[1] for d in r.details if d[0] == 0]
    assert "Aces (3) all won" in names and "Figura Twos (3)" in names and "Blans" in names
