"""Recorded playthroughs (in the manner of OpenSpiel's): a few fixed-seed
parties played by a fixed seeded policy, compared in full (the deal, every
action, the rendered final state and the settled result) against the JSON
files in ``tests/playthroughs/``. Any change of engine behaviour (legal
actions, trick winners, scores, payments, rendering) shows up as a diff.

When a change of behaviour is intended, regenerate the files and review
the diff before committing it:

    TRAPPOLA_REGEN_PLAYTHROUGHS=1 .venv/bin/python -m pytest tests/test_playthroughs.py -q

Each file is also replayed from its recorded deal and actions alone, so
the record stays checkable even if the policy below were to change.
"""
import json
import os
import random
from pathlib import Path

import pytest

from trappola_env.engine import (
    Partie,
    RuleConfig,
    action_id,
    action_name,
    deal_from_names,
    random_deal,
)
from trappola_env.engine.partie import ALIFER_ANSWER

DIR = Path(__file__).parent / "playthroughs"
REGEN = os.environ.get("TRAPPOLA_REGEN_PLAYTHROUGHS") == "1"
ROLES = ("challenger", "dealer")

# name -> how it is played. declare_p: chance of taking the first legal
# declaration offered; propose_p: chance of proposing Alifer at a turn;
# accept: the answer to a proposal; illegal_at: step at which the actor
# plays its lowest illegal action (forfeit mode).
SCENARIOS = {
    "declarations_manko": dict(seed=150, declare_p=1.0, propose_p=0.0, accept=False),
    "alifer_accepted": dict(seed=16, declare_p=0.5, propose_p=0.15, accept=True,
                            stake_multiple=2, multiplier=2),
    "alifer_declined": dict(seed=16, declare_p=0.5, propose_p=0.3, accept=False, multiplier=4),
    "tie": dict(seed=785, declare_p=1.0, propose_p=0.0, accept=False),
    "forfeit": dict(seed=16, declare_p=0.5, propose_p=0.0, accept=False, illegal_at=17,
                    config={"illegal_action": "forfeit"}),
    "aces_first_card": dict(seed=15, declare_p=1.0, propose_p=0.0, accept=False,
                            config={"ace_declaration": "first_card"}),
}


def play(sc: dict) -> Partie:
    rng = random.Random(sc["seed"])
    config = RuleConfig(**sc.get("config", {}))
    p = Partie(random_deal(rng), config, sc.get("stake_multiple", 1), sc.get("multiplier", 1))
    step = 0
    while not p.terminal:
        legal = p.legal_actions()
        if step == sc.get("illegal_at"):
            a = min(x for x in range(49) if x not in legal)
        elif p.phase == ALIFER_ANSWER:
            a = action_id("accept Alifer" if sc["accept"] else "decline Alifer")
        else:
            decls = [x for x in legal if 36 <= x <= 43]
            r1, r2 = rng.random(), rng.random()
            if decls and r1 < sc["declare_p"]:
                a = decls[0]
            elif 44 in legal and r2 < sc["propose_p"]:
                a = 44
            else:
                a = rng.choice([x for x in legal if x < 36])
        p.apply(a)
        step += 1
    return p


def record(name: str, sc: dict, p: Partie) -> dict:
    r = p.result()
    return {
        "name": name,
        "scenario": sc,
        "config": p.config.to_dict(),
        "stake_multiple": p.stake_multiple,
        "multiplier": p.multiplier,
        "deal": {k: " ".join(v) for k, v in p.deal.to_names().items()},
        "actions": [f"{ROLES[s]}: {action_name(a)}" for s, a in p.history],
        "final_state": repr(p).split("\n"),
        "result": {
            "outcome": r.outcome,
            "winner": None if r.winner is None else ROLES[r.winner],
            "forfeited_by": None if r.forfeited_by is None else ROLES[r.forfeited_by],
            "scores": [" ".join(f"{k}={v}" for k, v in s.to_dict().items()) for s in r.scores],
            "stake": r.stake,
            "declaration_tokens": list(r.declaration_tokens),
            "bonus_tokens": list(r.bonus_tokens),
            "tokens": list(r.tokens),
            "bulka_in": r.bulka_in,
            "details": [f"{ROLES[s]}: {what}, {pts} points, {pay} tokens"
                        for s, what, pts, pay in r.details],
        },
    }


def _path(name):
    return DIR / f"{name}.json"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_playthrough_matches_record(name):
    sc = SCENARIOS[name]
    got = record(name, sc, play(sc))
    path = _path(name)
    if REGEN:
        DIR.mkdir(exist_ok=True)
        path.write_text(json.dumps(got, indent=1) + "\n")
    assert path.exists(), f"{path} missing: run with TRAPPOLA_REGEN_PLAYTHROUGHS=1"
    want = json.loads(path.read_text())
    for key in ("deal", "actions", "final_state", "result", "config", "stake_multiple", "multiplier"):
        assert got[key] == want[key], f"{name}: {key} differs from the record"
    assert got == want


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_recorded_actions_replay_to_the_recorded_end(name):
    want = json.loads(_path(name).read_text())
    deal = deal_from_names({k: v.split() for k, v in want["deal"].items()})
    p = Partie(deal, RuleConfig(**want["config"]), want["stake_multiple"], want["multiplier"])
    for line in want["actions"]:
        role, a = line.split(": ")
        assert not p.terminal
        assert ROLES[p.to_act] == role
        p.apply(action_id(a))
    assert p.terminal
    assert repr(p).split("\n") == want["final_state"]
    assert record(name, want["scenario"], p)["result"] == want["result"]


def test_scenarios_cover_what_they_claim():
    def load(n):
        return json.loads(_path(n).read_text())

    acts = {n: [line.split(": ")[1] for line in load(n)["actions"]] for n in SCENARIOS}
    outcome = {n: load(n)["result"]["outcome"] for n in SCENARIOS}
    assert "ask Manko" in acts["declarations_manko"]
    assert outcome["alifer_accepted"] == "agreed_alifer"
    assert "decline Alifer" in acts["alifer_declined"] and outcome["alifer_declined"] in ("decided", "tie")
    assert outcome["tie"] == "tie"
    assert outcome["forfeit"] == "forfeit"
    assert "declare Aces" in acts["aces_first_card"]
