"""The flow of a partie: play (docs/rules.md section 2.3), turns and Alifer proposals
(3, 6), rule violations (7), and what each seat may know (info_state, copy).
"""

import pytest
from helpers import act, legal_names, make_partie, play_lowest, state_key

from trappola_env.engine import (
    AGREED_ALIFER,
    DECIDED,
    FORFEIT,
    IllegalActionError,
    RuleConfig,
    action_id,
    card_id,
)
from trappola_env.engine.actions import (
    ACCEPT_ALIFER,
    DECLINE_ALIFER,
    FIGURA_RE,
    FIGURA_TWOS,
    PROPOSE_ALIFER,
)
from trappola_env.engine.partie import ALIFER_ANSWER, DONE, PLAY

FORFEIT_CFG = RuleConfig(illegal_action="forfeit")

# A deal with no possible declaration (nobody holds 3 of a rank, both hold
# courts), played in full by PLAY_F1 below.
F1_CH = "AS 7S 9S 2C TC RC 8D 2B 7B"
F1_DE = "RS 8S 2S 7C 9C AC 7D TD AD"

# trick: leader's card, follower's card -> winner (card points)
#  1: ch 7S, de 2S -> ch (0)       lower card of the led suit loses
#  2: ch 9S, de RS -> de (5)       higher card of the led suit wins
#  3: de 7C, ch RC -> ch (5)
#  4: ch 2B, de AD -> ch (6)       dealer void in Bastoni; off-suit Ace loses;
#                                  won with a Two: bonus 3 (10, dealer pays 5)
#  5: ch AS, de 8S -> ch (6)
#  6: ch 8D, de TD -> de (0)
#  7: de AC, ch 2C -> de (6)
#  8: de 9C, ch TC -> ch (0)
#  9: ch 7B, de 7D -> ch (0)       last trick, not with a Two: bonus 5 (6)
# Card points ch 5+6+6 = 17, de 5+6 = 11 (= 28, the points of the 18 dealt
# cards: AS RC | RS AC AD). Totals ch 17 + 10 + 6 = 33, de 11.
PLAY_F1 = ["7S", "2S", "9S", "RS", "7C", "RC", "2B", "AD", "AS", "8S", "8D", "TD", "AC", "2C", "9C", "TC", "7B", "7D"]
F1_WINNERS = [0, 1, 0, 0, 0, 1, 1, 0, 0]


def f1(**kw):
    return make_partie(F1_CH, F1_DE, **kw)


# ------------------------------------------------------------------ play


def test_f1_stock_is_a_valid_deal_with_bottom_last():
    stock = "BS CS TS BC CC 2D 9D BD CD RD 8B 9B TB BB CB RB AB 8C"
    p = make_partie(F1_CH, F1_DE, stock=stock)
    assert p.bottom == card_id("8C")
    assert p.info_state(0).bottom == p.info_state(1).bottom == card_id("8C")


def test_challenger_leads_trick_one_with_any_card():
    p = f1()
    assert p.to_act == 0 and p.phase == PLAY and p.lead < 0
    assert legal_names(p) == set(F1_CH.split()) | {"propose Alifer"}


def test_follower_must_follow_suit_with_any_card_of_it():
    p = act(f1(), "7S")
    assert p.to_act == 1
    # Any Spade, including the lower 2S: no duty to head the trick.
    assert legal_names(p) == {"2S", "8S", "RS", "propose Alifer"}


def test_void_follower_may_play_any_card():
    p = act(f1(), *PLAY_F1[:6], "2B")
    assert p.to_act == 1 and p.lead == card_id("2B")
    assert legal_names(p) == {"8S", "9C", "AC", "7D", "TD", "AD", "propose Alifer"}


def test_f1_trick_by_trick():
    p = f1()
    expected_points = [(0, 0), (0, 5), (5, 5), (11, 5), (17, 5), (17, 5), (17, 11), (17, 11), (17, 11)]
    for t in range(9):
        lead, follow = PLAY_F1[2 * t], PLAY_F1[2 * t + 1]
        leader = p.to_act
        # The winner of the previous trick leads (the challenger at trick 1).
        assert leader == (0 if t == 0 else F1_WINNERS[t - 1])
        act(p, lead, follow)
        assert p.tricks[t] == (leader, card_id(lead), card_id(follow), F1_WINNERS[t])
        assert tuple(p.card_points) == expected_points[t]
    assert p.terminal and p.phase == DONE and p.trick == 9
    assert p.ncards == [9, 9] and p.hands == [0, 0]
    assert p.two_winner == [-1, -1, -1, 0, -1, -1, -1, -1, -1]
    r = p.result()
    assert r.outcome == DECIDED and r.winner == 0
    assert [s.card_points for s in r.scores] == [17, 11]
    assert [s.bonus_points for s in r.scores] == [16, 0]
    assert [s.total for s in r.scores] == [33, 11]
    assert r.bonus_tokens == (0, 5) and r.declaration_tokens == (0, 0)
    assert r.tokens == (-10, -15) and r.bulka_in == 25


def test_off_suit_card_never_wins_even_with_a_higher_id():
    # 2S is id 0, AB id 35: the dealer (void in Spade) throws AB and loses.
    p = make_partie("2S 7C 8C 9C TC 7D 8D 9D TD", "AB 7B 8B 9B TB 2C 2D 2B BB")
    act(p, "2S", "AB")
    assert p.tricks[0][3] == 0 and p.card_points == [6, 0]
    assert p.to_act == 0


def test_partie_is_not_over_before_trick_9_and_result_refuses():
    p = act(f1(), *PLAY_F1[:17])
    assert not p.terminal and p.to_act == 1
    with pytest.raises(RuntimeError):
        p.result()
    act(p, PLAY_F1[17])
    assert p.terminal and p.legal_mask() == 0 and p.legal_actions() == []


def test_history_records_seat_and_action_in_order():
    p = act(f1(), "propose Alifer", "decline Alifer", "7S", "2S")
    assert p.history == [(0, 44), (1, 46), (0, card_id("7S")), (1, card_id("2S"))]


# ---------------------------------------------------------------- Alifer


def test_alifer_proposal_leaves_the_opponent_exactly_accept_or_decline():
    p = act(f1(), "propose Alifer")
    assert p.phase == ALIFER_ANSWER and p.to_act == 1
    assert p.legal_actions() == [ACCEPT_ALIFER, DECLINE_ALIFER]
    # Nothing else, not even a card of the answering seat.
    for a in (card_id("2S"), card_id("7S"), PROPOSE_ALIFER, FIGURA_RE):
        with pytest.raises(ValueError):
            p.apply(a)


def test_decline_returns_the_turn_to_the_proposer_who_may_declare_then_must_play():
    # Challenger: 3 Re and 3 Twos; it proposes before declaring.
    p = make_partie("RC RD RB 2S 2C 2B 7S 7C 7D", "BS BC BD BB CS CD CB 8S 8C")
    act(p, "propose Alifer", "decline Alifer")
    assert p.phase == PLAY and p.to_act == 0 and p.lead < 0
    assert PROPOSE_ALIFER not in p.legal_actions()  # once per partie per player
    act(p, "declare Figura Re", "declare Figura Twos")
    assert p.to_act == 0
    assert set(p.legal_actions()) == {card_id(n) for n in ["RC", "RD", "RB", "2S", "2C", "2B", "7S", "7C", "7D"]}
    act(p, "7S")
    assert p.to_act == 1
    # The dealer may still propose its own, once.
    assert PROPOSE_ALIFER in p.legal_actions()
    act(p, "propose Alifer", "decline Alifer")
    assert p.to_act == 1 and p.lead == card_id("7S")
    assert PROPOSE_ALIFER not in p.legal_actions()
    # The lead is still on the table: the dealer must follow suit.
    assert set(a for a in p.legal_actions() if a < 36) == {card_id("BS"), card_id("CS"), card_id("8S")}


def test_proposal_may_come_at_any_later_turn():
    p = act(f1(), *PLAY_F1[:10])
    assert p.to_act == 0 and PROPOSE_ALIFER in p.legal_actions()
    act(p, "propose Alifer")
    assert p.to_act == 1 and p.phase == ALIFER_ANSWER


def test_accept_ends_the_partie_agreed_alifer_no_winner_no_payments():
    # Challenger declares 3 Re and 3 Twos (payments 5 + 5 if settled), then
    # proposes; the dealer accepts: the partie is abandoned, only stakes paid.
    p = make_partie("RC RD RB 2S 2C 2B 7S 7C 7D", "BS BC BD BB CS CD CB 8S 8C", stake_multiple=2, multiplier=4)
    act(p, "declare Figura Re", "declare Figura Twos", "7S", "8S", "propose Alifer")
    # The dealer won trick 1 and proposed at its turn; the challenger accepts.
    assert p.to_act == 0 and p.phase == ALIFER_ANSWER
    act(p, "accept Alifer")
    assert p.terminal and p.legal_actions() == []
    r = p.result()
    assert r.outcome == AGREED_ALIFER and r.winner is None and not r.settled
    assert r.stake == 80  # 10 * 2 * 4
    assert r.tokens == (-80, -80)
    assert r.declaration_tokens == (0, 0) and r.bonus_tokens == (0, 0)
    assert r.bulka_in == 160
    assert all(pay == 0 for _, _, _, pay in r.details)
    with pytest.raises(ValueError, match="over"):
        p.apply(card_id("RC"))


# ---------------------------------------------------------- violations


def test_illegal_action_raises_naming_it_and_the_legal_ones_state_unchanged():
    p = act(f1(), "7S")
    before = state_key(p)
    with pytest.raises(IllegalActionError) as exc:
        p.apply(card_id("7C"))  # revoke: the dealer holds Spades
    assert isinstance(exc.value, ValueError)
    msg = str(exc.value)
    assert "play 7C" in msg
    for legal in ("play 2S", "play 8S", "play RS", "propose Alifer"):
        assert legal in msg
    assert state_key(p) == before


@pytest.mark.parametrize(
    "bad",
    [
        card_id("AS"),  # the opponent's card
        FIGURA_TWOS,  # not true of the hand
        ACCEPT_ALIFER,  # nothing proposed
        DECLINE_ALIFER,
        47,
        48,  # Pro: session only
        49,
        -1,
        1000,  # not actions
    ],
)
def test_illegal_actions_raise_and_leave_state_unchanged(bad):
    p = act(f1(), "7S")
    before = state_key(p)
    with pytest.raises(ValueError):
        p.apply(bad)
    assert state_key(p) == before


def test_forfeit_offender_loses_at_once_no_payments():
    p = make_partie("RC RD RB 2S 2C 2B 7S 7C 7D", "BS BC BD BB CS CD CB 8S 8C", config=FORFEIT_CFG)
    # The challenger declares 16 points of Figuras, then revokes at trick 2:
    # it loses whatever the score, and no declaration payment is settled.
    act(p, "declare Figura Re", "declare Figura Twos", "7S", "8S", "8C")
    p.apply(card_id("7D"))  # holds 2C, 7C: revoke
    assert p.terminal
    r = p.result()
    assert r.outcome == FORFEIT and r.winner == 1 and r.forfeited_by == 0
    assert r.scores[0].declaration_points == 16  # points stand, but decide nothing
    assert r.declaration_tokens == (0, 0) and r.bonus_tokens == (0, 0)
    assert r.tokens == (-10, -10) and r.bulka_in == 20
    assert p.history[-1] == (0, card_id("7D"))


def test_forfeit_while_answering_alifer():
    p = act(f1(config=FORFEIT_CFG), "propose Alifer")
    p.apply(card_id("2S"))  # the dealer must answer, not play
    r = p.result()
    assert r.outcome == FORFEIT and r.forfeited_by == 1 and r.winner == 0


def test_forfeit_mode_still_raises_after_the_end():
    p = act(f1(config=FORFEIT_CFG), *PLAY_F1)
    assert p.result().outcome == DECIDED
    before = state_key(p)
    with pytest.raises(ValueError):
        p.apply(card_id("7S"))
    assert state_key(p) == before


# ------------------------------------------------------------ information


def _info_key(info):
    return tuple(getattr(info, s) for s in type(info).__slots__)


def test_info_state_never_depends_on_opponent_hand_or_hidden_stock():
    # Two deals that differ only in which of the dealer's unplayed cards and
    # hidden stock cards are where: the dealer's TD <-> stock 9D, and two
    # hidden stock cards swapped. The challenger's view must be identical
    # at every point of the same play, as long as TD/9D are unplayed.
    stock_a = "BS CS TS BC CC 2D 9D BD CD RD 8B 9B TB BB CB RB AB 8C"
    stock_b = "CS BS TS BC CC 2D TD BD CD RD 8B 9B TB BB CB RB AB 8C"
    a = make_partie(F1_CH, F1_DE, stock=stock_a)
    b = make_partie(F1_CH, F1_DE.replace("TD", "9D"), stock=stock_b)
    seq = ["propose Alifer", "decline Alifer"] + PLAY_F1[:10]
    _assert_same_view(a, b, 0, seq)


def test_info_state_of_dealer_never_depends_on_challenger_hand():
    # The challenger's unplayed 7B <-> stock 8B.
    stock_a = "BS CS TS BC CC 2D 9D BD CD RD 8B 9B TB BB CB RB AB 8C"
    stock_b = "BS CS TS BC CC 2D 9D BD CD RD 7B 9B TB BB CB RB AB 8C"
    a = make_partie(F1_CH, F1_DE, stock=stock_a)
    b = make_partie(F1_CH.replace("7B", "8B"), F1_DE, stock=stock_b)
    _assert_same_view(a, b, 1, ["propose Alifer", "accept Alifer"])
    a, b = make_partie(F1_CH, F1_DE, stock=stock_a), make_partie(F1_CH.replace("7B", "8B"), F1_DE, stock=stock_b)
    _assert_same_view(a, b, 1, PLAY_F1[:16])


def _assert_same_view(a, b, seat, seq):
    assert a.hands[1 - seat] != b.hands[1 - seat]
    for step in range(len(seq) + 1):
        assert _info_key(a.info_state(seat)) == _info_key(b.info_state(seat)), step
        if step < len(seq):
            act(a, seq[step])
            act(b, seq[step])


def test_info_state_shows_own_hand_and_public_record_only():
    p = act(f1(), "7S", "2S", "9S")
    i0, i1 = p.info_state(0), p.info_state(1)
    assert i0.hand == p.hands[0] and i1.hand == p.hands[1]
    assert i0.dealt == p.dealt[0] and i1.dealt == p.dealt[1]
    assert i1.lead == card_id("9S") and i1.tricks == i0.tricks
    # Only the seat to act gets its legal mask.
    assert i1.legal_mask == p.legal_mask() and i0.legal_mask == 0
    # Unseen by the challenger: the dealer's 8 unplayed cards + 17 hidden stock.
    assert i0.unseen().bit_count() == 8 + 17
    assert i0.unseen() & p.hands[1] == p.hands[1]
    assert i0.played_by(0) == [card_id("7S"), card_id("9S")]
    assert i0.played_by(1) == [card_id("2S")]
    with pytest.raises(ValueError):
        p.info_state(2)


def test_info_state_records_void_suits():
    p = act(f1(), *PLAY_F1[:8])  # trick 4: dealer void in Bastoni
    assert p.info_state(0).void_suits(1) == {3}
    assert p.info_state(1).void_suits(0) == set()


def test_declarations_are_public_in_both_info_states():
    p = make_partie("RC RD RB 2S 2C 2B 7S 7C 7D", "BS BC BD BB CS CD CB 8S 8C")
    act(p, "declare Figura Re", "7S", "declare Figura Bube")
    for seat in (0, 1):
        info = p.info_state(seat)
        assert info.declarations == ({FIGURA_RE: 3}, {action_id("declare Figura Bube"): 4})


# ------------------------------------------------------------------ copy


def test_copy_is_independent_both_ways():
    p = make_partie("RC RD RB 2S 2C 2B 7S 7C 7D", "BS BC BD BB CS CD CB 8S 8C")
    act(p, "declare Figura Re")
    snap = state_key(p)
    q = p.copy()
    assert state_key(q) == snap
    act(q, "declare Figura Twos", "propose Alifer", "decline Alifer", "7S", "8S", "ask Manko")
    assert state_key(p) == snap
    assert p.counts[0] == {FIGURA_RE: 3} and p.history == [(0, FIGURA_RE)]
    q_snap = state_key(q)
    play_lowest(p)
    assert state_key(q) == q_snap
    play_lowest(q)
    assert p.result() != q.result()


def test_copy_then_same_actions_give_same_result():
    p = act(f1(), *PLAY_F1[:7])
    q = p.copy()
    act(p, *PLAY_F1[7:])
    act(q, *PLAY_F1[7:])
    assert state_key(p) == state_key(q)
    assert p.result() == q.result()
    assert repr(p) == repr(q)


def test_numpy_integer_actions_apply_like_ints():
    np = pytest.importorskip("numpy")
    p, q = act(f1(), *PLAY_F1), f1()
    for name in PLAY_F1:
        q.apply(np.int64(card_id(name)))
    assert state_key(p) == state_key(q)
    assert all(type(a) is int for _, a in q.history)


@pytest.mark.parametrize("bad", [True, 1.0, "7S", None])
def test_non_integer_actions_are_illegal(bad):
    p = f1()
    before = state_key(p)
    with pytest.raises(ValueError):
        p.apply(bad)
    assert state_key(p) == before


@pytest.mark.parametrize("deal", [None, {}, "AS 7S"])
def test_a_partie_needs_a_deal(deal):
    from trappola_env.engine import Partie

    with pytest.raises(TypeError, match="deal must be a Deal"):
        Partie(deal)


def test_session_is_part_of_the_engine_package():
    from trappola_env.engine import Session
    from trappola_env.engine.session import Session as S

    assert Session is S
