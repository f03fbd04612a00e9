"""Head-to-head evaluation of two players over N deals, optionally duplicate.

    from trappola.agents.evaluation import head_to_head
    res = head_to_head("rule", "random", deals=2000, duplicate=True, seed=0)
    res.summary["win_rate"], res.summary["win_rate_ci"]

Each deal ``i`` is ``random_deal(Random(derive_seed(seed, "deal", i)))``.
Plain mode plays it once, the first player (A) as challenger on even ``i``
and as dealer on odd ``i``. Duplicate mode plays it twice with the same
cards: game 0 with A as challenger, game 1 with the seats swapped (A gets
the dealer's hand), which cancels most of the luck of the deal. Before
every partie each player is ``reset(derive_seed(seed, "player", i, game,
seat))``, so results depend on nothing but (seed, deal index): the same
with 1 or 16 workers. One deal is one partie: an Alifer (tie or agreed) is
counted, not replayed.

``backend`` says where the deals are played: "process" (default:
``workers`` processes, one of them meaning this process), "serial", "ray"
(Ray tasks on a local instance or a cluster, ``trappola.agents.evaluation.ray_backend``)
or any ``backend.Backend``; the same for ``session_tournament`` and
``rate_pool``. The backend never changes a number.

Summary (``res.summary``, the JSON written by ``trappola evaluate``), for
player A (``players[0]``) against B:

* ``parties``, ``decided`` (won by someone: decided or forfeit), ``wins``,
  ``losses``, ``alifer`` (= ``ties`` + ``agreed_alifer``), ``forfeits``.
* ``win_rate``: wins / decided; ``win_rate_ci``: 95% interval.
  Plain mode: Wilson. Duplicate mode: the two parties of a deal are not
  independent (same cards), so the interval treats each deal as a cluster
  (``stats.clustered_rate``: cluster-robust variance, Wilson at the
  effective sample size, never above the parties decided). ``win_rate_ci_method`` says which.
* ``mean_point_diff`` (A's total minus B's, over all parties) and
  ``mean_tokens`` (A's net tokens per partie, stakes included; B's are
  ``mean_tokens_opponent``), each with a 95% Student-t ``*_ci`` over
  deals: in duplicate mode the unit is the deal (mean of its two parties).
* ``by_seat``: the same win figures for A as ``challenger`` and as
  ``dealer`` (Wilson).
* ``players``, ``settings`` (deals, duplicate, seed, stake_multiple,
  rule config).
* ``player_specs`` (added by ``trappola evaluate``, as by ``compare`` and ``analyze``): each
  player's effective settings, defaults included, and the files it reads with their SHA-256
  (``players.describe_player``).

``res.records`` holds one row per partie (``RECORD_FIELDS``): the CSV.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

from trappola.agents.evaluation.backend import Backend
from trappola.agents.evaluation.backend_choice import resolve_backend, run_blocks
from trappola.agents.evaluation.game_record import GameRecorder
from trappola.agents.evaluation.players import PlayerSource, build_players, player_label, source_of
from trappola.agents.evaluation.progress import progress_bar
from trappola.agents.evaluation.seeding import derive_seed
from trappola.agents.evaluation.stats import clustered_rate, mean_ci, wilson
from trappola_env.engine import DEFAULT_CONFIG, RuleConfig, random_deal
from trappola_env.engine.scoring import DECIDED, FORFEIT, TIE

ROLES = ("challenger", "dealer")
RECORD_FIELDS = ("deal", "game", "a_seat", "outcome", "winner", "points_a", "points_b", "tokens_a", "tokens_b")
SUMMARY_KEYS = (
    "kind",
    "players",
    "settings",
    "parties",
    "decided",
    "wins",
    "losses",
    "alifer",
    "ties",
    "agreed_alifer",
    "forfeits",
    "win_rate",
    "win_rate_ci",
    "win_rate_ci_method",
    "mean_point_diff",
    "mean_point_diff_ci",
    "mean_tokens",
    "mean_tokens_ci",
    "mean_tokens_opponent",
    "mean_tokens_opponent_ci",
    "by_seat",
)


@dataclass
class HeadToHeadResult:
    """What ``head_to_head`` returns: the ``summary`` (the JSON), one ``records`` row per partie."""

    summary: dict
    records: list = field(repr=False)
    #: One ``game_record`` record per partie, in deal order (``record_games=True``), else empty.
    games: list = field(default_factory=list, repr=False)


def _play_block(task) -> tuple[list[tuple], list[dict]]:
    """Play deals ``start..stop-1``; runs in a worker. Rows follow
    ``RECORD_FIELDS``; games (``game_record``) only when asked for."""
    sources, seed, start, stop, duplicate, config, stake_multiple, record = task
    players = build_players(sources)
    rows: list[tuple] = []
    saved: list[dict] = []
    from trappola_env.referee import play_partie  # the referee; agents imports trappola_env, not the reverse

    for i in range(start, stop):
        deal = random_deal(random.Random(derive_seed(seed, "deal", i)))
        games = (0, 1) if duplicate else (i % 2,)
        for game in games:
            a_seat = game  # game 0: A challenger; game 1: A dealer
            seated = (players[0], players[1]) if a_seat == 0 else (players[1], players[0])
            for seat, p in enumerate(seated):
                p.reset(derive_seed(seed, "player", i, game, seat))
            labels = ("A", "B") if a_seat == 0 else ("B", "A")
            recorder = GameRecorder(seated) if record else None
            res = play_partie(
                seated,
                deal,
                config=config,
                stake_multiple=stake_multiple,
                on_decision=recorder.on_decision if recorder is not None else None,
            ).result
            if recorder is not None:
                saved.append(
                    recorder.record(
                        deal,
                        res,
                        players=[player_label(s) for s in (sources if a_seat == 0 else sources[::-1])],
                        config=config,
                        stake_multiple=stake_multiple,
                        evaluation="head_to_head",
                        pair=[player_label(s) for s in sources],
                        deal_index=i,
                        game=game if duplicate else 0,
                    )
                )
            winner = "" if res.winner is None else labels[res.winner]
            b_seat = 1 - a_seat
            rows.append(
                (
                    i,
                    game if duplicate else 0,
                    ROLES[a_seat],
                    res.outcome,
                    winner,
                    res.scores[a_seat].total,
                    res.scores[b_seat].total,
                    res.tokens[a_seat],
                    res.tokens[b_seat],
                )
            )
    return rows, saved


def head_to_head(
    a: PlayerSource,
    b: PlayerSource,
    deals: int,
    *,
    duplicate: bool = False,
    seed: int = 0,
    config: RuleConfig = DEFAULT_CONFIG,
    stake_multiple: int = 1,
    workers: int | None = None,
    backend: Backend | str | None = None,
    progress: bool | str = False,
    chunk: int | None = None,
    record_games: bool = False,
) -> HeadToHeadResult:
    """Play A against B (specs like ``"rule"`` or ``Player`` objects); see
    the module docstring for what is reported. ``progress``: see
    ``trappola.agents.evaluation.progress`` (True: a bar on a terminal, lines in a log).
    ``record_games`` keeps every partie as a saved-game record
    (``trappola.agents.evaluation.game_record``) in ``result.games``; it changes no number."""
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 1:
        raise ValueError(f"deals must be a positive int, got {deals!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an int, got {seed!r}")
    sources = (source_of(a), source_of(b))
    labels = [player_label(s) for s in sources]
    backend, own = resolve_backend(backend, workers, any(getattr(s, "interactive", False) for s in sources))
    size = chunk or block_size(deals, backend.workers)
    tasks = [
        (sources, seed, s, min(s + size, deals), duplicate, config, stake_multiple, record_games)
        for s in range(0, deals, size)
    ]
    bar = progress_bar(progress, deals, f"{labels[0]} vs {labels[1]}", "deal")
    per_game = 2 if duplicate else 1
    rows, games = run_blocks(backend, own, _play_block, tasks, bar, lambda block: len(block[0]) // per_game)
    records = [dict(zip(RECORD_FIELDS, row, strict=True)) for row in rows]
    summary = summarize(records, duplicate)
    summary["players"] = labels
    summary["settings"] = {
        "deals": deals,
        "duplicate": duplicate,
        "seed": seed,
        "stake_multiple": stake_multiple,
        "config": config.to_dict(),
    }
    return HeadToHeadResult({k: summary[k] for k in SUMMARY_KEYS}, records, games)


#: Blocks of deals per worker (at most 100 deals each): the last blocks to finish leave the other
#: workers idle for less than a block, and a block costs only one message each way (its players are
#: built once per worker). 4 left up to a tenth of 16 workers idle at the end of a 400-deal match.
BLOCKS_PER_WORKER = 8


def block_size(deals: int, workers: int) -> int:
    """Deals per block of a match of ``deals`` deals on ``workers`` workers."""
    return max(1, min(100, math.ceil(deals / max(1, workers * BLOCKS_PER_WORKER))))


def summarize(records: list[dict], duplicate: bool) -> dict:
    """The summary of per-partie records (see the module docstring)."""
    decided = [r for r in records if r["outcome"] in (DECIDED, FORFEIT)]
    wins = sum(1 for r in decided if r["winner"] == "A")
    out: dict[str, Any] = {
        "kind": "head_to_head",
        "parties": len(records),
        "decided": len(decided),
        "wins": wins,
        "losses": len(decided) - wins,
        "ties": sum(1 for r in records if r["outcome"] == TIE),
        "agreed_alifer": sum(1 for r in records if r["outcome"] == "agreed_alifer"),
        "forfeits": sum(1 for r in records if r["outcome"] == FORFEIT),
    }
    out["alifer"] = out["ties"] + out["agreed_alifer"]
    by_deal: dict[int, list[dict]] = {}
    for r in records:
        by_deal.setdefault(r["deal"], []).append(r)
    if duplicate:
        w = [sum(1 for r in rs if r["outcome"] in (DECIDED, FORFEIT) and r["winner"] == "A") for rs in by_deal.values()]
        d = [sum(1 for r in rs if r["outcome"] in (DECIDED, FORFEIT)) for rs in by_deal.values()]
        rate, ci, _ = clustered_rate(w, d)
        out["win_rate_ci_method"] = "wilson, deal-clustered effective n"
    else:
        rate = wins / len(decided) if decided else None
        ci = wilson(wins, len(decided))
        out["win_rate_ci_method"] = "wilson"
    out["win_rate"], out["win_rate_ci"] = rate, ci

    def per_unit(f):
        # Plain mode: one partie per deal; duplicate: the mean of its two.
        return [sum(f(r) for r in rs) / len(rs) for rs in by_deal.values()]

    out["mean_point_diff"], out["mean_point_diff_ci"] = mean_ci(per_unit(lambda r: r["points_a"] - r["points_b"]))
    out["mean_tokens"], out["mean_tokens_ci"] = mean_ci(per_unit(lambda r: r["tokens_a"]))
    out["mean_tokens_opponent"], out["mean_tokens_opponent_ci"] = mean_ci(per_unit(lambda r: r["tokens_b"]))
    by_seat = {}
    for role in ROLES:
        rs = [r for r in decided if r["a_seat"] == role]
        k = sum(1 for r in rs if r["winner"] == "A")
        by_seat[role] = {
            "parties": sum(1 for r in records if r["a_seat"] == role),
            "decided": len(rs),
            "wins": k,
            "win_rate": k / len(rs) if rs else None,
            "win_rate_ci": wilson(k, len(rs)),
        }
    out["by_seat"] = by_seat
    return out
