"""Speed of random legal play: the bare engine and ``trappola_v0`` against
PettingZoo's ``connect_four_v3`` and ``leduc_holdem_v4``. The measurement
ships with the package as ``trappola bench`` (``trappola/cli/bench.py``);
this script runs it from a checkout.

    .venv/bin/python benchmarks/bench_env.py [--seconds 15] [--seed 0] [--slice 0.25]
"""

import sys

from trappola.cli.bench import main

if __name__ == "__main__":
    sys.exit(main())
