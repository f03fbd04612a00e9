"""Policy-based inference (``trappola.agents.search.inference``): the likelihood of the
opponent's past decisions per layout, checked against a replay in the
reference engine, and free of hidden information."""

from __future__ import annotations

import random
from importlib import resources

import numpy as np
import pytest
from helpers import act, make_partie

from trappola.agents import make_player
from trappola.agents.model_io.model_files import load_checkpoint_policy
from trappola.agents.search.inference import (
    SHIPPED_OPPONENT_MODELS,
    PolicyInference,
    effective_sample_size,
    load_inference,
    normalise,
)
from trappola.agents.search.sampling import constraints_of
from trappola_env.engine import Deal, Partie, random_deal
from trappola_env.engine.cards import SUIT_MASK, cards_of, mask_of
from trappola_env.interface import TurnView
from trappola_env.observation import encode


def _play_until(deal: Deal, specs, seed: int, cards_left: int, seat: int = 0, alifer_allowed: bool = True) -> Partie:
    """The partie of ``specs`` on ``deal`` when ``seat`` is to act with
    ``cards_left`` cards in hand (or over, if it ends first)."""
    p = Partie(deal, alifer_allowed=alifer_allowed)
    players = [make_player(s) for s in specs]
    for i, pl in enumerate(players):
        pl.reset(seed + i)
    while not p.terminal and not (p.to_act == seat and p.hands[seat].bit_count() == cards_left):
        p.apply(players[p.to_act].act(TurnView(p.info_state(p.to_act))))
    return p


def _reference_log_likelihood(policy, info, hand: int) -> float:
    """The opponent's past decisions replayed one by one in the reference
    engine, on the deal the layout ``hand`` completes."""
    opp = 1 - info.seat
    opp_dealt = hand | mask_of(info.played_by(opp))
    rest = [c for c in range(36) if not (info.dealt | opp_dealt | 1 << info.bottom) >> c & 1]
    hands = (info.dealt, opp_dealt) if info.seat == 0 else (opp_dealt, info.dealt)
    q = Partie(
        Deal(tuple(cards_of(hands[0])), tuple(cards_of(hands[1])), tuple(rest) + (info.bottom,)),
        multiplier=info.multiplier,
        alifer_allowed=info.alifer_allowed,
    )
    total = 0.0
    for seat, action in info.history:
        mask = q.legal_mask()
        if seat == opp and mask & (mask - 1):
            legal = np.array([mask >> a & 1 for a in range(49)], bool)
            total += float(np.log(policy.probabilities(encode(q, opp), legal)[action]))
        q.apply(action)
    return total


@pytest.fixture(scope="module")
def network():
    return load_checkpoint_policy("default")[0]


def test_likelihood_equals_a_replay_in_the_reference_engine(network):
    inference = PolicyInference(network)
    checked = 0
    for seed in range(6):
        seat = seed % 2
        # rule declares at once and asks Manko: declarations count as evidence too.
        # Seeds 4 and 5: a Pro partie in which Alifer may not be proposed (rules section 8).
        p = _play_until(
            random_deal(random.Random(seed)),
            ("rule", "policy:endgame=0"),
            seed,
            4 + seed % 3,
            seat,
            alifer_allowed=seed < 4,
        )
        if p.terminal:
            continue
        info = p.info_state(seat)
        hands = constraints_of(info).sample(random.Random(seed), 12)
        got = inference.log_likelihood(info, hands)
        want = [_reference_log_likelihood(network, info, int(h)) for h in hands]
        assert np.allclose(got, want, atol=1e-3), (seed, got, want)
        checked += 1
    assert checked >= 4


def test_the_true_hand_is_likelier_than_the_typical_layout_when_the_model_is_the_opponent(network):
    # Against the network itself the model is right, so the true hand should
    # be far likelier than a layout drawn uniformly from the record.
    inference = PolicyInference(network)
    gaps = []
    for seed in range(8):
        p = _play_until(random_deal(random.Random(100 + seed)), ("rule", "policy:endgame=0"), seed, 4)
        if p.terminal:
            continue
        info = p.info_state(0)
        hands = constraints_of(info).sample(random.Random(seed), 64)
        true = inference.log_likelihood(info, np.array([p.hands[1]], np.int64))[0]
        gaps.append(true - np.median(inference.log_likelihood(info, hands)))
    assert len(gaps) >= 5 and np.mean(gaps) > 3.0, gaps


def test_a_layout_the_record_rules_out_gets_no_weight(network):
    p = make_partie(challenger="7S 8S 9S 7C 8C 9C 7D 8D 9D", dealer="2C TC BC 2D TD BD 2B TB BB")
    act(p, "7S", "2C", "7C", "TC")  # the dealer showed a void in Spade
    info = p.info_state(0)
    good = constraints_of(info).sample(random.Random(0), 4)
    # A hand with a Spade: same size, drawn from the unseen cards, against the void.
    spade = next(c for c in cards_of(info.unseen() & SUIT_MASK[0]))
    bad = (int(good[0]) & ~(1 << cards_of(int(good[0]))[0])) | 1 << spade
    ll = PolicyInference(network).log_likelihood(info, np.array([*good, bad], np.int64))
    assert np.isfinite(ll[:4]).all() and ll[4] == -np.inf
    w = normalise(ll)
    assert w[4] == 0 and np.isclose(w.sum(), 1)


def test_no_decision_yet_gives_uniform_weights(network):
    p = make_partie(challenger="7S 8S 9S 7C 8C 9C 7D 8D 9D", dealer="2C TC BC 2D TD BD 2B TB BB")
    info = p.info_state(0)
    hands = constraints_of(info).sample(random.Random(0), 5)
    assert np.array_equal(PolicyInference(network).log_likelihood(info, hands), np.zeros(5))
    assert effective_sample_size(normalise(np.zeros(5))) == pytest.approx(5.0)


def test_temperature_and_floor_flatten_the_weights(network):
    p = _play_until(random_deal(random.Random(3)), ("rule", "policy:endgame=0"), 3, 4)
    info = p.info_state(0)
    hands = constraints_of(info).sample(random.Random(0), 64)
    ess = [
        effective_sample_size(PolicyInference(network, t, f).layout_weights(info, hands))
        for t, f in ((1.0, 0.0), (3.0, 0.0), (1.0, 0.5))
    ]
    assert ess[1] > ess[0] and ess[2] > ess[0], ess
    with pytest.raises(ValueError, match="temperature"):
        PolicyInference(network, 0.0)
    with pytest.raises(ValueError, match="floor"):
        PolicyInference(network, 1.0, 1.5)


def _swapped_twins(seed: int, cards_left: int):
    """(partie, twin): the same game of ``rule`` against the network on two
    deals that differ only in which hidden cards are the dealer's and which
    lie in the stock, up to the challenger's turn with ``cards_left``
    cards; None when no swap keeps the record legal."""
    deal = random_deal(random.Random(seed))
    p = _play_until(deal, ("rule", "policy:endgame=0"), seed, cards_left)
    if p.terminal:
        return None
    rng = random.Random(seed)
    unplayed = cards_of(p.hands[1])
    stock = list(deal.stock[:-1])
    for _ in range(50):
        a, b = rng.choice(unplayed), rng.choice(stock)
        dealer = tuple(b if c == a else c for c in deal.dealer)
        twin_deal = Deal(deal.challenger, dealer, tuple(a if c == b else c for c in stock) + (deal.bottom,))
        twin = Partie(twin_deal)
        try:
            for _, action in p.history:
                twin.apply(action)
        except ValueError:
            continue
        if twin.hands[1] != p.hands[1]:
            return p, twin
    return None


def test_weights_and_decisions_read_only_what_the_seat_may_know():
    """Swap the dealer's unplayed cards with hidden stock cards under the
    same record: the challenger's inference weights (on the same layouts)
    and its searched decisions must not change."""
    inference = load_inference("policy")
    pairs = 0
    for seed in range(12):
        twins = _swapped_twins(seed, 5)
        if twins is None:
            continue
        p, twin = twins
        a, b = p.info_state(0), twin.info_state(0)
        hands = constraints_of(a).sample(random.Random(seed), 16)
        assert np.array_equal(inference.log_likelihood(a, hands), inference.log_likelihood(b, hands))
        for spec in (
            "pimc:infer=policy,samples=4,infer_draws=32",
            "policy:endgame=9,endgame_infer=policy,endgame_samples=4,endgame_infer_draws=32",
        ):
            decisions = []
            for info in (a, b):
                player = make_player(spec)
                player.reset(seed)
                decisions.append(player.act(TurnView(info)))
            assert decisions[0] == decisions[1], (spec, seed)
        pairs += 1
    assert pairs >= 6


def test_infer_settings_are_checked():
    with pytest.raises(ValueError, match="not found"):
        make_player("pimc:infer=no/such/model.zip")
    with pytest.raises(ValueError, match="infer_draws"):
        make_player("pimc:infer=policy,infer_draws=5000")
    with pytest.raises(ValueError, match="infer_floor"):
        make_player("pimc:infer=policy,infer_floor=2")
    shipped = load_checkpoint_policy(
        str(resources.files("trappola.agents") / "models" / SHIPPED_OPPONENT_MODELS["pimc"])
    )[1]
    assert shipped["opponent_model"]["teacher"] == "pimc:samples=32"  # the file records its fit
    assert make_player("pimc:infer=pimc").settings["infer"] == "pimc"
    me = make_player("policy:endgame_infer=policy,endgame_infer_floor=0.1")
    assert me.endgame_searcher.settings["infer"] == "policy"
    assert make_player(me.name).settings == me.settings


def test_pimc_with_inference_solves_consistent_layouts_weighted_to_the_likely_ones():
    p = _play_until(random_deal(random.Random(5)), ("rule", "policy:endgame=0"), 5, 5)
    info = p.info_state(0)
    cons = constraints_of(info)
    assert cons.count() > 64  # sampled, then resampled by weight
    player = make_player("pimc:infer=policy,samples=16,infer_draws=256")
    player.reset(0)
    hands, weights = player.layouts(info)
    assert len(hands) <= 16 and np.isclose(weights.sum(), 1.0)
    assert all(cons.allows(int(h)) for h in hands)
    inference = load_inference("policy")
    uniform = cons.sample(random.Random(1), 256)
    # The kept layouts are likelier, on average, than uniform draws.
    assert (weights @ inference.log_likelihood(info, hands)) > np.mean(inference.log_likelihood(info, uniform))


def test_an_opponent_model_fitted_to_a_player_reads_it_better(tmp_path):
    from trappola.train.fit import opponent_model

    out = tmp_path / "rule.zip"
    assert opponent_model.main(["--teacher", "rule", "--deals", "30", "--epochs", "3", "--out", str(out)]) == 0
    policy, meta = load_checkpoint_policy(str(out))
    report = meta["opponent_model"]
    assert report["teacher"] == "rule" and report["deals"] == 30
    assert report["ce_after"] < report["ce_before"]  # the held-out decisions of rule, better predicted
    player = make_player(f"pimc:infer={out},samples=4,infer_draws=16")
    player.reset(0)
    p = _play_until(random_deal(random.Random(2)), ("rule", "rule"), 2, 5)
    assert player.act(TurnView(p.info_state(0))) in cards_of(p.legal_mask())
    with pytest.raises(SystemExit):
        opponent_model.main(["--deals", "0", "--out", str(out)])


def test_distillation_fits_the_network_to_the_search_on_its_own_states(tmp_path):
    from trappola.train.fit import distill

    out = tmp_path / "distilled.zip"
    assert (
        distill.main(
            [
                "--expert",
                "rule",
                "--opponent",
                "random",
                "--rounds",
                "2",
                "--deals",
                "8",
                "--epochs",
                "3",
                "--learning-rate",
                "1e-3",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    policy, meta = load_checkpoint_policy(str(out))
    rounds = meta["distill"]["rounds"]
    assert len(rounds) == 2 and all(r["rows"] > 0 for r in rounds)
    assert rounds[-1]["ce_after"] < rounds[0]["ce_before"]  # closer to the expert on held-out decisions
    assert meta["pro_policy"] == load_checkpoint_policy("default")[1]["pro_policy"]  # the Pro decision stays
    player = make_player(f"policy:{out},endgame=0")
    player.reset(0)
    p = _play_until(random_deal(random.Random(4)), ("rule", "rule"), 4, 7)
    assert p.is_legal(player.act(TurnView(p.info_state(0))))
    with pytest.raises(SystemExit):
        distill.main(["--rounds", "0", "--out", str(out)])
