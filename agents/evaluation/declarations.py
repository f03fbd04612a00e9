"""Declaration timing as an instrument: paired counterfactuals at every declaration decision.

    from trappola.agents.evaluation.declarations import analyze_declarations
    res = analyze_declarations(["pimc", "rule"], deals=200, seed=0, sessions=20, parties=30)
    res.summary["groups"]          # per decider and kind (and turn): paired differences with 95% intervals

Deal ``i`` is ``random_deal(Random(derive_seed(seed, "deal", i)))`` (with ``condition``: the first of
``derive_seed(seed, "deal", i, r)``, r = 0, 1, ... whose challenger hand allows that declaration) and is
played twice with the same cards, the players swapped: game 0 ``players[0]`` is the challenger, game 1
``players[1]`` is, so each player holds the challenger's (conditioned) hand once. At each declaration
decision point of either seat the partie is played to its end once per option with the same seeds
(``declaration_rollouts``); with ``sessions`` > 0, Bulka sessions of all the players are played too, and
at each Pro offer the session is played to its end declaring and waiting (``pro_points``). Everything
is a function of the seed and the item's index, so any number of workers gives the same numbers.

Contrasts (``CONTRASTS``): per kind, option minus option, e.g. ``now - never`` (the value of declaring)
and ``later - now`` (the value of waiting). Every group belongs to one **decider** (the player whose
decision point it is; two players' decisions are never pooled). For each contrast, over the decision
points where both options were played: the mean paired difference of the decider's points, of its wins
minus losses and of its tokens, each with a 95% interval that treats the points of one deal (one
session for Pro) as a cluster (``stats``); how often the decider itself took each option; and the mean
``info_nats`` (what the other seat learned).

What the intervals can and cannot say (``stats``): below ``MIN_PAIRS`` deals (sessions) no interval is
given; wins minus losses gets a score interval on the rates of changed outcomes, so "no outcome changed
in 6 pairs" is not a zero-width interval; a measure that every pair moved by the same amount has no
interval and a note. That happens by the rules: a declaration's own points and payment are fixed
(docs/rules.md section 4: e.g. Figura of three pays 5 tokens and scores 6 points whatever the outcome),
so when the declaration changed nothing else in any pair the difference is exactly that amount. The
tokens are the partie's payments and stake, not the Bulka (``TOKENS_NOTE``).

JSON schema (``summary``, written by ``trappola analyze declarations --json``; keys are only ever added):

* ``kind`` ("declarations"), ``players`` (the specs, in order), ``decision_points`` (rows),
  ``min_units`` (``MIN_PAIRS``), ``tokens_note`` (what the tokens count), ``settings`` (deals, seed,
  condition, alifer, sessions, parties, rule config), ``player_specs`` (added by the command: each
  player's effective spec and files, ``players.describe_player``).
* ``groups``: a list of rows, each with ``kind``, ``turn`` (None: all turns; Aces and Bianka also per
  turn, the decider's card number 1..9; for Pro the partie number), ``contrast`` ("a - b"), ``n``
  (decision points), ``units`` (deals or sessions among them), ``decider`` (the spec of the deciding
  player), ``decider_index`` (its place in ``players``), ``taken`` (option -> how often the decider
  chose it on the main line), per measure ``m`` in ``points``, ``wl``, ``tokens``: ``m`` (the mean
  difference or None), ``m_ci`` ([low, high], [None, None] when no interval) and ``m_note`` (why there
  is no interval, or None); ``wl_changed`` (pairs whose outcome differed); ``info_nats``.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from typing import Any

from trappola.agents.evaluation.backend import Backend
from trappola.agents.evaluation.backend_choice import resolve_backend, run_blocks
from trappola.agents.evaluation.declaration_rollouts import KINDS, OPTIONS, partie_points
from trappola.agents.evaluation.players import build_players, player_label, source_of
from trappola.agents.evaluation.progress import progress_bar
from trappola.agents.evaluation.seeding import derive_seed
from trappola.agents.evaluation.stats import MIN_PAIRS, cluster_mean, outcome_difference, paired_mean
from trappola_env.engine import DEFAULT_CONFIG, Deal, RuleConfig, random_deal
from trappola_env.engine.declarations import aces_possible, bianka_possible, first_card_declarations

ALL_KINDS = (*KINDS, "pro")
CONTRASTS = {
    "figura": (("now", "never"),),
    "blans": (("now", "never"),),
    "aces": (("now", "never"), ("later", "now")),
    "bianka": (("now", "never"), ("later", "now")),
    "manko": (("ask", "not"),),
    "alifer": (("propose", "not"),),
    "answer": (("accept", "decline"),),
    "pro": (("declare", "wait"),),
}
MEASURES = ("points", "wl", "tokens")
#: What the tokens column counts, said with every table and in the JSON.
TOKENS_NOTE = (
    "tokens: the decider's net payments of the partie (its stake, declaration and trick-bonus payments, "
    "replays included); the Bulka (pot) is not counted, since who takes it is decided by the session"
)
__all__ = ["CONTRASTS", "MEASURES", "TOKENS_NOTE", "analyze_declarations", "cluster_mean", "csv_rows", "deal_of"]
_FIGURA_BITS = sum(1 << a for a in range(36, 40))
CONDITIONS = {
    "figura": lambda hand: bool(first_card_declarations(hand) & _FIGURA_BITS),
    "blans": lambda hand: bool(first_card_declarations(hand) >> 41 & 1),
    "aces": aces_possible,
    "bianka": bianka_possible,
}
CSV_FIELDS = (
    "kind",
    "turn",
    "contrast",
    "n",
    "points",
    "points_lo",
    "points_hi",
    "wl",
    "wl_lo",
    "wl_hi",
    "tokens",
    "tokens_lo",
    "tokens_hi",
    "info_nats",
    "decider",
    "wl_changed",
    "note",
)


def deal_of(seed: int, i: int, condition: str | None = None) -> Deal:
    """Deal ``i`` of an analysis (see the module docstring)."""
    if condition is None:
        return random_deal(random.Random(derive_seed(seed, "deal", i)))
    if condition not in CONDITIONS:
        raise ValueError(f"condition must be one of {', '.join(CONDITIONS)} or None, got {condition!r}")
    for r in range(100_000):
        deal = random_deal(random.Random(derive_seed(seed, "deal", i, r)))
        if CONDITIONS[condition](deal.hands[0]):
            return deal
    raise RuntimeError(f"no {condition} hand in 100000 deals")  # pragma: no cover (Bianka: 1 in 550)


def _deal_block(task) -> tuple[list[dict], list]:
    """Decision points of deals ``start..stop-1``, both seatings; runs in a worker."""
    sources, seed, start, stop, config, condition, alifer = task
    a, b = build_players(sources)
    rows = []
    for i in range(start, stop):
        deal = deal_of(seed, i, condition)
        for game, seated in enumerate(((a, b), (b, a))):
            for row in partie_points(list(seated), deal, derive_seed(seed, "game", i, game), config, alifer):
                row.update(unit=f"deal {i}", game=game, player=(0 if row["seat"] == game else 1))
                rows.append(row)
    return rows, []


def pro_points(players: dict, seed: int, max_parties: int, config: RuleConfig = DEFAULT_CONFIG) -> list[dict]:
    """One Bulka session of ``players`` (``{name: player}``) with paired rollouts at every Pro offer:
    the session is played to its end declaring and waiting (players ``reset`` to the same seeds in both
    branches), and the dealer's final balance (tokens) and whether it won the next decided partie
    (``wl``) are recorded per option, with the Bulka (in base stakes), the offer's partie index and the
    player's own choice on the main line (``taken``)."""
    from trappola_env.engine.session import PRO_DECISION, Session
    from trappola_env.referee import Referee, play_session

    names = list(players)

    def reset(*path):
        for k, n in enumerate(names):
            players[n].reset(derive_seed(seed, *path, k))

    session = Session(max_parties=max_parties, config=config, seed=seed, names=names)
    reset("player")
    referee = Referee.for_session(players, session)
    rows, j = [], 0
    while not referee.over:
        if session.phase == PRO_DECISION:
            dealer, start = session.dealer, session.parties_played
            row: dict[str, Any] = {
                "kind": "pro",
                "action": 47,
                "seat": None,
                "turn": start + 1,
                "options": ["declare", "wait"],
                "values": {},
                "info_nats": None,
                "dealer": dealer,
                "bulka_stakes": session.bulka / (10 * session.stake_multiple),
            }
            for option in ("declare", "wait"):
                branch = copy.deepcopy(session)
                branch.decide_pro(option == "declare")
                reset("branch", j)
                res = play_session(players, session=branch)
                decided = [h for h in res.history.to_dicts()[start:] if h["winner"] is not None]
                wl = 0 if not decided else (1 if decided[0]["winner"] == dealer else -1)
                row["values"][option] = {"points": None, "wl": wl, "tokens": float(res.balances[dealer])}
            reset("main", j)
            turn = referee.turn()
            row["taken"] = "declare" if referee.ask(turn) else "wait"
            row["player"] = names.index(dealer)
            rows.append(row)
            j += 1
            referee.answer(row["taken"] == "declare")
            continue
        referee.answer(referee.ask(referee.turn()))
    return rows


def _session_block(task) -> tuple[list[dict], list]:
    """Pro decision points of sessions ``start..stop-1``; runs in a worker."""
    sources, seed, start, stop, config, max_parties = task
    built = build_players(sources)
    players = {f"{k}:{player_label(s)}": p for k, (s, p) in enumerate(zip(sources, built, strict=True))}
    rows = []
    for i in range(start, stop):
        for row in pro_points(players, derive_seed(seed, "session", i), max_parties, config):
            row.update(unit=f"session {i}", game=None)
            rows.append(row)
    return rows, []


def _measure(g: dict, m: str, pairs: list[tuple], units: list) -> None:
    """``g[m]``, ``g[m + "_ci"]`` and ``g[m + "_note"]`` of one measure (see the module docstring)."""
    if any(x is None for d in pairs for x in d):
        g[m], g[m + "_ci"], g[m + "_note"] = None, [None, None], "not measured for this kind"
        return
    diffs = [x - y for x, y in pairs]
    if m == "wl":
        g[m], g[m + "_ci"], g[m + "_note"], g["wl_changed"] = outcome_difference(diffs, units)
        return
    g[m], g[m + "_ci"], g[m + "_note"] = paired_mean(diffs, units)


def summarize(rows: list[dict], labels: list[str]) -> dict:
    """The groups (per decider and kind, and per decider, kind and turn for Aces and Bianka) of the
    module docstring."""
    groups = []
    deciders = sorted({r["player"] for r in rows})
    for who in deciders:
        mine = [r for r in rows if r["player"] == who]
        for kind in ALL_KINDS:
            of_kind = [r for r in mine if r["kind"] == kind]
            if not of_kind:
                continue
            turns = sorted({r["turn"] for r in of_kind}) if kind in ("aces", "bianka") else []
            for turn in [None, *turns]:
                sel = [r for r in of_kind if turn is None or r["turn"] == turn]
                taken = {o: sum(r["taken"] == o for r in sel) for o in OPTIONS.get(kind, ("declare", "wait"))}
                for a, b in CONTRASTS[kind]:
                    pair = [r for r in sel if a in r["values"] and b in r["values"]]
                    if not pair:
                        continue
                    g: dict[str, Any] = {
                        "kind": kind,
                        "turn": turn,
                        "contrast": f"{a} - {b}",
                        "n": len(pair),
                        "taken": taken,
                        "decider": labels[who],
                        "decider_index": who,
                    }
                    units = [r["unit"] for r in pair]
                    g["units"] = len(set(units))
                    for m in MEASURES:
                        _measure(g, m, [(r["values"][a][m], r["values"][b][m]) for r in pair], units)
                    info = [r["info_nats"] for r in sel if r["info_nats"] is not None]
                    g["info_nats"] = sum(info) / len(info) if info else None
                    groups.append(g)
    return {
        "kind": "declarations",
        "players": labels,
        "decision_points": len(rows),
        "min_units": MIN_PAIRS,
        "tokens_note": TOKENS_NOTE,
        "groups": groups,
    }


@dataclass
class DeclarationResult:
    """``summary`` (JSON-ready: ``players``, ``settings``, ``groups``) and ``rows``, one per decision point."""

    summary: dict
    rows: list = field(repr=False, default_factory=list)


def analyze_declarations(
    players,
    deals: int,
    *,
    seed: int = 0,
    config: RuleConfig = DEFAULT_CONFIG,
    condition: str | None = None,
    alifer: bool = True,
    sessions: int = 0,
    parties: int = 30,
    workers: int | None = None,
    backend: Backend | str | None = None,
    progress: bool | str = False,
) -> DeclarationResult:
    """Paired rollouts at every declaration decision of ``deals`` deals of ``players[0]`` against
    ``players[1]`` (each deal played from both seats), and with ``sessions`` > 0 at every Pro offer of
    ``sessions`` Bulka sessions of ``parties`` parties seating all ``players`` (2 to 4). Returns a
    ``DeclarationResult``; see the module docstring."""
    for name, v, low in (("deals", deals, 0), ("sessions", sessions, 0), ("parties", parties, 1)):
        if isinstance(v, bool) or not isinstance(v, int) or v < low:
            raise ValueError(f"{name} must be an int >= {low}, got {v!r}")
    if not 2 <= len(players) <= 4:
        raise ValueError(f"players must be 2 to 4 specs, got {len(players)}")
    if condition is not None and condition not in CONDITIONS:
        raise ValueError(f"condition must be one of {', '.join(CONDITIONS)} or None, got {condition!r}")
    sources = [source_of(p) for p in players]
    labels = [player_label(s) for s in sources]
    interactive = any(not isinstance(s, str) and s.interactive for s in sources)
    be, own = resolve_backend(backend, workers, interactive)
    tasks = [(sources[:2], seed, i, i + 1, config, condition, alifer) for i in range(deals)]
    try:
        bar = progress_bar(progress, deals, "declaration rollouts", "deal") if deals else None
        rows, _ = run_blocks(be, False, _deal_block, tasks, bar, lambda block: 1)
        if sessions:
            session_tasks = [(sources, seed, i, i + 1, config, parties) for i in range(sessions)]
            bar = progress_bar(progress, sessions, "Pro rollouts", "session")
            rows += run_blocks(be, False, _session_block, session_tasks, bar, lambda block: 1)[0]
    finally:
        if own:
            be.close()
    summary = summarize(rows, labels)
    summary["settings"] = {
        "deals": deals,
        "seed": seed,
        "condition": condition,
        "alifer": alifer,
        "sessions": sessions,
        "parties": parties,
        "config": config.to_dict(),
    }
    return DeclarationResult(summary, rows)


def csv_rows(summary: dict) -> list[dict]:
    """The groups of a summary as flat rows (``CSV_FIELDS``)."""
    out = []
    for g in summary["groups"]:
        row = {k: g.get(k) for k in ("decider", "kind", "turn", "contrast", "n", "info_nats", "wl_changed")}
        for m in MEASURES:
            row[m], (row[m + "_lo"], row[m + "_hi"]) = g[m], g[m + "_ci"]
        notes = [f"{m}: {g[m + '_note']}" for m in MEASURES if g.get(m + "_note")]
        row["note"] = "; ".join(notes) or None
        out.append({k: ("" if row[k] is None else row[k]) for k in CSV_FIELDS})
    return out
