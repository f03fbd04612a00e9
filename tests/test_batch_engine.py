"""The batched engine (``trappola_env.batch``) against the reference engine,
step by step: every legal mask, both seats' observation vectors and
privileged full-deal vectors, and at the end the outcome, winner, scores,
tokens and the rewards of every reward mode must be identical.

``TRAPPOLA_BATCH_PARTIES`` sets the number of random parties per rule
setting (default 2,000; the verification run uses 20,000)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trappola_env.batch import OUTCOME_NAMES, BatchPartie
from trappola_env.batch.engine import order_of
from trappola_env.engine import IllegalActionError, Partie, RuleConfig, action_id, deal_from_names, deal_from_order
from trappola_env.engine.partie import ALIFER_ANSWER
from trappola_env.full_deal import encode_full_deal
from trappola_env.observation import encode
from trappola_env.spaces_and_rewards import REWARD_MODES, partie_reward

N_PARTIES = int(os.environ.get("TRAPPOLA_BATCH_PARTIES", "2000"))
PLAYTHROUGHS = Path(__file__).parent / "playthroughs"
MULTIPLIERS = (1, 2, 4, 1 << 17)
# Hands that random deals rarely give: Bianka (hence Blans), four Aces with
# Figuras of three, four Twos. Dealt to either seat at the head of the batch.
RARE_HANDS = ("2S 7S 8S 9S TS 2C 7C 8C 9C", "AS AC AD AB RS RC RD BS BC", "2S 2C 2D 2B CS CC CD TS TB")


def orders_with_rare_hands(rng: np.random.Generator, n: int) -> np.ndarray:
    from trappola_env.engine.cards import card_id

    orders = np.argsort(rng.random((n, 36)), axis=1)
    for k, hand in enumerate(RARE_HANDS * 2):
        ids = [card_id(c) for c in hand.split()]
        rest = [c for c in orders[k] if c not in ids]
        seat_slots = [6 * p + 3 * (k >= len(RARE_HANDS)) + q for p in range(3) for q in range(3)]
        order = np.empty(36, np.int64)
        order[seat_slots] = ids
        order[[i for i in range(36) if i not in seat_slots]] = rest
        orders[k] = order
    return orders


def choose(rng: np.random.Generator, partie: Partie, forfeit: bool) -> int:
    """A random action that reaches the end of a partie often: cards mostly,
    declarations and proposals sometimes, an illegal action now and then
    when illegal actions forfeit."""
    mask = partie.legal_mask()
    legal = [a for a in range(49) if mask >> a & 1]
    if forfeit and rng.random() < 0.01:
        return int(rng.choice([a for a in range(-1, 50) if a not in legal]))
    if partie.phase == ALIFER_ANSWER:
        return action_id("accept Alifer") if rng.random() < 0.3 else action_id("decline Alifer")
    declarations = [a for a in legal if 36 <= a <= 43]
    if declarations and rng.random() < 0.5:
        return int(rng.choice(declarations))
    if mask >> 44 & 1 and rng.random() < 0.05:
        return 44
    return int(rng.choice([a for a in legal if a < 36]))


def compare_state(b: BatchPartie, parties: list, rows: np.ndarray) -> None:
    bits = b.legal_bits()
    obs = [b.observe(s, rows) for s in (0, 1)]
    full = [b.full_deal(s, rows) for s in (0, 1)]
    for j, i in enumerate(rows):
        p = parties[i]
        assert int(bits[i]) == p.legal_mask(), f"party {i}: legal mask"
        assert bool(b.done[i]) == p.terminal
        if not p.terminal:
            assert int(b.to_act[i]) == p.to_act
        for s in (0, 1):
            assert np.array_equal(obs[s][j], encode(p, s)), f"party {i} seat {s}: observation"
            assert np.array_equal(full[s][j], encode_full_deal(p, s)), f"party {i} seat {s}: full deal"


def compare_results(b: BatchPartie, parties: list) -> None:
    res = b.results()
    for i, p in enumerate(parties):
        r = p.result()
        assert OUTCOME_NAMES[res["outcome"][i]] == r.outcome
        assert (None if res["winner"][i] < 0 else int(res["winner"][i])) == r.winner
        assert (None if res["forfeited_by"][i] < 0 else int(res["forfeited_by"][i])) == r.forfeited_by
        for s in (0, 1):
            sc = r.scores[s]
            assert tuple(res["scores"][i, s]) == (sc.card_points, sc.declaration_points, sc.bonus_points)
            assert res["tokens"][i, s] == r.tokens[s]
    for mode in REWARD_MODES:
        for s in (0, 1):
            got = b.rewards(s, mode, results=res)
            want = [partie_reward(p.result(), s, mode) for p in parties]
            assert got.tolist() == want, mode


def lockstep(orders, multipliers, config: RuleConfig, stake_multiple: int, seed: int) -> dict:
    """Play the same parties on both engines with the same random actions,
    comparing after every action; returns counts for coverage checks."""
    rng = np.random.default_rng(seed)
    n = len(orders)
    parties = [
        Partie(deal_from_order([int(c) for c in o]), config, stake_multiple, int(m))
        for o, m in zip(orders, multipliers, strict=True)
    ]
    b = BatchPartie(n, config.ace_declaration, config.illegal_action, stake_multiple)
    b.deal(orders=orders, multipliers=multipliers)
    forfeit = config.illegal_action == "forfeit"
    actions_seen = np.zeros(49, np.int64)
    compare_state(b, parties, np.arange(n))
    while True:
        rows = np.flatnonzero([not p.terminal for p in parties])
        if rows.size == 0:
            break
        acts = np.array([choose(rng, parties[i], forfeit) for i in rows])
        for i, a in zip(rows, acts, strict=True):
            parties[i].apply(int(a))
            if 0 <= a < 49:
                actions_seen[a] += 1
        b.step(acts, rows)
        compare_state(b, parties, rows)
    compare_results(b, parties)
    return {"outcomes": {o: sum(p.outcome == o for p in parties) for o in OUTCOME_NAMES}, "actions": actions_seen}


@pytest.mark.parametrize(
    "ace_declaration, illegal_action, stake_multiple",
    [
        ("first_ace", "raise", 1),
        ("first_card", "forfeit", 3),
    ],
)
def test_random_parties_identical_step_by_step(ace_declaration, illegal_action, stake_multiple):
    rng = np.random.default_rng(7 if ace_declaration == "first_ace" else 8)
    n = N_PARTIES // 2
    orders = orders_with_rare_hands(rng, n)
    multipliers = rng.choice(MULTIPLIERS, n)
    seen = lockstep(orders, multipliers, RuleConfig(ace_declaration, illegal_action), stake_multiple, seed=1)
    # The random actions reach every kind of ending and every declaration.
    assert seen["outcomes"]["decided"] > 0 and seen["outcomes"]["agreed_alifer"] > 0
    assert (seen["outcomes"]["forfeit"] > 0) == (illegal_action == "forfeit")
    assert (seen["actions"][36:47] > 0).all(), seen["actions"][36:47]


@settings(max_examples=60, deadline=None)
@given(
    order=st.permutations(range(36)),
    seed=st.integers(0, 2**31 - 1),
    ace_declaration=st.sampled_from(["first_ace", "first_card"]),
    illegal_action=st.sampled_from(["raise", "forfeit"]),
    multiplier=st.sampled_from(MULTIPLIERS),
)
def test_property_any_deal_identical(order, seed, ace_declaration, illegal_action, multiplier):
    lockstep(np.array([order]), np.array([multiplier]), RuleConfig(ace_declaration, illegal_action), 1, seed)


def _playthrough(name: str) -> dict:
    return json.loads((PLAYTHROUGHS / f"{name}.json").read_text())


@pytest.mark.parametrize(
    "name", ["declarations_manko", "alifer_accepted", "alifer_declined", "tie", "forfeit", "aces_first_card"]
)
def test_playthroughs_identical(name):
    pt = _playthrough(name)
    config = RuleConfig(**pt["config"])
    deal = deal_from_names({k: v.split() for k, v in pt["deal"].items()})
    ref = Partie(deal, config, pt["stake_multiple"], pt["multiplier"])
    b = BatchPartie(1, config.ace_declaration, config.illegal_action, pt["stake_multiple"])
    b.deal(orders=[order_of(deal)], multipliers=pt["multiplier"])
    compare_state(b, [ref], np.arange(1))
    for line in pt["actions"]:
        _, _, what = line.partition(": ")
        a = action_id(what)
        ref.apply(a)
        b.step([a])
        compare_state(b, [ref], np.arange(1))
    assert ref.terminal and ref.result().outcome == pt["result"]["outcome"]
    compare_results(b, [ref])


def test_playthroughs_cover_the_cases():
    outcomes = {n: _playthrough(n)["result"]["outcome"] for n in ("tie", "alifer_accepted", "forfeit")}
    assert outcomes == {"tie": "tie", "alifer_accepted": "agreed_alifer", "forfeit": "forfeit"}
    assert any("ask Manko" in a for a in _playthrough("declarations_manko")["actions"])
    assert any("decline Alifer" in a for a in _playthrough("alifer_declined")["actions"])


def test_illegal_action_raises_and_changes_nothing():
    b = BatchPartie(3)
    b.deal(rng=np.random.default_rng(0))
    before = b.S.copy()
    hand = int(b.S[1, 0])  # the challenger's hand in party 1
    not_held = next(c for c in range(36) if not hand >> c & 1)
    with pytest.raises(IllegalActionError, match=r"party 1: illegal action .* legal: "):
        b.step([44, not_held, 44], rows=[0, 1, 2])
    assert np.array_equal(b.S[1:], before[1:]) and not np.array_equal(b.S[0], before[0])
    with pytest.raises(ValueError, match="one action per party"):
        b.step([0, 1])
    with pytest.raises(ValueError, match="rows must lie"):
        b.observe(0, rows=[3])
    with pytest.raises(ValueError, match="ace_declaration"):
        BatchPartie(2, ace_declaration="never")


def test_action_after_the_end_is_refused():
    b = BatchPartie(2, illegal_action="forfeit")
    b.deal(rng=np.random.default_rng(0))
    b.step([44, 44])
    b.step([45, 46])  # party 0 accepts: over
    with pytest.raises(IllegalActionError, match="party 0: the partie is over"):
        b.step([0], rows=[0])


def test_random_playout_ends_every_partie():
    b = BatchPartie(500)
    b.deal(rng=np.random.default_rng(3))
    BatchPartie.seed_random(3)
    n = b.random_playout()
    assert b.done.all() and n >= 500
    counts = np.bincount(b.results()["outcome"], minlength=4)
    assert counts[0] > 0 and counts[2] > 0 and counts[3] == 0
