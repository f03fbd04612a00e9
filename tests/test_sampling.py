"""The hidden-layout sampler (trappola.agents.search.sampling): every sampled hand is one the
record allows, the true hand is always among them, and the draw is uniform.

``dealt_consistent`` restates each constraint on the opponent's dealt hand
directly (voids, declared counts, Manko answers, Blans, Bianka), so checks
against it do not reuse the factorisation ``constraints_of`` builds."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import numpy as np
import pytest
from helpers import act, make_partie

from trappola.agents import make_player
from trappola.agents.search.sampling import constraints_of, dealt_consistent
from trappola_env.engine import Partie, RuleConfig, random_deal
from trappola_env.engine.actions import ACES, BIANKA, BLANS, MANKO
from trappola_env.engine.cards import ACE_MASK, COURT_MASK, RANK_MASK, SUIT_MASK, cards_of, mask_of
from trappola_env.engine.cards import card_id as card_id_
from trappola_env.engine.declarations import aces_possible, bianka_possible, first_card_declarations
from trappola_env.interface import TurnView


def _declaring(hand: int) -> bool:
    return bool(first_card_declarations(hand)) or aces_possible(hand) or bianka_possible(hand)


def declaring_deals(n: int, seed: int, predicate=_declaring):
    """Random deals in which either hand can make a declaration the
    predicate asks for (rejection: the conditional distribution exactly)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        deal = random_deal(rng)
        if any(predicate(h) for h in deal.hands):
            out.append(deal)
    return out


def decision_points(deal, seed, config=RuleConfig()):
    """Play ``rule`` against itself (declares everything at once, asks
    Manko, proposes Alifer when losing) and yield (partie, seat to act)
    before every action."""
    players = [make_player("rule"), make_player("rule")]
    for i, p in enumerate(players):
        p.reset(seed * 2 + i)
    partie = Partie(deal, config)
    while not partie.terminal:
        seat = partie.to_act
        yield partie, seat
        partie.apply(players[seat].act(TurnView(partie.info_state(seat))))


def check_samples(partie, seat, rng, n=12, first_chance=False):
    info = partie.info_state(seat)
    opp = 1 - seat
    cons = constraints_of(info, first_chance=first_chance)
    truth = partie.hands[opp]
    assert cons.allows(truth) and dealt_consistent(info, truth, first_chance), "the true hand must be consistent"
    assert truth & cons.forced == cons.forced
    voids = info.void_suits(opp)
    for h in cons.sample(rng, n):
        h = int(h)
        assert cons.allows(h) and dealt_consistent(info, h, first_chance)
        assert h & cons.forced == cons.forced
        assert not h >> partie.bottom & 1
        assert h & ~info.unseen() == 0
        assert h.bit_count() == 9 - partie.ncards[opp]
        for s in voids:
            assert not h & SUIT_MASK[s]
    return info, cons


@pytest.mark.parametrize(
    "config,first_chance",
    [(RuleConfig(), False), (RuleConfig(ace_declaration="first_card"), False), (RuleConfig(), True)],
)
def test_samples_consistent_through_declaring_parties(config, first_chance):
    # rule declares everything at its first turn, so the silence model holds for it too.
    rng = random.Random(1)
    seen_kinds = Counter()
    for i, deal in enumerate(declaring_deals(25, seed=7)):
        for partie, seat in decision_points(deal, i, config):
            info, cons = check_samples(partie, seat, rng, first_chance=first_chance)
            for a in info.declarations[1 - seat]:
                seen_kinds[a] += 1
            if info.manko_answer[1 - seat]:
                seen_kinds[MANKO] += 1
    # The parties exercised the constraints this test is about.
    assert (
        seen_kinds[ACES]
        and seen_kinds[MANKO]
        and seen_kinds[BLANS]
        and sum(n for a, n in seen_kinds.items() if a < ACES)
    )


def test_bianka_and_blans_exclude_their_ranks():
    deals = declaring_deals(3, seed=3, predicate=bianka_possible)
    rng = random.Random(0)
    checked = 0
    for i, deal in enumerate(deals):
        for partie, seat in decision_points(deal, i):
            info, cons = check_samples(partie, seat, rng)
            if BIANKA in info.declarations[1 - seat]:
                for h in cons.sample(rng, 30):
                    assert not int(h) & (COURT_MASK | ACE_MASK)
                checked += 1
    assert checked


def test_manko_answer_forces_three_cards_and_excludes_the_fourth():
    # The dealer holds RS RC RD (not RB), declares Figura Re; the challenger asks Manko.
    p = make_partie(challenger="7S 8S 9S 7C 8C 9C 7D 8D 9D", dealer="RS RC RD 2S 2C TB 7B 8B 9B")
    act(p, "7C", "declare Figura Re", "2C", "ask Manko")
    info = p.info_state(0)
    assert info.manko_answer[1] == ((7, 3),)  # Re, missing Bastoni
    cons = constraints_of(info)
    re_left = mask_of([p for p in cards_of(RANK_MASK[7]) if p != 9 * 3 + 7])
    assert cons.forced & re_left == re_left
    for h in cons.sample(random.Random(0), 50):
        assert not int(h) >> (9 * 3 + 7) & 1


def _brute_force(info):
    unseen = cards_of(info.unseen())
    size = 9 - info.ncards[1 - info.seat]
    return {mask_of(c) for c in itertools.combinations(unseen, size) if dealt_consistent(info, mask_of(c))}


def _small_state():
    """Seat 0 to lead trick 3 against a dealer that declared 3 Re and 3 Aces
    (Manko not asked) and holds 7 cards: three groups at once (which 3 of 4
    Re, which 3 of 4 Aces, one other card)."""
    challenger = "2B TB BB CB 2S 7S 2C 7C 2D"
    dealer = "AS AC AD RS RC RD 7B 8B 9D"
    used = set((challenger + " " + dealer).split())
    from trappola_env.engine.cards import CARD_NAMES

    stock = [n for n in CARD_NAMES if n not in used and n != "9S"] + ["9S"]
    p = make_partie(challenger, dealer, stock)
    act(p, "TB", "declare Figura Re", "declare Aces", "7B", "BB", "8B")
    assert p.to_act == 0 and p.lead < 0
    return p


def test_count_and_enumeration_match_brute_force():
    p = _small_state()
    info = p.info_state(0)
    assert ACES in info.declarations[1] and 36 in info.declarations[1]
    cons = constraints_of(info)
    truth = _brute_force(info)
    assert sorted(k for _, k in cons.groups) == [1, 3, 3]
    assert cons.count() == len(truth)
    listed = [int(h) for h in cons.all_hands()]
    assert len(listed) == len(set(listed)) and set(listed) == truth


def test_holding_keeps_exactly_the_consistent_hands_with_those_cards():
    rng = random.Random(4)
    for deal in declaring_deals(6, seed=9):
        for partie, seat in itertools.islice(decision_points(deal, seed=3), 0, 40, 7):
            cons = constraints_of(partie.info_state(seat))
            if cons.count() > 3000:
                continue
            every = [int(h) for h in cons.all_hands()]
            truth = partie.hands[1 - seat]
            shown = mask_of(rng.sample(cards_of(truth), min(2, truth.bit_count())))
            held = cons.holding(shown)
            assert sorted(int(h) for h in held.all_hands()) == sorted(h for h in every if h & shown == shown)
            assert held.count() == sum(h & shown == shown for h in every) and held.allows(truth)
            assert cons.holding(truth).count() == 1
            outside = cons.unseen & ~cons.possible
            if outside:
                with pytest.raises(ValueError, match="cannot be in the opponent's hand"):
                    cons.holding(outside & -outside)


def test_sampling_is_uniform_over_consistent_hands():
    p = _small_state()
    info = p.info_state(0)
    cons = constraints_of(info)
    hands = sorted(_brute_force(info))
    k = len(hands)
    assert k == 4 * 4 * 16
    n = 60 * k
    counts = Counter(int(h) for h in cons.sample(random.Random(11), n))
    assert set(counts) <= set(hands)
    expected = n / k
    chi2 = sum((counts.get(h, 0) - expected) ** 2 / expected for h in hands)
    df = k - 1
    # Wilson-Hilferty: the 99.9% point of chi-square with df degrees of freedom.
    z = 3.09
    limit = df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3
    assert chi2 < limit, (chi2, limit)
    # And not degenerate: every consistent hand turns up.
    assert len(counts) == k
    # Per card, how often it is in the hand: the joint test above is weak
    # against a bias confined to a few hands, a card's margin is not.
    for card in cards_of(info.unseen()):
        p = sum(1 for h in hands if h >> card & 1) / k
        freq = sum(c for h, c in counts.items() if h >> card & 1) / n
        se = math.sqrt(max(p * (1 - p), 1e-12) / n)
        assert abs(freq - p) <= 4.5 * se + 1e-12, (card, freq, p)


def test_void_suits_never_sampled():
    p = make_partie(challenger="7S 8S 9S 7C 8C 9C 7D 8D 9D", dealer="2C TC BC 2D TD BD 2B TB BB")
    act(p, "7S", "2C")  # the dealer cannot follow Spade
    info = p.info_state(0)
    assert info.void_suits(1) == {0}
    for h in constraints_of(info).sample(random.Random(0), 200):
        assert not int(h) & SUIT_MASK[0]


def test_silence_bounds_what_a_first_chance_declarer_holds():
    # The dealer plays its first card without declaring: under the model it
    # holds at most 2 of each Figura rank and of the Aces, and a court card.
    p = make_partie(challenger="7S 8S 9S 7C 8C 9C 7D 8D 9D", dealer="2C TC BC 2D TD BD 2B TB BB")
    act(p, "7C", "TC")
    info = p.info_state(0)
    assert constraints_of(info).bounds == ()
    cons = constraints_of(info, first_chance=True)
    assert cons.bounds
    from trappola_env.engine.cards import ACE, BUBE, TWO

    for h in cons.sample(random.Random(2), 300):
        dealt = int(h) | mask_of([card_id_("TC")])
        assert (dealt & RANK_MASK[BUBE]).bit_count() <= 2 and (dealt & RANK_MASK[TWO]).bit_count() <= 2
        assert (dealt & RANK_MASK[ACE]).bit_count() <= 2 and dealt & COURT_MASK
    # The truth breaks the model (three Bube, three Twos, no declaration): the
    # model's hands and the truth disagree, which the record alone allows.
    assert not cons.allows(p.hands[1]) and constraints_of(info).allows(p.hands[1])


def test_bounds_that_admit_nothing_raise_instead_of_looping():
    p = make_partie(challenger="7S 8S 9S 7C 8C 9C 7D 8D 9D", dealer="2C TC BC 2D TD BD 2B TB BB")
    act(p, "7C", "TC")
    cons = constraints_of(p.info_state(0), first_chance=True)
    # It holds 8 cards, so no hand has 9 unseen cards.
    impossible = type(cons)(cons.unseen, cons.hand_size, cons.forced, cons.groups, ((cons.unseen, 9, 9),))
    with pytest.raises(ValueError, match="draws"):
        impossible.sample(random.Random(0), 1)
    assert not impossible.allows(p.hands[1])
    small = _small_state()
    cons = constraints_of(small.info_state(0))
    assert (
        len(type(cons)(cons.unseen, cons.hand_size, cons.forced, cons.groups, ((cons.unseen, 9, 9),)).all_hands()) == 0
    )


def test_inconsistent_record_and_bad_arguments_raise():
    p = make_partie(challenger="AS 8S 9S 7C 8C 9C 7D 8D 9D", dealer="2C TC BC 2D TD BD 2B TB BB")
    info = p.info_state(0)
    info.declarations = ({}, {ACES: 4})  # impossible: seat 0 holds AS
    with pytest.raises(ValueError, match="inconsistent"):
        constraints_of(info)
    cons = constraints_of(p.info_state(0))
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError):
            cons.sample(random.Random(0), bad)


def test_rule_players_summary_never_contradicts_the_exact_constraints():
    # knowledge.OpponentCards reads the same facts (sampling.excluded_by_play, declared_ranks)
    # more coarsely: every exactly consistent hand lies inside its `possible`, holds its
    # `known` cards and its declared counts.
    from trappola.agents.search.knowledge import opponent_cards

    rng = random.Random(7)
    seen = 0
    for d, deal in enumerate(declaring_deals(12, seed=11)):
        for partie, seat in decision_points(deal, d):
            info = partie.info_state(seat)
            summary = opponent_cards(info)
            for h in constraints_of(info).sample(rng, 4):
                h = int(h)
                assert h & ~summary.possible == 0 and h & summary.known == summary.known
                assert h.bit_count() == summary.count
                assert all((h & m).bit_count() == n for m, n in summary.exact)
                seen += 1
    assert seen > 500


def test_array_draws_are_uniform_and_meet_the_bounds():
    p = _small_state()
    info = p.info_state(0)
    cons = constraints_of(info)
    hands = sorted(_brute_force(info))
    n = 60 * len(hands)
    counts = Counter(int(h) for h in cons.sample_array(np.random.default_rng(11), n))
    assert set(counts) == set(hands)  # only consistent hands, and every one of them
    expected = n / len(hands)
    chi2 = sum((counts[h] - expected) ** 2 / expected for h in hands)
    df = len(hands) - 1
    assert chi2 < df * (1 - 2 / (9 * df) + 3.09 * math.sqrt(2 / (9 * df))) ** 3, chi2
    q = make_partie(challenger="7S 8S 9S 7C 8C 9C 7D 8D 9D", dealer="2C TC BC 2D TD BD 2B TB BB")
    act(q, "7C", "TC")
    bounded = constraints_of(q.info_state(0), first_chance=True)
    drawn = bounded.sample_array(np.random.default_rng(0), 300)
    assert len(drawn) == 300 and all(bounded.allows(int(h)) for h in drawn)
    with pytest.raises(ValueError, match="positive int"):
        cons.sample_array(np.random.default_rng(0), 0)
