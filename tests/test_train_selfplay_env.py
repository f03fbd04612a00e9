"""SelfPlayEnv: the learner's final reward arrives whoever ends the partie,
roles alternate, masks are right, the pool draws by weight."""
from __future__ import annotations

import numpy as np
import pytest

from helpers import make_deal_spec
from trappola.engine import action_id
from trappola.engine.actions import DECLINE_ALIFER, PROPOSE_ALIFER
from trappola.train.selfplay_env import OPPONENT, OpponentPool, SelfPlayEnv, scale_reward

# Challenger: all nine Spade; dealer: all nine Coppe. Spade leads always
# win (the dealer is void), so the challenger wins every trick: Marc.
SPADE = "2S 7S 8S 9S TS BS CS RS AS"
COPPE = "2C 7C 8C 9C TC BC CC RC AC"
DEAL = make_deal_spec(SPADE, COPPE)
# Playing lowest cards first, the challenger leads 2S at trick 1 and wins it
# with a Two: 36 card points + Marc 30 + trick 1 with a Two 52 + last trick
# (won with the AS) 6 = 124; the dealer has 0.
WINNER_POINTS = 124


class LowestCard:
    """Scripted opponent: declines Alifer, otherwise plays its lowest legal card."""

    name = "lowest"

    def act(self, env, agent, rng):
        mask = env.partie.legal_mask()
        if mask >> DECLINE_ALIFER & 1:
            return DECLINE_ALIFER
        cards = mask & ((1 << 36) - 1)
        return (cards & -cards).bit_length() - 1


def lowest_legal_card(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask[:36])[0])


def play_scripted(env, learner_is_dealer: bool):
    env.forced_opponent = ("lowest", LowestCard())
    dealer = "player_0" if learner_is_dealer else "player_1"
    obs, info = env.reset(seed=3, options={"deal": DEAL, "dealer": dealer})
    steps = 0
    while True:
        action = lowest_legal_card(env.action_masks())
        obs, reward, terminated, truncated, info = env.step(action)
        steps += 1
        assert not truncated
        if terminated:
            return reward, info, steps
        assert reward == 0.0  # nothing before the end


@pytest.mark.parametrize("mode, expected", [
    ("win", 1.0),
    ("points", WINNER_POINTS / 60.0),
    ("mixed", 1.0 + 0.5 * WINNER_POINTS / 60.0),
])
def test_reward_when_opponent_move_ends_partie(mode, expected):
    # The learner (challenger) leads trick 9; the opponent's card ends the partie.
    env = SelfPlayEnv(reward_mode=mode, seed=0)
    reward, info, steps = play_scripted(env, learner_is_dealer=False)
    partie = env.env.partie
    last_seat, _ = partie.history[-1]
    assert env.env._by_seat[last_seat] == OPPONENT
    assert info["result"] == "win" and info["points_diff"] == WINNER_POINTS
    assert reward == pytest.approx(expected)
    assert steps == 9  # one decision per trick: the learner always had Alifer as a second option


@pytest.mark.parametrize("mode, expected", [
    ("win", -1.0),
    ("points", -WINNER_POINTS / 60.0),
    ("mixed", -1.0 - 0.5 * WINNER_POINTS / 60.0),
])
def test_reward_when_learner_move_ends_partie(mode, expected):
    env = SelfPlayEnv(reward_mode=mode, seed=0)
    reward, info, _ = play_scripted(env, learner_is_dealer=True)
    last_seat, _ = env.env.partie.history[-1]
    assert env.env._by_seat[last_seat] == "player_0"
    assert info["result"] == "loss" and info["points_diff"] == -WINNER_POINTS
    assert reward == pytest.approx(expected)


def test_accepted_alifer_by_opponent_ends_with_zero_win_reward():
    class Accepts(LowestCard):
        def act(self, env, agent, rng):
            mask = env.partie.legal_mask()
            return action_id("accept Alifer") if mask >> action_id("accept Alifer") & 1 else super().act(env, agent, rng)

    env = SelfPlayEnv(reward_mode="win", seed=0)
    env.forced_opponent = ("accepts", Accepts())
    env.reset(seed=1, options={"deal": DEAL, "dealer": "player_1"})
    _, reward, terminated, _, info = env.step(PROPOSE_ALIFER)
    assert terminated and reward == 0.0 and info["result"] == "alifer"


@pytest.mark.parametrize("opponent", ["random", "rule"])
def test_random_episodes_reward_matches_engine_result(opponent):
    env = SelfPlayEnv(pool={opponent: 1.0}, reward_mode="win", seed=11, alifer_value="zero")
    rng = np.random.default_rng(0)
    ended_by = {"player_0": 0, "player_1": 0}
    roles = set()
    for _ in range(150):
        obs, info = env.reset()
        roles.add(info["role"])
        done = False
        while not done:
            mask = env.action_masks()
            assert mask.dtype == bool and mask.sum() >= 2  # forced moves are skipped
            assert np.array_equal(mask, info["action_mask"])
            assert obs.shape == (347,) and obs.dtype == np.float32
            obs, reward, done, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        result = env.env.partie.result()
        learner_seat = env.env._seat["player_0"]
        expected = 0.0 if result.winner is None else (1.0 if result.winner == learner_seat else -1.0)
        assert reward == expected
        assert info["opponent"] == opponent
        ended_by[env.env._by_seat[env.env.partie.history[-1][0]]] += 1
    assert roles == {"challenger", "dealer"}
    assert ended_by["player_0"] > 0 and ended_by["player_1"] > 0


def test_alifer_is_worth_the_running_value_of_a_replay():
    # Against random, with random learner moves, about half the parties end in
    # an Alifer; each must be scored at the EMA of the earlier decided rewards.
    env = SelfPlayEnv(pool={"random": 1.0}, reward_mode="win", seed=4, alifer_ema=0.1)
    rng = np.random.default_rng(0)
    value, alifers, decided = 0.0, 0, 0
    for _ in range(200):
        env.reset()
        done = False
        while not done:
            _, reward, done, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        assert info["replay_value"] == pytest.approx(value)
        if info["result"] == "alifer":
            alifers += 1
            assert reward == pytest.approx(value)
        else:
            decided += 1
            assert reward == (1.0 if info["result"] == "win" else -1.0)
            value += 0.1 * (reward - value)
    assert alifers > 20 and decided > 20 and value != 0.0
    assert env.replay_value == {"random": pytest.approx(value)}
    with pytest.raises(ValueError, match="alifer_value"):
        SelfPlayEnv(alifer_value="draw")


def test_step_after_end_is_refused():
    env = SelfPlayEnv(reward_mode="win", seed=0)
    play_scripted(env, learner_is_dealer=False)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_same_seed_same_episodes():
    def run():
        env = SelfPlayEnv(pool={"rule": 1.0, "random": 1.0}, seed=5)
        rng = np.random.default_rng(1)
        out = []
        for _ in range(20):
            obs, _ = env.reset()
            first = obs.copy()
            done = False
            while not done:
                obs, r, done, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            out.append((first.tobytes(), r, info["opponent"]))
        return out

    assert run() == run()


def test_pool_draws_by_weight_and_snapshots():
    pool = OpponentPool({"self": 1.0, "rule": 1.0}, size=2)
    rng = np.random.default_rng(0)
    assert {pool.draw(rng)[0] for _ in range(20)} == {"rule"}  # no snapshot yet
    w = {"layers": [], "head": (np.zeros((49, 347), np.float32), np.zeros(49, np.float32)), "activation": "relu"}
    for _ in range(3):
        pool.add_snapshot(w)
    assert [s.name for s in pool.snapshots] == ["self2", "self3"]
    names = [pool.draw(rng)[0] for _ in range(2000)]
    assert 0.45 < names.count("self") / len(names) < 0.55
    with pytest.raises(ValueError, match="unknown player"):
        OpponentPool({"pimcc": 1.0})
    assert OpponentPool({"pimc:samples=2": 1.0}).draw(rng)[0] == "pimc:samples=2"
    with pytest.raises(ValueError, match="positive weight"):
        OpponentPool({"rule": 0.0})


def test_scale_reward_modes():
    assert scale_reward(12, "win", "points", points_scale=60) == pytest.approx(0.2)
    assert scale_reward(-30, "loss", "tokens", tokens_scale=30) == pytest.approx(-1.0)
    assert scale_reward(0, "alifer", "mixed") == 0.0
    with pytest.raises(ValueError, match="reward_mode"):
        scale_reward(1, "win", "elo")
    with pytest.raises(ValueError, match="reward_mode"):
        SelfPlayEnv(reward_mode="elo")


@pytest.mark.parametrize("pool", [{"random": 1.0}, {"rule": 1.0}])
def test_gymnasium_and_sb3_environment_checkers_pass(pool):
    import warnings

    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a checker's warning is a failure too
        # Its random actions are mostly illegal: they forfeit instead of raising.
        check_env(SelfPlayEnv(pool=pool, seed=0, illegal_action="forfeit"), skip_render_check=True)
        sb3_check_env(SelfPlayEnv(pool=pool, seed=0, illegal_action="forfeit"))


def _random_episode(env, rng, seed=None):
    obs, _ = env.reset(seed=seed)
    trajectory = [obs.tobytes()]
    done = False
    while not done:
        obs, reward, done, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        trajectory.append(obs.tobytes())
    return trajectory, reward, {k: v for k, v in info.items() if k != "action_mask"}


def test_a_seeded_episode_equals_a_fresh_one_whatever_came_before():
    def make():
        return SelfPlayEnv(pool={"random": 1.0}, reward_mode="win", alifer_ema=0.2)

    used = make()
    rng = np.random.default_rng(0)
    for _ in range(30):  # moves the Alifer replay value away from its start
        _random_episode(used, rng)
    assert used.replay_value["random"] != 0.0
    for seed in range(6):  # some of these end in an Alifer, scored at the replay value
        again = _random_episode(used, np.random.default_rng(seed), seed=seed)
        fresh = _random_episode(make(), np.random.default_rng(seed), seed=seed)
        assert again == fresh
        assert again[2]["replay_value"] == 0.0
    used.reset(options={"replay_value": {"random": 0.25}})
    assert used.replay_value == {"random": 0.25}
    with pytest.raises(ValueError, match="replay_value"):
        used.reset(options={"replay_value": {"random": float("nan")}})


def test_illegal_learner_actions_follow_the_illegal_action_setting():
    from trappola.engine import IllegalActionError

    strict = SelfPlayEnv(pool={"random": 1.0}, reward_mode="win", seed=1)
    strict.reset(seed=1)
    illegal = int(np.flatnonzero(~strict.action_masks())[0])
    with pytest.raises(IllegalActionError, match="illegal action"):
        strict.step(illegal)
    lenient = SelfPlayEnv(pool={"random": 1.0}, reward_mode="win", seed=1, illegal_action="forfeit")
    lenient.reset(seed=1)
    _, reward, terminated, truncated, info = lenient.step(illegal)
    assert (reward, terminated, truncated, info["result"], info["outcome"]) == (-1.0, True, False, "loss", "forfeit")
    with pytest.raises(ValueError, match="illegal_action"):
        SelfPlayEnv(illegal_action="ignore")
