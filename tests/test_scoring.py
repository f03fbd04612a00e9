"""Totals and settlement (docs/rules.md sections 2.1, 2.4, 2.5, 4-7).

One hand-built deal, played the same way each time, with different
declarations, stakes and endings.
"""

import pytest
from helpers import act, make_partie, state_key

from trappola_env.engine import AGREED_ALIFER, DECIDED, FORFEIT, TIE, RuleConfig, card_id
from trappola_env.engine.actions import BLANS
from trappola_env.engine.scoring import settle

# Challenger: no court, no Ace (Blans and Bianka). Dealer: 3 Bube (BS, the
# missing one, is the face-up bottom card).
TIE_CH = "TS 7C 9C 8D 8B TD 9D 9B TB"
TIE_DE = "2S TC CD BC BB BD 8C RC 8S"
TIE_STOCK = "AS 7S RS AB 7B 2D CC 2C RD 2B CB 9S AC 7D AD CS RB BS"
# trick: leader's card, follower's card -> winner (points)
#  1: ch TS, de 2S -> ch (0)
#  2: ch 7C, de 8C -> de (0)
#  3: de 8S, ch 9C -> de (0)   ch void in Spade
#  4: de TC, ch 8D -> de (0)   ch void in Coppe
#  5: de BC, ch 9D -> de (3)
#  6: de RC, ch TD -> de (5)
#  7: de BD, ch 8B -> de (3)   ch void in Denari
#  8: de CD, ch 9B -> de (4)
#  9: de BB, ch TB -> de (3)   BB beats TB; not with a Two: bonus 5 (6)
# Card points: ch 0, de 18. Bonus: de 6.
TIE_PLAY = ["TS", "2S", "7C", "8C", "8S", "9C", "TC", "8D", "BC", "9D", "RC", "TD", "BD", "8B", "CD", "9B", "BB", "TB"]


def play_tie_deal(ch_decl=(), de_decl=(), **kw):
    p = make_partie(TIE_CH, TIE_DE, stock=TIE_STOCK, **kw)
    act(p, *ch_decl, "TS", *de_decl)
    act(p, *TIE_PLAY[1:])
    assert p.terminal
    return p.result()


def assert_balanced(r):
    assert r.tokens[0] + r.tokens[1] + r.bulka_in == 0


def test_equal_totals_are_a_tie_with_payments_settled():
    # ch: Blans 10 + Bianka 20 = 30. de: 18 card + Bube (3) 6 + last trick 6 = 30.
    # Payments: de pays ch 5 + 10 = 15; ch pays de 5. No trick-bonus payment.
    r = play_tie_deal(["declare Blans", "declare Bianka"], ["declare Figura Bube"])
    assert [s.total for s in r.scores] == [30, 30]
    assert r.outcome == TIE and r.winner is None and r.settled
    assert r.declaration_tokens == (15, 5)
    assert r.bonus_tokens == (0, 0)
    assert r.stake == 10
    assert r.tokens == (-10 + 15 - 5, -10 + 5 - 15) == (0, -20)
    assert r.bulka_in == 20
    assert_balanced(r)


@pytest.mark.parametrize(
    "ch_decl, de_decl, totals, winner",
    [
        # Bianka only: 20 < 30: the dealer wins.
        (["declare Bianka"], ["declare Figura Bube"], (20, 30), 1),
        # Dealer keeps quiet about its Bube: 30 > 24: the challenger wins with
        # no card points at all.
        (["declare Blans", "declare Bianka"], [], (30, 24), 0),
        # Nobody declares: 0 < 24.
        ([], [], (0, 24), 1),
    ],
)
def test_totals_decide(ch_decl, de_decl, totals, winner):
    r = play_tie_deal(ch_decl, de_decl)
    assert tuple(s.total for s in r.scores) == totals
    assert r.outcome == DECIDED and r.winner == winner
    assert_balanced(r)


@pytest.mark.parametrize("stake_multiple, m", [(1, 2), (3, 1), (2, 4)])
def test_stake_and_payments_scale_points_do_not(stake_multiple, m):
    u = stake_multiple * m
    r = play_tie_deal(
        ["declare Blans", "declare Bianka"], ["declare Figura Bube"], stake_multiple=stake_multiple, multiplier=m
    )
    assert [s.total for s in r.scores] == [30, 30] and r.outcome == TIE
    assert [s.declaration_points for s in r.scores] == [30, 6]
    assert r.stake == 10 * u
    assert r.declaration_tokens == (15 * u, 5 * u)
    assert r.tokens == (0, -20 * u)
    assert r.bulka_in == 20 * u
    pays = {d[1]: d[3] for d in r.details}
    assert pays == {"Blans": 5 * u, "Bianka": 10 * u, "Figura Bube (3)": 5 * u, "last trick": 0}
    assert_balanced(r)


def test_bonus_payments_scale_with_unit():
    # F1-like Two at trick 4 (see test_partie_flow): the dealer pays 5 units.
    from test_partie_flow import F1_CH, F1_DE, PLAY_F1

    r = act(make_partie(F1_CH, F1_DE, stake_multiple=2, multiplier=2), *PLAY_F1).result()
    assert [s.total for s in r.scores] == [33, 11]
    assert r.stake == 40
    assert r.bonus_tokens == (0, 20)
    assert r.tokens == (-40, -60) and r.bulka_in == 100
    assert_balanced(r)


def test_agreed_alifer_settles_stakes_only():
    p = make_partie(TIE_CH, TIE_DE, stock=TIE_STOCK, stake_multiple=2, multiplier=2)
    act(p, "declare Bianka", "TS", "declare Figura Bube", "propose Alifer", "accept Alifer")
    r = p.result()
    assert r.outcome == AGREED_ALIFER and r.winner is None and not r.settled
    assert r.tokens == (-40, -40) and r.bulka_in == 80
    assert r.declaration_tokens == (0, 0) and r.bonus_tokens == (0, 0)
    # Declarations stand as points of the play so far, but pay nothing.
    assert [s.declaration_points for s in r.scores] == [20, 6]
    assert_balanced(r)


def test_forfeit_settles_stakes_only_and_the_offender_loses():
    cfg = RuleConfig(illegal_action="forfeit")
    p = make_partie(TIE_CH, TIE_DE, stock=TIE_STOCK, config=cfg, multiplier=2)
    act(p, "declare Blans", "declare Bianka", "TS")
    p.apply(card_id("TC"))  # revoke: the dealer holds 2S and 8S
    r = p.result()
    assert r.outcome == FORFEIT and r.winner == 0 and r.forfeited_by == 1
    assert r.tokens == (-20, -20) and r.bulka_in == 40
    assert r.declaration_tokens == (0, 0)
    assert_balanced(r)


def test_dealer_forfeits_while_ahead():
    cfg = RuleConfig(illegal_action="forfeit")
    p = make_partie(TIE_CH, TIE_DE, stock=TIE_STOCK, config=cfg)
    act(p, "TS", "declare Figura Bube", *TIE_PLAY[1:16])
    assert p.to_act == 1 and p.card_points == [0, 15]
    p.apply(BLANS)  # the dealer holds courts
    r = p.result()
    assert r.outcome == FORFEIT and r.winner == 0 and r.forfeited_by == 1
    assert r.scores[1].total > r.scores[0].total  # ahead, yet it loses


def test_raise_mode_is_the_default_and_leaves_the_state_untouched():
    p = make_partie(TIE_CH, TIE_DE, stock=TIE_STOCK)
    act(p, "TS", "2S", "7C")  # the dealer follows 7C; it holds TC and 8C
    before = state_key(p)
    with pytest.raises(ValueError, match=r"play 8S.*legal:.*play 8C"):
        p.apply(card_id("8S"))
    with pytest.raises(ValueError, match="declare Blans"):
        p.apply(BLANS)  # the dealer holds courts, and it is not its 1st card
    assert state_key(p) == before
    act(p, *TIE_PLAY[3:])
    assert p.result().outcome == DECIDED


def test_details_list_every_line_with_tokens():
    r = play_tie_deal(["declare Blans", "declare Bianka"], ["declare Figura Bube"])
    assert sorted(r.details) == sorted(
        [
            (0, "Blans", 10, 5),
            (0, "Bianka", 20, 10),
            (1, "Figura Bube (3)", 6, 5),
            (1, "last trick", 6, 0),
        ]
    )
    assert r.scores[0].to_dict() == {"card_points": 0, "declaration_points": 30, "bonus_points": 0, "total": 30}


def test_settling_a_partie_still_in_play_is_refused():
    p = make_partie(TIE_CH, TIE_DE, stock=TIE_STOCK)
    act(p, "TS")
    with pytest.raises(RuntimeError, match="not over"):
        settle(p)
    with pytest.raises(RuntimeError, match="not over"):
        p.result()
