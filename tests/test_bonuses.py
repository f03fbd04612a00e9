"""Trick bonuses (docs/rules.md section 5, Art. 10): full hand-built parties
with hand-computed totals, and the bonus table on its own.

Note on reachability: a trick is "won with a Two" only by its leader (a
Two led to a void follower), and the winner of trick t leads trick t+1, so
in real play consecutive Two-won tricks are always won by the same player.
A split run (A wins trick 7 with a Two, B wins 8 and 9 with Twos) therefore
cannot occur in a played partie; the bonus table's answer for it is checked
here on ``trick_bonuses`` and ``settle`` directly.
"""

from types import SimpleNamespace

import pytest
from helpers import act, make_partie

from trappola_env.engine import DECIDED
from trappola_env.engine.bonuses import last_two_streak, trick_bonuses
from trappola_env.engine.scoring import settle

# ------------------------------------------------- played parties

# Challenger: three Twos, low Spades and Coppe, AB. Dealer: TS and eight
# Bastoni, so it is void in Coppe and Denari throughout and in Spade after
# trick 1.
# Trick 1: ch 7S, de TS -> de (0 points). Trick 2: de 2B, ch AB -> ch (6).
# Tricks 3-9: the challenger leads the rest and wins them all (the dealer
# discards 7B 8B 9B TB BB CB RB: 3 + 4 + 5 = 12 points).
# Challenger card points 18, dealer 0; no Marc (dealer won trick 1).
TWOS_CH = "2S 2C 2D 7S 8S 9S 7C 8C AB"
TWOS_DE = "TS 2B 7B 8B 9B TB BB CB RB"
TWOS_OPENING = ["7S", "TS", "2B", "AB"]
DEALER_DISCARDS = ["7B", "8B", "9B", "TB", "BB", "CB", "RB"]


@pytest.mark.parametrize(
    "leads, bonus_points, bulka_from_dealer, s",
    [
        # Twos at tricks 4, 8, 9: s = 2 -> 4b (52, pays 20); trick 4 -> bonus 3
        # (10, pays 5); trick 8 is among the last s, no bonus 3.
        (["8S", "2S", "9S", "7C", "8C", "2C", "2D"], 62, 25, 2),
        # Twos at tricks 4, 7, 9: s = 1 -> 4a (26, 10); tricks 4 and 7 -> 2 x (10, 5).
        (["8S", "2S", "9S", "7C", "2C", "8C", "2D"], 46, 20, 1),
        # Twos at 7, 8, 9: s = 3 -> 4c (78, 30); no bonus 3.
        (["8S", "9S", "7C", "8C", "2S", "2C", "2D"], 78, 30, 3),
        # Twos at 3, 5, 8, trick 9 won with 8C: s = 0 -> 3 x bonus 3 (30, 15)
        # and bonus 5 to the winner of trick 9 (6, no payment).
        (["2S", "8S", "2C", "9S", "7C", "2D", "8C"], 36, 15, 0),
    ],
)
def test_twos_bonuses_in_a_played_partie(leads, bonus_points, bulka_from_dealer, s):
    p = make_partie(TWOS_CH, TWOS_DE)
    act(p, *TWOS_OPENING)
    for lead, discard in zip(leads, DEALER_DISCARDS, strict=True):
        act(p, lead, discard)
    assert p.terminal
    assert [t[3] for t in p.tricks] == [1] + [0] * 8
    assert last_two_streak(p.two_winner) == s
    r = p.result()
    assert r.scores[0].card_points == 18 and r.scores[1].card_points == 0
    assert r.scores[0].bonus_points == bonus_points
    assert r.scores[1].bonus_points == 0
    assert r.scores[0].total == 18 + bonus_points
    assert r.outcome == DECIDED and r.winner == 0
    # The earner's opponent pays into the Bulka.
    assert r.bonus_tokens == (0, bulka_from_dealer)
    assert r.tokens == (-10, -10 - bulka_from_dealer)
    assert r.bulka_in == 20 + bulka_from_dealer


def test_marc_adds_to_trick_one_two_and_last_trick():
    # Challenger holds all nine Spades, the dealer none. 2S led at trick 1
    # wins (dealer void): bonus 2 (52, pays 20). The challenger wins every
    # trick: Marc (30, pays 10). Trick 9 won with 7S: s = 0, bonus 5 (6).
    # Card points AS RS CS BS = 18. Total 18 + 52 + 30 + 6 = 106.
    p = make_partie("2S 7S 8S 9S TS BS CS RS AS", "2C 7C 8C 9C TC 2D 7D 8D 9D")
    leads = ["2S", "AS", "RS", "CS", "BS", "TS", "9S", "8S", "7S"]
    discards = ["2C", "7C", "8C", "9C", "TC", "2D", "7D", "8D", "9D"]
    for lead, discard in zip(leads, discards, strict=True):
        act(p, lead, discard)
    r = p.result()
    assert r.scores[0].card_points == 18
    assert r.scores[0].bonus_points == 30 + 52 + 6
    assert r.scores[1].total == 0
    assert r.bonus_tokens == (0, 30)
    assert r.tokens == (-10, -40) and r.bulka_in == 50
    assert {d[1] for d in r.details} == {"Marc", "trick 1 with a Two", "last trick"}


def test_marc_with_4c():
    # Dealer holds all nine Bastoni, so the challenger wins every trick it
    # leads: 7S 8S 9S 7C 8C 9C, then 2S 2C 2D (s = 3). Marc 30 + 4c 78 = 108
    # bonus points; card points of the dealer's court and Ace discards 18.
    p = make_partie("2S 2C 2D 7S 8S 9S 7C 8C 9C", "2B 7B 8B 9B TB BB CB RB AB")
    leads = ["7S", "8S", "9S", "7C", "8C", "9C", "2S", "2C", "2D"]
    discards = ["2B", "7B", "8B", "9B", "TB", "BB", "CB", "RB", "AB"]
    for lead, discard in zip(leads, discards, strict=True):
        act(p, lead, discard)
    r = p.result()
    assert r.scores[0].bonus_points == 108
    assert r.scores[0].total == 126
    assert r.bonus_tokens == (0, 40)


def test_marc_by_the_dealer_is_paid_by_the_challenger():
    # Challenger has no Spade; its 7C loses to AC, then the dealer leads its
    # eight Spades. Dealer: Marc 30 + last trick (7S) 6 + card points
    # AC AS RS CS BS = 24: total 60. The challenger pays 10.
    p = make_partie("7C 8C 9C TC 2D 7D 8D 9D TD", "AC AS RS CS BS TS 9S 8S 7S")
    act(p, "7C", "AC")
    for lead, discard in zip(
        ["AS", "RS", "CS", "BS", "TS", "9S", "8S", "7S"], ["8C", "9C", "TC", "2D", "7D", "8D", "9D", "TD"], strict=True
    ):
        act(p, lead, discard)
    r = p.result()
    assert r.winner == 1
    assert [s.total for s in r.scores] == [0, 60]
    assert r.scores[1].bonus_points == 36
    assert r.bonus_tokens == (10, 0)
    assert r.tokens == (-20, -10)


def test_two_led_at_trick_one_that_loses_earns_nothing():
    # 2S led, the dealer follows with TS and wins: trick 1 is not won with a Two.
    p = make_partie(TWOS_CH, TWOS_DE)
    act(p, "2S", "TS")
    assert p.tricks[0][3] == 1 and p.two_winner == [-1]


def test_a_two_thrown_by_a_void_follower_is_not_a_win_with_a_two():
    # Trick 1: 7S led, the dealer (void in Spade) throws 2B: the challenger
    # wins with 7S, not with a Two; the dealer's Two won nothing.
    p = make_partie("7S 2S 2C 2D 8S 9S 7C 8C AB", "2B 7B 8B 9B TB BB CB RB TC")
    act(p, "7S", "2B")
    assert p.tricks[0][3] == 0 and p.two_winner == [-1]
    # Trick 2: the challenger leads 2S, the dealer still void: won with a Two.
    act(p, "2S", "7B")
    assert p.two_winner == [-1, 0]


def test_trick_one_two_wins_the_partie_with_one_trick():
    # Trick 1: 2S led, the dealer (void in Spade) throws AB: won with a Two,
    #   bonus 2 to the challenger (52, the dealer pays 20); +6 card points.
    # Trick 2: ch 7C, de AC -> de (6). Trick 3: de AD, ch 7D -> de (6).
    # Trick 4: de 2B, ch (void in Bastoni) 8C -> de with a Two: bonus 3 to
    #   the dealer (10, the challenger pays 5).
    # Tricks 5-9: de 7B 8B 9B TB BB, ch 9C TC 8D 9D TD -> de (BB: 3); trick 9
    #   not won with a Two: bonus 5 to the dealer (6, nobody pays).
    # Challenger 6 + 52 = 58, dealer 15 + 10 + 6 = 31: one trick wins.
    p = make_partie("2S 7C 8C 9C TC 7D 8D 9D TD", "AB 7B 8B 9B TB AC AD 2B BB")
    act(p, "2S", "AB", "7C", "AC", "AD", "7D", "2B", "8C")
    for lead, follow in [("7B", "9C"), ("8B", "TC"), ("9B", "8D"), ("TB", "9D"), ("BB", "TD")]:
        act(p, lead, follow)
    assert [t[3] for t in p.tricks] == [0] + [1] * 8
    assert p.two_winner == [0, -1, -1, 1, -1, -1, -1, -1, -1]
    r = p.result()
    assert [s.card_points for s in r.scores] == [6, 15]
    assert [s.bonus_points for s in r.scores] == [52, 16]
    assert [s.total for s in r.scores] == [58, 31]
    assert r.winner == 0 and r.outcome == DECIDED
    assert r.bonus_tokens == (5, 20)
    assert r.tokens == (-15, -30) and r.bulka_in == 45
    got = {d[1]: d for d in r.details}
    assert got["last trick"] == (1, "last trick", 6, 0)
    assert got["trick 1 with a Two"] == (0, "trick 1 with a Two", 52, 20)
    assert got["trick 4 with a Two"] == (1, "trick 4 with a Two", 10, 5)


# ------------------------------------------------- the bonus table itself


def _by_name(bonuses):
    return {name: (seat, pts, pay) for name, seat, pts, pay in bonuses}


A, B = 0, 1


def test_rules_example_trick_7_by_a_tricks_8_9_by_b():
    winners = [A, B, A, B, A, B, A, B, B]
    two_winner = [-1] * 6 + [A, B, B]
    assert last_two_streak(two_winner) == 2  # trick 7 is A's, not B's
    got = _by_name(trick_bonuses(winners, two_winner))
    assert got == {"4b: last 2 with Twos": (B, 52, 20), "trick 7 with a Two": (A, 10, 5)}


def test_rules_example_settlement_who_pays_into_the_bulka():
    # The same example through settle(): A pays 20 into the Bulka for B's
    # 4b, B pays 5 for A's trick 7.
    winners = [A, B, A, B, A, B, A, B, B]
    stub = SimpleNamespace(
        unit=1,
        outcome=DECIDED,
        winner=B,
        forfeited_by=None,
        tricks=[(0, 0, 0, w) for w in winners],
        two_winner=[-1] * 6 + [A, B, B],
        counts=({}, {}),
        aces_failed=[False, False],
        card_points=[0, 0],
    )
    r = settle(stub)
    assert r.bonus_tokens == (20, 5)
    assert [s.bonus_points for s in r.scores] == [10, 52]
    assert r.tokens == (-30, -15) and r.bulka_in == 45
    stub.unit = 4  # stake_multiple * m
    r = settle(stub)
    assert r.bonus_tokens == (80, 20) and [s.bonus_points for s in r.scores] == [10, 52]


@pytest.mark.parametrize(
    "two_winner, s",
    [
        ([-1] * 9, 0),
        ([-1] * 8 + [A], 1),
        ([-1] * 7 + [A, A], 2),
        ([-1] * 6 + [A, A, A], 3),
        ([A] * 9, 3),  # never more than 3
        ([-1] * 7 + [B, A], 1),  # different players break the streak
        ([-1] * 6 + [A, -1, A], 1),
        ([-1] * 6 + [A, A, -1], 0),
    ],
)
def test_last_two_streak(two_winner, s):
    assert last_two_streak(two_winner) == s


def test_twos_on_every_trick_by_one_player():
    # Tricks 1..9 all won with Twos by A (hypothetical: only 4 Twos exist).
    got = trick_bonuses([A] * 9, [A] * 9)
    names = sorted(n for n, *_ in got)
    # Marc, trick 1 (52), tricks 2..6 bonus 3 (7, 8, 9 are the last s = 3), 4c.
    assert names == sorted(
        ["Marc", "trick 1 with a Two", "4c: last 3 with Twos"] + [f"trick {t} with a Two" for t in range(2, 7)]
    )
    assert sum(pts for *_, pts, _ in got) == 30 + 52 + 5 * 10 + 78
    assert sum(pay for *_, pay in got) == 10 + 20 + 5 * 5 + 30


def test_bonus_5_only_when_s_is_0():
    with_two = _by_name(trick_bonuses([A] * 8 + [B], [-1] * 8 + [B]))
    assert "last trick" not in with_two
    assert with_two["4a: last 1 with Twos"] == (B, 26, 10)
    without = _by_name(trick_bonuses([A] * 8 + [B], [-1] * 9))
    assert without == {"last trick": (B, 6, 0)}


def test_trick_1_with_a_two_is_not_bonus_3():
    got = _by_name(trick_bonuses([A, B] * 4 + [A], [A] + [-1] * 8))
    assert got == {"trick 1 with a Two": (A, 52, 20), "last trick": (A, 6, 0)}
