"""``bulka_v0(advice=True)``: the advisers' turns, masks and observations,
the advice in everyone's observation, no leak of a hand to an adviser, and
rewards that stay the token changes."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from trappola_env import bulka_v0
from trappola_env.engine import InfoState
from trappola_env.engine.advice import ADVICE_BASE, ADVISABLE, NO_ADVICE, advised_action
from trappola_env.engine.cards import cards_of
from trappola_env.engine.deal import Deal
from trappola_env.observation import OBS_SIZE, OFFSET, encode_public

ADVICE_OFF = bulka_v0.BULKA_OBS_SIZE
GIVEN_OFF = ADVICE_OFF + bulka_v0.ADVICE_SLOTS * ADVISABLE


def test_spaces_grow_only_with_advice():
    plain = bulka_v0.env(n_players=4)
    assert plain.observation_space("player_0")["observation"].shape == (366,)
    assert plain.action_space("player_0").n == 49
    env = bulka_v0.env(n_players=4, advice=True)
    assert env.observation_space("player_0")["observation"].shape == (bulka_v0.ADVICE_OBS_SIZE,) == (462,)
    assert env.observation_space("player_0")["action_mask"].shape == (97,)
    assert env.action_space("player_0").n == 97
    env.reset(seed=0)
    obs = env.observe("player_0")
    assert obs["observation"].shape == (462,) and obs["action_mask"].shape == (97,)
    with pytest.raises(ValueError, match="advice"):
        bulka_v0.env(advice="yes")
    with pytest.raises(ValueError, match="advice"):
        bulka_v0.env(advice=1)


def _policy(rng):
    def choose(env, obs):
        legal = np.flatnonzero(obs["action_mask"])
        if 47 in legal:
            return 47
        if legal[0] >= ADVICE_BASE:
            return int(rng.choice(legal))
        cards = [a for a in legal if a < 36]
        return int(cards[0] if cards else legal[0])

    return choose


def to_advice(seed: int, n_players: int = 4):
    """An env stopped at the first advice turn of its session."""
    env = bulka_v0.env(n_players=n_players, max_parties=30, advice=True)
    env.reset(seed=seed)
    choose = _policy(np.random.default_rng(seed))
    while env.unwrapped.session.phase != "advice":
        obs = env.observe(env.agent_selection)
        env.step(choose(env, obs))
    return env, choose


def test_an_adviser_sees_the_public_record_and_its_advice_mask():
    env, choose = to_advice(1)
    s = env.unwrapped.session
    adviser = env.agent_selection
    assert adviser == s.queue[0] and adviser not in (s.dealer, s.challenger)
    obs = env.observe(adviser)
    vec = obs["observation"]
    assert np.array_equal(vec[:OBS_SIZE], encode_public(InfoState.public(s.partie, 0)))
    assert not vec[OFFSET["hand"] : OFFSET["hand"] + 72].any()  # neither the hand nor the dealt hand
    assert vec[OFFSET["stock_bottom"] + s.partie.bottom] == 1.0
    mask = obs["action_mask"]
    assert mask[NO_ADVICE] == 1 and not mask[:ADVICE_BASE].any()
    assert np.array_equal(np.flatnonzero(mask), [b for b in range(97) if s.legal_mask() >> b & 1])
    # Everyone else has an all-zero mask while the adviser acts.
    for a in env.agents:
        if a != adviser:
            assert not env.observe(a)["action_mask"].any()


def test_the_defender_sees_each_advice_by_queue_position():
    for seed in range(2, 12):
        env, choose = to_advice(seed)
        s = env.unwrapped.session
        first, second = s.queue
        advised = cards_of(s.legal_mask() >> ADVICE_BASE)[0] + ADVICE_BASE
        env.step(advised)  # the head of the queue advises
        obs_second = env.observe(second)["observation"]
        assert obs_second[GIVEN_OFF] == 1.0 and obs_second[GIVEN_OFF + 1] == 0.0  # it hears the first advice
        env.step(NO_ADVICE)
        defender = env.agent_selection
        assert defender == s.challenger and s.phase == "partie"
        vec = env.observe(defender)["observation"]
        block = vec[ADVICE_OFF:GIVEN_OFF].reshape(2, ADVISABLE)
        assert np.flatnonzero(block[0]).tolist() == [advised_action(advised)]
        assert not block[1].any()  # no advice
        assert vec[GIVEN_OFF : GIVEN_OFF + 2].tolist() == [1.0, 1.0]
        env.step(choose(env, env.observe(defender)))
        assert not env.observe(defender)["observation"][ADVICE_OFF:].any()  # acted upon: cleared
        return
    pytest.fail("no seed reached advice")  # pragma: no cover


def _swap_hidden(deal: Deal, keep: int) -> tuple[Deal, int, int]:
    """The same deal with one card of the challenger's hand (not ``keep``)
    swapped for a hidden stock card of the same suit."""
    ch = list(deal.challenger)
    hidden = list(deal.stock[:-1])
    for i, c in enumerate(ch):
        if c == keep:
            continue
        for j, h in enumerate(hidden):
            if h // 9 == c // 9:
                ch[i], hidden[j] = h, c
                return Deal(tuple(ch), deal.dealer, tuple(hidden) + (deal.stock[-1],)), c, h
    raise AssertionError("no swap found")  # pragma: no cover


@pytest.mark.parametrize("seed", [1, 3, 5])
def test_an_adviser_learns_nothing_of_the_hidden_cards(seed):
    """Two copies of the same Pro partie that differ in one hidden card of
    the defender (swapped with a stock card of the same suit) give every
    waiting agent the same observations and masks, step by step."""
    env, _ = to_advice(seed)
    s = env.unwrapped.session
    deal = s.partie.deal
    other_deal, mine, theirs = _swap_hidden(deal, keep=-1)
    before = env.observe(s.challenger)["observation"]  # cached, and copied with the env
    twin = copy.deepcopy(env)
    twin.unwrapped.session.set_deal(other_deal)
    # The twin observes its new deal (no stale observation of the old one): the challenger holds the swapped card.
    assert not np.array_equal(twin.observe(s.challenger)["observation"], before)
    rng_a, rng_b = np.random.default_rng(0), np.random.default_rng(0)
    compared = 0
    for _ in range(400):
        sa = env.unwrapped.session
        if sa.phase != "advice" and sa.phase != "partie":
            break
        agent = env.agent_selection
        assert agent == twin.agent_selection
        for a in sa.queue:
            oa, ob = env.observe(a), twin.observe(a)
            assert np.array_equal(oa["observation"], ob["observation"]), a
            assert np.array_equal(oa["action_mask"], ob["action_mask"]), a
            compared += 1
        obs = env.observe(agent)
        legal = np.flatnonzero(obs["action_mask"])
        if legal[0] >= ADVICE_BASE:
            action, _ = int(rng_a.choice(legal)), rng_b.choice(legal)
        else:
            cards = [a for a in legal if a < 36 and a not in (mine, theirs)]
            legal_b = np.flatnonzero(twin.observe(agent)["action_mask"])
            if not cards or any(a not in legal_b for a in cards[:1]):
                break  # the swapped card is forced: the two parties part here
            action = cards[0]
        env.step(action)
        twin.step(action)
    assert compared > 10


def test_advice_steps_reward_nothing_and_rewards_sum_to_balances():
    env = bulka_v0.env(n_players=4, max_parties=25, advice=True)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    summed = dict.fromkeys(env.agents, 0.0)
    advice_steps = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        summed[agent] += reward
        if term or trunc:
            final = info["balance"]
            assert summed[agent] == pytest.approx(final)
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        action = int(rng.choice(legal))
        before = dict(env.unwrapped.session.balances)
        env.step(action)
        if action >= ADVICE_BASE:
            advice_steps += 1
            assert all(r == 0 for r in env.unwrapped.rewards.values())
            assert env.unwrapped.session.balances == before
    assert advice_steps > 0


def test_waiting_players_see_nothing_of_the_partie_without_advice():
    env = bulka_v0.env(n_players=4, max_parties=5)
    env.reset(seed=0)
    s = env.unwrapped.session
    for a in s.queue:
        assert not env.observe(a)["observation"][:OBS_SIZE].any()
