"""Bulka-session tournaments for 2-4 players (docs/rules.md section 8).

    from trappola.agents.evaluation import session_tournament
    res = session_tournament(["rule", "random", "rule:pro=never"], sessions=12, parties=50, seed=0)
    res.summary["per_player"]["rule"]["tokens_per_partie"]

Sessions are played by the fast runner (``trappola_env.referee.play_session``)
on the session engine. Seating is not drawn: sessions come in blocks of
``n!`` that share one seed (so one stream of deals) and play every
permutation of the players as the first seating (challenger, queue head to
tail, dealer), which balances the order of play. Session ``i`` is
permutation ``i mod n!`` of block ``i // n!``, seeded by
``derive_seed(seed, "session", block)``; each player is reset with
``derive_seed(seed, "session-player", i, position)`` before its session.
A session count that is a multiple of ``n!`` keeps the balance exact.

Per player (``summary["per_player"][label]``), each a mean over sessions
with a 95% Student-t interval (``*_ci``):

* ``tokens_per_partie``: final balance (after the split of the Bulka)
  divided by the parties the session played;
* ``bulka_wins``: Bulkas taken (Pro declared and won) per session;
* ``pro_declared`` and ``pro_won`` per session, and ``pro_win_rate``
  (won / declared over all sessions, ``pro_win_rate_ci``: Wilson with
  sessions as clusters, see ``stats.clustered_rate``);
* ``parties_played`` (at the table) and ``parties_won`` per session.

Labels are the players' canonical specs, with ``#2``, ``#3`` added to
repeats. ``res.records`` has one row per (session, player): the CSV.
``record_games=True`` keeps every partie of every session as a saved-game
record with its session context (``trappola.agents.evaluation.session_record``) in
``res.games``; it changes no number. ``advice=True`` plays sessions in
which the waiting players advise the defender of each Pro partie
(docs/rules.md section 8; ``trappola_env.referee``).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from fractions import Fraction

from trappola.agents.evaluation.backend import Backend
from trappola.agents.evaluation.backend_choice import resolve_backend, run_blocks
from trappola.agents.evaluation.players import build_players, player_label, source_of
from trappola.agents.evaluation.progress import progress_bar
from trappola.agents.evaluation.seeding import derive_seed
from trappola.agents.evaluation.stats import clustered_rate, mean_ci
from trappola_env.engine import DEFAULT_CONFIG, RuleConfig

SESSION_FIELDS = (
    "session",
    "block",
    "seating",
    "player",
    "balance",
    "parties",
    "tokens_per_partie",
    "bulka_wins",
    "bulka_won",
    "pro_declared",
    "pro_won",
    "parties_played",
    "parties_won",
)
PER_PLAYER_KEYS = ("tokens_per_partie", "bulka_wins", "pro_declared", "pro_won", "parties_played", "parties_won")


@dataclass
class TournamentResult:
    """What ``session_tournament`` returns: the ``summary`` (the JSON), one ``records`` row per
    session and player."""

    summary: dict
    records: list = field(repr=False)
    #: Every partie as a saved-game record, session by session (``record_games=True``), else empty.
    games: list = field(default_factory=list, repr=False)


def unique_labels(names) -> list[str]:
    """``["rule", "rule", "random"]`` -> ``["rule", "rule#2", "random"]``."""
    seen: dict[str, int] = {}
    out = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if seen[n] == 1 else f"{n}#{seen[n]}")
    return out


def _play_sessions(task) -> tuple[list[tuple], list[dict]]:
    """Play sessions ``start..stop-1``; runs in a worker. Rows follow
    ``SESSION_FIELDS``; saved games only when asked for."""
    from trappola.agents.evaluation.session_record import SessionRecorder
    from trappola_env.engine.session import Session
    from trappola_env.referee import play_session

    sources, labels, seed, start, stop, parties, config, stake_multiple, record, advice = task
    players = build_players(sources)
    perms = list(itertools.permutations(range(len(labels))))
    rows: list[tuple] = []
    saved: list[dict] = []
    for i in range(start, stop):
        block, k = divmod(i, len(perms))
        order = [labels[j] for j in perms[k]]
        for pos, p in enumerate(players):
            p.reset(derive_seed(seed, "session-player", i, pos))
        seating = {"challenger": order[0], "queue": order[1:-1], "dealer": order[-1]}
        session = Session(
            max_parties=parties,
            stake_multiple=stake_multiple,
            config=config,
            seed=derive_seed(seed, "session", block),
            names=labels,
            seating=seating,
            advice=advice,
        )
        recorder = SessionRecorder(session, {"session": i, "seating": " ".join(order)}) if record else None
        res = play_session(
            dict(zip(labels, players, strict=True)),
            session=session,
            on_partie=recorder.on_partie if recorder is not None else None,
        )
        if recorder is not None:
            saved.extend(recorder.finish())
        declared = {n: 0 for n in labels}
        won = {n: 0 for n in labels}
        for d in res.pro_declarations:
            declared[d["player"]] += 1
            won[d["player"]] += d["result"] == "won"
        played = {n: 0 for n in labels}
        wins = {n: 0 for n in labels}
        for rec in res.history:
            played[rec.challenger] += 1
            played[rec.dealer] += 1
            if rec.winner is not None:
                wins[rec.winner] += 1
        n_parties = res.parties_played
        for name in labels:
            balance = Fraction(res.balances.get(name, res.departed.get(name, 0)))
            rows.append(
                (
                    i,
                    block,
                    " ".join(order),
                    name,
                    float(balance),
                    n_parties,
                    float(balance / n_parties) if n_parties else 0.0,
                    res.bulka_wins.get(name, 0),
                    float(res.bulka_won.get(name, 0)),
                    declared[name],
                    won[name],
                    played[name],
                    wins[name],
                )
            )
    return rows, saved


def session_tournament(
    players,
    sessions: int,
    parties: int,
    *,
    seed: int = 0,
    config: RuleConfig = DEFAULT_CONFIG,
    stake_multiple: int = 1,
    workers: int | None = None,
    backend: Backend | str | None = None,
    progress: bool | str = False,
    record_games: bool = False,
    advice: bool = False,
) -> TournamentResult:
    """Play ``sessions`` Bulka sessions of ``parties`` parties each among
    2-4 ``players`` (specs or ``Player`` objects); see the module docstring."""
    players = list(players)
    if not 2 <= len(players) <= 4:
        raise ValueError(f"a Bulka session has 2 to 4 players, got {len(players)}")
    for name, v in (("sessions", sessions), ("parties", parties)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a positive int, got {v!r}")
    sources = tuple(source_of(p) for p in players)
    labels = unique_labels(player_label(s) for s in sources)
    backend, own = resolve_backend(backend, workers, any(getattr(s, "interactive", False) for s in sources))
    size = max(1, min(8, math.ceil(sessions / max(1, backend.workers * 4))))
    tasks = [
        (sources, labels, seed, s, min(s + size, sessions), parties, config, stake_multiple, record_games, advice)
        for s in range(0, sessions, size)
    ]
    bar = progress_bar(progress, sessions, "sessions", "session")
    rows, games = run_blocks(backend, own, _play_sessions, tasks, bar, lambda out: len(out[0]) // len(labels))
    records = [dict(zip(SESSION_FIELDS, row, strict=True)) for row in rows]
    per_player = {}
    for name in labels:
        rows = [r for r in records if r["player"] == name]
        entry = {}
        for key in PER_PLAYER_KEYS:
            entry[key], ci = mean_ci(r[key] for r in rows)
            if key != "tokens_per_partie" and ci[0] is not None:
                ci = [max(0.0, ci[0]), ci[1]]  # counts: the t interval's lower end may dip below 0
            entry[key + "_ci"] = ci
        rate, ci, _ = clustered_rate([r["pro_won"] for r in rows], [r["pro_declared"] for r in rows])
        entry["pro_win_rate"], entry["pro_win_rate_ci"] = rate, ci
        entry["total_pro_declared"] = sum(r["pro_declared"] for r in rows)
        entry["total_bulka_wins"] = sum(r["bulka_wins"] for r in rows)
        per_player[name] = entry
    n_perm = math.factorial(len(labels))
    summary = {
        "kind": "session_tournament",
        "players": labels,
        "settings": {
            "sessions": sessions,
            "parties": parties,
            "seed": seed,
            "stake_multiple": stake_multiple,
            "config": config.to_dict(),
            "balanced": sessions % n_perm == 0,
            "seatings_per_block": n_perm,
            **({"advice": True} if advice else {}),
        },
        "per_player": per_player,
    }
    return TournamentResult(summary, records, games)
