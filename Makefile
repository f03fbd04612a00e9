# Two entry points, both create .venv on first use: `make demo`, `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# torch is installed first as the CPU-only build: without the pin, pip resolves
# the `train` extra (torch>=2.3) to the default build, which downloads several GB
# of GPU libraries that training on the CPU never uses. pyproject.toml keeps the
# open range so other installs can choose their own build.
TORCH := torch==2.13.0

.PHONY: demo test check typecheck docs fix bench model belief opponent clean

$(VENV)/.installed: pyproject.toml Makefile
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install $(TORCH)
	$(PY) -m pip install -e '.[search,train,eval,web,ray,openspiel,notebooks,docs,dev]'
	touch $@

demo: $(VENV)/.installed
	$(PY) -m trappola.cli demo

# The suite runs after the checks: a lint, format or type finding fails `make test` (and CI).
test: check
	$(PY) -m pytest -q

# Lint, formatting and types (CONTRIBUTING.md, "Checks"); .pre-commit-config.yaml runs the same.
check: $(VENV)/.installed
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(MAKE) --no-print-directory typecheck

# mypy does not follow the package-dir mapping of pyproject.toml (agents/ installs as
# trappola.agents, train/ as trappola.train, configs/ as trappola.configs), so it reads the
# packages through a tree of links laid out as they install. The links are updated, not remade:
# new links would void mypy's cache. Settings: pyproject.toml [tool.mypy].
TYPES := build/typecheck
typecheck: $(VENV)/.installed
	mkdir -p $(TYPES)/trappola
	ln -sfn ../../trappola_env $(TYPES)/trappola_env
	for f in trappola/* agents train configs; do ln -sfn ../../../$$f $(TYPES)/trappola/$${f#trappola/}; done
	find $(TYPES) -xtype l -delete
	MYPYPATH=$(TYPES) $(PY) -m mypy $(TYPES)/trappola $(TYPES)/trappola_env benchmarks

# The documentation site (mkdocs.yml) into site/, strict and offline: a broken link, a missing page or an
# unresolved reference fails it. `$(PY) -m mkdocs serve` shows it while you edit.
docs: $(VENV)/.installed
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict

# The formatter and the fixes ruff applies safely; what is left, `make check` names.
fix: $(VENV)/.installed
	$(PY) -m ruff check --fix .
	$(PY) -m ruff format .

bench: $(VENV)/.installed
	$(PY) benchmarks/bench_env.py

# The shipped model (docs/results/shipped_model.md, "The shipped model"): self-play, then half the games against
# `pimc`, then the Pro decision; under 2 hours on 2 cores. Ship it by copying runs/model/default.zip
# to agents/models/default.zip.
MODEL_DIR := runs/model
model: $(VENV)/.installed
	$(PY) -m trappola.cli train --config ppo_selfplay reward_mode=win out_dir=$(MODEL_DIR) run_name=selfplay
	$(PY) -m trappola.cli train --config ppo_vs_search out_dir=$(MODEL_DIR) resume=$(MODEL_DIR)/selfplay/final.zip
	$(PY) -m trappola.train.run.checkpoint export $(MODEL_DIR)/vs_search/final.zip $(MODEL_DIR)/default.zip
	$(PY) -m trappola.train.pro --model $(MODEL_DIR)/default.zip --write --rate-parties 1000 --test-sessions 400 \
	  --baseline-sessions 200 --scan-sessions 10 --thresholds 5 --workers 2

# The belief the `policy` player's endgame search weights its layouts with (docs/results/inference.md, "Reading
# the opponent's hand"): 60,000 deals of the network, `pimc` and `rule`, then the fit; 14 minutes
# on 2 cores. Ship it by copying runs/model/belief.npz to agents/models/belief.npz.
belief: $(VENV)/.installed
	$(PY) -m trappola.train.fit.belief_fit --workers 2 --out $(MODEL_DIR)/belief.npz

# The opponent model the `policy` player's endgame search reads the opponent's decisions with
# (docs/results/inference.md, "Reading the opponent's decisions"): 6,000 deals of `pimc:samples=32` against
# itself, then the shipped network's actor fitted to its choices; 6 minutes on 2 cores. Ship it by copying
# runs/model/opponent_pimc.zip to agents/models/opponent_pimc.zip.
opponent: $(VENV)/.installed
	$(PY) -m trappola.train.fit.opponent_model --teacher pimc:samples=32 --deals 6000 --seed 11 --epochs 8 --workers 2 \
		--out $(MODEL_DIR)/opponent_pimc.zip

clean:
	rm -rf $(VENV) .pytest_cache
