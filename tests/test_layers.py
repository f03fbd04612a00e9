"""The layer contract (``tests/layering.py``) holds for the packages, and
the check really catches an upward import and a circle."""
from pathlib import Path

from layering import circles, module_sources, upward_imports

ROOT = Path(__file__).resolve().parents[1]


def test_no_upward_import():
    assert upward_imports(module_sources(ROOT)) == []


def test_no_circle():
    assert circles(module_sources(ROOT)) == []


def test_an_upward_import_inside_a_function_is_caught():
    sources = module_sources(ROOT)
    sources["trappola.engine.cards"] += "\n\ndef _sneaky():\n    from trappola.agents import make_player\n"
    bad = upward_imports(sources)
    assert len(bad) == 1 and bad[0].startswith("trappola.engine.cards:") and "imports trappola.agents" in bad[0]


def test_each_upward_step_is_caught():
    sources = module_sources(ROOT)
    for low, high in (("trappola.envs.interface", "trappola.agents.base"), ("trappola.agents.base", "trappola.evaluation.stats"),
                      ("trappola.evaluation.stats", "trappola.train.sb3_config"), ("trappola.train.sb3_config", "trappola.web.app"),
                      ("trappola.web.app", "trappola.cli.main")):
        changed = dict(sources)
        changed[low] += f"\nimport {high}\n"
        assert any(line.startswith(f"{low}:") and high in line for line in upward_imports(changed)), (low, high)


def test_a_relative_import_counts():
    sources = module_sources(ROOT)
    sources["trappola.envs.observation"] += "\nfrom .referee import play_partie\n"
    sources["trappola.envs.referee"] += "\nfrom . import observation\n"
    assert any({"trappola.envs.observation", "trappola.envs.referee"} <= set(c) for c in circles(sources))


def test_a_circle_within_a_layer_is_caught():
    sources = module_sources(ROOT)
    sources["trappola.train.sb3_config"] += "\nfrom trappola.train.bc import clone\n"
    sources["trappola.train.bc"] += "\nimport trappola.train.sb3_config\n"
    assert any({"trappola.train.sb3_config", "trappola.train.bc"} <= set(c) for c in circles(sources))
