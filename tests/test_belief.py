"""The belief model (``trappola.agents.search.belief``), its use by ``pimc`` to weight the
layouts it solves, and its training (``trappola.train.fit.belief_fit``)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import act, make_partie

from trappola.agents import make_player
from trappola.agents.search.belief import BeliefModel, load_belief, shipped_belief_path
from trappola.agents.search.sampling import constraints_of
from trappola.train.fit import belief_fit as tb
from trappola_env.interface import TurnView
from trappola_env.observation import OBS_SIZE


def _bias_model(bias) -> BeliefModel:
    """A model that ignores the observation: the log-odds are ``bias``."""
    return BeliefModel([(np.zeros((36, OBS_SIZE), np.float32), np.asarray(bias, np.float32))])


def _mid_game():
    """Seat 0 to lead trick 3; the opponent holds 7 of the cards seat 0 cannot see."""
    p = make_partie(challenger="AS RS 9S 7C 8C AD RD 9B 8B", dealer="2S 7S BC TC 2D 7D 8D CB 2B")
    act(p, "AS", "7S", "AD", "7D")
    return p


def _late_game():
    """``rule`` plays both seats of the same deal until the challenger is to
    play with 3 cards left: few enough layouts to solve every one."""
    p = make_partie(challenger="AS RS 9S 7C 8C AD RD 9B 8B", dealer="2S 7S BC TC 2D 7D 8D CB 2B")
    players = [make_player("rule"), make_player("rule")]
    for pl in players:
        pl.reset(0)
    while not (p.to_act == 0 and p.hands[0].bit_count() == 3):
        p.apply(players[p.to_act].act(TurnView(p.info_state(p.to_act))))
    return p


def test_layout_weights_are_the_product_of_the_odds():
    bias = np.zeros(36)
    bias[[0, 1, 2, 3]] = [1.0, 2.0, -1.0, 0.5]
    model = _bias_model(bias)
    hands = np.array([0b0011, 0b0101, 0b1000], np.int64)  # {0,1}, {0,2}, {3}
    w = model.layout_weights(np.zeros(OBS_SIZE), hands)
    expected = np.exp([3.0, 0.0, 0.5])
    assert np.allclose(w, expected / expected.sum())


def test_save_load_round_trip_and_refusals(tmp_path):
    rng = np.random.default_rng(0)
    model = BeliefModel(
        [(rng.normal(size=(8, OBS_SIZE)), rng.normal(size=8)), (rng.normal(size=(36, 8)), rng.normal(size=36))],
        meta={"deals": 5},
    )
    path = tmp_path / "b.npz"
    model.save(path)
    back = BeliefModel.load(path)
    obs = rng.random((3, OBS_SIZE))
    assert np.allclose(back.log_odds(obs), model.log_odds(obs), atol=1e-5) and back.meta == {"deals": 5}
    with pytest.raises(ValueError, match="not found"):
        BeliefModel.load(tmp_path / "missing.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a belief model"):
        BeliefModel.load(tmp_path / "junk.npz")
    with pytest.raises(ValueError, match="36 cards"):
        BeliefModel([(np.zeros((36, 10)), np.zeros(36))])
    with pytest.raises(ValueError, match="do not chain"):
        BeliefModel([(np.zeros((8, OBS_SIZE)), np.zeros(8)), (np.zeros((36, 9)), np.zeros(36))])


@pytest.mark.parametrize(
    "arrays, message",
    [
        ({"meta": np.array("[1, 2]")}, "meta must be a JSON object, got list"),
        ({"meta": np.array('"text"')}, "meta must be a JSON object, got str"),
        ({"w0": np.zeros((8, OBS_SIZE)), "b0": np.zeros(8), "w1": np.zeros((36, 9)), "b1": np.zeros(36)}, "chain"),
        ({"w0": np.full((36, OBS_SIZE), np.nan), "b0": np.zeros(36)}, "non-finite"),
        ({"w0": np.zeros((36, 10)), "b0": np.zeros(36)}, "36 cards"),
    ],
)
def test_a_bad_belief_file_is_refused_in_one_line_naming_it(tmp_path, arrays, message):
    path = tmp_path / "b.npz"
    good = {"w0": np.zeros((36, OBS_SIZE), np.float32), "b0": np.zeros(36, np.float32), "meta": np.array("{}")}
    np.savez(path, **{**good, **arrays})
    with pytest.raises(ValueError, match=message) as refused:
        load_belief(str(path))
    assert str(path) in str(refused.value) and "\n" not in str(refused.value)


def test_shipped_model_loads_and_reads_an_observation():
    model = load_belief("default")
    assert shipped_belief_path().exists() and model.meta["deals"] > 0
    assert model.log_odds(np.zeros(OBS_SIZE)).shape == (36,)


def test_pimc_with_a_belief_solves_consistent_layouts_the_model_prefers(tmp_path):
    info = _mid_game().info_state(0)
    cons = constraints_of(info)
    assert cons.count() > 64  # sampled, not enumerated
    card = next(c for c in range(36) if cons.possible >> c & 1 and not cons.forced >> c & 1)
    bias = np.zeros(36)
    bias[card] = 6.0
    path = tmp_path / "b.npz"
    _bias_model(bias).save(path)
    believer, plain = make_player(f"pimc:belief={path},samples=32"), make_player("pimc:samples=32")
    believer.reset(1)
    plain.reset(1)
    hands, weights = believer.layouts(info)
    assert all(cons.allows(int(h)) for h in hands)
    assert np.isclose(weights.sum(), 1.0) and len(hands) <= 32
    held = weights[(hands >> card) & 1 == 1].sum()
    plain_hands, plain_weights = plain.layouts(info)
    assert plain_weights is None  # no belief: the plain mean, unchanged
    uniform_share = float(((plain_hands >> card) & 1).mean())
    assert held > 0.9 and uniform_share < 0.6, (held, uniform_share)


def test_enumerated_layouts_are_weighted_exactly(tmp_path):
    info = _late_game().info_state(0)
    assert 64 < constraints_of(info).count() < 5000
    bias = np.random.default_rng(3).normal(size=36)
    path = tmp_path / "b.npz"
    _bias_model(bias).save(path)
    believer = make_player(f"pimc:belief={path},exact=100000")
    believer.reset(0)
    hands, weights = believer.layouts(info)
    assert len(hands) == constraints_of(info).count()
    logw = np.array([sum(bias[c] for c in range(36) if int(h) >> c & 1) for h in hands])
    assert np.allclose(weights, np.exp(logw - logw.max()) / np.exp(logw - logw.max()).sum())


def test_a_uniform_belief_changes_no_value_when_every_layout_is_solved(tmp_path):
    info = _late_game().info_state(0)
    path = tmp_path / "flat.npz"
    _bias_model(np.zeros(36)).save(path)
    flat, plain = make_player(f"pimc:belief={path},exact=100000"), make_player("pimc:exact=100000")
    for pl in (flat, plain):
        pl.reset(0)
    a, b = flat.card_values(info), plain.card_values(info)
    assert a.keys() == b.keys() and all(np.allclose(a[c], b[c]) for c in a)


def test_missing_belief_is_refused_by_name():
    with pytest.raises(ValueError, match="belief model not found"):
        make_player("pimc:belief=no/such/file.npz")
    with pytest.raises(ValueError, match="belief model not found"):
        make_player("policy:endgame=4,endgame_belief=no/such/file.npz")
    me = make_player("policy:endgame=4,endgame_belief=default")
    assert me.endgame_searcher.settings["belief"] == "default"
    assert make_player(me.name).settings == me.settings


def test_uniform_posterior_is_the_marginal_of_the_consistent_hands():
    p = make_partie(challenger="RS RC RD AS 7C 8C AD 9B 8B", dealer="2S 7S BC TC 2D 7D 8D CB 2B")
    act(p, "declare Figura Re", "AS", "7S")
    info = p.info_state(1)  # the dealer reads the challenger's Re declaration
    hands = constraints_of(info).all_hands()
    marginal = ((hands[:, None] >> np.arange(36)) & 1).mean(axis=0)
    assert np.allclose(tb.uniform_posterior(info), marginal, atol=1e-6)


def test_collected_rows_are_reproducible_and_agree_with_the_record(monkeypatch):
    monkeypatch.setattr(tb, "CHUNK", 3)
    pairs = [("rule", "random"), ("random", "random")]
    one = tb.collect(pairs, 7, seed=5, workers=1, progress=False)
    two = tb.collect(pairs, 7, seed=5, workers=2, progress=False)
    assert all(np.array_equal(one[k], two[k]) for k in one)
    other = tb.collect(pairs, 7, seed=6, workers=1, progress=False)
    assert not np.array_equal(one["hand"], other["hand"])
    prior, hand = one["prior"], one["hand"]
    assert (hand[prior == 1]).all() and not hand[prior == 0].any()
    sizes = hand.sum(axis=1)
    assert np.array_equal(sizes, np.rint(prior.sum(axis=1)).astype(int))  # the marginals sum to the hand size
    assert set(one["opponent"]) == {"rule", "random"}


def test_fit_reports_held_out_figures_and_the_cli_writes_a_model(tmp_path):
    data = tb.collect([("rule", "rule")], 60, seed=0, progress=False)
    model, report = tb.fit(data, hidden=(32,), epochs=3, val_share=0.2, seed=0, log=lambda *_: None)
    assert report["rows"] > 0 and {"bce_model", "bce_uniform", "p_held_model"} <= set(report)
    out = tmp_path / "b.npz"
    assert (
        tb.main(["--deals", "12", "--pairs", "rule,random", "--epochs", "1", "--hidden", "8", "--out", str(out)]) == 0
    )
    back = load_belief(str(out))
    assert back.meta["pairs"] == [["rule", "random"]] and back.meta["deals"] == 12
    with pytest.raises(SystemExit):
        tb.main(["--deals", "5", "--pairs", "rule", "--out", str(out)])


def test_belief_reads_only_the_seats_observation():
    # Two deals that agree on everything seat 0 has seen give the same log-odds.
    model = load_belief("default")
    base = make_partie(challenger="AS RS 9S 7C 8C AD RD 9B 8B", dealer="2S 7S BC TC 2D 7D 8D CB 2B")
    swap = make_partie(challenger="AS RS 9S 7C 8C AD RD 9B 8B", dealer="2S 7S BC TC 2D 7D 8D CB RC")
    for p in (base, swap):
        act(p, "AS", "7S")
    from trappola_env.observation import encode_info

    a, b = (model.log_odds(encode_info(p.info_state(0))) for p in (base, swap))
    assert np.array_equal(a, b)
