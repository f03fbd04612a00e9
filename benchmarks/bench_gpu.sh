#!/usr/bin/env bash
# The CPU learner against the CUDA learner, as a Markdown table of learner steps/s
# (benchmarks/bench_train.py --what gpu): the default config, 4,096 games with minibatch 8,192,
# and SB3's stand-in ceiling. Without a CUDA GPU the CUDA cells say "no GPU" and the CPU rows
# still run.
#
#   benchmarks/bench_gpu.sh [STEPS]      # learner steps per run (default 262144)
#
# Run it from the repository root after `make test` has created .venv.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
STEPS=${1:-262144}
"$PY" -c 'import torch; print(f"torch {torch.__version__}, CUDA GPU: " + (torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none"))'
"$PY" benchmarks/bench_train.py --what gpu --steps "$STEPS"
