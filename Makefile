# Two entry points, both create .venv on first use: `make demo`, `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# torch is installed first as the CPU-only build: without the pin, pip resolves
# the `train` extra (torch>=2.3) to the default build, which downloads several GB
# of GPU libraries that training on the CPU never uses. pyproject.toml keeps the
# open range so other installs can choose their own build.
TORCH := torch==2.13.0

.PHONY: demo test bench clean

$(VENV)/.installed: pyproject.toml Makefile
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install $(TORCH)
	$(PY) -m pip install -e '.[search,train,eval,web,ray,notebooks,dev]'
	touch $@

demo: $(VENV)/.installed
	$(PY) -m trappola_cli demo

test: $(VENV)/.installed
	$(PY) -m pytest -q

bench: $(VENV)/.installed
	$(PY) benchmarks/bench_env.py

clean:
	rm -rf $(VENV) .pytest_cache
