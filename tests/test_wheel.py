"""The wheel works outside the repository: built from this checkout,
installed into a scratch folder, run from another directory, it plays the
shipped policy and finds its shipped configs (package data, not paths into
a source tree)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(site folder holding the installed wheel, an unrelated working directory)."""
    base = tmp_path_factory.mktemp("wheel")
    dist, site, elsewhere = base / "dist", base / "site", base / "elsewhere"
    elsewhere.mkdir()
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run(
        pip + ["wheel", "--no-deps", "--no-build-isolation", "-w", str(dist), str(ROOT)],
        check=True,
        timeout=300,
        cwd=base,
    )
    wheels = list(dist.glob("trappola_lab-*.whl"))
    assert len(wheels) == 1
    subprocess.run(pip + ["install", "--no-deps", "--target", str(site), str(wheels[0])], check=True, timeout=300)
    return site, elsewhere


def run(installed, *args, stdin=None):
    site, elsewhere = installed
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run(
        [sys.executable, *args], cwd=elsewhere, env=env, input=stdin, capture_output=True, text=True, timeout=600
    )


def test_packages_come_from_the_wheel(installed):
    proc = run(
        installed,
        "-c",
        "import trappola.agents, trappola.configs, trappola.agents.evaluation, trappola.train, "
        "trappola.cli, trappola_env, trappola.web;"
        "print(trappola.agents.__file__); print(trappola.cli.__file__)",
    )
    assert proc.returncode == 0, proc.stderr
    site = str(installed[0])
    assert all(line.startswith(site) for line in proc.stdout.split())


def test_the_wheel_installs_two_top_level_packages(installed):
    """Nothing named ``agents``, ``train`` or ``configs`` lands in site-packages
    beside a user's own modules: the wheel holds ``trappola_env`` and ``trappola``."""
    site = installed[0]
    top = {
        p.name
        for p in site.iterdir()
        if not p.name.endswith((".dist-info", ".egg-info")) and p.name not in ("bin", "__pycache__")
    }
    assert top == {"trappola", "trappola_env"}, top


def test_the_shipped_policy_plays_from_another_directory(installed):
    proc = run(
        installed,
        "-m",
        "trappola.cli",
        "evaluate",
        "--players",
        "policy,rule",
        "--deals",
        "20",
        "--duplicate",
        "--workers",
        "1",
    )
    assert proc.returncode == 0, proc.stderr
    assert "policy" in proc.stdout and "rule" in proc.stdout


def test_the_shipped_configs_are_found(installed):
    proc = run(
        installed,
        "-c",
        "from trappola.train.run.config_file import load_config, resolve_config;"
        "print(resolve_config()); print(load_config(resolve_config('demo')).run_name)",
    )
    assert proc.returncode == 0, proc.stderr
    default, demo_run = proc.stdout.split()
    assert default.startswith(str(installed[0])) and default.endswith("ppo_selfplay.yaml")
    assert demo_run == "demo"


def test_a_config_named_by_its_repository_path_is_found_from_the_wheel(installed):
    """``--config configs/ppo_selfplay.yaml`` works in a checkout (a real file) and from the wheel
    anywhere else (the shipped copy)."""
    proc = run(
        installed,
        "-c",
        "from trappola.train.run.config_file import resolve_config;print(resolve_config('configs/ppo_selfplay.yaml'))",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().startswith(str(installed[0])) and proc.stdout.strip().endswith("ppo_selfplay.yaml")


def test_a_relative_path_is_the_users(installed):
    proc = run(installed, "-m", "trappola.cli", "evaluate", "--players", "policy:nothing/here.zip,rule", "--deals", "2")
    assert proc.returncode == 2
    assert "nothing/here.zip" in proc.stderr and str(installed[1]) in proc.stderr


def test_play_runs_from_another_directory(installed):
    proc = run(installed, "-m", "trappola.cli", "play", "--opponent", "policy", "--seed", "1", stdin="q\n")
    assert proc.returncode == 0, proc.stderr
    assert "bye" in proc.stdout


def test_train_with_the_default_config_from_another_directory(installed):
    # The shipped default config, shrunk by overrides to a few hundred steps; its relative
    # out_dir lands in the user's working directory.
    proc = run(
        installed,
        "-m",
        "trappola.cli",
        "train",
        "total_timesteps=256",
        "n_envs=2",
        "vec_env=dummy",
        "n_steps=64",
        "batch_size=64",
        "n_epochs=1",
        "net_arch=[32]",
        "bc=false",
        "eval_every=256",
        "eval_deals=4",
        "progress_bar=false",
        "tensorboard=false",
        "run_name=wheel",
    )
    assert proc.returncode == 0, proc.stderr
    run_dir = installed[1] / "runs" / "wheel"
    assert (run_dir / "final.zip").is_file()
    check = run(
        installed,
        "-m",
        "trappola.cli",
        "evaluate",
        "--players",
        "policy:runs/wheel/final.zip,random",
        "--deals",
        "4",
        "--workers",
        "1",
    )
    assert check.returncode == 0, check.stderr


def test_quick_demo_runs_from_another_directory(installed):
    proc = run(installed, "-m", "trappola.cli", "demo", "--quick")
    assert proc.returncode == 0, proc.stderr
    assert "Partie 1" in proc.stdout and "policy" in proc.stdout


def test_the_environments_import_from_the_wheel(installed):
    proc = run(
        installed,
        "-c",
        "from trappola_env import trappola_v0, bulka_v0; import trappola_env;"
        "env = trappola_v0.env(); env.reset(seed=0); print(trappola_env.__file__)",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().startswith(str(installed[0]))


def test_the_wheel_ships_every_package_of_the_tree(installed):
    """``pyproject.toml`` lists the packages by hand (discovery does not follow the
    package-dir mapping): a folder with an ``__init__.py`` that is not listed
    would be missing from the wheel."""
    site = installed[0]
    mapping = {
        "trappola_env": "trappola_env",
        "trappola": "trappola",
        "agents": "trappola/agents",
        "train": "trappola/train",
        "configs": "trappola/configs",
    }
    for folder, installed_as in mapping.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.relative_to(ROOT / folder)
            assert (site / installed_as / rel).is_file(), f"{folder}/{rel} is not in the wheel"


def test_the_wheel_ships_the_type_marker(installed):
    """``trappola_env`` is typed (mypy --strict): ``py.typed`` tells users' type checkers so."""
    assert (installed[0] / "trappola_env" / "py.typed").is_file()
