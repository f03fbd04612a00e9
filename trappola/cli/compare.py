"""``trappola compare``: two players on the same duplicate deals against a third, paired.

    trappola compare A B --vs C [--deals N] [--seed S] [--json PATH] [--workers W] [--no-progress]

A and B each play ``--deals`` duplicate deals against C (the same cards for both:
``trappola.agents.evaluation.compare``); it prints each row, the paired difference of win rate and
points with a deal-clustered 95% interval, and how many deals ended differently. The JSON holds the
same and each player's effective spec and model files (``players.describe_player``).
"""

from __future__ import annotations

import sys
import time


def add_parser(sub, positive, integer, players_help: str) -> None:
    """The ``compare`` subcommand."""
    import argparse

    c = sub.add_parser(
        "compare",
        help="A minus B, each against C on the same duplicate deals (paired intervals)",
        description="A and B each play the same duplicate deals against C; the paired difference of "
        "win rate and points with a deal-clustered 95% interval, and the deals that ended differently.",
        epilog=players_help,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    c.add_argument("a", metavar="A", help="the first player (spec)")
    c.add_argument("b", metavar="B", help="the second player (spec)")
    c.add_argument("--vs", required=True, metavar="C", help="the opponent both play")
    c.add_argument("--deals", type=positive, default=300, help="duplicate deals (default: 300)")
    c.add_argument("--seed", type=integer, default=0, help="seed (default: 0)")
    c.add_argument("--json", metavar="PATH", help="write the summary as JSON")
    c.add_argument("--workers", type=positive, default=None, help="processes (default: all cores)")
    c.add_argument("--no-progress", action="store_true", help="no progress report")


def cmd_compare(args, check_writable) -> int:
    """Run ``trappola compare``; the exit status."""
    from trappola.agents.evaluation.compare import compare, format_compare
    from trappola.agents.evaluation.report import write_json
    from trappola.cli.specs import print_specs, specs_of

    if args.json:
        check_writable(args.json, False)
    specs = specs_of([args.a, args.b, args.vs])
    print_specs(specs)
    start = time.perf_counter()
    res = compare(
        args.a,
        args.b,
        args.vs,
        args.deals,
        seed=args.seed,
        workers=args.workers,
        progress="none" if args.no_progress else "auto",
    )
    summary = {**res.summary, "player_specs": specs}
    print(format_compare(summary))
    print(f"({time.perf_counter() - start:.1f} s)", file=sys.stderr)
    if args.json:
        write_json(summary, args.json)
    return 0
