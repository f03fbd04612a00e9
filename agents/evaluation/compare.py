"""Paired comparison of two players on the same duplicate deals against a third (``trappola compare``).

    from trappola.agents.evaluation.compare import compare
    res = compare("policy:endgame=0", "policy", vs="rule", deals=300, seed=0)
    res.summary["win_rate_diff"], res.summary["win_rate_diff_ci"]

A and B each play ``head_to_head(X, vs, deals, duplicate=True, seed=seed)``: deal ``i`` is the same
cards for both (``derive_seed(seed, "deal", i)``), each played twice with the seats swapped, and every
player is reset to the same seeds. Because the rows share their deals, the difference A - B is
measured deal by deal and the luck of the cards cancels; its interval treats the deal as the cluster
(``stats.ratio_difference`` for the win rate, ``stats.paired_mean`` for the points), so it is usually
much narrower than the two rows' own intervals (each of which is also given: ``a``, ``b``). The
win-rate interval also covers the score interval on the parties' changed outcomes
(``stats.outcome_difference``), so few or no changed outcomes never give a zero width.

Summary (``res.summary``, the JSON of ``trappola compare --json``):

* ``kind`` ("compare"), ``players`` ([A, B]), ``vs`` (C), ``settings`` (deals, seed, stake_multiple,
  rule config), ``min_units`` (``stats.MIN_PAIRS``: no interval below it).
* ``a``, ``b``: each row's own head-to-head summary against C (``duplicate.summarize``).
* ``win_rate_diff`` (A's win rate over decided parties minus B's), ``win_rate_diff_ci``,
  ``win_rate_diff_note`` (why no interval, or None).
* ``point_diff`` (mean over deals of A's points margin minus B's, each the mean of the deal's two
  parties), ``point_diff_ci``, ``point_diff_note``.
* ``deals_different``: deals where the two parties did not end the same for A as for B (winner or
  Alifer); ``parties_different``: parties that did not; ``deals_different_ci``: Wilson interval of
  the share of deals.
* ``unpaired_win_rate_diff_ci``: the interval the difference would get from the two rows' own
  intervals as if independent (Newcombe's square-and-add of their limits), to show what pairing gains.
* ``player_specs`` (added by the command): each player's effective spec and files.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from trappola.agents.evaluation.duplicate import head_to_head
from trappola.agents.evaluation.stats import MIN_PAIRS, paired_mean, ratio_difference, wilson
from trappola_env.engine import DEFAULT_CONFIG, RuleConfig
from trappola_env.engine.scoring import DECIDED, FORFEIT


@dataclass
class CompareResult:
    """``summary`` (see the module docstring) and the two rows' per-partie ``records``."""

    summary: dict
    records: dict = field(repr=False, default_factory=dict)


def _by_deal(records: list[dict]) -> dict[int, list[dict]]:
    out: dict[int, list[dict]] = {}
    for r in records:
        out.setdefault(r["deal"], []).append(r)
    return {i: sorted(rs, key=lambda r: r["game"]) for i, rs in out.items()}


def _ending(r: dict) -> str:
    return r["winner"] if r["outcome"] in (DECIDED, FORFEIT) else r["outcome"]


def paired_summary(rec_a: list[dict], rec_b: list[dict]) -> dict:
    """The paired figures (``win_rate_diff``, ``point_diff``, ``deals_different``...) of two rows'
    duplicate records on the same deals."""
    da, db = _by_deal(rec_a), _by_deal(rec_b)
    if set(da) != set(db):
        raise ValueError("the two rows were not played on the same deals")
    deals = sorted(da)
    cols: dict[str, list] = {"wa": [], "na": [], "wb": [], "nb": []}
    points, diff_deals, diff_parties = [], 0, 0
    party_diffs, party_units = [], []
    for i in deals:
        for key, rs in (("a", da[i]), ("b", db[i])):
            dec = [r for r in rs if r["outcome"] in (DECIDED, FORFEIT)]
            cols["w" + key].append(sum(1 for r in dec if r["winner"] == "A"))
            cols["n" + key].append(len(dec))
        margin = [sum(r["points_a"] - r["points_b"] for r in rs) / len(rs) for rs in (da[i], db[i])]
        points.append(margin[0] - margin[1])
        for x, y in zip(da[i], db[i], strict=True):
            won = [r["outcome"] in (DECIDED, FORFEIT) and r["winner"] == "A" for r in (x, y)]
            party_diffs.append(int(won[0]) - int(won[1]))
            party_units.append(i)
        changed = sum(_ending(x) != _ending(y) for x, y in zip(da[i], db[i], strict=True))
        diff_parties += changed
        diff_deals += changed > 0
    out: dict = {}
    out["win_rate_diff"], out["win_rate_diff_ci"], out["win_rate_diff_note"] = ratio_difference(
        cols["wa"], cols["na"], cols["wb"], cols["nb"], (party_diffs, party_units)
    )
    out["point_diff"], out["point_diff_ci"], out["point_diff_note"] = paired_mean(points, deals)
    out["deals_different"], out["parties_different"] = diff_deals, diff_parties
    out["deals_different_ci"] = wilson(diff_deals, len(deals))
    return out


def unpaired_ci(a: dict, b: dict) -> list:
    """Newcombe's square-and-add interval of ``a``'s win rate minus ``b``'s from their own intervals,
    as if the rows were independent."""
    (la, ha), (lb, hb) = a["win_rate_ci"], b["win_rate_ci"]
    if None in (la, ha, lb, hb, a["win_rate"], b["win_rate"]):
        return [None, None]
    d = a["win_rate"] - b["win_rate"]
    return [
        d - math.sqrt((a["win_rate"] - la) ** 2 + (hb - b["win_rate"]) ** 2),
        d + math.sqrt((ha - a["win_rate"]) ** 2 + (b["win_rate"] - lb) ** 2),
    ]


def compare(
    a,
    b,
    vs,
    deals: int,
    *,
    seed: int = 0,
    config: RuleConfig = DEFAULT_CONFIG,
    stake_multiple: int = 1,
    workers: int | None = None,
    backend=None,
    progress: bool | str = False,
) -> CompareResult:
    """A and B (specs or players) each against ``vs`` on the same ``deals`` duplicate deals; see the
    module docstring."""
    common = dict(
        duplicate=True,
        seed=seed,
        config=config,
        stake_multiple=stake_multiple,
        workers=workers,
        backend=backend,
        progress=progress,
    )
    ra = head_to_head(a, vs, deals, **common)
    rb = head_to_head(b, vs, deals, **common)
    summary: dict = {
        "kind": "compare",
        "players": [ra.summary["players"][0], rb.summary["players"][0]],
        "vs": ra.summary["players"][1],
        "settings": {k: v for k, v in ra.summary["settings"].items() if k != "duplicate"},
        "min_units": MIN_PAIRS,
    }
    summary.update(paired_summary(ra.records, rb.records))
    summary["unpaired_win_rate_diff_ci"] = unpaired_ci(ra.summary, rb.summary)
    summary["a"], summary["b"] = ra.summary, rb.summary
    return CompareResult(summary, {"a": ra.records, "b": rb.records})


def format_compare(s: dict) -> str:
    """A compare summary as text."""

    def ci(v, c, f="{:+.3f}"):
        if v is None:
            return "n/a"
        if c[0] is None:
            return f"{f.format(v)} (no interval)"
        return f"{f.format(v)} [{f.format(c[0])}, {f.format(c[1])}]"

    a, b = s["players"]
    st = s["settings"]
    n = st["deals"]
    lines = [
        f"{a} minus {b}, each against {s['vs']} on the same {n} duplicate deals (seed {st['seed']}); 95% CI",
        f"  {a}: win rate {ci(s['a']['win_rate'], s['a']['win_rate_ci'], '{:.3f}')}, "
        f"points {ci(s['a']['mean_point_diff'], s['a']['mean_point_diff_ci'], '{:+.2f}')}",
        f"  {b}: win rate {ci(s['b']['win_rate'], s['b']['win_rate_ci'], '{:.3f}')}, "
        f"points {ci(s['b']['mean_point_diff'], s['b']['mean_point_diff_ci'], '{:+.2f}')}",
        f"  paired difference, win rate: {ci(s['win_rate_diff'], s['win_rate_diff_ci'])} "
        f"(deal-clustered; unpaired it would be {ci(s['win_rate_diff'], s['unpaired_win_rate_diff_ci'])})",
        f"  paired difference, points: {ci(s['point_diff'], s['point_diff_ci'], '{:+.2f}')}",
        f"  deals that ended differently: {s['deals_different']} of {n} "
        f"[{s['deals_different_ci'][0]:.3f}, {s['deals_different_ci'][1]:.3f}] as a share; "
        f"parties: {s['parties_different']} of {2 * n}",
    ]
    for key in ("win_rate_diff_note", "point_diff_note"):
        if s.get(key):
            lines.append(f"  ({key.split('_note')[0]}: {s[key]})")
    return "\n".join(lines)
