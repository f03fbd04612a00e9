"""Accounting (docs/rules.md section 8): at every moment the players' balances
plus the Bulka plus what leavers took away sum to exactly zero. Checked
after every step of many random sessions (hypothesis), with random Pro
answers, forfeits, joins and leaves (refusals must change nothing), along
with the structural invariants of the queue, the streaks and the history."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from trappola_env.engine import RuleConfig, cards_of
from trappola_env.engine.actions import NO_PRO, PRO
from trappola_env.engine.session import Session


def check_structure(s: Session) -> None:
    s.check()
    if s.over:
        assert s.bulka == 0
        assert sum(s.balances.values()) + sum(s.departed.values()) == 0
        return
    assert s.dealer != s.challenger
    assert sorted([s.dealer, s.challenger, *s.queue]) == sorted(s.players)
    assert 2 <= len(s.players) <= 4
    assert s.streaks[s.challenger] == 0
    assert all(s.streaks[q] == 0 for q in s.queue)
    assert s.multiplier & (s.multiplier - 1) == 0  # a power of two
    assert s.bulka >= 0


def check_history(s: Session) -> None:
    bulka = 0
    for rec in s.history:
        assert sum(rec.tokens.values()) == -rec.bulka_in
        assert rec.stake == 10 * s.stake_multiple * rec.multiplier
        bulka += rec.pro_stake + rec.bulka_in - rec.bulka_won
        assert rec.bulka == bulka
        if rec.bulka_won:
            assert bulka == 0 and rec.pro_result == "won"
    json.dumps(s.history_dicts())
    json.dumps(s.summary())


def state(s):
    return json.dumps(s.summary(), sort_keys=True, default=str), len(s.history)


def random_session(
    seed: int, n: int, max_parties: int, stake_multiple: int, forfeit: bool, membership: bool
) -> Session:
    rng = random.Random(seed)
    config = RuleConfig(illegal_action="forfeit" if forfeit else "raise")
    s = Session(n_players=n, max_parties=max_parties, stake_multiple=stake_multiple, config=config, seed=seed)
    check_structure(s)
    steps = 0
    while not s.over:
        steps += 1
        if membership and rng.random() < 0.02:
            name = rng.choice(s.players + [f"newcomer_{steps}"])
            before = state(s)
            try:
                if name in s.players:
                    s.leave(name)
                else:
                    s.join(name, agreed=rng.random() < 0.9)
            except ValueError:
                assert state(s) == before
            check_structure(s)
            continue
        if forfeit and rng.random() < 0.01:
            s.act(48 if s.phase == "partie" else 0)  # illegal in either phase: a forfeit
        elif s.phase == "pro":
            s.act(PRO if rng.random() < 0.5 else NO_PRO)
        else:
            acts = cards_of(s.partie.legal_mask())
            s.act(rng.choice(acts))
        check_structure(s)
    check_structure(s)
    check_history(s)
    return s


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 4),
    max_parties=st.integers(1, 40),
    stake_multiple=st.integers(1, 3),
    forfeit=st.booleans(),
    membership=st.booleans(),
)
def test_ledger_is_exactly_zero_after_every_step(seed, n, max_parties, stake_multiple, forfeit, membership):
    s = random_session(seed, n, max_parties, stake_multiple, forfeit, membership)
    assert s.parties_played >= min(max_parties, 1)
    # Replays beyond max_parties only for a live Pro partie.
    extra = s.history[max_parties:]
    assert all(r.pro_declared for r in extra)


def test_long_random_sessions_reach_pro_wins_joins_and_leaves():
    """The property above is not vacuous: these sessions contain every kind
    of event it is meant to cover."""
    kinds = set()
    for seed in range(12):
        s = random_session(seed, 2 + seed % 3, 150, 1 + seed % 2, forfeit=seed % 2 == 0, membership=True)
        for rec in s.history:
            kinds.add(rec.outcome)
            kinds.add(rec.pro_result)
        kinds.update(e["event"] for e in s.events)
    assert {"decided", "agreed_alifer", "forfeit", "won", "lost", "alifer", "join", "leave"} <= kinds
