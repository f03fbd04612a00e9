"""The learned Pro decision: features of both decision views, the
threshold family, serialisation, the policy player's use of it, and a
small simulated-session comparison."""

from __future__ import annotations

import numpy as np
import pytest

from trappola.agents import make_player
from trappola.agents.pro_learned import FEATURES, ProPolicy, features
from trappola.agents.pro_rules import ProRule
from trappola.train.pro.bench import SessionBench
from trappola.train.pro.compare import compare, threshold_rule
from trappola.train.pro.rollouts import pro_advantages
from trappola_env.engine.session import ProDecision
from trappola_env.interface import ProView


def view(bulka, parties_left=30, stake_multiple=1, multiplier=1):
    return ProView(
        player=0,
        players=("a", "b", "c", "d"),
        balances=(0, 0, 0, 0),
        streaks=(2, 0, 0, 0),
        bulka=bulka,
        opponent="rule",
        multiplier=multiplier,
        stake_multiple=stake_multiple,
        parties_left=parties_left,
    )


def decision(bulka, extra_stake=10, parties_left=30):
    return ProDecision("a", 2, extra_stake, bulka, 0, 4, parties_left)


def test_features_agree_between_proview_and_prodecision():
    assert features(view(60, 30)) == features(decision(60, 10, 30)) == (1.0, 0.6, 0.6)
    # The Bulka is measured in extra stakes, so the stake multiple cancels out.
    assert features(view(120, 30, stake_multiple=2)) == features(view(60, 30))
    assert features(view(60, None))[2] == 1.0  # unknown session length: "far from the end"


@pytest.mark.parametrize("t, bulka, expected", [(4, 39, False), (4, 40, True), (6, 50, False), (6, 60, True)])
def test_threshold_rule(t, bulka, expected):
    assert ProPolicy.threshold(t).decide(decision(bulka)) is expected
    assert ProPolicy.threshold(t).decide(view(bulka)) is expected


@pytest.mark.parametrize("t, bulka, expected", [(3, 29, False), (3, 30, True), (5, 49, False), (5, 50, True)])
def test_fixed_threshold_rule_reads_proview_and_prodecision_alike(t, bulka, expected):
    # The other players' Pro rule at the bench's table (the engine's ProDecision) is the
    # players' own ProRule (a ProView), in base stakes either way.
    rule = ProRule("threshold", t)
    assert rule.decide(decision(bulka), None) is expected
    assert rule.decide(view(bulka), None) is expected
    assert threshold_rule(t)(decision(bulka)) is expected
    # At twice the stakes the same rule needs twice the Bulka.
    assert rule.decide(view(2 * bulka, stake_multiple=2), None) is expected
    assert rule.decide(decision(2 * bulka, extra_stake=20), None) is expected


def test_fixed_rule_against_named_opponents_reads_the_challenger_of_a_prodecision():
    only_random = ProRule("threshold", 3, ("random",))
    assert not only_random.decide(decision(100), None)  # challenger "" (not given)
    assert only_random.decide(ProDecision("a", 2, 10, 100, 0, 4, 30, "random:x"), None)
    assert not only_random.decide(ProDecision("a", 2, 10, 100, 0, 4, 30, "rule"), None)


def test_random_rule_draws_its_coins_from_the_given_generator():
    import random

    a = ProRule("random").with_rng(random.Random(4))
    b = ProRule("random").with_rng(random.Random(4))
    answers = [a(decision(0)) for _ in range(40)]
    assert answers == [b(decision(0)) for _ in range(40)] and 5 < sum(answers) < 35


def test_round_trip_and_bad_specs():
    p = ProPolicy((-0.5, 1.0, 0.25))
    assert ProPolicy.from_dict(p.to_dict()) == p
    assert p.to_dict()["features"] == list(FEATURES)
    with pytest.raises(ValueError, match="weights"):
        ProPolicy((1.0,))
    with pytest.raises(ValueError, match="unsupported"):
        ProPolicy.from_dict({"kind": "mlp"})
    with pytest.raises(ValueError, match="pro mode must be one of"):
        ProRule("sometimes")


def test_policy_player_uses_the_learned_rule_or_the_shared_ones():
    learned = make_player("policy")
    never = make_player("policy:pro=never")
    assert never.name == "policy:pro=never" and not never.decide_pro(view(500))
    assert make_player("policy:pro=always").decide_pro(view(0))
    if learned.learned_pro is not None:
        assert learned.decide_pro(view(400)) == learned.learned_pro.decide(view(400))
    else:  # a checkpoint without a Pro policy falls back to the threshold rule (3 base stakes)
        assert learned.decide_pro(view(30)) and not learned.decide_pro(view(20))


def test_session_bench_compares_rules_on_the_same_sessions():
    bench = SessionBench(max_parties=12)
    table = compare(bench, {"never": lambda d: False, "always": lambda d: True}, sessions=4, seed=1)
    assert set(table) == {"never", "always"}
    d, lo, hi = table["always"]["minus_never"]
    assert lo <= d <= hi
    assert table["never"]["minus_always"][0] == pytest.approx(-d)
    # Never declaring never takes the Bulka: the focal player only pays stakes
    # and declaration/bonus payments, and gets back its share of the final split.
    again = bench.tokens_per_partie(lambda d: False, [5, 6])
    assert list(again) == list(bench.tokens_per_partie(lambda d: False, [5, 6]))  # seeded: reproducible


def test_parallel_sessions_give_the_same_values():
    one = SessionBench(max_parties=8)
    two = SessionBench(max_parties=8, workers=2)
    seeds = [11, 12, 13, 14, 15]
    rule = ProPolicy.threshold(5)
    assert list(one.tokens_per_partie(rule, seeds)) == list(two.tokens_per_partie(rule, seeds))


def test_confidence_rule_departs_from_declaring_only_on_significant_evidence():
    # Fitted advantage -1 everywhere: with a tiny covariance it declines; with a wide one
    # (the evidence is not significant) it keeps declaring.
    w = (-1.0, 0.0, 0.0)
    assert not ProPolicy(w, ((1e-4, 0, 0), (0, 1e-4, 0), (0, 0, 1e-4)), 1.96).decide(decision(100))
    assert ProPolicy(w, ((1.0, 0, 0), (0, 1.0, 0), (0, 0, 1.0)), 1.96).decide(decision(100))
    p = ProPolicy(w, ((1.0, 0, 0), (0, 1.0, 0), (0, 0, 1.0)), 1.96)
    assert ProPolicy.from_dict(p.to_dict()) == p


def test_paired_rollout_advantages_are_recorded_per_offer():
    bench = SessionBench(max_parties=10)
    X, A = pro_advantages(bench, [3, 4])
    assert X.shape == (len(A), 3) and len(A) > 0
    assert (X[:, 0] == 1.0).all() and (X[:, 1] >= 0.2).all()  # a streak of 2 needs 2 parties: Bulka >= 2 stakes
    X2, A2 = pro_advantages(bench, [3, 4])
    assert (A == A2).all()  # seeded: reproducible


def test_compare_plays_short_rules_on_a_prefix_of_the_same_sessions():
    bench = SessionBench(max_parties=8)
    rules = {"always": lambda d: True, "never": lambda d: False}
    full = compare(bench, rules, sessions=4, seed=2)
    part = compare(bench, rules, sessions=4, seed=2, short=("never",), short_sessions=2)
    assert part["always"]["sessions"] == 4 and part["never"]["sessions"] == 2
    assert part["always"]["mean"] == full["always"]["mean"]
    # Differences are paired on the two sessions both rules played.
    first_two = compare(bench, rules, sessions=2, seed=2)
    assert part["always"]["minus_never"] == pytest.approx(first_two["always"]["minus_never"])


def test_cli_trains_compares_and_writes_the_table(tmp_path, capsys):
    import json

    from trappola.train.pro.__main__ import main

    out = tmp_path / "pro.json"
    assert (
        main(
            [
                "--rate-parties",
                "20",
                "--scan-sessions",
                "3",
                "--test-sessions",
                "4",
                "--baseline-sessions",
                "2",
                "--parties",
                "6",
                "--workers",
                "1",
                "--thresholds",
                "3,5",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    saved = json.loads(out.read_text())
    best = max(saved["scan"], key=saved["scan"].get)
    assert set(saved["table"]) == {"learned", "always", "never", f"threshold:{float(best):g}"}
    assert saved["learned"]["kind"] == "lookahead" and set(saved["learned"]["win_rates"]) == {"rule", "random"}
    assert "threshold scan" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(["--thresholds", "x"])
    assert exc.value.code == 2


def test_pro_advantage_data_is_the_same_with_two_workers():
    from trappola.train.pro.rollouts import pro_advantage_data

    X1, A1 = pro_advantage_data(SessionBench(max_parties=8), sessions=4, seed=3)
    X2, A2 = pro_advantage_data(SessionBench(max_parties=8, workers=2), sessions=4, seed=3)
    assert len(A1) > 0
    # The workers' chunks interleave the sessions, so the offers come back in another order.
    rows = lambda X, A: sorted(map(tuple, np.column_stack([X, A]).round(9).tolist()))  # noqa: E731
    assert rows(X1, A1) == rows(X2, A2)
