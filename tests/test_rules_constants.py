"""The rules constants that the numba code keeps in its own module names
(the solver's ``rules_kernel`` and the batched engine's ``kernels``) equal
the engine's, so a change of a rule in ``trappola_env.engine`` fails here
unless the copies follow it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from layering import PACKAGE_DIRS, source_file

from trappola_env.engine import bonuses, cards, declarations, scoring
from trappola_env.engine.actions import (
    ACCEPT_ALIFER,
    ACES,
    BIANKA,
    BLANS,
    DECLINE_ALIFER,
    FIGURA_BUBE,
    FIGURA_CAVALL,
    FIGURA_RE,
    FIGURA_TWOS,
    MANKO,
    N_ACTIONS,
    PROPOSE_ALIFER,
)

FIGURAS = (FIGURA_RE, FIGURA_CAVALL, FIGURA_BUBE, FIGURA_TWOS)


def test_solver_card_constants():
    from trappola.agents.search.solver import rules_kernel as rk

    assert rk.POINTS.tolist() == list(cards.CARD_POINTS)
    assert rk.SUITS.tolist() == list(cards.SUIT_MASK)
    assert rk.ACES == cards.ACE_MASK
    assert (cards.TWO, cards.ACE, cards.N_CARDS) == (0, 8, 36)  # the kernels test card % 9 == 0 / == 8


def test_solver_bonus_constants():
    from trappola.agents.search.solver import rules_kernel as rk

    assert bonuses.MARC[0] == rk.MARC_BONUS
    assert bonuses.FIRST_TRICK_TWO[0] == rk.FIRST_TRICK_TWO
    assert bonuses.MIDDLE_TWO[0] == rk.MIDDLE_TWO
    assert rk.RUN_BONUS.tolist() == [0] + [bonuses.LAST_TWOS[s][0] for s in (1, 2, 3)]
    assert sorted(bonuses.LAST_TWOS) == [1, 2, 3]
    assert bonuses.LAST_TRICK[0] == rk.LAST_TRICK_BONUS


def test_solver_aces_declaration_values():
    from trappola.agents.search.solver import rules_kernel as rk

    assert sorted(declarations.ACES_VALUE) == [3, 4]
    for n in (3, 4):
        kept = declarations.declaration_value(ACES, n, aces_won=True)[0]
        broken = declarations.declaration_value(ACES, n, aces_won=False)[0]
        assert rk.ace_declaration_value.py_func(n, False) == kept
        assert rk.ace_declaration_value.py_func(n, True) == broken
        assert rk.ace_stake.py_func(n, False) == kept - broken
        assert rk.ace_stake.py_func(n, True) == 0


def test_solver_infinity_exceeds_any_score_difference():
    from trappola.agents.search.solver import rules_kernel as rk

    bonus = (
        bonuses.MARC[0]
        + bonuses.FIRST_TRICK_TWO[0]
        + 8 * bonuses.MIDDLE_TWO[0]
        + max(v[0] for v in bonuses.LAST_TWOS.values())
        + bonuses.LAST_TRICK[0]
    )
    decl = (
        sum(max(v[0] for v in declarations.FIGURA_VALUE[a].values()) for a in FIGURAS)
        + max(v[0] for v in declarations.ACES_VALUE.values())
        + declarations.BLANS_VALUE[0]
        + declarations.BIANKA_VALUE[0]
    )
    assert 2 * (sum(cards.CARD_POINTS) + bonus + decl) < rk.INF


def _project_files_read_by_kernels(folder: Path) -> set[Path]:
    """The project's source files that the numba modules (those using
    ``njit``) of ``folder`` import from, outside the folder."""
    root = Path(__file__).resolve().parents[1]
    package = next(
        name + "".join("." + p for p in folder.relative_to(root / top).parts)
        for name, top in PACKAGE_DIRS.items()
        if folder.is_relative_to(root / top)
    )
    read = set()
    for path in folder.glob("*.py"):
        source = path.read_text(encoding="utf-8")
        if "njit" not in source:
            continue
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else [])
                )
            for name in [f"{base}.{a.name}" for a in node.names] + [base]:
                file = source_file(name)
                if file is not None and file.exists() and file.parent != folder:
                    read.add(file.resolve())
    return read


@pytest.mark.parametrize("package", ["trappola.agents.search.solver", "trappola_env.batch"])
def test_numba_cache_watches_every_file_the_kernels_read(package):
    """numba's cache checks only a kernel's own file and freezes the globals
    it read: every project file the kernels import from must be among the
    sources whose change drops the cache (``trappola_env.numba_cache``)."""
    import importlib

    sources = importlib.import_module(package).numba_sources()
    folder = Path(importlib.import_module(package).__file__).resolve().parent
    read = _project_files_read_by_kernels(folder)
    assert read, "no project import found: the test would pass vacuously"
    assert read <= set(sources), sorted(str(p) for p in read - set(sources))
    assert set(folder.glob("*.py")) <= set(sources)


def test_changed_source_drops_the_cache(tmp_path):
    from trappola_env import numba_cache

    module = tmp_path / "kernels.py"
    module.write_text("x = 1\n")
    rules = tmp_path / "rules.py"
    rules.write_text("POINTS = 30\n")
    cache = numba_cache.cache_dir(module)
    numba_cache.drop_stale_cache(module, [module, rules])
    (cache / "kernels.f-1.py312.nbi").write_text("index")
    numba_cache.drop_stale_cache(module, [module, rules])
    assert (cache / "kernels.f-1.py312.nbi").exists()  # nothing changed: the cache stays
    rules.write_text("POINTS = 31\n")
    numba_cache.drop_stale_cache(module, [module, rules])
    assert not (cache / "kernels.f-1.py312.nbi").exists()


def test_batch_card_and_action_constants():
    from trappola_env.batch import kernels as K

    assert K.SUIT_MASKS.tolist() == list(cards.SUIT_MASK)
    assert K.RANK_MASKS.tolist() == list(cards.RANK_MASK)
    assert K.CARD_PTS.tolist() == list(cards.CARD_POINTS)
    assert (K.ACE_BITS, K.COURT_BITS, K.CARD_BITS) == (cards.ACE_MASK, cards.COURT_MASK, cards.ALL_CARDS)
    assert K.BIANKA_FORBIDDEN == declarations.BIANKA_FORBIDDEN
    assert K.FIG_RANK.tolist() == [declarations.FIGURA_RANK[a] for a in FIGURAS]
    assert [K.FIG0 + i for i in range(8)] == [*FIGURAS, ACES, BLANS, BIANKA, MANKO]
    assert sum(1 << a for a in declarations.FIGURA_ACTIONS) == K.FIGURA_BITS
    assert (K.ACES_BIT, K.MANKO_BIT, K.PROPOSE_BIT) == (1 << ACES, 1 << MANKO, 1 << PROPOSE_ALIFER)
    assert K.ANSWER_BITS == (1 << ACCEPT_ALIFER) | (1 << DECLINE_ALIFER)
    assert K.NACT == N_ACTIONS


def test_batch_declaration_values():
    from trappola_env.batch import kernels as K

    for f, action in enumerate(FIGURAS):
        for n in (3, 4):
            assert (K.FIG_POINTS[f, n - 3], K.FIG_PAY[f, n - 3]) == declarations.declaration_value(action, n, True)
    for n in (3, 4):
        assert (K.ACES_WIN[n - 3], K.ACES_PAY[n - 3]) == declarations.declaration_value(ACES, n, True)
        assert (K.ACES_LOSE[n - 3], K.ACES_PAY[n - 3]) == declarations.declaration_value(ACES, n, False)
    assert declarations.declaration_value(BLANS, 1, True) == (K.BLANS_POINTS, K.BLANS_PAY)
    assert declarations.declaration_value(BIANKA, 1, True) == (K.BIANKA_POINTS, K.BIANKA_PAY)


def test_batch_bonus_values_and_stake():
    from trappola_env.batch import kernels as K

    assert (K.MARC_POINTS, K.MARC_PAY) == bonuses.MARC
    assert (K.FIRST_TWO_POINTS, K.FIRST_TWO_PAY) == bonuses.FIRST_TRICK_TWO
    assert (K.MIDDLE_TWO_POINTS, K.MIDDLE_TWO_PAY) == bonuses.MIDDLE_TWO
    assert K.LAST_TWOS_POINTS.tolist() == [0] + [bonuses.LAST_TWOS[s][0] for s in (1, 2, 3)]
    assert K.LAST_TWOS_PAY.tolist() == [0] + [bonuses.LAST_TWOS[s][1] for s in (1, 2, 3)]
    assert (K.LAST_TRICK_POINTS, K.LAST_TRICK_PAY) == bonuses.LAST_TRICK
    assert K.STAKE == scoring.BASE_STAKE


def test_batch_outcome_names():
    from trappola_env.batch import kernels as K

    names = dict(zip((K.DECIDED, K.TIE, K.AGREED, K.FORFEIT), K.OUTCOME_NAMES, strict=True))
    assert names == {
        K.DECIDED: scoring.DECIDED,
        K.TIE: scoring.TIE,
        K.AGREED: scoring.AGREED_ALIFER,
        K.FORFEIT: scoring.FORFEIT,
    }


def test_batch_observation_and_full_deal_scales():
    from trappola_env import full_deal, observation
    from trappola_env.batch import kernels as K

    assert K.TRICK_VALUE.tolist() == list(observation.TRICK_VALUE)
    assert K.POINT_SCALE == observation.POINT_SCALE
    assert K.MULT_LOG2_MAX == observation.MULTIPLIER_LOG2_MAX
    assert K.OBS_SIZE == observation.OBS_SIZE
    assert (K.FD_HAND, K.FD_DEALT, K.FD_STOCK) == (
        full_deal.HAND_OFFSET,
        full_deal.DEALT_OFFSET,
        full_deal.STOCK_OFFSET,
    )
    assert (K.FD_SIZE, K.STOCK_SIZE) == (full_deal.FULL_DEAL_SIZE, full_deal.STOCK_SIZE)
    assert K.STOCK_VALUE.tolist() == list(full_deal.STOCK_VALUE)
