"""Every episode ends, and every reward is exact: a Pro partie past
``max_parties`` cannot be abandoned by Alifer (docs/rules.md section 8,
End), both environments truncate at ``max_steps``, and a multiplier, stake
or balance that could make a float reward inexact is refused or truncates
the episode (the bounds in ``trappola_env.aec_base``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test
from test_session_scripts import DEAL_DECLARATION

from trappola_env import bulka_v0, trappola_v0
from trappola_env.aec_base import MAX_MULTIPLIER, MAX_STAKE_MULTIPLE
from trappola_env.engine import action_id
from trappola_env.engine.actions import ACCEPT_ALIFER, PRO, PROPOSE_ALIFER


def lowest(mask) -> int:
    return int(np.flatnonzero(mask)[0])


def alifer_lover(env, pro_only: bool) -> int:
    """A degenerate policy: declares Pro whenever offered; proposes and
    accepts Alifer whenever it may (with ``pro_only``, only in a Pro
    partie); else plays its lowest legal action."""
    mask = env.observe(env.agent_selection)["action_mask"]
    if mask[PRO]:
        return PRO
    session = getattr(env.unwrapped, "session", None)
    if not pro_only or session.pro_declarer is not None:
        for a in (PROPOSE_ALIFER, ACCEPT_ALIFER):
            if mask[a]:
                return a
    return lowest(mask)


def play(env, policy, limit=20_000) -> tuple[dict, set]:
    """Step ``env`` to its end (dead steps included); the summed rewards and
    the set of (termination, truncation) pairs the agents ended with."""
    total = dict.fromkeys(env.possible_agents, 0.0)
    ends = set()
    for _ in range(limit):
        if not env.agents:
            return total, ends
        agent = env.agent_selection
        _, reward, term, trunc, _ = env.last()
        total[agent] += reward
        if term or trunc:
            ends.add((term, trunc))
        env.step(None if term or trunc else policy(env))
    raise AssertionError(f"the episode did not end within {limit} steps")


# ------------------------------------------------------------ every episode ends


def test_always_alifer_in_a_pro_partie_ends_the_session_at_max_parties():
    # Before the ruling this looped until the multiplier overflowed a float.
    env = bulka_v0.env(n_players=2, max_parties=6)
    env.reset(seed=3)
    _, ends = play(env, lambda e: alifer_lover(e, pro_only=True))
    s = env.unwrapped.session
    assert s.over and s.end_reason == "max_parties" and ends == {(True, False)}
    assert any(r.pro_declarer is not None for r in s.history[: s.max_parties]), "no Pro partie: a vacuous test"
    # Past max_parties no partie ended by an agreed Alifer.
    assert s.parties_played > s.max_parties
    assert all(r.outcome != "agreed_alifer" for r in s.history[s.max_parties :])


@pytest.mark.parametrize(
    "make, steps",
    [
        (lambda: trappola_v0.env(max_steps=7), 7),
        (lambda: bulka_v0.env(max_steps=40), 40),
    ],
)
def test_max_steps_truncates_every_agent(make, steps):
    env = make()
    env.reset(seed=0)
    unwrapped = env.unwrapped
    for _ in range(steps - 1):
        env.step(lowest(env.observe(env.agent_selection)["action_mask"]))
    assert not any(unwrapped.truncations.values())
    env.step(lowest(env.observe(env.agent_selection)["action_mask"]))
    agents = list(env.agents)
    assert all(unwrapped.truncations[a] for a in agents)
    assert not any(unwrapped.terminations[a] for a in agents)
    assert all(unwrapped.infos[a]["truncated"] == "max_steps" for a in agents)
    assert all(not env.observe(a)["action_mask"].any() for a in agents)
    for _agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        assert trunc and not term
        env.step(None)
    assert env.agents == []


def test_max_steps_defaults_and_checks():
    assert trappola_v0.raw_env().max_steps == trappola_v0.MAX_STEPS == 1000
    assert bulka_v0.raw_env(max_parties=7).max_steps == 7 * bulka_v0.STEPS_PER_PARTIE
    for bad in (0, -1, 2.5, True, "9"):
        with pytest.raises(ValueError, match="max_steps"):
            trappola_v0.env(max_steps=bad)
        with pytest.raises(ValueError, match="max_steps"):
            bulka_v0.env(max_steps=bad)


@pytest.mark.parametrize("make", [lambda: trappola_v0.env(max_steps=9), lambda: bulka_v0.env(max_steps=60)])
def test_pettingzoo_api_test_with_truncation(make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test resets with an unknown option, which we warn about
        api_test(make(), num_cycles=200)


# --------------------------------------------------------------- exact rewards


def test_trappola_v0_refuses_a_multiplier_or_stake_beyond_the_bound():
    with pytest.raises(ValueError, match="multiplier"):
        trappola_v0.env().reset(options={"multiplier": MAX_MULTIPLIER + 1})
    with pytest.raises(ValueError, match="stake_multiple"):
        trappola_v0.env(stake_multiple=MAX_STAKE_MULTIPLE + 1)
    with pytest.raises(ValueError, match="stake_multiple"):
        bulka_v0.env(stake_multiple=MAX_STAKE_MULTIPLE + 1)


def test_trappola_v0_token_rewards_are_exact_at_the_bound():
    env = trappola_v0.env(reward_mode="tokens", stake_multiple=MAX_STAKE_MULTIPLE)
    env.reset(options={"deal": DEAL_DECLARATION, "multiplier": MAX_MULTIPLIER})
    env.step(action_id("declare Figura Re"))
    total, _ = play(env, lambda e: lowest(e.observe(e.agent_selection)["action_mask"]))
    unit = MAX_STAKE_MULTIPLE * MAX_MULTIPLIER  # 2**40
    # At unit 1: the challenger pays its stake 10 and 5 into the Bulka and
    # receives 5; the dealer pays 10 and 5 (docs/rules.md sections 4, 5).
    assert env.unwrapped.result.tokens == (-10 * unit, -15 * unit)
    assert total == {"player_0": -10.0 * unit, "player_1": -15.0 * unit}
    assert all(float(int(r)) == r for r in total.values())


def test_bulka_v0_truncates_before_a_reward_could_lose_exactness():
    # Agreed Alifers double m every partie: 2**21 > MAX_MULTIPLIER after the 21st.
    env = bulka_v0.env(n_players=2, max_parties=100, stake_multiple=MAX_STAKE_MULTIPLE)
    env.reset(seed=0)
    unwrapped = env.unwrapped
    total, ends = play(env, lambda e: alifer_lover(e, pro_only=False))
    assert ends == {(False, True)}
    s = unwrapped.session
    assert not s.over and s.multiplier == 2 * MAX_MULTIPLIER and s.parties_played == 21
    # Every reward was exact: they add up to the exact balances.
    assert total == {a: float(b) for a, b in s.balances.items()}
    assert all(int(total[a]) == b for a, b in s.balances.items())


def test_bulka_v0_truncation_reports_the_token_bound():
    env = bulka_v0.env(n_players=2, max_parties=100)
    env.reset(seed=0)
    unwrapped = env.unwrapped
    for _ in range(10_000):
        if any(unwrapped.truncations.values()):
            break
        env.step(alifer_lover(env, pro_only=False))
    assert unwrapped.session.multiplier == 2 * MAX_MULTIPLIER
    assert {a: info["truncated"] for a, info in unwrapped.infos.items()} == dict.fromkeys(env.agents, "token_bound")
    assert not any(unwrapped.terminations.values())
