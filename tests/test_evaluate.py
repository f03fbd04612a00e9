"""The evaluator: duplicate deals, reproducibility across workers, the
documented JSON keys, the intervals, session tournaments and ratings."""

import json
import math
import random

import numpy as np
import pytest

from trappola.agents import make_player
from trappola.agents.base import Player
from trappola.agents.evaluation import (
    ProcessBackend,
    SerialBackend,
    derive_seed,
    head_to_head,
    make_backend,
    rate_pool,
    session_tournament,
)
from trappola.agents.evaluation.duplicate import RECORD_FIELDS, SUMMARY_KEYS
from trappola.agents.evaluation.report import format_summary, to_json, write_csv, write_json
from trappola.agents.evaluation.stats import clustered_rate, mean_ci, t_quantile, wilson
from trappola.agents.evaluation.tournament import PER_PLAYER_KEYS, SESSION_FIELDS, unique_labels
from trappola_env.engine import random_deal

FAST_RULE = "rule:answer_rollouts=0,endgame=2"  # canonical order: as in RulePlayer.SETTINGS


class Recorder(Player):
    """Plays like ``rule`` (bare heuristics) and notes the dealt hand and
    seat of every partie it plays."""

    kind = "recorder"

    def __init__(self):
        super().__init__()
        self.inner = make_player("rule:endgame=0,answer_rollouts=0")
        self.seen = []

    def act(self, view):
        info = view.info
        if (
            info.trick == 0
            and info.ncards[info.seat] == 0
            and not info.used[info.seat]
            and (not self.seen or self.seen[-1] != (info.seat, info.dealt, info.bottom))
        ):
            self.seen.append((info.seat, info.dealt, info.bottom))
        return self.inner.act(view)


# ------------------------------------------------------------ duplicate
def test_duplicate_plays_each_deal_twice_with_seats_swapped():
    a, b = Recorder(), Recorder()
    res = head_to_head(a, b, deals=6, duplicate=True, seed=11, workers=1)
    assert len(res.records) == 12
    for i in range(6):
        deal = random_deal(random.Random(derive_seed(11, "deal", i)))
        rows = [r for r in res.records if r["deal"] == i]
        assert [(r["game"], r["a_seat"]) for r in rows] == [(0, "challenger"), (1, "dealer")]
        # A held the challenger's hand in game 0 and the dealer's in game 1; B the others.
        assert a.seen[2 * i] == (0, deal.hands[0], deal.bottom)
        assert a.seen[2 * i + 1] == (1, deal.hands[1], deal.bottom)
        assert b.seen[2 * i] == (1, deal.hands[1], deal.bottom)
        assert b.seen[2 * i + 1] == (0, deal.hands[0], deal.bottom)
    assert len({hand for _, hand, _ in a.seen}) == 12  # every deal is a new one


def test_plain_mode_alternates_seats_once_per_deal():
    res = head_to_head("random", "random", deals=10, seed=3, workers=1)
    assert [r["a_seat"] for r in res.records] == ["challenger", "dealer"] * 5
    assert res.summary["parties"] == 10 and res.summary["win_rate_ci_method"] == "wilson"


def test_records_and_summary_agree():
    res = head_to_head(FAST_RULE, "random", deals=40, duplicate=True, seed=2, workers=1)
    s, recs = res.summary, res.records
    assert list(s) == list(SUMMARY_KEYS) and all(list(r) == list(RECORD_FIELDS) for r in recs)
    decided = [r for r in recs if r["outcome"] in ("decided", "forfeit")]
    assert s["decided"] == len(decided) and s["wins"] == sum(r["winner"] == "A" for r in decided)
    assert s["wins"] + s["losses"] == s["decided"] and s["decided"] + s["alifer"] == s["parties"] == 80
    assert s["win_rate"] == pytest.approx(s["wins"] / s["decided"])
    assert s["mean_point_diff"] == pytest.approx(sum(r["points_a"] - r["points_b"] for r in recs) / 80)
    assert s["mean_tokens"] == pytest.approx(sum(r["tokens_a"] for r in recs) / 80)
    lo, hi = s["win_rate_ci"]
    assert 0 <= lo <= s["win_rate"] <= hi <= 1
    assert s["by_seat"]["challenger"]["parties"] == s["by_seat"]["dealer"]["parties"] == 40


def test_rule_beats_random_in_a_small_duplicate_run():
    res = head_to_head("rule", "random", deals=200, duplicate=True, seed=7, workers=1)
    s = res.summary
    assert s["win_rate"] > 0.70, s
    assert s["mean_point_diff"] > 5 and s["mean_point_diff_ci"][0] > 0


def test_same_seed_same_numbers_whatever_the_workers():
    kwargs = dict(deals=24, duplicate=True, seed=5)
    one = head_to_head(FAST_RULE, "random", workers=1, **kwargs)
    two = head_to_head(FAST_RULE, "random", workers=2, chunk=5, **kwargs)
    assert to_json(one.summary) == to_json(two.summary)
    assert one.records == two.records
    other = head_to_head(FAST_RULE, "random", workers=1, deals=24, duplicate=True, seed=6)
    assert other.records != one.records


def test_head_to_head_rejects_bad_arguments():
    with pytest.raises(ValueError, match="deals"):
        head_to_head("rule", "random", deals=0)
    with pytest.raises(ValueError, match="unknown player"):
        head_to_head("rule", "nobody", deals=2)
    with pytest.raises(ValueError, match="seed"):
        head_to_head("rule", "random", deals=2, seed="x")


def test_json_and_csv_files(tmp_path):
    res = head_to_head("random", "random:alifer=false", deals=5, duplicate=True, seed=1, workers=1)
    write_json(res.summary, tmp_path / "s.json")
    write_csv(res.records, tmp_path / "r.csv")
    loaded = json.loads((tmp_path / "s.json").read_text())
    assert set(loaded) == set(SUMMARY_KEYS) and loaded["players"] == ["random", "random:alifer=false"]
    lines = (tmp_path / "r.csv").read_text().splitlines()
    assert lines[0] == ",".join(RECORD_FIELDS) and len(lines) == 11
    text = format_summary(res.summary)
    assert "win rate of random" in text and "95% CI" in text


# ------------------------------------------------------------ statistics
def test_wilson_known_values():
    lo, hi = wilson(0, 10)
    assert lo == 0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    assert wilson(0, 0) == [None, None]


def test_t_quantile_and_mean_ci():
    assert t_quantile(1) == pytest.approx(12.706, abs=1e-3)
    assert t_quantile(10) == pytest.approx(2.228, abs=2e-3)
    assert t_quantile(1000) == pytest.approx(1.962, abs=1e-3)
    m, (lo, hi) = mean_ci([1, 2, 3, 4, 5])
    assert m == 3 and hi - m == pytest.approx(2.776 * math.sqrt(2.5 / 5), abs=1e-2) and m - lo == hi - m
    assert mean_ci([]) == (None, [None, None]) and mean_ci([2]) == (2, [None, None])


def test_clustered_rate_accounts_for_pairs():
    # Independent single trials: the same as Wilson.
    wins = [1] * 70 + [0] * 30
    rate, ci, n_eff = clustered_rate(wins, [1] * 100)
    assert rate == 0.7 and n_eff == pytest.approx(100 * 0.21 / (0.21 * 100 / 99), rel=1e-9)
    assert ci[0] == pytest.approx(wilson(70, 100)[0], abs=0.005)
    # Pairs that nearly always split 1-1 (duplicate where the cards decide): the variance
    # estimate would allow more than 100 trials' worth; the effective n stops at the 100 played.
    rate, ci, n_eff = clustered_rate([1] * 45 + [2] * 3 + [0] * 2, [2] * 50)
    assert rate == 0.51 and n_eff == 100 and ci == wilson(51, 100)
    # Every pair split: no variance to estimate; plain Wilson on the trials.
    assert clustered_rate([1] * 50, [2] * 50)[1] == wilson(50, 100)
    # Pairs that are both won or both lost: half the information of 100 trials.
    rate, ci, n_eff = clustered_rate([2] * 30 + [0] * 20, [2] * 50)
    assert rate == 0.6 and n_eff == pytest.approx(49, rel=1e-6)  # ~ the 50 pairs, not 100 parties
    assert ci[1] - ci[0] > wilson(60, 100)[1] - wilson(60, 100)[0]
    assert clustered_rate([], []) == (None, [None, None], 0.0)


def test_clustered_rate_small_samples_never_narrower_than_wilson():
    # 5 wins of 9 decided parties in 5 deals: the cluster variance alone gave [0.435, 0.670].
    rate, ci, n_eff = clustered_rate([1, 1, 1, 1, 1], [2, 2, 2, 2, 1])
    assert n_eff == 9 and ci == wilson(5, 9)
    assert ci[0] == pytest.approx(0.267, abs=1e-3) and ci[1] == pytest.approx(0.811, abs=1e-3)
    rng = np.random.default_rng(0)
    for _ in range(300):
        n = int(rng.integers(2, 12))
        decided = rng.integers(0, 3, n)
        wins = rng.binomial(decided, rng.random())
        rate, ci, n_eff = clustered_rate(wins.tolist(), decided.tolist())
        total, k = int(decided.sum()), int(wins.sum())
        if total == 0:
            continue
        low, high = wilson(k, total)
        assert n_eff <= total
        assert ci[1] - ci[0] >= high - low - 1e-12, (wins, decided)


# ------------------------------------------------------------ seeds, backends
def test_derive_seed_is_stable_and_checked():
    assert derive_seed(0, "deal", 0) == derive_seed(0, "deal", 0)
    assert derive_seed(0, "deal", 0) != derive_seed(0, "deal", 1) != derive_seed(1, "deal", 1)
    assert derive_seed(0, "deal", 0) == 76554455970525263  # pinned: old results stay reproducible
    with pytest.raises(ValueError):
        derive_seed(1.5, "x")
    with pytest.raises(ValueError):
        derive_seed(1, 2.5)


def _square(x):
    return x * x


def test_backends_keep_task_order():
    tasks = list(range(20))
    seen = []
    assert SerialBackend().map(_square, tasks, progress=seen.append) == [x * x for x in tasks]
    assert seen == [x * x for x in tasks]
    with ProcessBackend(2) as backend:
        assert backend.map(_square, tasks) == [x * x for x in tasks]
    assert isinstance(make_backend(1), SerialBackend)
    with pytest.raises(ValueError, match="workers"):
        make_backend(0)


# ------------------------------------------------------------ sessions
def test_session_tournament_reports_each_player():
    players = [FAST_RULE, "random", "rule:answer_rollouts=0,endgame=2,pro=never"]
    res = session_tournament(players, sessions=6, parties=12, seed=4, workers=1)
    s = res.summary
    assert s["kind"] == "session_tournament" and s["players"] == players and s["settings"]["balanced"]
    assert len(res.records) == 18 and all(list(r) == list(SESSION_FIELDS) for r in res.records)
    for name in players:
        entry = s["per_player"][name]
        for key in PER_PLAYER_KEYS:
            assert key in entry and len(entry[key + "_ci"]) == 2
    assert s["per_player"][players[2]]["pro_declared"] == 0
    by_session = {}
    for r in res.records:
        by_session.setdefault(r["session"], []).append(r)
    for rows in by_session.values():
        assert sum(r["balance"] for r in rows) == pytest.approx(0, abs=1e-9)  # the Bulka is split at the end
        assert len({r["seating"] for r in rows}) == 1
    # The 6 sessions of the block play the 3! first seatings.
    assert len({rows[0]["seating"] for rows in by_session.values()}) == 6


def test_session_tournament_is_reproducible_across_workers():
    players = [FAST_RULE, "random"]
    one = session_tournament(players, sessions=4, parties=8, seed=9, workers=1)
    two = session_tournament(players, sessions=4, parties=8, seed=9, workers=2)
    assert to_json(one.summary) == to_json(two.summary) and one.records == two.records


def test_session_tournament_rejects_bad_sizes():
    with pytest.raises(ValueError, match="2 to 4"):
        session_tournament(["rule"], sessions=1, parties=1)
    with pytest.raises(ValueError, match="sessions"):
        session_tournament(["rule", "random"], sessions=0, parties=1)


def test_unique_labels():
    assert unique_labels(["rule", "rule", "random", "rule"]) == ["rule", "rule#2", "random", "rule#3"]


# ------------------------------------------------------------ ratings
def test_ratings_rank_the_pool():
    res = rate_pool([FAST_RULE, "random", "random:alifer=false"], deals=30, seed=1, workers=1)
    s = res.summary
    assert s["kind"] == "ratings" and len(s["pairs"]) == 3 and len(res.records) == 3 * 60
    assert s["ratings"][0]["player"] == FAST_RULE
    ordinals = [e["ordinal"] for e in s["ratings"]]
    assert ordinals == sorted(ordinals, reverse=True)
    assert "openskill" in format_summary(s)


# ------------------------------------------------------------------ progress


class _Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_progress_lines_every_tenth_and_every_half_minute():
    import io

    from trappola.agents.evaluation.progress import ProgressLines

    out, clock = io.StringIO(), _Clock()
    lines = ProgressLines(200, "a vs b", "deal", stream=out, clock=clock)
    for _ in range(20):  # 7 deals a second: a tenth takes ~3 s, never 30
        clock.now += 1.0
        lines.update(7)
    lines.update(60)
    text = out.getvalue().splitlines()
    assert text[0] == "a vs b: 21/200 deals (10%), 3 s"
    assert [int(t.split("(")[1].split("%")[0]) for t in text] == [10, 21, 31, 42, 52, 63, 70, 100]
    slow = ProgressLines(10_000, "s", "session", stream=io.StringIO(), clock=clock)
    for _ in range(10):  # 1 session in 15 s: a line every 30 s although no tenth is done
        clock.now += 15.0
        slow.update(1)
    assert len(slow.stream.getvalue().splitlines()) == 5


@pytest.mark.parametrize(
    "progress, tty, mode",
    [
        (False, True, "none"),
        (True, True, "bar"),
        (True, False, "lines"),
        ("auto", False, "lines"),
        ("bar", False, "bar"),
        ("lines", True, "lines"),
        ("none", True, "none"),
    ],
)
def test_progress_mode_follows_the_terminal(progress, tty, mode):
    from trappola.agents.evaluation.progress import progress_mode

    class Stream:
        def isatty(self):
            return tty

    assert progress_mode(progress, Stream()) == mode


def test_progress_mode_refuses_unknown_values():
    from trappola.agents.evaluation.progress import progress_mode

    with pytest.raises(ValueError, match="progress must be"):
        progress_mode("sometimes")
