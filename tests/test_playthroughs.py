"""Recorded playthroughs (in the manner of OpenSpiel's): a few fixed-seed
parties played by a fixed seeded policy, compared in full (the deal, every
action, both seats' observation vectors before every action and at the
end, the rendered final state and the settled result) against the JSON
files in ``tests/playthroughs/``, and one short ``bulka_v0`` session
(``bulka_session.json``: every agent turn's observation, legal actions and
action, the rewards after it, and each agent's final observation and
infos). Any change of engine, encoding or session behaviour (legal
actions, trick winners, scores, payments, observations, rewards,
rendering) shows up as a diff.

Vectors are stored sparse: ``"i"`` for a 1 at index ``i``, ``"i:v"`` for
another nonzero value (the shortest text that reads back as the same
float32); every other entry is 0.

When a change of behaviour is intended, regenerate the files and review
the diff before committing it:

    python tests/test_playthroughs.py --regenerate

(or ``TRAPPOLA_REGEN_PLAYTHROUGHS=1 python -m pytest tests/test_playthroughs.py``).
Each partie file is also replayed from its recorded deal and actions
alone, so the record stays checkable even if the policy below were to
change.
"""

import json
import os
import random
import sys
from pathlib import Path

import numpy as np
import pytest

from trappola_env import bulka_v0
from trappola_env.engine import (
    Partie,
    RuleConfig,
    action_id,
    action_name,
    deal_from_names,
    random_deal,
)
from trappola_env.engine.advice import ADVICE_BASE, advice_name
from trappola_env.engine.partie import ALIFER_ANSWER
from trappola_env.engine.session import PRO_DECISION
from trappola_env.observation import OBS_SIZE, Observer

DIR = Path(__file__).parent / "playthroughs"
REGEN = os.environ.get("TRAPPOLA_REGEN_PLAYTHROUGHS") == "1"
ROLES = ("challenger", "dealer")

# name -> how it is played. declare_p: chance of taking the first legal
# declaration offered; propose_p: chance of proposing Alifer at a turn;
# accept: the answer to a proposal; illegal_at: step at which the actor
# plays its lowest illegal action (forfeit mode).
SCENARIOS = {
    "declarations_manko": dict(seed=150, declare_p=1.0, propose_p=0.0, accept=False),
    "alifer_accepted": dict(seed=16, declare_p=0.5, propose_p=0.15, accept=True, stake_multiple=2, multiplier=2),
    "alifer_declined": dict(seed=16, declare_p=0.5, propose_p=0.3, accept=False, multiplier=4),
    "tie": dict(seed=785, declare_p=1.0, propose_p=0.0, accept=False),
    "forfeit": dict(
        seed=16, declare_p=0.5, propose_p=0.0, accept=False, illegal_at=17, config={"illegal_action": "forfeit"}
    ),
    "aces_first_card": dict(
        seed=15, declare_p=1.0, propose_p=0.0, accept=False, config={"ace_declaration": "first_card"}
    ),
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


def sparse(vec) -> str:
    """A vector as its nonzero entries (see the module docstring)."""
    vec = np.asarray(vec, np.float32)
    return " ".join(
        str(i) if vec[i] == 1 else f"{i}:{np.format_float_positional(vec[i], unique=True, trim='-')}"
        for i in np.flatnonzero(vec)
    )


def dense(text: str, size: int) -> np.ndarray:
    """The vector ``sparse`` wrote."""
    out = np.zeros(size, np.float32)
    for item in text.split():
        i, _, v = item.partition(":")
        out[int(i)] = np.float32(v) if v else 1.0
    return out


def observations(p: Partie) -> list[dict]:
    """Both seats' observations before each action of ``p`` and at its end,
    as the environments see them (an ``Observer`` kept current action by
    action), replayed from the deal."""
    q = Partie(p.deal, p.config, p.stake_multiple, p.multiplier)
    seen = Observer(q)
    out = []
    for step in range(len(p.history) + 1):
        seen.sync()
        out.append({role: sparse(seen.vectors[seat]) for seat, role in enumerate(ROLES)})
        if step < len(p.history):
            q.apply(p.history[step][1])
    return out


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
            "details": [f"{ROLES[s]}: {what}, {pts} points, {pay} tokens" for s, what, pts, pay in r.details],
        },
        "observations": observations(p),
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
    for key in ("deal", "actions", "final_state", "result", "config", "stake_multiple", "multiplier", "observations"):
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
    replayed = record(name, want["scenario"], p)
    assert replayed["result"] == want["result"]
    assert replayed["observations"] == want["observations"]


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


def test_sparse_vectors_read_back_exactly():
    vec = np.zeros(OBS_SIZE, np.float32)
    vec[[0, 5, 300]] = [1.0, np.float32(1 / 3), np.float32(0.125)]
    assert sparse(vec) == "0 5:0.33333334 300:0.125"
    assert np.array_equal(dense(sparse(vec), OBS_SIZE), vec)
    for step in json.loads(_path("tie").read_text())["observations"]:
        for text in step.values():
            assert sparse(dense(text, OBS_SIZE)) == text


# The bulka_v0 session: 3 players, 5 parties, seeded; a seeded policy that
# declares what it can, plays a random legal card, answers an Alifer at
# random and declares Pro with probability 0.7 (this seed gives one Pro
# declared and one declined).
SESSION = dict(seed=53, n_players=3, max_parties=5, pro_p=0.7)
# The same policy in a 4-player session with advice (bulka_v0(advice=True)):
# the advisers pick a random advice id; this seed gives a Pro won and one lost, both advised.
ADVICE_SESSION = dict(seed=2, n_players=4, max_parties=6, pro_p=1.0, advice=True)


def _session_action(rng, legal: list[int], sc: dict) -> int:
    if legal and legal[0] >= ADVICE_BASE:  # an adviser
        return rng.choice(legal)
    if action_id("declare Pro") in legal:
        return action_id("declare Pro") if rng.random() < sc["pro_p"] else action_id("do not declare Pro")
    decls = [x for x in legal if 36 <= x <= 43]
    cards = [x for x in legal if x < 36]
    return decls[0] if decls else rng.choice(cards) if cards else rng.choice(legal)


def _name(action: int) -> str:
    return advice_name(action) if action >= ADVICE_BASE else action_name(action)


def _info(info: dict) -> dict:
    return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in sorted(info.items())}


def record_session(sc: dict) -> dict:
    """Play the ``bulka_v0`` session ``sc`` and record every agent turn."""
    env = bulka_v0.env(n_players=sc["n_players"], max_parties=sc["max_parties"], advice=sc.get("advice", False))
    env.reset(seed=sc["seed"])
    rng = random.Random(sc["seed"])
    steps = []
    final = {}
    for agent in env.agent_iter():
        obs, summed_reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            final[agent] = {
                "observation": sparse(obs["observation"]),
                "last_reward": summed_reward,
                "info": _info(info),
            }
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        pro = env.unwrapped.session.phase == PRO_DECISION
        action = _session_action(rng, legal, sc)
        env.step(action)
        steps.append(
            {
                "agent": agent,
                "pro_decision": pro,
                "observation": sparse(obs["observation"]),
                "legal": " ".join(_name(a) for a in legal),
                "action": _name(action),
                "rewards": {a: r for a, r in env.unwrapped.rewards.items() if r},
            }
        )
    session = env.unwrapped.session
    return {
        "env": "bulka_v0",
        "scenario": sc,
        "steps": steps,
        "final": final,
        "pro_declarations": [dict(d) for d in session.pro_declarations],
        "parties_played": session.parties_played,
    }


def test_bulka_session_matches_record():
    got = json.loads(json.dumps(record_session(SESSION)))  # as JSON reads it back (tuples become lists)
    path = _path("bulka_session")
    if REGEN:
        path.write_text(json.dumps(got, indent=1) + "\n")
    assert path.exists(), f"{path} missing: python tests/test_playthroughs.py --regenerate"
    want = json.loads(path.read_text())
    # Names the first differing step; a record of another length fails the full comparison below.
    for i, (g, w) in enumerate(zip(got["steps"], want["steps"], strict=False)):
        assert g == w, f"bulka session: step {i} differs from the record"
    assert got == want


def test_bulka_session_covers_what_it_claims():
    want = json.loads(_path("bulka_session").read_text())
    pro = [s["action"] for s in want["steps"] if s["pro_decision"]]
    assert sorted(pro) == ["declare Pro", "do not declare Pro"]
    assert want["parties_played"] == SESSION["max_parties"] and len(want["final"]) == SESSION["n_players"]
    # The rewards of all steps add up to each agent's final balance.
    for agent, end in want["final"].items():
        summed = sum(step["rewards"].get(agent, 0.0) for step in want["steps"])
        assert summed == pytest.approx(end["info"]["balance"])
    assert sum(end["info"]["balance"] for end in want["final"].values()) == pytest.approx(0.0)


def test_bulka_advice_session_matches_record():
    got = json.loads(json.dumps(record_session(ADVICE_SESSION)))
    path = _path("bulka_session_advice")
    if REGEN:
        path.write_text(json.dumps(got, indent=1) + "\n")
    assert path.exists(), f"{path} missing: python tests/test_playthroughs.py --regenerate"
    want = json.loads(path.read_text())
    # Names the first differing step; a record of another length fails the full comparison below.
    for i, (g, w) in enumerate(zip(got["steps"], want["steps"], strict=False)):
        assert g == w, f"bulka advice session: step {i} differs from the record"
    assert got == want


def test_bulka_advice_session_covers_what_it_claims():
    want = json.loads(_path("bulka_session_advice").read_text())
    advice = [s for s in want["steps"] if s["action"].startswith(("advise ", "no advice"))]
    assert len({s["agent"] for s in advice}) >= 2 and any(s["action"].startswith("advise ") for s in advice)
    assert sorted(d["result"] for d in want["pro_declarations"]) == ["lost", "won"]
    for agent, end in want["final"].items():
        summed = sum(step["rewards"].get(agent, 0.0) for step in want["steps"])
        assert summed == pytest.approx(end["info"]["balance"])
    # An advice step moves no tokens.
    assert all(not s["rewards"] for s in advice)


if __name__ == "__main__":
    if sys.argv[1:] != ["--regenerate"]:
        sys.exit("usage: python tests/test_playthroughs.py --regenerate")
    os.environ["TRAPPOLA_REGEN_PLAYTHROUGHS"] = "1"
    sys.exit(pytest.main(["-q", __file__]))
