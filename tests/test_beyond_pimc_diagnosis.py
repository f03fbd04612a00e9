"""The diagnosis script's instruments (benchmarks/beyond_pimc_diagnosis.py): the exact binomial interval, the
position-level bootstrap, and positions drawn without looking at the outcome."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba")

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "beyond_pimc_diagnosis.py"
_spec = importlib.util.spec_from_file_location("beyond_pimc_diagnosis", _PATH)
diag = importlib.util.module_from_spec(_spec)
sys.modules["beyond_pimc_diagnosis"] = diag
_spec.loader.exec_module(diag)


def test_clopper_pearson_matches_closed_forms():
    # 0 of n: the upper end solves (1 - p)^n = 0.025; n of n mirrors it.
    lo, hi = diag.clopper_pearson(0, 30)
    assert lo == 0.0 and hi == pytest.approx(1 - 0.025 ** (1 / 30), abs=1e-9)
    lo, hi = diag.clopper_pearson(30, 30)
    assert hi == 1.0 and lo == pytest.approx(0.025 ** (1 / 30), abs=1e-9)
    # 0 of 30 does not exclude a rate of 10%: the point the diagnosis's old "0 of 30" missed.
    assert diag.clopper_pearson(0, 30)[1] > 0.1
    lo, hi = diag.clopper_pearson(2, 30)  # R: binom.test(2, 30)$conf.int
    assert lo == pytest.approx(0.008178, abs=1e-5) and hi == pytest.approx(0.220735, abs=1e-5)


def test_bootstrap_ratio_is_the_pooled_ratio_with_an_interval_around_it():
    num, den = [1, 2, 3, 4, 0, 5], [2, 2, 4, 4, 1, 6]
    r, lo, hi = diag.bootstrap_ratio(num, den)
    assert r == pytest.approx(15 / 19) and lo < r < hi
    assert diag.bootstrap_ratio([3, 3], [4, 4])[1:] == (0.75, 0.75)  # no spread between positions, none drawn


def test_positions_are_not_chosen_by_the_outcome():
    found = list(diag.late_positions(24, 3, seed=3))
    positions = [(i, p, s) for i, p, s in found if p is not None]
    assert len(positions) == 24
    assert {s for _, _, s in positions} == {0, 1}  # the coin picks either seat
    # The Alifer proposal is open at most positions (a line that never proposes one): requiring it closed,
    # as the script once did, would have kept only seats that had proposed, i.e. were losing.
    proposals = sum(p.info_state(s).legal_mask >> diag.PROPOSE_ALIFER & 1 for _, p, s in positions)
    assert proposals > len(positions) // 2
    for _, p, s in positions:
        info = p.info_state(s)
        assert p.to_act == s and info.trick >= 6 and (info.legal_mask & diag.CARD_ACTIONS).bit_count() >= 2
