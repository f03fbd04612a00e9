"""The self-play core through every adapter: the batched VecEnv
(``BatchedSelfPlayVecEnv``), the gymnasium env (``SelfPlayEnv``, behind
SB3's ``DummyVecEnv``) and, for the rewards of a partie, the RLlib env.
Public behaviour only: constructors, ``set_options``/``reset``/``step``,
``action_masks``, ``env_method``/``get_attr`` and the infos."""

from __future__ import annotations

import random
from functools import partial

import numpy as np
import pytest
from helpers import make_deal_spec
from sb3_contrib.common.maskable.utils import get_action_masks
from scripted import DEAL, WINNER_POINTS, Accepts, Lowest
from stable_baselines3.common.vec_env import DummyVecEnv

from trappola.train.sb3.batched_vec_env import BatchedSelfPlayVecEnv
from trappola.train.selfplay.alifer import AliferValue, replay_mean
from trappola.train.selfplay.env import SelfPlayEnv
from trappola.train.selfplay.forced import forced_action, forced_actions
from trappola.train.selfplay.pool import OpponentPool, pool_member
from trappola.train.selfplay.reward import RewardShaping, scale_reward
from trappola_env.engine import random_deal
from trappola_env.engine.actions import PROPOSE_ALIFER
from trappola_env.engine.cards import CARD_NAMES, suit_of

ADAPTERS = ("batched", "gym")
WIN = {"win": 1.0, "loss": -1.0, "alifer": 0.0}


def make_env(adapter: str, n: int = 2, seed: int = 0, **kwargs):
    """``n`` games of ``adapter`` as an SB3 VecEnv."""
    if adapter == "batched":
        return BatchedSelfPlayVecEnv(n, seed=seed, **kwargs)
    return DummyVecEnv([partial(SelfPlayEnv, seed=seed + 1000 * i, **kwargs) for i in range(n)])


def random_actions(env, rng) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in get_action_masks(env)])


def episodes(env, count: int, seed: int = 0):
    """``count`` finished episodes with uniformly random learner moves:
    (reward, info) in the order they end; checks the masks on the way."""
    rng = np.random.default_rng(seed)
    obs = env.reset()
    out = []
    while len(out) < count:
        masks = get_action_masks(env)
        assert masks.dtype == bool and (masks.sum(axis=1) >= 2).all()  # forced moves are skipped
        assert obs.shape == (env.num_envs, 347) and obs.dtype == np.float32
        obs, rewards, dones, infos = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        out += [(float(rewards[i]), infos[i]) for i in np.flatnonzero(dones)]
    return out


def snapshot_weights(seed: int | None = None) -> dict:
    """``NumpyPolicy`` weights: zeros (uniform play), or random ones."""
    if seed is None:
        return {"layers": [], "head": (np.zeros((49, 347), np.float32), np.zeros(49, np.float32)), "activation": "relu"}
    rng = np.random.default_rng(seed)
    return {
        "layers": [(rng.normal(size=(32, 347)).astype(np.float32), rng.normal(size=32).astype(np.float32))],
        "head": (rng.normal(size=(49, 32)).astype(np.float32), np.zeros(49, np.float32)),
        "activation": "tanh",
    }


# ------------------------------------------------------------ a scripted partie
class RLlibGame:
    """The RLlib env as one learner (``player_0``) against ``opponent``,
    which the test plays itself (RLlib has no pool): ``run`` plays the
    scripted deal, the learner's lowest card (or ``first`` at its first
    move), and returns (reward, info, decisions, who decided last)."""

    def __init__(self, mode: str, opponent):
        pytest.importorskip("ray.rllib")
        from trappola.train.rllib.env import RLlibTrappolaEnv

        self.env, self.opponent = RLlibTrappolaEnv({"reward_mode": mode}), opponent

    def run(self, learner_deals: bool, first=None):
        from trappola.train.rllib.env import MASK_KEY

        obs, _ = self.env.reset(seed=0, options={"deal": DEAL, "dealer": "player_0" if learner_deals else "player_1"})
        total, steps, last = 0.0, 0, None
        while True:
            ((agent, o),) = obs.items()
            mask = sum(1 << int(a) for a in np.flatnonzero(o[MASK_KEY]))
            if agent == "player_0":
                action = first if first is not None and not steps else lowest_card(mask)
                steps += 1
            else:
                action = self.opponent(mask)
            obs, rewards, terminated, _, infos = self.env.step({agent: action})
            total += rewards.get("player_0", 0.0)
            last = agent
            if terminated["__all__"]:
                return total, infos["player_0"], steps, last


def lowest_card(mask: int) -> int:
    """The lowest legal card of a bit set of legal actions."""
    cards = mask & ((1 << 36) - 1)
    return (cards & -cards).bit_length() - 1


def play_scripted(adapter: str, mode: str, learner_deals: bool, player_class=Lowest, first=None):
    """The scripted deal: the learner plays its lowest card (``first`` at
    its first move), the opponent is ``player_class``. Returns (rewards,
    infos, learner decisions, who made the partie's last move)."""
    if adapter == "rllib":
        opponent = player_class()
        reward, info, steps, last = RLlibGame(mode, lambda mask: opponent.act(_View(mask))).run(learner_deals, first)
        return [reward], [info], steps, {"player_0": "learner", "player_1": "opponent"}[last]
    log = []
    env = make_env(adapter, pool={"scripted": 1.0}, players={"scripted": player_class(log)}, reward_mode=mode)
    env.set_options({"deal": DEAL, "dealer": "player_0" if learner_deals else "player_1"})
    env.reset()
    steps = 0
    while True:
        log.append(("learner", steps))
        masks = get_action_masks(env)
        acts = masks[:, :36].argmax(axis=1) if first is None or steps else np.full(env.num_envs, first)
        _, rewards, dones, infos = env.step(acts)
        steps += 1
        if dones.any():
            assert dones.all()
            # the opponent's last card (one card left in its hand) came after the learner's last decision
            # only if it ended the partie; the games dealt again after it start with nine
            last_card = max(i for i, entry in enumerate(log) if entry == ("opponent", 1)) if steps > 1 else -1
            return (
                list(rewards),
                infos,
                steps,
                "opponent" if last_card > log.index(("learner", steps - 1)) else "learner",
            )
        assert (rewards == 0).all()


class _View:
    """The legal mask, as much of a ``TurnView`` as a scripted player reads."""

    def __init__(self, mask: int):
        self.legal_mask = mask


@pytest.mark.parametrize("adapter", [*ADAPTERS, "rllib"])
@pytest.mark.parametrize(
    "mode, expected", [("win", 1.0), ("points", WINNER_POINTS / 60.0), ("mixed", 1.0 + 0.5 * WINNER_POINTS / 60.0)]
)
@pytest.mark.parametrize("learner_deals", [False, True])
def test_the_reward_reaches_the_learner_whoever_ends_the_partie(adapter, mode, expected, learner_deals):
    # The challenger leads every trick: as challenger the learner wins and the opponent's card ends the
    # partie; as dealer it loses and its own card ends it.
    sign = -1.0 if learner_deals else 1.0
    rewards, infos, steps, last = play_scripted(adapter, mode, learner_deals)
    assert last == ("learner" if learner_deals else "opponent")
    assert steps == 9  # one decision per trick: the learner always had Alifer as a second option
    assert rewards == pytest.approx([sign * expected] * len(rewards))
    for info in infos:
        assert info["result"] == ("loss" if learner_deals else "win")
        if adapter != "rllib":
            assert info["points_diff"] == sign * WINNER_POINTS and info["opponent"] == "scripted"
            assert info["role"] == ("dealer" if learner_deals else "challenger")


@pytest.mark.parametrize("adapter", [*ADAPTERS, "rllib"])
def test_an_alifer_the_opponent_accepts_is_worth_zero_at_first(adapter):
    rewards, infos, steps, _ = play_scripted(adapter, "win", False, player_class=Accepts, first=PROPOSE_ALIFER)
    assert steps == 1 and rewards == [0.0] * len(rewards)
    assert all(i["result"] == "alifer" and i["outcome"] == "agreed_alifer" for i in infos)


# ------------------------------------------------------------ random parties
@pytest.mark.parametrize("adapter", ADAPTERS)
@pytest.mark.parametrize("opponent", ["random", "rule"])
def test_rewards_are_shaped_from_the_engines_result(adapter, opponent):
    env = make_env(adapter, n=4, seed=11, pool={opponent: 1.0}, reward_mode="mixed", alifer_value="zero")
    done = episodes(env, 120)
    for reward, info in done:
        assert info["opponent"] == opponent
        # the environment pays the points difference of a decided partie, nothing for an Alifer
        assert info["env_reward"] == (0 if info["result"] == "alifer" else info["points_diff"])
        assert reward == pytest.approx(WIN[info["result"]] + 0.5 * info["env_reward"] / 60.0)
    assert {i["role"] for _, i in done} == {"challenger", "dealer"}
    assert {i["result"] for _, i in done} == {"win", "loss", "alifer"}


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_an_alifer_is_worth_the_running_value_of_a_replay(adapter):
    # Against random, with random learner moves, about half the parties end in
    # an Alifer; each must be scored at the EMA of the earlier decided rewards.
    env = make_env(adapter, n=1, seed=4, pool={"random": 1.0}, reward_mode="win", alifer_ema=0.1)
    value, alifers, decided = 0.0, 0, 0
    for reward, info in episodes(env, 200):
        assert info["replay_value"] == pytest.approx(value)
        if info["result"] == "alifer":
            alifers += 1
            assert reward == pytest.approx(value)
        else:
            decided += 1
            assert reward == WIN[info["result"]]
            value += 0.1 * (reward - value)
    assert alifers > 20 and decided > 20 and value != 0.0
    assert env.get_attr("replay_value")[0] == {"random": pytest.approx(value)}


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_net_tokens_score_an_alifer_as_it_is(adapter):
    env = make_env(adapter, n=2, seed=4, pool={"random": 1.0}, reward_mode="tokens")
    for reward, info in episodes(env, 60):
        assert "replay_value" not in info and reward == pytest.approx(info["tokens"] / 30.0)


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_the_same_seed_plays_the_same_episodes(adapter):
    def run():
        env = make_env(adapter, n=3, seed=5, pool={"rule": 1.0, "random": 1.0})
        return [(r, i["opponent"], i["points_diff"], i["role"]) for r, i in episodes(env, 30, seed=1)]

    first = run()
    assert first == run() and len({o for _, o, _, _ in first}) == 2


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_snapshots_join_the_pool_and_play_by_weight(adapter):
    with pytest.raises(RuntimeError, match="no snapshot"):
        make_env(adapter, pool={"self": 1.0}).reset()
    env = make_env(adapter, n=16, seed=2, pool={"self": 1.0, "random": 1.0}, pool_size=2)
    for _ in range(3):
        env.env_method("add_snapshot", snapshot_weights())
    names = [i["opponent"] for _, i in episodes(env, 300)]
    assert {n for n in names if n.startswith("self")} == {"self2", "self3"}
    assert 0.38 < sum(n.startswith("self") for n in names) / len(names) < 0.62


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_settings_are_checked(adapter):
    with pytest.raises(ValueError, match="alifer_value"):
        make_env(adapter, alifer_value="draw")
    with pytest.raises(ValueError, match="reward_mode"):
        make_env(adapter, reward_mode="elo")
    with pytest.raises(ValueError, match="positive weight"):
        make_env(adapter, pool={"rule": 0.0})
    with pytest.raises(ValueError, match="unknown player"):
        make_env(adapter, pool={"pimcc": 1.0})


# ------------------------------------------------------------ no leak
def swapped_deals(seed: int, learner_seat: int):
    """A deal, and the same deal with the learner's highest card swapped
    for a hidden stock card of its suit (what neither player sees of the
    other); None when the stock hides none of that suit."""
    deal = random_deal(random.Random(seed))
    hands = [list(deal.challenger), list(deal.dealer)]
    x = max(hands[learner_seat])
    hidden = [c for c in deal.stock[:-1] if suit_of(c) == suit_of(x)]
    if not hidden:
        return None
    y = hidden[0]
    stock = list(deal.stock)
    other = [list(h) for h in hands]
    other[learner_seat][other[learner_seat].index(x)] = y
    stock[stock.index(y)] = x

    def spec(h, s):
        return make_deal_spec([CARD_NAMES[c] for c in h[0]], [CARD_NAMES[c] for c in h[1]], [CARD_NAMES[c] for c in s])

    return spec(hands, deal.stock), spec(other, stock), {x, y}


def learner_views(adapter: str, pool: dict, deal: dict, learner_seat: int, avoid: set, privileged: bool = False):
    """The learner's observations on ``deal`` while it plays its lowest
    legal card other than the swapped ones (until it has none)."""
    env = make_env(adapter, n=1, seed=9, pool=pool, opponent_deterministic=True, privileged=privileged)
    if "self" in pool:
        env.env_method("add_snapshot", snapshot_weights(seed=3))
    env.set_options({"deal": deal, "dealer": ("player_1", "player_0")[learner_seat]})
    views = [env.reset()[0]]
    while True:
        mask = get_action_masks(env)[0].copy()
        mask[list(avoid)] = False
        if not mask[:36].any():
            return views
        obs, _, done, _ = env.step(np.array([int(np.flatnonzero(mask[:36])[0])]))
        if done[0]:
            return views
        views.append(obs[0])


@pytest.mark.parametrize("adapter", ADAPTERS)
@pytest.mark.parametrize("pool", [{"self": 1.0}, {"policy:endgame=0": 1.0}, {"rule": 1.0}])
def test_pool_opponents_never_see_hidden_cards(adapter, pool):
    """The learner's highest card swapped for a hidden stock card of its
    suit: the learner's observations may differ in that card only, at
    every decision, so the opponent played the same moves on both deals."""
    compared = 0
    for seed in range(40):
        for learner_seat in (0, 1):
            deals = swapped_deals(seed, learner_seat)
            if deals is None:
                continue
            deal, other, avoid = deals
            a = learner_views(adapter, pool, deal, learner_seat, avoid)
            b = learner_views(adapter, pool, other, learner_seat, avoid)
            assert len(a) == len(b)
            diffs = {tuple(np.flatnonzero(u != v)) for u, v in zip(a, b, strict=True)}
            assert len(diffs) == 1 and diffs != {()}, (seed, learner_seat)  # the swapped card, nothing else
            compared += len(a) >= 4
        if compared >= 4:
            break
    assert compared >= 4
    # The swap is visible to an eye that sees the whole deal.
    full_a = learner_views(adapter, pool, deal, learner_seat, avoid, privileged=True)
    full_b = learner_views(adapter, pool, other, learner_seat, avoid, privileged=True)
    assert len({tuple(np.flatnonzero(u[347:] != v[347:])) for u, v in zip(full_a, full_b, strict=True)} - {()}) >= 1


# ------------------------------------------------------------ the core's parts
def test_scale_reward_modes():
    assert scale_reward(12, "win", "points", points_scale=60) == pytest.approx(0.2)
    assert scale_reward(-30, "loss", "tokens", tokens_scale=30) == pytest.approx(-1.0)
    assert scale_reward(0, "alifer", "mixed") == 0.0
    assert RewardShaping("mixed")(30, "win") == pytest.approx(1.25) and RewardShaping("mixed").env_mode == "points"
    with pytest.raises(ValueError, match="reward_mode"):
        scale_reward(1, "win", "elo")


def test_the_alifer_value_running_and_batch_means_agree_on_their_fixed_point():
    value = AliferValue("replay", "win", ema=0.5)
    assert value.score("rule", 1.0, "win") == (1.0, 0.0)
    assert value.score("rule", 7.0, "alifer") == (0.5, 0.5)  # an Alifer is scored at the value, not its reward
    assert value.score("rule", -1.0, "loss") == (-1.0, 0.5) and value.values == {"rule": -0.25}
    assert AliferValue("zero", "win").score("rule", 3.0, "alifer") == (3.0, None)
    assert AliferValue("replay", "tokens").score("rule", 3.0, "alifer") == (3.0, None)
    with pytest.raises(ValueError, match="replay_value"):
        value.restart({"rule": float("nan")})
    returns = np.array([1.0, 0.0, -1.0, 1.0, 0.0, 5.0])
    replay_mean(returns, np.array([0, 1, 0, 0, 1, 0], bool), np.array([0, 0, 0, 1, 1, 1]))
    assert returns.tolist() == [1.0, 0.0, -1.0, 1.0, 3.0, 5.0]


def test_forced_moves():
    assert forced_action(1 << 7) == 7 and forced_action(0b11) is None and forced_action(0) is None
    assert forced_action(np.eye(49)[40]) == 40 and forced_action(np.ones(49)) is None
    forced, moves = forced_actions(np.array([1 << 3, 0b101, 1 << 48], np.uint64))
    assert forced.tolist() == [True, False, True] and moves.tolist() == [3, 48]


def test_the_pool_draws_by_weight_and_keeps_the_newest_networks():
    pool = OpponentPool({"self": 1.0, "rule": 1.0}, size=2)
    rng = np.random.default_rng(0)
    assert set(pool.draw(rng, 20)) == {"rule"}  # no snapshot yet
    for _ in range(3):
        pool.add_snapshot(snapshot_weights(), keep=["self1"])
    assert pool.snapshots == ["self2", "self3"] and pool.network("self1") is not None  # still playing somewhere
    pool.add_snapshot(snapshot_weights())
    assert pool.network("self1") is None and pool.network("self2") is None
    names = pool.draw(rng, 2000)
    assert 0.45 < sum(pool_member(n) == "self" for n in names) / len(names) < 0.55
    assert pool_member("exploiter12") == "exploiter" and pool_member("selfish") == "selfish"
