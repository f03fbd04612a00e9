"""Cards, the action table and the deal (docs/rules.md sections 1, 2.2 and 9)."""

import random

import pytest
from helpers import make_deal_spec

from trappola_env.engine import (
    ACTION_NAMES,
    N_ACTIONS,
    action_id,
    action_name,
    card_id,
    card_name,
    deal_from_names,
    deal_from_order,
    random_deal,
)
from trappola_env.engine.cards import (
    ACE_MASK,
    CARD_NAMES,
    CARD_POINTS,
    COURT_MASK,
    cards_of,
    mask_of,
    names_of,
    points_of,
    rank_of,
    suit_of,
)

# ---------------------------------------------------------------- cards


@pytest.mark.parametrize(
    "name, cid",
    [
        ("2S", 0),
        ("AS", 8),
        ("TC", 13),
        ("BD", 23),
        ("CB", 33),
        ("AB", 35),
        # More from the formula suit*9 + rank: 7S=1, 2C=9, RD=2*9+7=25, 2B=27.
        ("7S", 1),
        ("2C", 9),
        ("RD", 25),
        ("2B", 27),
    ],
)
def test_card_ids_and_names_match_rules_section_1(name, cid):
    assert card_id(name) == cid
    assert card_name(cid) == name


def test_every_card_id_is_suit_times_nine_plus_rank():
    suits, ranks = "SCDB", "2789TBCRA"
    for s, sc in enumerate(suits):
        for r, rc in enumerate(ranks):
            cid = s * 9 + r
            assert CARD_NAMES[cid] == rc + sc
            assert (suit_of(cid), rank_of(cid)) == (s, r)
    assert len(set(CARD_NAMES)) == 36


def test_card_points_are_bube_3_cavall_4_re_5_ace_6_rest_0():
    expected = {"2": 0, "7": 0, "8": 0, "9": 0, "T": 0, "B": 3, "C": 4, "R": 5, "A": 6}
    for cid, name in enumerate(CARD_NAMES):
        assert CARD_POINTS[cid] == expected[name[0]], name
    # 4 suits * (3 + 4 + 5 + 6) = 72 points in the deck.
    assert sum(CARD_POINTS) == 72


def test_court_cards_are_bube_cavall_re_and_not_the_ace():
    assert sorted(names_of(COURT_MASK)) == sorted(r + s for r in "BCR" for s in "SCDB")
    assert COURT_MASK & ACE_MASK == 0
    assert names_of(ACE_MASK) == ["AS", "AC", "AD", "AB"]


def test_card_id_accepts_lowercase_and_spaces_and_ids():
    assert card_id(" as ") == 8
    assert card_id("bd") == 23
    assert card_id(35) == 35


@pytest.mark.parametrize("bad", ["", "1S", "AX", "SA", "A", "10S", "2SS", None, 36, -1, 3.5])
def test_card_id_rejects_bad_names(bad):
    with pytest.raises(ValueError):
        card_id(bad)


@pytest.mark.parametrize("bad", [36, -1, "AS", None, 1.0])
def test_card_name_rejects_bad_ids(bad):
    with pytest.raises(ValueError):
        card_name(bad)


def test_mask_helpers_round_trip():
    ids = [0, 8, 13, 23, 33, 35]
    m = mask_of(ids)
    assert cards_of(m) == ids
    assert names_of(m) == ["2S", "AS", "TC", "BD", "CB", "AB"]
    # 6 (AS) + 3 (BD) + 4 (CB) + 6 (AB).
    assert points_of(m) == 19


# ---------------------------------------------------------------- actions

SECTION_9 = {
    36: "declare Figura Re",
    37: "declare Figura Cavall",
    38: "declare Figura Bube",
    39: "declare Figura Twos",
    40: "declare Aces",
    41: "declare Blans",
    42: "declare Bianka",
    43: "ask Manko",
    44: "propose Alifer",
    45: "accept Alifer",
    46: "decline Alifer",
    47: "declare Pro",
    48: "do not declare Pro",
}


def test_action_table_has_49_ids():
    assert N_ACTIONS == 49
    assert len(ACTION_NAMES) == 49


@pytest.mark.parametrize("aid", range(36))
def test_card_actions_play_the_card_with_that_id(aid):
    assert action_name(aid) == f"play {CARD_NAMES[aid]}"
    assert action_id(f"play {CARD_NAMES[aid]}") == aid
    # A bare card name means playing it.
    assert action_id(CARD_NAMES[aid]) == aid


@pytest.mark.parametrize("aid, name", sorted(SECTION_9.items()))
def test_non_card_action_names_match_section_9(aid, name):
    assert action_name(aid) == name
    assert action_id(name) == aid
    assert action_id(name.upper()) == aid
    assert action_id("  " + name.replace(" ", "   ") + " ") == aid


@pytest.mark.parametrize("bad", [49, -1, 100, None, "x"])
def test_action_name_rejects_bad_ids(bad):
    with pytest.raises(ValueError):
        action_name(bad)


@pytest.mark.parametrize("bad", ["declare Figura Ace", "play", "play 1S", "Manko", "", 49, -1])
def test_action_id_rejects_bad_names(bad):
    with pytest.raises(ValueError):
        action_id(bad)


def test_cards_of_lists_bits_ascending():
    assert cards_of((1 << 0) | (1 << 36) | (1 << 48)) == [0, 36, 48]
    assert cards_of(0) == []


# ---------------------------------------------------------------- deal


def test_deal_from_order_gives_packets_of_three_challenger_first():
    order = list(range(36))
    d = deal_from_order(order)
    # Packets: ch 0-2, de 3-5, ch 6-8, de 9-11, ch 12-14, de 15-17; stock 18..35.
    assert d.challenger == (0, 1, 2, 6, 7, 8, 12, 13, 14)
    assert d.dealer == (3, 4, 5, 9, 10, 11, 15, 16, 17)
    assert d.stock == tuple(range(18, 36))
    assert d.bottom == 35


def test_random_deal_deals_the_shuffled_deck_in_packets():
    rng = random.Random(7)
    d = random_deal(rng)
    order = list(range(36))
    random.Random(7).shuffle(order)
    assert d == deal_from_order(order)
    assert sorted(d.challenger + d.dealer + d.stock) == list(range(36))
    assert len(d.challenger) == len(d.dealer) == 9 and len(d.stock) == 18
    assert d.bottom == order[35]


def test_random_deal_is_reproducible_and_varies_with_seed():
    assert random_deal(random.Random(3)) == random_deal(random.Random(3))
    assert random_deal(random.Random(3)) != random_deal(random.Random(4))


def _spec():
    return make_deal_spec(
        "2S 7S 8S 9S TS BS CS RS AS",
        "2C 7C 8C 9C TC BC CC RC AC",
        "2D 7D 8D 9D TD BD CD RD AD 2B 7B 8B 9B TB BB CB RB AB",
    )


def test_deal_from_names_builds_the_deal_with_bottom_last():
    d = deal_from_names(_spec())
    assert d.challenger == tuple(range(9))
    assert d.dealer == tuple(range(9, 18))
    assert d.stock == tuple(range(18, 36))
    assert d.bottom == card_id("AB")
    assert d.to_names() == _spec()
    assert d.hands == (mask_of(range(9)), mask_of(range(9, 18)))


def test_deal_from_names_accepts_ids():
    spec = {k: [card_id(n) for n in v] for k, v in _spec().items()}
    assert deal_from_names(spec) == deal_from_names(_spec())


def test_deal_rejects_unknown_name_naming_it():
    spec = _spec()
    spec["dealer"][0] = "XC"
    with pytest.raises(ValueError, match="XC"):
        deal_from_names(spec)


def test_deal_rejects_duplicate_naming_card_and_places():
    spec = _spec()
    spec["stock"][0] = "AS"  # AS is also in the challenger's hand
    with pytest.raises(ValueError, match=r"AS.*twice.*challenger.*stock"):
        deal_from_names(spec)


def test_deal_rejects_duplicate_within_one_hand():
    spec = _spec()
    spec["challenger"][1] = "2S"
    with pytest.raises(ValueError, match=r"2S.*twice"):
        deal_from_names(spec)


@pytest.mark.parametrize("key, n", [("challenger", 8), ("dealer", 10), ("stock", 17)])
def test_deal_rejects_wrong_counts_naming_key_and_count(key, n):
    spec = _spec()
    full = spec["challenger"] + spec["dealer"] + spec["stock"]
    if n < len(spec[key]):
        spec[key] = spec[key][:n]
    else:
        spec[key] = spec[key] + [c for c in full if c not in spec[key]][: n - len(spec[key])]
    expected = {"challenger": 9, "dealer": 9, "stock": 18}[key]
    with pytest.raises(ValueError, match=rf"{key}.*{expected} cards.*got {n}"):
        deal_from_names(spec)


@pytest.mark.parametrize("key", ["challenger", "dealer", "stock"])
def test_deal_rejects_missing_key_naming_it(key):
    spec = _spec()
    del spec[key]
    with pytest.raises(ValueError, match=f"missing '{key}'"):
        deal_from_names(spec)


def test_deal_rejects_unknown_key_and_non_dict():
    spec = _spec()
    spec["bottom"] = ["AB"]
    with pytest.raises(ValueError, match="bottom"):
        deal_from_names(spec)
    with pytest.raises(ValueError, match="dict"):
        deal_from_names([["AS"] * 9])


@pytest.mark.parametrize("bad", [None, 5, "AS 7S 8S 9S TS BS CS RS 2S"])
def test_deal_rejects_a_hand_that_is_not_a_list_of_names(bad):
    spec = _spec()
    spec["challenger"] = bad
    with pytest.raises(ValueError, match="challenger.*list"):
        deal_from_names(spec)


def test_card_ids_may_be_numpy_integers_but_not_bools():
    np = pytest.importorskip("numpy")
    assert card_id(np.int64(35)) == 35 and type(card_id(np.int64(35))) is int
    assert card_name(np.int8(8)) == "AS"
    spec = {k: [card_id(n) for n in v] for k, v in _spec().items()}
    spec["stock"] = list(np.array(spec["stock"]))
    assert deal_from_names(spec) == deal_from_names(_spec())
    for bad in (True, False):
        with pytest.raises(ValueError):
            card_id(bad)
        with pytest.raises(ValueError):
            card_name(bad)
