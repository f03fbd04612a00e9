"""Property tests over random seeded parties with random legal play.

Each partie is replayed from its history by an independent reference
scorer written from the text of docs/rules.md (sections 2-5), so a wrong
trick winner, bonus, declaration value or payment anywhere in the engine
shows up as a mismatch, not only the hand-built cases of the other files.
"""

import random

from helpers import state_key
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trappola_env.engine import (
    AGREED_ALIFER,
    DECIDED,
    FORFEIT,
    TIE,
    Partie,
    RuleConfig,
    cards_of,
    random_deal,
)
from trappola_env.engine.cards import CARD_POINTS, points_of

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

seeds = st.integers(0, 2**32 - 1)
configs = st.builds(RuleConfig, ace_declaration=st.sampled_from(["first_ace", "first_card"]))


def random_partie(
    seed, alifer=True, declare_p=0.5, accept_p=0.3, config=RuleConfig(), stake_multiple=1, m=1, on_step=None
):
    """Play a partie to the end by random legal actions. ``alifer`` allows
    proposals; ``declare_p`` is the chance of taking a legal declaration
    when one is offered. ``on_step(partie)`` runs before each action."""
    rng = random.Random(seed)
    p = Partie(random_deal(rng), config, stake_multiple, m)
    while not p.terminal:
        if on_step:
            on_step(p)
        legal = p.legal_actions()
        assert legal, "empty mask while running"
        if p.phase == 1:
            a = 45 if rng.random() < accept_p else 46
        else:
            decls = [a for a in legal if 36 <= a <= 43]
            if not alifer:
                legal = [a for a in legal if a != 44]
            if decls and rng.random() < declare_p:
                a = rng.choice(decls)
            else:
                cards = [a for a in legal if a < 36]
                a = 44 if (44 in legal and rng.random() < 0.05) else rng.choice(cards)
        p.apply(a)
    return p


# ------------------------------------------------- independent reference

FIG_RANK = {36: 7, 37: 6, 38: 5, 39: 0}


def reference_result(p):
    """(outcome, winner, totals, tokens, bulka_in) computed from the deal and
    the action history alone, following docs/rules.md."""
    dealt = [set(p.deal.challenger), set(p.deal.dealer)]
    hands = [set(h) for h in dealt]
    u = p.stake_multiple * p.multiplier
    stake = 10 * u
    card = [0, 0]
    decl_pts, decl_pay = [0, 0], [0, 0]  # pay: what this seat receives
    bonus_pts, bulka_pay = [0, 0], [0, 0]  # bulka_pay: what this seat pays in
    declared = [dict(), dict()]
    tricks = []  # (leader, lead, follow, winner)
    leader, lead = 0, None
    ended = None
    history = list(p.history)
    if p.outcome == FORFEIT:
        # The offending action is recorded last; it must be illegal where it
        # was played (checked on a replay of the prefix in raise mode).
        *history, (offender, bad) = history
        q = Partie(p.deal, RuleConfig(ace_declaration=p.config.ace_declaration))
        for _, a in history:
            q.apply(a)
        assert q.to_act == offender and not q.is_legal(bad)
        ended = ("forfeit", offender)
    proposed = -1
    for seat, a in history:
        if a < 36:
            assert a in hands[seat]
            if lead is None:
                leader, lead = seat, a
                hands[seat].discard(a)
                continue
            # Follow suit when able.
            assert a // 9 == lead // 9 or not any(c // 9 == lead // 9 for c in hands[seat])
            hands[seat].discard(a)
            w = seat if (a // 9 == lead // 9 and a % 9 > lead % 9) else leader
            card[w] += CARD_POINTS[a] + CARD_POINTS[lead]
            tricks.append((leader, lead, a, w))
            lead = None
            leader = w
        elif 36 <= a <= 42:
            assert a not in declared[seat]
            declared[seat][a] = True
        elif a == 44:
            proposed = seat
        elif a == 45:
            assert proposed == 1 - seat
            ended = ("agreed", None)
        elif a == 46:
            assert proposed == 1 - seat
            proposed = -1
    if ended:
        return (
            AGREED_ALIFER if ended[0] == "agreed" else FORFEIT,
            None if ended[1] is None else 1 - ended[1],
            None,
            (-stake, -stake),
            2 * stake,
        )
    for s in (0, 1):
        for a in declared[s]:
            if a in FIG_RANK:
                n = sum(1 for c in dealt[s] if c % 9 == FIG_RANK[a])
                pts, pay = {3: (6, 5), 4: (12, 10)}[n] if a != 39 else {3: (10, 5), 4: (20, 10)}[n]
            elif a == 40:
                aces = {c for c in dealt[s] if c % 9 == 8}
                won = all(t[3] == s for t in tricks for c in t[1:3] if c in aces)
                pts, pay = {3: (30 if won else 6, 5), 4: (40 if won else 12, 10)}[len(aces)]
            elif a == 41:
                pts, pay = 10, 5
            else:
                pts, pay = 20, 10
            decl_pts[s] += pts
            decl_pay[s] += pay * u
    # "Won with a Two": the winning card is the winner's own Two.
    two = []
    for ld, lc, fc, w in tricks:
        win_card = lc if w == ld else fc
        two.append(w if win_card % 9 == 0 else -1)

    def earn(seat, pts, pay):
        bonus_pts[seat] += pts
        bulka_pay[1 - seat] += pay * u

    winners = [t[3] for t in tricks]
    if len(set(winners)) == 1:
        earn(winners[0], 30, 10)
    if two[0] >= 0:
        earn(two[0], 52, 20)
    s_ = 0
    for k in (1, 2, 3):
        tail = two[9 - k :]
        if tail[0] >= 0 and len(set(tail)) == 1:
            s_ = k
    for t in range(1, 8):  # tricks 2..8
        if two[t] >= 0 and t < 9 - s_:
            earn(two[t], 10, 5)
    if s_:
        earn(two[8], {1: 26, 2: 52, 3: 78}[s_], {1: 10, 2: 20, 3: 30}[s_])
    else:
        earn(winners[8], 6, 0)
    totals = tuple(card[s] + decl_pts[s] + bonus_pts[s] for s in (0, 1))
    tokens = tuple(-stake + decl_pay[s] - decl_pay[1 - s] - bulka_pay[s] for s in (0, 1))
    outcome = TIE if totals[0] == totals[1] else DECIDED
    winner = None if outcome == TIE else (0 if totals[0] > totals[1] else 1)
    return outcome, winner, totals, tokens, 2 * stake + sum(bulka_pay)


def check_finished(p):
    r = p.result()
    outcome, winner, totals, tokens, bulka_in = reference_result(p)
    assert (r.outcome, r.winner) == (outcome, winner)
    assert r.tokens == tokens and r.bulka_in == bulka_in
    assert r.tokens[0] + r.tokens[1] + r.bulka_in == 0
    assert r.stake == 10 * p.stake_multiple * p.multiplier
    if r.outcome in (DECIDED, TIE):
        assert tuple(s.total for s in r.scores) == totals
        assert len(p.tricks) == 9 and p.ncards == [9, 9]
        cards = [a for _, a in p.history if a < 36]
        assert len(cards) == 18
        assert sum(1 for s, a in p.history if a < 36 and s == 0) == 9
        assert sorted(cards) == sorted(p.deal.challenger + p.deal.dealer)
        assert sum(s.card_points for s in r.scores) == points_of(p.dealt[0] | p.dealt[1])
        if r.outcome == DECIDED:
            assert r.scores[r.winner].total > r.scores[1 - r.winner].total
        else:
            assert r.scores[0].total == r.scores[1].total and r.winner is None
    else:
        assert r.declaration_tokens == (0, 0) and r.bonus_tokens == (0, 0)
        assert r.tokens == (-r.stake, -r.stake)
    return r


# ------------------------------------------------------------- properties


def _running_checks(p):
    mask = p.legal_mask()
    assert mask != 0
    assert p.legal_actions() == cards_of(mask)
    assert all(p.is_legal(a) for a in p.legal_actions())
    if p.phase == 1:
        assert p.legal_actions() == [45, 46]
    # Cards offered are the seat's own; never a card it does not hold.
    assert mask & ((1 << 36) - 1) & ~p.hands[p.to_act] == 0
    # A seat never sees the opponent's hand or the hidden stock.
    for seat in (0, 1):
        info = p.info_state(seat)
        hidden = p.hands[1 - seat] | (p.deal.hands[0] | p.deal.hands[1] | (1 << p.bottom)) ^ ((1 << 36) - 1)
        assert info.unseen() == hidden
        assert info.hand == p.hands[seat]


@SETTINGS
@given(
    seed=seeds,
    alifer=st.booleans(),
    declare_p=st.sampled_from([0.0, 0.5, 1.0]),
    config=configs,
    stake_multiple=st.integers(1, 3),
    m=st.sampled_from([1, 2, 4]),
)
def test_random_parties_match_the_reference(seed, alifer, declare_p, config, stake_multiple, m):
    p = random_partie(
        seed, alifer, declare_p, config=config, stake_multiple=stake_multiple, m=m, on_step=_running_checks
    )
    r = check_finished(p)
    if not alifer:
        assert r.outcome in (DECIDED, TIE)
    assert p.legal_mask() == 0 and p.legal_actions() == []


@SETTINGS
@given(seed=seeds, split=st.integers(0, 60), cont_seed=seeds)
def test_copy_then_same_actions_give_same_results(seed, split, cont_seed):
    rng = random.Random(seed)
    p = Partie(random_deal(rng))
    for _ in range(split):
        if p.terminal:
            break
        p.apply(rng.choice(p.legal_actions()))
    q = p.copy()
    snap = state_key(p)
    assert state_key(q) == snap
    r1, r2 = random.Random(cont_seed), random.Random(cont_seed)
    while not q.terminal:
        q.apply(r2.choice(q.legal_actions()))
    assert state_key(p) == snap  # the original did not move
    while not p.terminal:
        p.apply(r1.choice(p.legal_actions()))
    assert state_key(p) == state_key(q)
    assert p.result() == q.result()
    assert repr(p) == repr(q)


@settings(max_examples=40, deadline=None)
@given(seed=seeds)
def test_legal_actions_apply_and_illegal_ones_raise(seed):
    rng = random.Random(seed)
    p = Partie(random_deal(rng))
    while not p.terminal:
        legal = set(p.legal_actions())
        for a in legal:
            q = p.copy()
            q.apply(a)  # every legal action applies
        illegal = [a for a in range(49) if a not in legal]
        for a in rng.sample(illegal, min(6, len(illegal))):
            before = state_key(p)
            try:
                p.apply(a)
            except ValueError:
                pass
            else:
                raise AssertionError(f"illegal action {a} applied")
            assert state_key(p) == before
        p.apply(rng.choice(sorted(legal)))
    before = state_key(p)
    for a in rng.sample(range(49), 5):
        try:
            p.apply(a)
        except ValueError:
            pass
        else:
            raise AssertionError("action applied after the end")
    assert state_key(p) == before


@settings(max_examples=60, deadline=None)
@given(seed=seeds, steps=st.integers(0, 40))
def test_forfeit_mode_any_illegal_action_loses_for_the_actor(seed, steps):
    rng = random.Random(seed)
    p = Partie(random_deal(rng), RuleConfig(illegal_action="forfeit"), multiplier=2)
    for _ in range(steps):
        if p.terminal:
            return
        p.apply(rng.choice(p.legal_actions()))
    if p.terminal:
        return
    offender = p.to_act
    illegal = [a for a in range(49) if not p.is_legal(a)]
    p.apply(rng.choice(illegal))
    assert p.terminal
    r = p.result()
    assert (r.outcome, r.winner, r.forfeited_by) == (FORFEIT, 1 - offender, offender)
    assert r.tokens == (-20, -20) and r.bulka_in == 40
    check_finished(p)


@settings(max_examples=60, deadline=None)
@given(seed=seeds)
def test_alifer_decline_returns_to_proposer_and_accept_ends(seed):
    rng = random.Random(seed)
    p = Partie(random_deal(rng))
    proposals = 0
    while not p.terminal:
        legal = p.legal_actions()
        if 44 in legal and rng.random() < 0.3:
            proposer = p.to_act
            mask_before = p.legal_mask() & ~(1 << 44)
            p.apply(44)
            proposals += 1
            assert p.to_act == 1 - proposer and p.legal_actions() == [45, 46]
            if rng.random() < 0.2:
                p.apply(45)
                assert p.terminal and p.result().outcome == AGREED_ALIFER
                break
            p.apply(46)
            # The proposer continues with the same options, less the proposal.
            assert p.to_act == proposer and p.legal_mask() == mask_before
            continue
        p.apply(rng.choice([a for a in legal if a != 44]))
    assert proposals <= 2
    check_finished(p)
