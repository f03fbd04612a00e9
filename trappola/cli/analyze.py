"""``trappola analyze``: research instruments.

    trappola analyze declarations --players A,B --deals N [--seed S] [--condition aces|bianka|figura|blans]
                                  [--decider A]
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
        description="Paired rollouts at every declaration decision, one row per deciding player: the "
        "decider's points, wins - losses and tokens, option minus option. Tokens are the partie's "
        "payments and stake, not the Bulka (the pot). No interval below 20 deals.",
        epilog=players_help,
    )
    d.add_argument("--players", required=True, help="A,B (the parties); a third and fourth seat in --sessions")
    d.add_argument(
        "--decider",
        metavar="SPEC|INDEX",
        help="show only the rows of this player's decisions (its spec, or its place in --players from 0); "
        "every row belongs to one decider either way",
    )
    d.add_argument("--deals", type=positive, default=200, help="deals, each played from both seats (default: 200)")
    d.add_argument("--seed", type=integer, default=0)
    d.add_argument(
        "--condition",
        choices=("figura", "blans", "aces", "bianka"),
        help="only deals whose challenger hand allows this declaration (Bianka hands are 1 in 550); "
        "each deal is played twice with the players swapped, so each holds that hand once, as challenger",
    )
    d.add_argument("--sessions", type=integer, default=0, help="Bulka sessions for the Pro decision (default: 0)")
    d.add_argument("--parties", type=positive, default=None, help="--sessions: parties per session (default: 30)")
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
    from trappola.cli.specs import print_specs, specs_of
    from trappola_env.engine import RuleConfig

    players = split_player_list(args.players)
    if args.parties is not None and not args.sessions:
        raise ValueError("--parties applies to the Pro sessions: give --sessions too")
    if len(players) > 2 and not args.sessions:
        raise ValueError("a third and fourth player sit only in the Pro sessions: give --sessions, or two players")
    decider = _decider_index(args.decider, players)
    for path, folder in ((args.json, False), (args.csv, False), (args.figures, True)):
        if path:
            check_writable(path, folder)
    specs = specs_of(players)
    print_specs(specs)
    start = time.perf_counter()
    res = analyze_declarations(
        players,
        args.deals,
        seed=args.seed,
        config=RuleConfig(ace_declaration=args.ace_declaration),
        condition=args.condition,
        alifer=not args.no_alifer,
        sessions=args.sessions,
        parties=30 if args.parties is None else args.parties,
        workers=args.workers,
        progress="none" if args.no_progress else "auto",
    )
    summary = {**res.summary, "player_specs": specs}
    if decider is not None:
        summary["decider"] = decider
        summary["groups"] = [g for g in summary["groups"] if g["decider_index"] == decider]
    print(format_groups(summary))
    print(f"({time.perf_counter() - start:.1f} s)", file=sys.stderr)
    if args.json:
        write_json(summary, args.json)
    if args.csv:
        write_csv(summary, args.csv)
    if args.figures:
        for path in write_figures(summary, args.figures):
            print(f"figure: {path}")
    return 0


def _decider_index(text: str | None, players: list[str]) -> int | None:
    """The place in ``players`` that ``--decider`` names (an index, or a spec given once), or None."""
    if text is None:
        return None
    if text.isdigit() and int(text) < len(players):
        return int(text)
    hits = [i for i, p in enumerate(players) if p == text]
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise ValueError(f"--decider {text!r} names {len(hits)} players: give its place (0..{len(players) - 1})")
    raise ValueError(f"--decider {text!r} is not among --players ({', '.join(players)}) nor an index")


def _ci(g: dict, m: str, min_units: int, f="{:+.2f}") -> str:
    v, ci, note = g[m], g[m + "_ci"], g.get(m + "_note")
    if v is None:
        return "n/a"
    if ci[0] is None:
        why = "no spread" if note and note.startswith("no spread") else f"<{min_units} units" if note else "no CI"
        return f"{f.format(v)} ({why})"
    return f"{f.format(v)} [{f.format(ci[0])}, {f.format(ci[1])}]"


def format_groups(summary: dict) -> str:
    """The groups as a text table, one row per decider and contrast, and what the columns count."""
    low = summary["min_units"]
    labels = summary["players"]
    names = {i: (f"{i}:{p}" if labels.count(p) > 1 else p) for i, p in enumerate(labels)}
    width = max([7, *(len(n) for n in names.values())])
    lines = [
        f"{summary['decision_points']} decision points; {' vs '.join(labels[:2])}; paired differences per "
        "decision point of the decider (its points, wins - losses, tokens), 95% CI clustered by deal",
        f"{'decider':<{width}} {'kind':<7} {'turn':>4} {'contrast':<16} {'n':>5} {'units':>5} {'points':>22} "
        f"{'wins-losses':>24} {'changed':>7} {'tokens':>22} {'nats':>5}  taken",
    ]
    for g in summary["groups"]:
        taken = " ".join(f"{k}:{v}" for k, v in g["taken"].items())
        nats = "" if g["info_nats"] is None else f"{g['info_nats']:.2f}"
        who = names.get(g.get("decider_index"), g.get("decider", "?"))
        lines.append(
            f"{who:<{width}} {g['kind']:<7} {'' if g['turn'] is None else g['turn']:>4} {g['contrast']:<16} "
            f"{g['n']:>5} {g.get('units', ''):>5} {_ci(g, 'points', low):>22} {_ci(g, 'wl', low, '{:+.3f}'):>24} "
            f"{g.get('wl_changed', ''):>7} {_ci(g, 'tokens', low):>22} {nats:>5}  {taken}"
        )
    lines += [
        f"No interval below {low} units (deals, or sessions for Pro): the clustered variance is not "
        "reliable with fewer. wins-losses: a score interval on the rates of changed outcomes ('changed' "
        "pairs), never a point.",
        "No spread: every pair differed by the same amount. A declaration's own points and payment are fixed "
        "by the rules (docs/rules.md section 4), so when nothing else changed in any pair the difference is "
        "exactly that amount; it is not a measured certainty.",
        summary.get("tokens_note", ""),
    ]
    return "\n".join(lines)
