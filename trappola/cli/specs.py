"""What played: each player's effective spec and files, printed and recorded by ``evaluate``,
``compare`` and ``analyze`` (``trappola.agents.evaluation.players.describe_player``)."""

from __future__ import annotations

import sys


def specs_of(players) -> list[dict]:
    """``describe_player`` of each player spec, in order."""
    from trappola.agents.evaluation.players import describe_player

    return [describe_player(p) for p in players]


def print_specs(specs: list[dict], out=None) -> None:
    """One line per player (its settings, defaults included, and its files with a short hash), then
    its warnings on stderr."""
    out = out or sys.stdout
    for d in specs:
        settings = ",".join(f"{k}={v}" for k, v in d["settings"].items())
        files = "; ".join(f"{f['role']} {f['file']} sha256:{(f['sha256'] or 'missing')[:12]}" for f in d["files"])
        print(f"player {d['spec']}: {d['kind']}:{settings}" + (f" [{files}]" if files else ""), file=out)
        for w in d["warnings"]:
            print(f"warning: {d['spec']}: {w}", file=sys.stderr)
