"""Ratings over a pool of players (openskill, Plackett-Luce model).

    from trappola.agents.evaluation import rate_pool
    res = rate_pool(["rule", "random", "random:alifer=false"], deals=200, seed=0)
    res.summary["ratings"]  # sorted best first

Every pair of the pool plays a duplicate head-to-head over ``deals``
deals (``duplicate.head_to_head``; pair ``(i, j)`` seeded by
``derive_seed(seed, "pair", i, j)``). Then every decided partie, in a fixed
order (pair, deal, game), updates the ratings: the winner ranked first. A
tie in points counts as a draw; an agreed Alifer is skipped (nothing was
decided). The order is fixed, so the ratings are reproducible.

``summary["ratings"]``: per player ``mu``, ``sigma`` and ``ordinal``
(``mu - 3 sigma``, a conservative skill estimate), sorted by ordinal.
``summary["pairs"]``: each pair's win rate (first over second) with its
95% interval, from the head-to-head summaries. ``records``: the partie
rows of every pair (with the pair's players): the CSV.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from trappola.agents.evaluation.backend import Backend
from trappola.agents.evaluation.backend_choice import resolve_backend
from trappola.agents.evaluation.duplicate import head_to_head
from trappola.agents.evaluation.players import player_label, source_of
from trappola.agents.evaluation.seeding import derive_seed
from trappola.agents.evaluation.tournament import unique_labels
from trappola_env.engine import DEFAULT_CONFIG, RuleConfig
from trappola_env.engine.scoring import DECIDED, FORFEIT, TIE


@dataclass
class RatingsResult:
    """What ``rate_pool`` returns: the JSON ``summary``, the per-partie ``records``
    and, with ``record_games``, the saved-game records."""

    summary: dict
    records: list = field(repr=False)
    games: list = field(default_factory=list, repr=False)  # saved-game records (``record_games``)


def rate_pool(
    players,
    deals: int,
    *,
    seed: int = 0,
    config: RuleConfig = DEFAULT_CONFIG,
    stake_multiple: int = 1,
    workers: int | None = None,
    backend: Backend | str | None = None,
    progress: bool | str = False,
    record_games: bool = False,
) -> RatingsResult:
    """Rate the pool (see the module docstring); ``record_games`` keeps
    every partie of every pair as a saved-game record in ``result.games``."""
    from openskill.models import PlackettLuce

    players = list(players)
    if len(players) < 2:
        raise ValueError(f"ratings need at least 2 players, got {len(players)}")
    sources = [source_of(p) for p in players]
    labels = unique_labels(player_label(s) for s in sources)
    backend, own = resolve_backend(backend, workers, any(getattr(s, "interactive", False) for s in sources))
    pairs = []
    records = []
    games: list[Any] = []
    try:
        for i in range(len(sources)):
            for j in range(i + 1, len(sources)):
                res = head_to_head(
                    sources[i],
                    sources[j],
                    deals,
                    duplicate=True,
                    seed=derive_seed(seed, "pair", i, j),
                    config=config,
                    stake_multiple=stake_multiple,
                    backend=backend,
                    progress=progress,
                    record_games=record_games,
                )
                games.extend({**g, "evaluation": "ratings"} for g in res.games)
                s = res.summary
                pairs.append(
                    {
                        "a": labels[i],
                        "b": labels[j],
                        "win_rate": s["win_rate"],
                        "win_rate_ci": s["win_rate_ci"],
                        "decided": s["decided"],
                        "mean_point_diff": s["mean_point_diff"],
                    }
                )
                for r in res.records:
                    records.append({"a": labels[i], "b": labels[j], **r})
    finally:
        if own:
            backend.close()
    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in labels}
    for r in records:
        a, b = ratings[r["a"]], ratings[r["b"]]
        if r["outcome"] in (DECIDED, FORFEIT):
            ranks = [0.0, 1.0] if r["winner"] == "A" else [1.0, 0.0]
        elif r["outcome"] == TIE:
            ranks = [0.0, 0.0]
        else:
            continue
        [[a], [b]] = model.rate([[a], [b]], ranks=ranks)
        ratings[r["a"]], ratings[r["b"]] = a, b
    table: list[dict[str, Any]] = [
        {"player": n, "mu": ratings[n].mu, "sigma": ratings[n].sigma, "ordinal": ratings[n].ordinal()} for n in labels
    ]
    table.sort(key=lambda e: -e["ordinal"])
    summary = {
        "kind": "ratings",
        "players": labels,
        "settings": {
            "deals": deals,
            "duplicate": True,
            "seed": seed,
            "stake_multiple": stake_multiple,
            "config": config.to_dict(),
            "model": "openskill PlackettLuce",
        },
        "ratings": table,
        "pairs": pairs,
    }
    return RatingsResult(summary, records, games)
