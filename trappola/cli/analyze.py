"""``trappola analyze``: research instruments.

    trappola analyze declarations --players A,B --deals N [--seed S] [--condition aces|bianka|figura|blans]
                                  [--sessions K --parties P] [--no-alifer] [--ace-declaration first_card]
                                  [--json PATH] [--csv PATH] [--figures DIR] [--workers W]
    trappola analyze pro --figures DIR [--json PATH] [--parties T] [--sessions N]

``declarations``: paired rollouts at every declaration decision point
(``trappola.agents.evaluation.declarations``). ``pro``: the session-equity chart of the Pro decision
(``trappola.agents.evaluation.pro_equity``) checked against simulated sessions.
"""

from __future__ import annotations

import sys
import time


def add_parser(sub, positive, integer, players_help: str) -> None:
    """The ``analyze`` subcommand and its two instruments."""
    a = sub.add_parser("analyze", help="research instruments: declaration timing, the Pro chart")
    inst = a.add_subparsers(dest="instrument", metavar="INSTRUMENT")
    inst.required = True
    d = inst.add_parser(
        "declarations",
        help="paired rollouts at every declaration decision (now / later / never; ask / not; Pro)",
        epilog=players_help,
    )
    d.add_argument("--players", required=True, help="A,B (the parties); a third and fourth seat in --sessions")
    d.add_argument("--deals", type=positive, default=200, help="deals, each played from both seats (default: 200)")
    d.add_argument("--seed", type=integer, default=0)
    d.add_argument(
        "--condition",
        choices=("figura", "blans", "aces", "bianka"),
        help="only deals whose challenger hand allows this declaration (Bianka hands are 1 in 550)",
    )
    d.add_argument("--sessions", type=integer, default=0, help="Bulka sessions for the Pro decision (default: 0)")
    d.add_argument("--parties", type=positive, default=30, help="parties per session (default: 30)")
    d.add_argument("--no-alifer", action="store_true", help="leave out the Alifer proposals and answers")
    d.add_argument("--ace-declaration", choices=("first_ace", "first_card"), default="first_ace")
    d.add_argument("--workers", type=positive, default=None, help="processes (default: all cores)")
    d.add_argument("--json", metavar="PATH")
    d.add_argument("--csv", metavar="PATH")
    d.add_argument("--figures", metavar="DIR", help="write declarations.png and waiting.png here")
    d.add_argument("--no-progress", action="store_true")
    p = inst.add_parser("pro", help="the Pro decision as a take-point chart, checked against simulated sessions")
    p.add_argument("--figures", metavar="DIR", required=True)
    p.add_argument("--json", metavar="PATH")
    p.add_argument("--parties", type=positive, default=30, help="session length (default: 30)")
    p.add_argument("--sessions", type=positive, default=400, help="coin sessions per cell of the check (default: 400)")
    p.add_argument(
        "--learn-sessions", type=positive, default=2000, help="coin sessions to fit ObservedPro, and as many to test"
    )
    p.add_argument("--seed", type=integer, default=0)
    p.add_argument("--workers", type=positive, default=None)


def _need_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ValueError("figures need matplotlib: pip install 'trappola-lab[notebooks]'") from None


def cmd_analyze(args, check_writable) -> int:
    """Run ``trappola analyze``; the exit status."""
    if args.instrument == "pro" or args.figures:
        _need_matplotlib()
    if args.instrument == "pro":
        from trappola.cli.pro_chart import run_pro_chart

        return run_pro_chart(args, check_writable)
    from trappola.agents import split_player_list
    from trappola.agents.evaluation.declaration_figures import write_csv, write_figures, write_json
    from trappola.agents.evaluation.declarations import analyze_declarations
    from trappola_env.engine import RuleConfig

    players = split_player_list(args.players)
    for path, folder in ((args.json, False), (args.csv, False), (args.figures, True)):
        if path:
            check_writable(path, folder)
    start = time.perf_counter()
    res = analyze_declarations(
        players,
        args.deals,
        seed=args.seed,
        config=RuleConfig(ace_declaration=args.ace_declaration),
        condition=args.condition,
        alifer=not args.no_alifer,
        sessions=args.sessions,
        parties=args.parties,
        workers=args.workers,
        progress="none" if args.no_progress else "auto",
    )
    print(format_groups(res.summary))
    print(f"({time.perf_counter() - start:.1f} s)", file=sys.stderr)
    if args.json:
        write_json(res.summary, args.json)
    if args.csv:
        write_csv(res.summary, args.csv)
    if args.figures:
        for path in write_figures(res.summary, args.figures):
            print(f"figure: {path}")
    return 0


def _ci(v, ci, f="{:+.2f}") -> str:
    if v is None:
        return "n/a"
    lo, hi = ("n/a" if x is None else f.format(x) for x in ci)
    return f"{f.format(v)} [{lo}, {hi}]"


def format_groups(summary: dict) -> str:
    """The groups as a text table."""
    lines = [
        f"{summary['decision_points']} decision points; {' vs '.join(summary['players'][:2])}; paired differences "
        "per decision point (decider's view), 95% CI",
        f"{'kind':<7} {'turn':>4} {'contrast':<18} {'n':>5} {'points':>22} {'wins-losses':>22} {'tokens':>24} "
        f"{'nats':>5}  taken",
    ]
    for g in summary["groups"]:
        taken = " ".join(f"{k}:{v}" for k, v in g["taken"].items())
        nats = "" if g["info_nats"] is None else f"{g['info_nats']:.2f}"
        lines.append(
            f"{g['kind']:<7} {'' if g['turn'] is None else g['turn']:>4} {g['contrast']:<18} {g['n']:>5} "
            f"{_ci(g['points'], g['points_ci']):>22} {_ci(g['wl'], g['wl_ci'], '{:+.3f}'):>22} "
            f"{_ci(g['tokens'], g['tokens_ci']):>24} {nats:>5}  {taken}"
        )
    return "\n".join(lines)
