"""The observer: layout as data (and the documented table), encode vs the
engine's own view of what a seat may know, the incremental Observer,
decoding, bounds, and that hidden cards never change an observation."""

import math
import random
import re

import numpy as np
import pytest
from helpers import act, make_partie

from trappola_env import trappola_v0
from trappola_env.engine import Partie, RuleConfig, cards_of, deal_from_names, random_deal
from trappola_env.engine.actions import ACTION_NAMES, MANKO, PROPOSE_ALIFER
from trappola_env.engine.cards import BUBE, CARD_NAMES, CAVALL, RE, SUITS, TWO, names_of
from trappola_env.engine.partie import ALIFER_ANSWER
from trappola_env.observation import (
    FIELDS,
    LAYOUT,
    MULTIPLIER_LOG2_MAX,
    N_BITS,
    OBS_SIZE,
    OFFSET,
    Observer,
    decode_observation,
    encode,
    multiplier_feature,
)

RANK_NAME = {RE: "Re", CAVALL: "Cavall", BUBE: "Bube", TWO: "Twos"}
FORFEIT_CFG = RuleConfig(illegal_action="forfeit")


def expected_view(partie, seat):
    """What decode_observation must return, built from the engine's
    InfoState (its own statement of what a seat may know)."""
    info = partie.info_state(seat)
    opp = 1 - seat
    who = {seat: "me", opp: "opponent"}
    played = {seat: {}, opp: {}}
    tricks = []
    for t, (leader, lead, follow, winner) in enumerate(info.tricks):
        played[leader][CARD_NAMES[lead]] = t + 1
        played[1 - leader][CARD_NAMES[follow]] = t + 1
        tricks.append({"trick": t + 1, "led_by": who[leader], "won_by": who[winner]})
    if info.lead >= 0:
        played[info.leader][CARD_NAMES[info.lead]] = info.trick + 1
    pending = None
    if info.phase == ALIFER_ANSWER:
        pending = who[info.alifer_proposer]
    return {
        "role": info.role,
        "hand": names_of(info.hand),
        "dealt_hand": names_of(info.dealt),
        "stock_bottom": CARD_NAMES[info.bottom],
        "played_by_me": played[seat],
        "played_by_opponent": played[opp],
        "table_lead": CARD_NAMES[info.lead] if info.lead >= 0 else None,
        "tricks": tricks,
        "declarations": {
            who[s]: {ACTION_NAMES[a].removeprefix("declare "): n for a, n in info.declarations[s].items()}
            for s in (seat, opp)
        },
        "manko_asked": {who[s]: bool(info.used[s] >> MANKO & 1) for s in (seat, opp)},
        "manko_answers": {
            who[s]: {RANK_NAME[r]: SUITS[x] for r, x in (info.manko_answer[s] or ())} for s in (seat, opp)
        },
        "card_points": {who[s]: info.card_points[s] for s in (seat, opp)},
        "trick_number": info.trick,
        "multiplier": min(info.multiplier, 2**MULTIPLIER_LOG2_MAX),
        "alifer_pending": pending,
        "alifer_proposed": {who[s]: bool(info.used[s] >> PROPOSE_ALIFER & 1) for s in (seat, opp)},
    }


def random_parties(n, seed, forfeits=False):
    """Yield (partie after each action) over ``n`` random parties; with
    ``forfeits`` some parties end by a random illegal action."""
    rng = random.Random(seed)
    for g in range(n):
        cfg = FORFEIT_CFG if forfeits and g % 2 else RuleConfig(ace_declaration=rng.choice(["first_ace", "first_card"]))
        p = Partie(random_deal(rng), cfg, stake_multiple=rng.choice([1, 3]), multiplier=rng.choice([1, 2, 8, 3, 2**20]))
        yield p
        while not p.terminal:
            if cfg is FORFEIT_CFG and rng.random() < 0.03:
                p.apply(rng.randrange(49))
            else:
                legal = cards_of(p.legal_mask())
                p.apply(rng.choice(legal))
            yield p


# ------------------------------------------------------------------ layout


def test_layout_is_contiguous_and_named_once():
    assert [name for name, _, _ in LAYOUT] == [name for name, _, _ in FIELDS]
    offset = 0
    for (_name, off, size), (_, fsize, _) in zip(LAYOUT, FIELDS, strict=True):
        assert off == offset and size == fsize > 0
        offset += size
    assert offset == OBS_SIZE == 347
    assert len({n for n, _, _ in LAYOUT}) == len(LAYOUT)
    assert N_BITS == OFFSET["played_in_trick"] == 307


def test_docstring_table_matches_the_layout_data():
    rows = re.findall(r"^\| `(\w+)` \| (\d+) \| (\d+) \|", trappola_v0.__doc__, flags=re.M)
    assert [(name, int(off), int(size)) for name, off, size in rows] == LAYOUT
    assert f"({OBS_SIZE},)" in trappola_v0.__doc__


# ------------------------------------------------------- encode and decode


def test_decode_of_encode_matches_the_engine_info_state_in_random_parties():
    states = 0
    seen_features = set()
    for p in random_parties(300, seed=1, forfeits=True):
        for seat in (0, 1):
            vec = encode(p, seat)
            view = decode_observation(vec)
            assert view == expected_view(p, seat)
            states += 1
            for key in ("declarations", "manko_answers"):
                if view[key]["opponent"]:
                    seen_features.add(key)
            if view["alifer_pending"]:
                seen_features.add("alifer_pending")
    assert states > 5000
    assert seen_features == {"declarations", "manko_answers", "alifer_pending"}


def test_values_lie_in_unit_interval_and_the_bits_are_binary():
    for p in random_parties(100, seed=2):
        for seat in (0, 1):
            vec = encode(p, seat)
            assert vec.dtype == np.float32 and vec.shape == (OBS_SIZE,)
            assert np.all((vec >= 0) & (vec <= 1))
            assert np.all((vec[:N_BITS] == 0) | (vec[:N_BITS] == 1))


def test_declarations_manko_and_answers_decode_in_a_built_partie():
    # Challenger: three Twos (no Bastoni), no court card, no Ace: Figura
    # Twos, Blans and Bianka. Dealer: four Aces and three Re (no Bastoni).
    p = make_partie("2S 2C 2D 7S 8S 9S TS 7C 8C", "AS AC AD AB RS RC RD 9D 8D")
    act(
        p,
        "declare Figura Twos",
        "declare Blans",
        "declare Bianka",
        "7S",
        "declare Aces",
        "declare Figura Re",
        "AS",  # the dealer wins trick 1 (6 points)
        "ask Manko",
        "AC",  # the dealer's 2nd card: Twos lack Bastoni
        "ask Manko",
    )  # the challenger's 2nd card: Re lack Bastoni
    ch = decode_observation(encode(p, 0))
    assert ch["declarations"] == {
        "me": {"Figura Twos": 3, "Blans": 1, "Bianka": 1},
        "opponent": {"Aces": 4, "Figura Re": 3},
    }
    assert ch["manko_asked"] == {"me": True, "opponent": True}
    assert ch["manko_answers"] == {"me": {"Twos": "B"}, "opponent": {"Re": "B"}}
    assert ch["played_by_me"] == {"7S": 1}
    assert ch["played_by_opponent"] == {"AS": 1, "AC": 2}
    assert ch["table_lead"] == "AC"
    assert ch["tricks"] == [{"trick": 1, "led_by": "me", "won_by": "opponent"}]
    assert ch["card_points"] == {"me": 0, "opponent": 6}
    assert ch["trick_number"] == 1
    de = decode_observation(encode(p, 1))
    assert de["role"] == "dealer"
    assert de["declarations"]["me"] == {"Aces": 4, "Figura Re": 3}
    assert de["manko_answers"] == {"me": {"Re": "B"}, "opponent": {"Twos": "B"}}
    assert de["hand"] == ["RS", "RC", "8D", "9D", "RD", "AD", "AB"]
    # The exact positions of two of these bits, against the documented layout.
    vec = encode(p, 0)
    assert vec[OFFSET["declared_by_me"] + 6] == 1  # Twos3
    assert vec[OFFSET["declared_by_opponent"] + 9] == 1  # Aces4
    assert vec[OFFSET["manko_answer_by_opponent"] + 0 * 4 + 3] == 1  # Re x Bastoni


def test_multiplier_feature_and_its_bound():
    assert multiplier_feature(1) == 0.0
    assert multiplier_feature(2) == 1 / 16
    assert multiplier_feature(2**16) == 1.0
    assert multiplier_feature(2**40) == 1.0  # clipped
    assert multiplier_feature(3) == pytest.approx(math.log2(3) / 16)
    with pytest.raises(ValueError, match="multiplier"):
        multiplier_feature(0)
    deal = random_deal(random.Random(0))
    for m, decoded in ((1, 1), (2, 2), (3, 3), (1024, 1024), (2**16, 2**16), (2**30, 2**16)):
        vec = encode(Partie(deal, multiplier=m), 0)
        assert vec[OFFSET["multiplier"]] == np.float32(min(math.log2(m) / 16, 1.0))
        assert decode_observation(vec)["multiplier"] == decoded


def test_encode_writes_into_a_view_of_a_larger_buffer():
    # What bulka_v0 does: its vector starts with this layout.
    p = make_partie("2S 2C 2D 7S 8S 9S TS 7C 8C", "AS AC AD AB RS RC RD 9D 8D")
    act(p, "7S", "AS")
    big = np.full(OBS_SIZE + 10, 0.5, np.float32)
    out = encode(p, 1, big[:OBS_SIZE])
    assert out.base is big
    np.testing.assert_array_equal(big[:OBS_SIZE], encode(p, 1))
    assert np.all(big[OBS_SIZE:] == 0.5)
    assert decode_observation(big) == decode_observation(encode(p, 1))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"seat": 2}, "seat"),
        ({"seat": 0, "out": np.zeros(OBS_SIZE, np.float64)}, "float32"),
        ({"seat": 0, "out": np.zeros(OBS_SIZE - 1, np.float32)}, "shape"),
    ],
)
def test_encode_rejects_bad_arguments(kwargs, match):
    p = Partie(random_deal(random.Random(0)))
    with pytest.raises(ValueError, match=match):
        encode(p, **kwargs)


def test_decode_rejects_what_is_not_an_observation():
    with pytest.raises(ValueError, match="at least 347"):
        decode_observation(np.zeros(OBS_SIZE - 1, np.float32))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        decode_observation(np.full(OBS_SIZE, 2.0, np.float32))


def test_decode_accepts_an_env_observation_dict():
    env = trappola_v0.env()
    env.reset(seed=4)
    obs = env.observe("player_0")
    assert decode_observation(obs) == decode_observation(obs["observation"])
    assert decode_observation(obs)["role"] == "challenger"


# ----------------------------------------------------------------- Observer


def test_observer_equals_encode_after_every_action():
    observer = None
    checked = 0
    for p in random_parties(400, seed=3, forfeits=True):
        if observer is None or observer.partie is not p:
            observer = Observer(p)
        observer.sync()
        for seat in (0, 1):
            np.testing.assert_array_equal(observer.vectors[seat], encode(p, seat))
        checked += 1
    assert checked > 4000


def test_observer_catches_up_after_several_actions():
    rng = random.Random(8)
    for _ in range(50):
        p = Partie(random_deal(rng))
        observer = Observer(p)
        while not p.terminal:
            for _ in range(rng.randint(1, 3)):
                if not p.terminal:
                    p.apply(rng.choice(cards_of(p.legal_mask())))
            observer.sync()
            for seat in (0, 1):
                np.testing.assert_array_equal(observer.vectors[seat], encode(p, seat))


def test_fresh_partie_shortcut_equals_the_general_encoding():
    # An immediate forfeit leaves the cards as dealt but puts an entry in
    # the history, so encode takes its general path.
    rng = random.Random(9)
    for _ in range(50):
        deal = random_deal(rng)
        m = rng.choice([1, 4, 2**17])
        fresh = Partie(deal, FORFEIT_CFG, multiplier=m)
        forfeited = Partie(deal, FORFEIT_CFG, multiplier=m)
        forfeited.apply(48)  # "do not declare Pro": never legal in a partie
        assert forfeited.history and forfeited.terminal
        for seat in (0, 1):
            np.testing.assert_array_equal(encode(fresh, seat), encode(forfeited, seat))


# ------------------------------------------------------------- information


def test_swapping_unseen_cards_never_changes_the_observation():
    """Random parties replayed on a deal where the opponent's never-played
    cards are swapped with hidden stock cards: whenever the same actions are
    legal there, the observer's vector is identical at every step."""
    rng = random.Random(10)
    compared = 0
    for _ in range(300):
        deal = random_deal(rng)
        p = Partie(deal)
        for _ in range(rng.randint(1, 24)):  # a random stretch of a partie
            if p.terminal:
                break
            p.apply(rng.choice(cards_of(p.legal_mask())))
        observer = rng.randrange(2)
        opponent = 1 - observer
        unplayed = [c for c in (deal.challenger, deal.dealer)[opponent] if p.hands[opponent] >> c & 1]
        if not unplayed:
            continue
        hidden = list(deal.stock[:-1])
        k = rng.randint(1, min(len(unplayed), 4))
        out_cards, in_cards = rng.sample(unplayed, k), rng.sample(hidden, k)
        swap = dict(zip(out_cards, in_cards, strict=True)) | dict(zip(in_cards, out_cards, strict=True))
        spec = deal.to_names()
        side = ("challenger", "dealer")[opponent]
        spec[side] = [CARD_NAMES[swap.get(c, c)] for c in (deal.challenger, deal.dealer)[opponent]]
        stock = [swap.get(c, c) for c in deal.stock[:-1]]
        rng.shuffle(stock)
        spec["stock"] = [CARD_NAMES[c] for c in stock] + [CARD_NAMES[deal.stock[-1]]]
        a, b = Partie(deal), Partie(deal_from_names(spec))
        np.testing.assert_array_equal(encode(a, observer), encode(b, observer))
        for _, action in p.history:
            if not b.is_legal(action):
                break  # the opponent could not have done this with the other cards
            a.apply(action)
            b.apply(action)
            if a.counts != b.counts or a.manko_answer != b.manko_answer:
                break  # a declared count or a Manko answer differs: another public history
            np.testing.assert_array_equal(encode(a, observer), encode(b, observer))
            compared += 1
        # ...and the opponent's own view differs from the start.
        assert not np.array_equal(encode(Partie(deal), opponent), encode(Partie(deal_from_names(spec)), opponent))
    assert compared > 1000
