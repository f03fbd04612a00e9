"""Each player's record in a session (trappola_env/engine/records.py), as
the Pro decision (``ProView.records``) and ``bulka_v0(records=True)`` see
it: hand-scripted sessions with known counts."""

from __future__ import annotations

import numpy as np
import pytest
from test_session_scripts import alifer, challenger_wins, dealer_wins, make_session

from trappola_env import bulka_v0
from trappola_env.engine.actions import PRO
from trappola_env.engine.records import Record, SessionRecords, session_records
from trappola_env.referee import pro_view


def scripted():
    """A beats B and C, declares Pro and beats B again; an Alifer between
    A and C in between counts nowhere; then C beats A."""
    s = make_session("A", "B", ["C"])
    dealer_wins(s)  # A beats B
    alifer(s)  # A - C: replayed
    dealer_wins(s)  # A beats C
    assert s.phase == "pro"
    s.act(PRO)
    dealer_wins(s)  # A wins its Pro partie against B
    return s


def test_counts_from_a_scripted_session():
    s = scripted()
    seen_by_a = session_records(s.history, "A", ["A", "B", "C"])
    assert seen_by_a["A"] == Record(0, 0, 3, 0, 1, 1)
    assert seen_by_a["B"] == Record(won_vs_me=0, lost_vs_me=2, won=0, lost=2)
    assert seen_by_a["C"] == Record(0, 1, 0, 1, 0, 0)
    assert session_records(s.history, "B", ["A"])["A"] == Record(2, 0, 3, 0, 1, 1)
    # After the Pro win, A pauses; B deals to C. C beats B.
    assert (s.dealer, s.challenger) == ("B", "C")
    challenger_wins(s)
    assert session_records(s.history, "B", ["C"])["C"] == Record(1, 0, 1, 1, 0, 0)


def test_incremental_updates_equal_a_fresh_count():
    s = scripted()
    inc = SessionRecords()
    for n in range(1, len(s.history) + 1):
        inc.update(s.history[:n])
    fresh = SessionRecords().update(s.history)
    for x in "ABC":
        for me in "ABC":
            assert inc.record(x, me) == fresh.record(x, me)
    with pytest.raises(ValueError, match="only grows"):
        inc.update(s.history[:1])


def test_the_pro_view_carries_the_records_in_players_order():
    s = make_session("A", "B", ["C"])
    dealer_wins(s)
    dealer_wins(s)
    view = pro_view(s)
    assert view.name == "A"
    by_name = dict(zip(view.players, view.records, strict=True))
    assert by_name["B"] == Record(0, 1, 0, 1, 0, 0) and by_name["C"] == Record(0, 1, 0, 1, 0, 0)
    assert by_name["A"] == Record(0, 0, 2, 0, 0, 0)


def test_bulka_records_features_follow_the_session():
    env = bulka_v0.env(n_players=4, max_parties=30, records=True)
    assert env.observation_space("player_0")["observation"].shape == (366 + bulka_v0.RECORD_SIZE,)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    checked = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        s = env.unwrapped.session
        vec = obs["observation"][-bulka_v0.RECORD_SIZE :].reshape(3, len(bulka_v0.RECORD_FIELDS))
        names = env.unwrapped.possible_agents
        i = names.index(agent)
        opponent = s.challenger if agent == s.dealer else s.dealer
        recs = session_records(s.history, agent, names)
        for k in range(3):
            x = names[(i + k + 1) % 4]
            r = recs[x]
            want = [
                1,
                x == opponent,
                x == s.queue[0],
                min(r.won_vs_me, 20) / 20,
                min(r.lost_vs_me, 20) / 20,
                min(r.won, 50) / 50,
                min(r.lost, 50) / 50,
                min(r.pro_declared, 10) / 10,
                min(r.pro_won, 10) / 10,
            ]
            assert vec[k] == pytest.approx(np.float32(want))
            checked += 1
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked > 100
    with pytest.raises(ValueError, match="records"):
        bulka_v0.env(records=1)
