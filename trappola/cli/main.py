"""The ``trappola`` command.

    trappola play [--opponent rule] [--seat challenger|dealer] [--seed S] [--parties N]
    trappola evaluate --players A,B --deals N [--duplicate] [--seed S] [--json PATH] [--csv PATH] [--workers K]
                      [--backend process|ray [--address ADDR]]
    trappola evaluate --session --players A,B,C[,D] --sessions N --parties P [--advice] [...]
    trappola evaluate --ratings --players A,B,C,... --deals N [...]
    trappola evaluate ... --save-games DIR   # every partie as JSON lines (agents/evaluation/game_record.py; with
                                             # --session also the session: agents/evaluation/session_record.py),
                                             # for trappola serve's replay
    trappola evaluate ... [--progress | --no-progress]
    trappola evaluate --ratings ... --exploit X.json   # an exploitability column from trappola exploit --json
    trappola serve [--host 127.0.0.1] [--port 8000] [--allow-host NAME]   # the web app: play, replay, leaderboard
    trappola players            # the registered players and their settings
    trappola bench [args...]    # speed of random play (trappola/cli/bench.py)
    trappola train [--config FILE|NAME] [key=value | --key value ...]   # train/README.md
    trappola exploit --target SPEC [--minutes M] [--deals D] [--seed S] [--json PATH]
                     [--warm-start SPEC|none] [--device auto|cpu|cuda] [key=value ...]
                                # a best response: train/exploit.py
    trappola demo [--minutes M] [--seed S]   # short training + Bulka table (make demo)
    trappola demo --quick [--deals N]        # no training: the built-in players only
    trappola analyze declarations --players A,B --deals N [--json P] [--figures DIR]   # trappola/cli/analyze.py
    trappola analyze pro --figures DIR [--json P]   # the Pro decision's take-point chart
    trappola compare A B --vs C --deals N [--seed S] [--json P]   # paired: trappola/cli/compare.py

Players are registry specs (``agents.make_player``): ``rule``,
``random:alifer=false``, ``policy:path/to/model.zip``... In ``--players``
a comma starts a new player unless it is followed by ``key=value``, so
``rule:declare=never,manko=false,random`` is two players. ``evaluate``
reports progress on stderr: a bar on a terminal, else a plain line at each
tenth of the run (``--progress`` forces the bar, ``--no-progress`` shows
nothing). Bad arguments print a one-line error and exit with status 2;
Ctrl-C exits with 130.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import time
from pathlib import Path

from trappola.cli import PREVIOUS_SIGINT, _quiet_interrupt
from trappola_env.engine.checks import check_positive_int


class CliError(Exception):
    """A usage problem reported as one line, exit status 2."""


def _positive(text: str) -> int:
    try:
        return check_positive_int("the value", int(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not v > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text}")
    return v


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def _port(text: str) -> int:
    v = _int(text)
    if not 0 < v < 65536:
        raise argparse.ArgumentTypeError(f"expected a port in 1..65535, got {v}")
    return v


def _add_play(sub, players_help: str) -> None:
    """The ``play`` subcommand's arguments."""
    p = sub.add_parser(
        "play",
        help="play against a computer player in this terminal",
        description="Play parties against a computer player in this terminal.",
        epilog=players_help,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--opponent", default="rule", help="opponent spec (default: rule)")
    p.add_argument(
        "--seat",
        choices=("challenger", "dealer"),
        default="challenger",
        help="your role: the challenger leads trick 1 (default: challenger)",
    )
    p.add_argument("--seed", type=_int, default=None, help="seed for the deals (default: a fresh one, printed)")
    p.add_argument("--parties", type=_positive, default=1, help="parties to play (default: 1)")


def _add_evaluate(sub, players_help: str) -> None:
    """The ``evaluate`` subcommand's arguments."""
    e = sub.add_parser(
        "evaluate",
        help="head-to-head, session tournament or ratings",
        description="Evaluate players. Default: head-to-head of two players over --deals deals "
        "(--duplicate plays each deal twice with seats swapped). --session: Bulka "
        "sessions among 2-4 players. --ratings: openskill ratings over a pool.",
        epilog=players_help,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    e.add_argument("--players", required=True, help="comma-separated player specs, e.g. rule,random")
    mode = e.add_mutually_exclusive_group()
    mode.add_argument("--session", action="store_true", help="Bulka-session tournament (2-4 players)")
    mode.add_argument("--ratings", action="store_true", help="ratings over the pool (every pair, duplicate)")
    e.add_argument("--deals", type=_positive, default=None, help="deals per pair (not with --session; default: 1000)")
    e.add_argument(
        "--duplicate",
        action="store_true",
        help="head-to-head: play each deal twice, seats swapped (--ratings always does)",
    )
    e.add_argument("--sessions", type=_positive, default=None, help="sessions (--session only; default: 24)")
    e.add_argument("--parties", type=_positive, default=None, help="parties per session (--session only; default: 50)")
    e.add_argument(
        "--advice",
        action="store_true",
        help="--session: the waiting players advise the defender of each Pro partie (docs/rules.md section 8)",
    )
    e.add_argument("--seed", type=_int, default=0, help="seed (default: 0)")
    e.add_argument(
        "--workers", type=_positive, default=None, help="processes, or the CPUs of a local Ray (default: all cores)"
    )
    e.add_argument(
        "--backend",
        choices=("process", "ray"),
        default="process",
        help="where the games run: local processes or Ray tasks (default: process)",
    )
    e.add_argument(
        "--address", default=None, help="--backend ray: the cluster to join (auto, HOST:PORT); default: a local Ray"
    )
    e.add_argument("--stake-multiple", type=_positive, default=1, help="stake multiple (default: 1)")
    e.add_argument(
        "--ace-declaration",
        choices=("first_ace", "first_card"),
        default="first_ace",
        help="rule variant for declaring Aces (default: first_ace)",
    )
    e.add_argument("--json", metavar="PATH", help="write the summary as JSON")
    e.add_argument(
        "--exploit",
        metavar="PATH",
        action="append",
        default=[],
        help="--ratings, --session: a result of trappola exploit --json for one of the players "
        "(repeatable); adds an exploitability column (a lower bound)",
    )
    e.add_argument("--csv", metavar="PATH", help="write one row per partie (per session and player with --session)")
    e.add_argument(
        "--save-games",
        metavar="DIR",
        help="write every partie to DIR/games.jsonl (the format is documented in "
        "agents/evaluation/game_record.py; with --session each partie also holds its session: Pro, "
        "queue, Bulka, balances, agents/evaluation/session_record.py), for the web app's replay view",
    )
    shown = e.add_mutually_exclusive_group()
    shown.add_argument(
        "--progress",
        action="store_true",
        help="show the progress bar even when stderr is not a terminal (default: the bar on a "
        "terminal, else a plain line at each tenth of the run and at least every 30 s)",
    )
    shown.add_argument("--no-progress", action="store_true", help="no progress report")


def _add_serve(sub) -> None:
    """The ``serve`` subcommand's arguments."""
    sv = sub.add_parser(
        "serve",
        help="the web app: play in the browser, replay saved games, leaderboard",
        description="A local web app (trappola.web): play a computer player, replay games "
        "saved by evaluate --save-games, show an evaluate --json summary.",
    )
    sv.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, this machine only)")
    sv.add_argument("--port", type=_port, default=8000, help="port (default: 8000)")
    sv.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name the server answers to besides this machine's (localhost, 127.0.0.1, "
        "::1 and --host); repeatable: the names other machines reach it by",
    )


def _add_players(sub) -> None:
    """The ``players`` subcommand's arguments."""
    sub.add_parser("players", help="list the registered players and their settings")


def _add_bench(sub) -> None:
    """The ``bench`` subcommand's arguments."""
    b = sub.add_parser(
        "bench",
        help="speed of random play: bare engine, trappola_v0, PettingZoo yardsticks",
        description="Speed of random legal play (trappola/cli/bench.py); further arguments "
        "(--seconds, --seed, --slice) are passed to it.",
    )
    b.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the benchmark")


def _add_train(sub) -> None:
    """The ``train`` subcommand's arguments."""
    t = sub.add_parser(
        "train",
        help="self-play MaskablePPO training (train/README.md)",
        description="Self-play MaskablePPO training: settings from --config, overridden by "
        "KEY=VALUE arguments (`trappola train --help` lists them, e.g. total_timesteps=200000 "
        "pool.rule=0.5 resume=runs/x/last.zip).",
    )
    t.add_argument(
        "--config",
        default=None,
        help="YAML config file, or the name of a shipped one (ppo_selfplay, demo, rllib_selfplay); "
        "default: the shipped configs/ppo_selfplay.yaml",
    )
    t.add_argument("overrides", nargs="*", metavar="KEY=VALUE", help="config overrides (or --key value)")


def _add_exploit(sub, players_help: str) -> None:
    """The ``exploit`` subcommand's arguments."""
    x = sub.add_parser(
        "exploit",
        help="approximate exploitability: train a best response to a player",
        description="Train a best response (MaskablePPO) against a frozen player for --minutes, "
        "then play it against that player on fresh duplicate deals. Its win rate "
        "minus 0.5 and its points edge are lower bounds on the player's "
        "exploitability (train/exploit.py).",
        epilog=players_help,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    x.add_argument("--target", required=True, help="the player whose exploitability is estimated (a spec)")
    x.add_argument(
        "--minutes",
        type=_positive_float,
        default=30.0,
        help="training budget in minutes, warm start included (default: 30)",
    )
    x.add_argument(
        "--deals", type=_positive, default=1000, help="duplicate deals of the final evaluation (default: 1000)"
    )
    x.add_argument("--seed", type=_int, default=0, help="seed (default: 0)")
    x.add_argument("--json", metavar="PATH", help="write the result as JSON")
    x.add_argument(
        "--warm-start",
        default=None,
        help="where the best response starts: a policy spec (its weights; default: policy, the "
        "shipped network), another player's spec (behaviour cloning on its moves), or none",
    )
    x.add_argument("--workers", type=_positive, default=None, help="evaluation processes (default: all cores)")
    x.add_argument(
        "--device",
        choices=("auto", "cpu", "cuda"),
        default=None,
        help="where the best response trains: auto (default: cuda when torch sees a GPU), cpu or cuda",
    )
    x.add_argument(
        "overrides",
        nargs="*",
        metavar="KEY=VALUE",
        help="training settings (fields of train/sb3/config.py, e.g. n_envs=512 learning_rate=1e-4)",
    )


def _add_demo(sub) -> None:
    """The ``demo`` subcommand's arguments."""
    d = sub.add_parser("demo", help="a short training run, then a Bulka-session table (make demo)")
    d.add_argument("--seed", type=_int, default=0, help="seed (default: 0)")
    d.add_argument(
        "--minutes",
        type=_positive_float,
        default=None,
        help="training time cap in minutes (default: configs/demo.yaml's)",
    )
    d.add_argument(
        "--quick", action="store_true", help="no training: a short look at the built-in players (well under a minute)"
    )
    d.add_argument("--deals", type=_positive, default=100, help="--quick: deals of the duplicate table (default: 100)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``trappola`` command and its subcommands."""
    from trappola.agents import describe_players

    parser = argparse.ArgumentParser(
        prog="trappola",
        description="Trappola lab: play, evaluate and benchmark.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    players_help = "players (registry specs):\n" + describe_players()

    _add_play(sub, players_help)
    _add_evaluate(sub, players_help)
    _add_serve(sub)
    _add_players(sub)
    _add_bench(sub)
    _add_train(sub)
    _add_exploit(sub, players_help)
    _add_demo(sub)
    from trappola.cli.analyze import add_parser as add_analyze

    add_analyze(sub, _positive, _int, players_help)
    from trappola.cli.compare import add_parser as add_compare

    add_compare(sub, _positive, _int, players_help)
    return parser


def main(argv=None) -> int:
    """Run the ``trappola`` command with ``argv``; returns the exit status
    (2 with a one-line message for bad input or a file-system fault)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["train"]:
        # Training reads its own arguments (trappola.train.train_command.cli_main): overrides may be
        # written `--key value`, which argparse would take for unknown options.
        args = argparse.Namespace(command="train", argv=argv[1:])
    else:
        try:
            parser = build_parser()
            args, extra = parser.parse_known_args(argv)
            if extra and args.command == "exploit" and all("=" in a and not a.startswith("-") for a in extra):
                args.overrides += extra  # key=value settings after an option: argparse leaves them over
            elif extra:
                parser.error(f"unrecognized arguments: {' '.join(extra)}")
        except SystemExit as e:  # argparse: --help (0) or a usage error (2), already printed
            return int(e.code or 0)
    try:
        return COMMANDS[args.command](args)
    except (CliError, ValueError) as e:
        print(f"trappola {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:  # a command that saved first says with which signal (Stopped)
        print("\ninterrupted", file=sys.stderr)
        return getattr(e, "status", 130)
    except BrokenPipeError:
        # The reader went away (e.g. `trappola evaluate ... | head`): stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except OSError as e:  # a full disk, a read-only or missing folder...: the path and the cause
        from trappola_env.atomic_file import describe_os_error

        print(f"trappola {args.command}: error: {describe_os_error(e)}", file=sys.stderr)
        return 2


# --------------------------------------------------------------------- play
def cmd_play(args) -> int:
    """``trappola play``: parties against a computer player in this terminal (an Alifer
    doubles the next partie's stakes)."""
    from trappola.agents import make_player
    from trappola.agents.evaluation.seeding import derive_seed
    from trappola.agents.players.human import HumanQuit
    from trappola_env.engine import random_deal
    from trappola_env.engine.cards import names_of
    from trappola_env.referee import play_partie

    opponent = make_player(args.opponent)
    if opponent.interactive:
        raise CliError("the opponent must be a computer player, not 'human'")
    human = make_player("human")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    print(
        f"Trappola: you ({args.seat}) against {opponent.name}; seed {seed} (replay with --seed {seed}). Type q to stop."
    )
    me = 0 if args.seat == "challenger" else 1
    seated = (human, opponent) if me == 0 else (opponent, human)
    total = 0
    multiplier = 1
    try:
        for k in range(args.parties):
            deal = random_deal(random.Random(derive_seed(seed, "deal", k)))
            opponent.reset(derive_seed(seed, "player", k))
            names = ("you", opponent.name) if me == 0 else (opponent.name, "you")
            rec = play_partie(seated, deal, multiplier=multiplier, names=names)
            res = rec.result
            total += res.tokens[me]
            print(f"  {opponent.name} held: {' '.join(names_of(deal.hands[1 - me]))}")
            # An Alifer replays at double stakes (docs/rules.md section 6).
            multiplier = multiplier * 2 if res.winner is None else 1
        print(f"\nYour tokens over {args.parties} partie(s): {total:+d}")
    except HumanQuit as e:
        print("\nbye" if str(e) == "quit" else f"\nbye ({e})")
    return 0


# ----------------------------------------------------------------- evaluate
def cmd_evaluate(args) -> int:
    """``trappola evaluate``: a head-to-head, a session tournament or ratings of the players given."""
    from trappola.agents import split_player_list
    from trappola.agents.evaluation.report import format_summary, write_csv, write_json
    from trappola.agents.players.human import HumanQuit
    from trappola_env.engine import RuleConfig

    players = split_player_list(args.players)
    config = RuleConfig(ace_declaration=args.ace_declaration)
    _refuse_flags(args)
    args.deals = 1000 if args.deals is None else args.deals
    args.sessions = 24 if args.sessions is None else args.sessions
    args.parties = 50 if args.parties is None else args.parties
    for path, folder in ((args.json, False), (args.csv, False), (args.save_games, True)):
        if path:
            _check_writable(path, folder)
    if args.address is not None and args.backend != "ray":
        raise CliError("--address needs --backend ray")
    exploits = _read_exploits(args.exploit, players) if args.exploit else []
    if exploits and not (args.session or args.ratings):
        raise CliError("--exploit adds a column to a leaderboard: use it with --ratings or --session")
    backend = args.backend
    if backend == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            raise CliError("--backend ray needs Ray: pip install 'trappola-lab[ray]'") from None
        from trappola.agents.evaluation.ray_backend import RayBackend

        backend = RayBackend(address=args.address, workers=args.workers)
    common = dict(
        seed=args.seed,
        config=config,
        stake_multiple=args.stake_multiple,
        workers=args.workers,
        progress="none" if args.no_progress else "bar" if args.progress else "auto",
        backend=backend,
    )
    from trappola.cli.specs import print_specs, specs_of

    specs = specs_of(players)
    print_specs(specs)
    start = time.perf_counter()
    try:
        res = _run_evaluation(args, players, common)
    except HumanQuit as e:
        print(flush=True)  # end the unanswered prompt's line
        print(f"trappola evaluate: stopped, no results: the human player stopped ({e})", file=sys.stderr)
        return 1
    finally:
        if not isinstance(backend, str):
            backend.close()
    summary = {**res.summary, "player_specs": specs}
    if exploits:
        from trappola.agents.evaluation.exploitability import with_exploitability

        summary = with_exploitability(summary, exploits)
    print(format_summary(summary))
    print(f"({time.perf_counter() - start:.1f} s)")
    if args.json:
        write_json(summary, args.json)
    if args.csv:
        write_csv(res.records, args.csv)
    if args.save_games:
        from trappola.agents.evaluation.game_record import write_games

        print(f"games saved to {write_games(res.games, args.save_games)}")
    return 0


def _refuse_flags(args) -> None:
    """One line for a flag that the chosen mode of ``evaluate`` would ignore."""
    mode = "--session" if args.session else "--ratings" if args.ratings else "a head-to-head"
    given = {
        "--deals": args.deals is not None,
        "--duplicate": args.duplicate,
        "--sessions": args.sessions is not None,
        "--parties": args.parties is not None,
        "--advice": args.advice,
    }
    applies = {
        "--session": ("--sessions", "--parties", "--advice"),
        "--ratings": ("--deals",),
        "a head-to-head": ("--deals", "--duplicate"),
    }[mode]
    for flag, on in given.items():
        if on and flag not in applies:
            hint = " (its pairs are always duplicate)" if flag == "--duplicate" and args.ratings else ""
            raise CliError(f"{flag} does not apply to {mode}{hint}; it applies to: {', '.join(applies)}")


def _read_exploits(paths: list[str], players: list[str]) -> list[dict]:
    """The exploit results of ``--exploit``, each for one of ``players``
    (checked before the evaluation runs)."""
    from trappola.agents.evaluation.exploitability import read_exploit

    out = []
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise CliError(f"--exploit {path}: cannot read it ({e})") from None
        entry = read_exploit(text)
        if entry["target"] not in players:
            raise CliError(f"--exploit {path}: its target {entry['target']!r} is not among --players")
        out.append(entry)
    return out


def _run_evaluation(args, players, common):
    from trappola.agents.evaluation import head_to_head, rate_pool, session_tournament

    record = {"record_games": True} if args.save_games else {}
    if args.session:
        if not 2 <= len(players) <= 4:
            raise CliError(f"--session needs 2 to 4 players, got {len(players)}")
        return session_tournament(players, args.sessions, args.parties, **common, **record, advice=args.advice)
    if args.ratings:
        if len(players) < 2:
            raise CliError(f"--ratings needs at least 2 players, got {len(players)}")
        return rate_pool(players, args.deals, **common, **record)
    if len(players) != 2:
        raise CliError(
            f"a head-to-head needs exactly 2 players, got {len(players)} (use --session or --ratings for more)"
        )
    return head_to_head(players[0], players[1], args.deals, duplicate=args.duplicate, **common, **record)


# -------------------------------------------------------------------- serve
def cmd_serve(args) -> int:
    """``trappola serve``: the web app."""
    from trappola.web import serve

    try:
        serve(host=args.host, port=args.port, hosts=args.allow_host)
    except ModuleNotFoundError as e:
        if e.name not in ("fastapi", "starlette", "uvicorn"):
            raise
        raise CliError(f"the web app needs the web extra: pip install 'trappola-lab[web]' ({e})") from None
    return 0


def _check_writable(path: str, folder: bool) -> None:
    """Refuse an output path before a long run rather than after it."""
    from trappola_env.atomic_file import check_can_write, describe_os_error

    try:
        check_can_write(path, folder)
    except OSError as e:
        cause = e.strerror if e.filename == str(Path(path)) else describe_os_error(e)
        raise CliError(f"cannot write {path}: {cause}") from None


# ------------------------------------------------------------------ players
def cmd_players(args) -> int:
    """``trappola players``: the registered players and their settings."""
    from trappola.agents import describe_players

    print(describe_players())
    return 0


# -------------------------------------------------------------------- bench
def cmd_bench(args) -> int:
    """``trappola bench``: speed of the engine and the environments."""
    from trappola.cli.bench import main as bench_main

    return bench_main([a for a in args.args if a != "--"])


# --------------------------------------------------------------------- demo
def cmd_demo(args) -> int:
    """``trappola demo``: a short training run (``--quick``: no training; two parties
    between the built-in players, a head-to-head and a session tournament)."""
    if not args.quick:
        from trappola.train.demo import run_demo

        run_demo(minutes=args.minutes, seed=args.seed)
        return 0
    from trappola.agents import make_player
    from trappola.agents.evaluation import head_to_head, session_tournament
    from trappola.agents.evaluation.report import format_summary
    from trappola.agents.evaluation.seeding import derive_seed
    from trappola_env.engine import Partie, random_deal
    from trappola_env.referee import play_partie

    start = time.perf_counter()
    rule, rnd = make_player("rule"), make_player("random")
    print("Trappola demo: the built-in players.\n")
    for k, (a, b) in enumerate(((rule, rnd), (rnd, rule))):
        deal = random_deal(random.Random(derive_seed(args.seed, "demo-deal", k)))
        a.reset(derive_seed(args.seed, "demo-player", k, 0))
        b.reset(derive_seed(args.seed, "demo-player", k, 1))
        rec = play_partie((a, b), deal)
        replay = Partie(deal)
        for _, action in rec.history:
            replay.apply(action)
        print(f"Partie {k + 1}: {a.name} (challenger) vs {b.name} (dealer)")
        print(repr(replay))
        r = rec.result
        print(f"  points {r.scores[0].total} - {r.scores[1].total}; tokens {r.tokens[0]:+d} / {r.tokens[1]:+d}\n")
    res = head_to_head("rule", "random", args.deals, duplicate=True, seed=args.seed, workers=1)
    print(format_summary(res.summary) + "\n")
    pool = ["rule", "random", "rule:pro=never"]
    try:
        make_player("policy")
        pool.append("policy")
    except ValueError as e:
        print(f"(no trained policy in the demo: {e})\n")
    # Every seating order once or twice: 3! x 2 or 4! sessions.
    t = session_tournament(pool, sessions=12 if len(pool) == 3 else 24, parties=20, seed=args.seed, workers=1)
    print(format_summary(t.summary))
    print(f"\n(demo took {time.perf_counter() - start:.1f} s)")
    return 0


# -------------------------------------------------------------------- train
def cmd_train(args) -> int:
    """``trappola train``: SB3 or RLlib self-play training (``trappola.train.train_command``)."""
    from trappola.train.train_command import cli_main

    return cli_main(args.argv)


# ------------------------------------------------------------------ exploit
def cmd_exploit(args) -> int:
    """``trappola exploit``: train a best response against a target player and
    report how much it wins."""
    from trappola.train.exploit import DEFAULT_WARM_START, format_exploit, run_exploit

    if args.json:
        _check_writable(args.json, False)
    bad = [o for o in args.overrides if "=" not in o]
    if bad:
        raise CliError(f"settings must be key=value, got {bad[0]!r}")
    result = run_exploit(
        args.target,
        minutes=args.minutes,
        deals=args.deals,
        seed=args.seed,
        warm_start=args.warm_start or DEFAULT_WARM_START,
        overrides=args.overrides + ([f"device={args.device}"] if args.device else []),
        json_path=args.json,
        workers=args.workers,
    )
    print(format_exploit(result))
    if args.json:
        print(f"written to {args.json}")
    return 0


def cmd_analyze(args, check_writable) -> int:
    """``trappola analyze``: the research instruments (``trappola/cli/analyze.py``)."""
    from trappola.cli.analyze import cmd_analyze as run

    return run(args, check_writable)


def cmd_compare(args, check_writable) -> int:
    """``trappola compare``: two players against a third on the same deals (``trappola/cli/compare.py``)."""
    from trappola.cli.compare import cmd_compare as run

    return run(args, check_writable)


COMMANDS = {
    "play": cmd_play,
    "evaluate": cmd_evaluate,
    "players": cmd_players,
    "bench": cmd_bench,
    "demo": cmd_demo,
    "train": cmd_train,
    "serve": cmd_serve,
    "exploit": cmd_exploit,
    "analyze": lambda args: cmd_analyze(args, _check_writable),
    "compare": lambda args: cmd_compare(args, _check_writable),
}

if __name__ == "__main__":
    sys.exit(main())


# The start-up is over: Ctrl-C raises KeyboardInterrupt again, which main() reports in one line.
if signal.getsignal(signal.SIGINT) is _quiet_interrupt:
    signal.signal(signal.SIGINT, PREVIOUS_SIGINT)
