"""The Pro-decision analysis: paired-rollout records, the cell table, the
cross-fitted gain of a cell rule over "always declare" and the detectable
gain of a session comparison."""

from __future__ import annotations

import numpy as np
import pytest

from trappola.train.pro.analysis import (
    FIELDS,
    OneTable,
    as_arrays,
    collect,
    cross_fitted_gain,
    detectable_gain,
    load,
    save,
    table,
)
from trappola.train.pro.bench import SessionBench


def records(rows):
    return as_arrays([dict(zip(FIELDS, r, strict=True)) for r in rows])


def synthetic(bad_advantage: float, n_sessions: int = 200, seed: int = 0):
    """Three offers a session: vs `rule` with `random` next and a small Bulka
    (advantage ``bad_advantage``), and two offers where declaring is worth +4."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(n_sessions):
        rows.append((s, 3.0, 40, "rule", "random", bad_advantage + 0.1 * rng.standard_normal()))
        rows.append((s, 25.0, 20, "rule", "rule", 4.0 + 0.1 * rng.standard_normal()))
        rows.append((s, 9.0, 10, "random", "rule", 4.0 + 0.1 * rng.standard_normal()))
    return records(rows)


def test_cross_fitted_gain_finds_the_cell_where_waiting_pays():
    cf = cross_fitted_gain(synthetic(-2.0), repeats=5)
    # Declining the bad cell (one offer a session) gains its 2 tokens a partie; nothing else is declined.
    assert cf["gain"] == pytest.approx(2.0, abs=0.05)
    assert cf["declined_share"] == pytest.approx(1 / 3)


def test_cross_fitted_gain_of_pure_noise_is_about_zero():
    rng = np.random.default_rng(3)
    rows = [
        (
            s,
            float(rng.uniform(2, 60)),
            int(rng.integers(1, 60)),
            str(rng.choice(["rule", "random"])),
            str(rng.choice(["rule", "random"])),
            float(rng.standard_normal() * 10),
        )
        for s in range(400)
        for _ in range(4)
    ]
    cf = cross_fitted_gain(records(rows), repeats=10)
    assert abs(cf["gain"]) < 3 * cf["se"]
    # With the advantage positive everywhere, the cell rule is "always declare".
    assert cross_fitted_gain(synthetic(+1.0), repeats=3) == pytest.approx(
        {"gain": 0.0, "se": 0.0, "declined_share": 0.0, "sessions": 200, "repeats": 3}
    )


def test_table_groups_offers_by_challenger_next_and_bulka():
    rows = table(synthetic(-2.0, n_sessions=10))
    by = {group.strip(): (n, mean) for group, n, mean, _, _ in rows}
    assert by["all offers"][0] == 30
    assert by["challenger rule"][0] == 20 and by["challenger random"][0] == 10
    n, mean = by["Bulka 0-5 stakes"]
    assert n == 10 and mean == pytest.approx(-2.0, abs=0.1)
    assert by["parties left 30+"][0] == 10


def test_detectable_gain():
    assert detectable_gain(10.0, 100) == pytest.approx(2.8016, abs=1e-3)
    assert detectable_gain(10.0, 400, differing_offers=4) == pytest.approx(2.8016, abs=1e-3)


def test_save_load_round_trip_and_refusal(tmp_path):
    recs = synthetic(-1.0, n_sessions=3)
    save(recs, tmp_path / "r.npz")
    back = load(tmp_path / "r.npz")
    assert all((back[f] == recs[f]).all() for f in FIELDS)
    np.savez(tmp_path / "other.npz", X=np.zeros(3))
    with pytest.raises(ValueError, match="missing"):
        load(tmp_path / "other.npz")


def test_collect_records_paired_rollouts_of_real_sessions():
    one = collect(OneTable(SessionBench(max_parties=10)), sessions=3, seed=5)
    two = collect(OneTable(SessionBench(max_parties=10, workers=2)), sessions=3, seed=5)
    assert len(one["advantage"]) > 0
    assert all((one[f] == two[f]).all() for f in FIELDS)  # a session depends on its seed only
    assert set(one["challenger"]) <= {"rule", "random"}  # the focal player never challenges itself
    assert (one["bulka_in_costs"] >= 2).all()  # a streak of 2 took 2 parties' stakes
    assert ((one["parties_left"] >= 1) & (one["parties_left"] <= 10)).all()


def test_mixed_tables_draw_the_held_out_tables_and_record_kinds():
    from trappola.train.pro.analysis import MixedTables
    from trappola.train.pro.observed import TEST_POOL, table_of

    tables = MixedTables("rule", max_parties=10)
    bench = tables.bench(11)
    assert [spec for _, spec, _ in bench.table[1:]] == table_of(TEST_POOL, 11)  # observed's held-out table
    assert bench.table[0][1] == "rule" and bench.table[0][2] is None  # the focal Pro rule is the one tested
    one = collect(tables, sessions=4, seed=2)
    two = collect(MixedTables("rule", max_parties=10, workers=2), sessions=4, seed=2)
    assert len(one["advantage"]) > 0
    assert all((one[f] == two[f]).all() for f in FIELDS)
    assert set(one["challenger"]) <= {"pimc", "rule", "random"}  # kinds, as the cells read them
