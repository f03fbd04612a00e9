"""trappola_v0: the PettingZoo API, hand-built parties with known scores,
rewards and tokens, roles, declarations and Alifer turns, illegal actions,
malformed deals, what an agent may see, seeding and rendering.

PettingZoo's max_cycles_test does not apply: the env has no max_cycles (a
partie ends by itself within 9 tricks)."""

import random
import subprocess
import sys
import warnings

import numpy as np
import pytest
from helpers import make_deal_spec, state_key
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from trappola_env import trappola_v0
from trappola_env.aec_base import OrderEnforcing
from trappola_env.engine import action_id, cards_of
from trappola_env.observation import OBS_SIZE, decode_observation
from trappola_env.spaces_and_rewards import mask_array, observation_space

P0, P1 = "player_0", "player_1"

# ---------------------------------------------------------------- partie S1
# Challenger holds three Re (RS RC RD, missing Bastoni), the dealer no
# declaration. Card ids: suit * 9 + rank, ranks 2 7 8 9 T B C R A.
S1_CH = "RS RC RD AS 2C 7D 8D 9D TD"
S1_DE = "2S 7S 8S BS CS AC BB CB RB"
# trick: leader's card, follower's card -> winner (card points)
#  1: ch declares Figura Re (3); ch AS, de 2S -> ch (6)
#  2: ch RS; de asks Manko (answer: Re lacks B); de CS -> ch (5 + 4 = 9)
#  3: ch RC, de AC -> de (5 + 6 = 11)     de must follow Coppe, its Ace wins
#  4: de BB, ch 7D -> de (3)              ch void in Bastoni
#  5: de 7S, ch 8D -> de (0)              ch void in Spade from here on
#  6: de 8S, ch 9D -> de (0)
#  7: de BS, ch TD -> de (3)
#  8: de CB, ch RD -> de (4 + 5 = 9)
#  9: de RB, ch 2C -> de (5)              last trick, not with a Two: bonus 5 (6)
# Card points ch 6 + 9 = 15, de 11 + 3 + 3 + 9 + 5 = 31 (= 46, the points of
# RS RC RD AS | BS CS AC BB CB RB). No trick was won with a Two, no Marc.
# Totals: ch 15 + 6 (Figura Re 3) = 21, de 31 + 6 (last trick) = 37: the
# dealer wins by 16.
# Tokens (stake 10 * stake_multiple * m each): the dealer pays the
# challenger 5 units for the Figura; the last-trick bonus costs nothing.
#   ch: -10 + 5 = -5,  de: -10 - 5 = -15   (times stake_multiple * m)
S1 = [
    "declare Figura Re",
    "AS",
    "2S",
    "RS",
    "ask Manko",
    "CS",
    "RC",
    "AC",
    "BB",
    "7D",
    "7S",
    "8D",
    "8S",
    "9D",
    "BS",
    "TD",
    "CB",
    "RD",
    "RB",
    "2C",
]
S1_DEAL = make_deal_spec(S1_CH, S1_DE)

# ---------------------------------------------------------------- partie T1
# Both play their lowest-id legal card, no declarations; ends in a tie.
T1_CH = "2C 7S 2D AD CC CS 7D AS BD"
T1_DE = "8B CD 9C AC BC TD CB 7C 8S"
#  1: ch 7S, de 8S -> de (0)     4: ch CS, de BC -> ch (4 + 3)  7: de CD, ch 7D -> de (4)
#  2: de 7C, ch 2C -> de (0)     5: ch AS, de AC -> ch (6 + 6)  8: de 8B, ch BD -> de (3)
#  3: de 9C, ch CC -> ch (4)     6: ch 2D, de TD -> de (0)      9: de CB, ch AD -> de (4 + 6)
# ch 4 + 7 + 12 = 23; de 4 + 3 + 10 = 17 + 6 (last trick) = 23: a tie, an
# automatic Alifer. Payments are settled but there are none: -10 each.
T1 = ["7S", "8S", "7C", "2C", "9C", "CC", "CS", "BC", "AS", "AC", "2D", "TD", "CD", "7D", "8B", "BD", "CB", "AD"]
T1_DEAL = make_deal_spec(T1_CH, T1_DE)


def make(deal=S1_DEAL, dealer=None, multiplier=None, seed=None, **kw):
    env = trappola_v0.env(**kw)
    options = {"deal": deal}
    if dealer is not None:
        options["dealer"] = dealer
    if multiplier is not None:
        options["multiplier"] = multiplier
    env.reset(seed=seed, options=options)
    return env


def play(env, *actions):
    for a in actions:
        env.step(action_id(a))
    return env


def legal(env, agent=None):
    mask = env.observe(agent or env.agent_selection)["action_mask"]
    return set(np.flatnonzero(mask).tolist())


def ids(*names):
    return {action_id(n) for n in names}


def finish(env):
    """Step the dead agents out, returning {agent: reward from last()} in
    the order they were stepped."""
    seen = {}
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        assert term and not trunc
        seen[agent] = reward
        env.step(None)
    return seen


# ------------------------------------------------------------------ API


def test_env_is_raw_env_in_order_enforcing_wrapper_only():
    env = trappola_v0.env()
    # PettingZoo's wrapper, subclassed only so that copy.copy copies fully
    assert type(env) is OrderEnforcing and type(env).__bases__ == (OrderEnforcingWrapper,)
    assert type(env.env) is trappola_v0.raw_env
    assert env.metadata == {"name": "trappola_v0", "render_modes": ["human", "ansi"], "is_parallelizable": False}
    assert str(env) == "trappola_v0"


def test_from_package_import_and_engine_import_stays_cheap():
    code = (
        "import sys, trappola_env; assert 'pettingzoo' not in sys.modules; "
        "from trappola_env import trappola_v0; assert trappola_v0.raw_env"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"illegal_action": "forfeit"},
        {"reward_mode": "points"},
        {"reward_mode": "tokens", "stake_multiple": 3},
        {"ace_declaration": "first_card"},
    ],
)
def test_pettingzoo_api_test(kwargs):
    with warnings.catch_warnings():
        # api_test resets with options={"options": 1}: an unknown key, which we warn about.
        warnings.simplefilter("ignore")
        api_test(trappola_v0.env(**kwargs), num_cycles=1000)


def test_pettingzoo_seed_test():
    seed_test(trappola_v0.env, num_cycles=500)


def test_spaces():
    env = make()
    for agent in (P0, P1):
        space = env.observation_space(agent)
        assert space["observation"].shape == (OBS_SIZE,) == (347,)
        assert space["observation"].dtype == np.float32
        assert space["action_mask"].shape == (49,) and space["action_mask"].dtype == np.int8
        assert env.action_space(agent).n == 49
        obs = env.observe(agent)
        assert space.contains(obs)


def test_env_pickles_with_its_arguments():
    import pickle

    env = pickle.loads(
        pickle.dumps(trappola_v0.raw_env(reward_mode="tokens", stake_multiple=4, illegal_action="forfeit"))
    )
    assert (env.reward_mode, env.stake_multiple, env.config.illegal_action) == ("tokens", 4, "forfeit")


def test_action_name_is_reexported():
    assert trappola_v0.action_name(0) == "play 2S"
    assert trappola_v0.action_name(35) == "play AB"
    assert trappola_v0.action_name(44) == "propose Alifer"
    assert trappola_v0.action_name(48) == "do not declare Pro"
    with pytest.raises(ValueError):
        trappola_v0.action_name(49)


def test_mask_array_expands_any_bit_set():
    rng = random.Random(1)
    for _ in range(500):
        mask = rng.getrandbits(49)
        arr = mask_array(mask)
        assert arr.dtype == np.int8 and arr.shape == (49,) and arr.flags.writeable
        assert np.flatnonzero(arr).tolist() == cards_of(mask)
    assert mask_array(0).sum() == 0 and mask_array((1 << 49) - 1).sum() == 49


def test_observation_space_for_a_longer_vector():
    assert observation_space(OBS_SIZE + 5)["observation"].shape == (OBS_SIZE + 5,)
    with pytest.raises(ValueError, match="at least"):
        observation_space(OBS_SIZE - 1)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"reward_mode": "chips"}, "reward_mode"),
        ({"stake_multiple": 0}, "stake_multiple"),
        ({"stake_multiple": 1.5}, "stake_multiple"),
        ({"ace_declaration": "never"}, "ace_declaration"),
        ({"illegal_action": "ignore"}, "illegal_action"),
        ({"render_mode": "rgb_array"}, "render_mode"),
    ],
)
def test_bad_constructor_arguments_raise_value_error(kwargs, match):
    with pytest.raises(ValueError, match=match):
        trappola_v0.env(**kwargs)


# ------------------------------------------------------- scripted partie S1


def test_s1_full_partie_scores_tokens_and_turns():
    env = make()
    assert env.infos[P0]["role"] == "challenger" and env.infos[P1]["role"] == "dealer"
    assert env.agent_selection == P0
    # The challenger may declare its Figura of Re or propose Alifer, or play.
    assert legal(env) == ids(*S1_CH.split(), "declare Figura Re", "propose Alifer")
    assert legal(env, P1) == set()
    play(env, "declare Figura Re")
    # A declaration: the same agent acts again, the declaration is spent.
    assert env.agent_selection == P0
    assert legal(env) == ids(*S1_CH.split(), "propose Alifer")
    play(env, "AS")
    assert env.agent_selection == P1
    assert legal(env) == ids("2S", "7S", "8S", "BS", "CS", "propose Alifer")  # must follow Spade
    play(env, "2S", "RS")
    # The dealer's 2nd card: it may ask Manko about the 3-card Figura.
    assert legal(env) == ids("7S", "8S", "BS", "CS", "ask Manko", "propose Alifer")
    play(env, "ask Manko")
    assert env.agent_selection == P1
    seen = decode_observation(env.observe(P1))
    assert seen["manko_answers"]["opponent"] == {"Re": "B"}
    play(env, *S1[5:])
    assert all(env.terminations.values()) and not any(env.truncations.values())
    p0, p1 = env.infos[P0], env.infos[P1]
    assert p0["result"] == "loss" and p1["result"] == "win"
    assert p0["outcome"] == p1["outcome"] == "decided"
    assert p0["score"] == {"card_points": 15, "declaration_points": 6, "bonus_points": 0, "total": 21}
    assert p1["score"] == {"card_points": 31, "declaration_points": 0, "bonus_points": 6, "total": 37}
    assert (p0["tokens"], p1["tokens"]) == (-5, -15)
    assert p0["forfeit"] is False and p1["forfeit"] is False
    # The challenger made the last move: the dealer is stepped out first,
    # and both see their final reward in last().
    assert env.agent_selection == P1
    assert finish(env) == {P1: 1.0, P0: -1.0}
    assert env.agents == []


@pytest.mark.parametrize(
    "reward_mode, stake_multiple, multiplier, expected",
    [
        ("win", 1, 1, (-1.0, 1.0)),
        ("win", 2, 4, (-1.0, 1.0)),
        ("points", 1, 1, (-16.0, 16.0)),  # 21 - 37; points are never multiplied
        ("points", 2, 4, (-16.0, 16.0)),
        ("tokens", 1, 1, (-5.0, -15.0)),
        ("tokens", 2, 4, (-40.0, -120.0)),  # unit 8: stake 80, Figura payment 40
    ],
)
def test_s1_rewards_in_each_mode(reward_mode, stake_multiple, multiplier, expected):
    env = make(reward_mode=reward_mode, stake_multiple=stake_multiple, multiplier=multiplier)
    play(env, *S1)
    assert (env.rewards[P0], env.rewards[P1]) == expected
    assert (env.infos[P0]["tokens"], env.infos[P1]["tokens"]) == (
        -5 * stake_multiple * multiplier,
        -15 * stake_multiple * multiplier,
    )
    assert finish(env) == {P1: expected[1], P0: expected[0]}


def test_a_dead_agent_accepts_only_none():
    env = make()
    play(env, *S1)
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(0)
    assert env.agents == [P0, P1]
    env.step(None)
    assert env.agents == [P0] and env.agent_selection == P0
    assert set(env.rewards) == set(env.infos) == set(env.terminations) == {P0}


def test_rewards_are_zero_until_the_end():
    env = make()
    for a in S1[:-1]:
        obs, reward, term, trunc, info = env.last()
        assert reward == 0 and not term and not trunc
        assert "result" not in info
        env.step(action_id(a))
    assert env.rewards == {P0: 0, P1: 0}


def test_dealer_option_swaps_the_roles():
    env = make(dealer=P0)
    assert env.infos[P0]["role"] == "dealer" and env.infos[P1]["role"] == "challenger"
    assert env.agent_selection == P1
    assert legal(env) == ids(*S1_CH.split(), "declare Figura Re", "propose Alifer")
    play(env, *S1)
    assert env.infos[P1]["result"] == "loss" and env.infos[P1]["score"]["total"] == 21
    assert env.infos[P0]["result"] == "win" and env.infos[P0]["score"]["total"] == 37
    assert (env.rewards[P0], env.rewards[P1]) == (1.0, -1.0)
    assert env.infos[P0]["role"] == "dealer"  # kept at the end


def test_dealer_option_default_and_explicit_player_1_agree():
    a, b = make(), make(dealer=P1)
    assert a.infos == b.infos and a.agent_selection == b.agent_selection == P0
    np.testing.assert_array_equal(a.observe(P0)["observation"], b.observe(P0)["observation"])


def test_tie_is_an_automatic_alifer_for_both():
    for mode in ("win", "points", "tokens"):
        env = make(T1_DEAL, reward_mode=mode)
        play(env, *T1)
        for agent in (P0, P1):
            info = env.infos[agent]
            assert info["result"] == "alifer" and info["outcome"] == "tie"
            assert info["score"]["total"] == 23
            assert info["tokens"] == -10
        expected = -10.0 if mode == "tokens" else 0.0
        assert env.rewards == {P0: expected, P1: expected}


# ------------------------------------------------------------------ Alifer


def test_alifer_proposal_gives_the_opponent_exactly_accept_or_decline():
    env = make()
    play(env, "propose Alifer")
    assert env.agent_selection == P1
    assert legal(env) == {45, 46}
    assert legal(env, P0) == set()
    assert decode_observation(env.observe(P1))["alifer_pending"] == "opponent"
    assert decode_observation(env.observe(P0))["alifer_pending"] == "me"


@pytest.mark.parametrize("reward_mode, expected", [("win", 0.0), ("points", 0.0), ("tokens", -60.0)])
def test_accepted_alifer_ends_as_alifer_for_both_with_only_the_stakes_paid(reward_mode, expected):
    env = make(reward_mode=reward_mode, stake_multiple=3, multiplier=2)
    # The challenger's Figura would be paid in a played partie, not in an abandoned one.
    play(env, "declare Figura Re", "AS", "propose Alifer", "accept Alifer")
    for agent in (P0, P1):
        info = env.infos[agent]
        assert info["result"] == "alifer" and info["outcome"] == "agreed_alifer"
        assert info["tokens"] == -10 * 3 * 2
        assert env.terminations[agent]
    assert env.infos[P0]["score"]["declaration_points"] == 6  # as it stood; nothing settled
    assert env.rewards == {P0: expected, P1: expected}
    assert finish(env) == {P0: expected, P1: expected}


def test_declined_alifer_returns_the_turn_to_the_proposer():
    env = make()
    play(env, "AS", "propose Alifer")
    assert env.agent_selection == P0 and legal(env) == {45, 46}
    play(env, "decline Alifer")
    assert env.agent_selection == P1
    # The dealer continues its turn; its one proposal is spent.
    assert legal(env) == ids("2S", "7S", "8S", "BS", "CS")
    seen = decode_observation(env.observe(P1))
    assert seen["alifer_pending"] is None
    assert seen["alifer_proposed"] == {"me": True, "opponent": False}
    play(env, "2S")
    assert env.agent_selection == P0
    assert action_id("propose Alifer") in legal(env)  # the challenger's proposal is still unused


# --------------------------------------------------------- illegal actions


@pytest.mark.parametrize(
    "prefix, bad, named",
    [
        (0, "2S", "2S"),  # not in hand
        (2, "AC", "AC"),  # revoke: the dealer holds Spades
        (0, "accept Alifer", "accept Alifer"),  # nothing to answer
        (3, "declare Figura Re", "declare Figura Re"),  # spent, and only at the 1st card
        (0, 49, "49"),  # outside the action table
        (0, 47, "declare Pro"),  # session environment only
    ],
)
def test_illegal_action_raises_naming_it_and_leaves_the_state_unchanged(prefix, bad, named):
    env = make()
    play(env, *S1[:prefix])
    raw = env.unwrapped
    agent = env.agent_selection
    before = state_key(raw.partie)
    obs_before = {a: env.observe(a)["observation"].copy() for a in (P0, P1)}
    legal_before = legal(env)
    action = bad if isinstance(bad, int) else action_id(bad)
    with pytest.raises(ValueError) as err:
        env.step(action)
    msg = str(err.value)
    assert named in msg and agent in msg
    assert "legal:" in msg
    for a in sorted(legal_before):
        assert trappola_v0.action_name(a) in msg
    assert state_key(raw.partie) == before
    assert env.agent_selection == agent
    assert legal(env) == legal_before
    for a in (P0, P1):
        np.testing.assert_array_equal(env.observe(a)["observation"], obs_before[a])
    assert not any(env.terminations.values())
    play(env, *S1[prefix:])  # and the partie goes on as before
    assert env.infos[P0]["score"]["total"] == 21


def test_numpy_integer_actions_are_accepted():
    env = make()
    env.step(np.int64(action_id("declare Figura Re")))
    env.step(np.int32(action_id("AS")))
    assert env.agent_selection == P1


@pytest.mark.parametrize(
    "reward_mode, expected",
    [
        ("win", {P0: 1.0, P1: -1.0}),
        # Points as they stand: ch 6 (its Figura), de 0; the offender is the dealer.
        ("points", {P0: 6.0, P1: -6.0}),
        ("tokens", {P0: -10.0, P1: -10.0}),  # no payments are settled on a forfeit
    ],
)
def test_forfeit_ends_the_partie_as_a_loss_for_the_offender(reward_mode, expected):
    env = make(illegal_action="forfeit", reward_mode=reward_mode)
    play(env, "declare Figura Re", "AS", "AC")  # the dealer revokes
    assert all(env.terminations.values())
    assert env.infos[P1]["result"] == "loss" and env.infos[P1]["forfeit"] is True
    assert env.infos[P0]["result"] == "win" and env.infos[P0]["forfeit"] is False
    assert env.infos[P0]["outcome"] == env.infos[P1]["outcome"] == "forfeit"
    assert env.rewards == expected
    assert finish(env) == {P0: expected[P0], P1: expected[P1]}


def test_forfeit_in_points_mode_is_a_loss_even_when_ahead():
    env = make(illegal_action="forfeit", reward_mode="points")
    play(env, "declare Figura Re")
    env.step(action_id("2S"))  # the challenger (6 points to 0) plays a card it does not hold
    assert env.infos[P0]["result"] == "loss" and env.infos[P0]["forfeit"] is True
    assert env.rewards == {P0: -1.0, P1: 1.0}


def test_forfeit_while_answering_an_alifer_proposal():
    env = make(illegal_action="forfeit")
    play(env, "propose Alifer")
    env.step(action_id("2S"))  # the dealer must answer, not play
    assert env.infos[P1]["forfeit"] is True and env.infos[P1]["result"] == "loss"
    assert decode_observation(env.observe(P0))["alifer_pending"] is None


# ------------------------------------------------------------ reset options


@pytest.mark.parametrize(
    "deal, match",
    [
        ({**S1_DEAL, "dealer": S1_DEAL["dealer"][:8] + ["ZZ"]}, "unknown card 'ZZ'"),
        ({**S1_DEAL, "dealer": S1_DEAL["dealer"][:8] + ["RS"]}, "RS appears twice"),
        ({**S1_DEAL, "challenger": S1_DEAL["challenger"][:8]}, r"deal\['challenger'\] must have 9 cards, got 8"),
        ({**S1_DEAL, "stock": S1_DEAL["stock"] + ["AB"]}, r"must have 18 cards, got 19"),
        ({"challenger": S1_DEAL["challenger"], "dealer": S1_DEAL["dealer"]}, "missing 'stock'"),
        ({**S1_DEAL, "table": []}, "unknown keys"),
        (["2S"] * 36, "deal must be a dict"),
    ],
)
def test_malformed_deal_raises_value_error_saying_what(deal, match):
    env = trappola_v0.env()
    with pytest.raises(ValueError, match=match):
        env.reset(options={"deal": deal})


@pytest.mark.parametrize(
    "options, match",
    [
        ({"dealer": "player_2"}, "dealer"),
        ({"multiplier": 0}, "multiplier"),
        ({"multiplier": "2"}, "multiplier"),
    ],
)
def test_bad_reset_options_raise_value_error(options, match):
    with pytest.raises(ValueError, match=match):
        trappola_v0.env().reset(options=options)


def test_unknown_reset_option_warns():
    with pytest.warns(UserWarning, match="colour"):
        trappola_v0.env().reset(options={"colour": "red"})


def test_multiplier_option_is_observed():
    env = make(multiplier=8)
    assert decode_observation(env.observe(P0))["multiplier"] == 8
    assert decode_observation(make().observe(P0))["multiplier"] == 1


def test_seeded_reset_is_reproducible():
    a, b = trappola_v0.env(), trappola_v0.env()
    a.reset(seed=11)
    b.reset(seed=11)
    hands = a.unwrapped.partie.deal
    assert b.unwrapped.partie.deal == hands
    # Unseeded resets continue the seeded generator identically...
    a.reset()
    b.reset()
    assert a.unwrapped.partie.deal == b.unwrapped.partie.deal != hands
    # ...and reseeding gives the first deal again; another seed another deal.
    a.reset(seed=11)
    assert a.unwrapped.partie.deal == hands
    a.reset(seed=12)
    assert a.unwrapped.partie.deal != hands


# ------------------------------------------------------------- observations


def test_observation_cached_per_agent_and_step_and_never_overwritten():
    env = make()
    first = env.observe(P0)
    assert env.observe(P0) is first
    kept = first["observation"].copy()
    play(env, "declare Figura Re", "AS")
    assert env.observe(P0) is not first
    np.testing.assert_array_equal(first["observation"], kept)
    assert not np.array_equal(env.observe(P0)["observation"], kept)


def _replay_observations(deal, actions, agent):
    env = make(deal)
    seen = [env.observe(agent)]
    for a in actions:
        env.step(action_id(a))
        seen.append(env.observe(agent))
    return seen


def test_hidden_cards_do_not_change_what_an_agent_sees():
    # Deal B swaps the dealer's Bastoni (BB CB RB, never played in the
    # prefix) with hidden stock cards 2B 7B 8B and shuffles the other hidden
    # stock cards; the face-up bottom card stays. The prefix (two tricks, a
    # declaration and a Manko question) is legal in both deals.
    hidden = [c for c in S1_DEAL["stock"][:-1] if c not in ("2B", "7B", "8B")]
    random.Random(3).shuffle(hidden)
    deal_b = {
        "challenger": S1_DEAL["challenger"],
        "dealer": ["2S", "7S", "8S", "BS", "CS", "AC", "2B", "7B", "8B"],
        "stock": hidden + ["BB", "CB", "RB"][::-1] + [S1_DEAL["stock"][-1]],
    }
    assert len(deal_b["stock"]) == 18
    prefix = S1[:7]  # ... RC led to trick 3
    a = _replay_observations(S1_DEAL, prefix, P0)
    b = _replay_observations(deal_b, prefix, P0)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x["observation"], y["observation"])
        np.testing.assert_array_equal(x["action_mask"], y["action_mask"])
    # The dealer itself sees the difference.
    assert not np.array_equal(
        _replay_observations(S1_DEAL, prefix, P1)[0]["observation"],
        _replay_observations(deal_b, prefix, P1)[0]["observation"],
    )


def test_own_hand_changes_what_an_agent_sees():
    # The challenger's TD swapped with the hidden stock card TB.
    stock = [c if c != "TB" else "TD" for c in S1_DEAL["stock"]]
    deal_c = {"challenger": S1_DEAL["challenger"][:8] + ["TB"], "dealer": S1_DEAL["dealer"], "stock": stock}
    prefix = S1[:7]
    a = _replay_observations(S1_DEAL, prefix, P0)
    c = _replay_observations(deal_c, prefix, P0)
    for x, y in zip(a, c, strict=True):
        assert not np.array_equal(x["observation"], y["observation"])
    # while the dealer's view of the same prefix is identical
    for x, y in zip(_replay_observations(S1_DEAL, prefix, P1), _replay_observations(deal_c, prefix, P1), strict=True):
        np.testing.assert_array_equal(x["observation"], y["observation"])


def test_decoded_view_after_trick_three():
    env = make()
    play(env, *S1[:9])  # through "BB": the dealer led trick 4
    me = decode_observation(env.observe(P0))
    assert me["role"] == "challenger"
    assert me["hand"] == ["2C", "7D", "8D", "9D", "TD", "RD"]  # in card-id order
    assert me["played_by_me"] == {"AS": 1, "RS": 2, "RC": 3}
    assert me["played_by_opponent"] == {"2S": 1, "CS": 2, "AC": 3, "BB": 4}
    assert me["table_lead"] == "BB"
    assert me["tricks"] == [
        {"trick": 1, "led_by": "me", "won_by": "me"},
        {"trick": 2, "led_by": "me", "won_by": "me"},
        {"trick": 3, "led_by": "me", "won_by": "opponent"},
    ]
    assert me["declarations"] == {"me": {"Figura Re": 3}, "opponent": {}}
    assert me["manko_asked"] == {"me": False, "opponent": True}
    assert me["manko_answers"] == {"me": {"Re": "B"}, "opponent": {}}
    assert me["card_points"] == {"me": 15, "opponent": 11}
    assert me["trick_number"] == 3
    assert me["stock_bottom"] == S1_DEAL["stock"][-1]


# ---------------------------------------------------------------- property


@pytest.mark.parametrize("ace_declaration", ["first_ace", "first_card"])
def test_masks_match_the_engine_and_are_never_empty_while_running(ace_declaration):
    env = trappola_v0.env(ace_declaration=ace_declaration)
    rng = random.Random(5)
    steps = 0
    for game in range(150):
        env.reset(seed=game)
        partie = env.unwrapped.partie
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            other = P1 if agent == P0 else P0
            if term or trunc:
                assert obs["action_mask"].sum() == 0
                env.step(None)
                continue
            mask = obs["action_mask"]
            legal_ids = np.flatnonzero(mask).tolist()
            assert legal_ids, "empty mask in a running partie"
            assert legal_ids == cards_of(partie.legal_mask())
            assert env.observe(other)["action_mask"].sum() == 0
            assert (
                info["role"] == trappola_v0.ROLES[partie.to_act]
            )  # the agent selected is the seat the engine says acts
            env.step(rng.choice(legal_ids))
            steps += 1
    assert steps > 1000


# ---------------------------------------------------------------- render


def test_render_ansi_returns_the_table_and_human_prints_it(capsys):
    env = make(render_mode="ansi")
    play(env, "declare Figura Re", "AS")
    text = env.render()
    assert text.startswith("player_0 is the challenger, player_1 the dealer")
    assert "hand: RS 2C RC 7D 8D 9D TD RD" in text and "Figura Re (3)" in text
    assert "on the table: AS led by challenger" in text and "hand: 2S 7S 8S BS CS AC BB CB RB" in text
    human = make(render_mode="human")
    capsys.readouterr()
    play(human, "declare Figura Re")
    assert human.render() is None
    out = capsys.readouterr().out
    assert "Figura Re (3)" in out


def test_render_without_mode_warns_and_returns_none():
    env = make()
    with pytest.warns(UserWarning, match="render mode"):
        assert env.render() is None
