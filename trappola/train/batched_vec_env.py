"""``BatchedSelfPlayVecEnv``: N self-play games in one process, as one SB3
``VecEnv`` for sb3-contrib's MaskablePPO.

The games live in one ``trappola.envs.batch.BatchPartie``; each ``step``
applies the learner's N actions together and then plays, round by round,
every opponent move and every forced learner move, until in each game the
learner has a choice again or the partie is over (a finished game is
dealt again at once, SB3's automatic reset).

* Opponents, drawn per episode from ``pool`` by weight as
  ``trappola.train.selfplay_env.OpponentPool`` draws them: ``self`` (a frozen
  snapshot, ``NumpyPolicy`` weights run by ``TorchActor``; each snapshot
  moves in all its games with one batched forward pass), ``random``
  (batched, in compiled code) and any registered player (``rule``...)
  through the per-game player interface: such a game keeps a reference
  ``Partie`` in step, from which the player is shown its ``TurnView``, at
  the player's own speed. A pool member that is a trained network alone
  (``policy:endgame=0``, ``policy:PATH,endgame=0``: a ``policy`` player
  without endgame search) is frozen and batched like a snapshot: its
  weights run by ``TorchActor`` in all its games with one forward pass,
  greedy unless the spec says ``sample=true``; its moves are those the
  player would choose.
* Rewards and infos are those of ``SelfPlayEnv`` (the same reward modes,
  the learner's reward whoever ends the partie, the Alifer value of a
  replay as a running mean per pool member kind, forced moves skipped);
  the end-of-episode info has ``opponent``, ``result``, ``outcome``,
  ``role``, ``points_diff``, ``tokens``, ``env_reward`` (and
  ``replay_value``), so ``SelfPlayCallback`` logs per opponent kind.
* ``players``: extra per-game players by pool name (``trappola.agents.base.Player``
  objects), for members that are not registered players.
* ``opponent_workers=K``: those per-game players run in ``K`` worker
  processes (``trappola.train.opponent_workers``) while this one moves the batched
  opponents; 0 (default) plays them here, one after the other.
* ``action_masks()`` gives the learner's legal actions, ``(N, 49)`` bool.
* ``full_deal=True``: ``full_deals()`` gives, for the current
  observations, the privileged vector of ``full_deal.encode_full_deal``
  (``(N, 108)``) for a critic that may see the deal; a finished game's is
  in its info under ``terminal_full_deal``. The actor's input stays the
  ``trappola_v0`` observation.
* ``random`` opponents draw from numba's generator, which is one per
  process and seeded by the constructor: two batched environments stepped
  in turn in one process share it, so each is reproducible only on its own.
* ``privileged=True``: the observation is the ``trappola_v0`` vector
  followed by the full-deal vector, as ``SelfPlayEnv(privileged=True)``
  gives it, for ``trappola.train.privileged_policy.PrivilegedCriticPolicy``.
"""
from __future__ import annotations

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from trappola.envs.batch import BatchPartie, random_orders
from trappola.envs.batch.engine import rewards_of
from trappola.engine import Partie, deal_from_order
from trappola.engine.actions import N_ACTIONS
from trappola.envs.spaces_and_rewards import ROLES
from trappola.envs.full_deal import FULL_DEAL_SIZE
from trappola.envs.observation import OBS_SIZE

from trappola.agents.numpy_policy import NumpyPolicy

from .opponent_workers import OpponentWorkers
from .selfplay_env import ENV_REWARD_MODE, PlayerOpponent, pool_member, scale_reward

RANDOM, PLAYER, SNAPSHOT, FROZEN = 0, 1, 2, 3
_RESULT = {True: "win", False: "loss"}


class TorchActor:
    """A snapshot's actor run by torch on the weights of its ``NumpyPolicy``
    (shared, not copied). The learner's torch threads then do this forward
    pass too: numpy's BLAS would start threads of its own, and the two
    pools would fight over the cores (on 2 cores the rollout ran at less
    than half its speed)."""

    _ACT = {"relu": torch.relu_, "tanh": torch.tanh_}

    def __init__(self, policy: NumpyPolicy):
        self.layers = [(torch.from_numpy(w), torch.from_numpy(b)) for w, b in [*policy.layers, policy.head]]
        self.act = self._ACT[policy.activation]

    @torch.no_grad()
    def logits(self, obs: np.ndarray) -> np.ndarray:
        x = torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32))
        for i, (w, b) in enumerate(self.layers):
            x = torch.addmm(b, x, w.T)
            if i < len(self.layers) - 1:
                x = self.act(x)
        return x.numpy()


def sample_masked(logits: np.ndarray, masks: np.ndarray, rng: np.random.Generator,
                  deterministic: bool) -> np.ndarray:
    """One action per row from masked logits, as ``NumpyPolicy.act`` draws
    one (the arg max when ``deterministic``)."""
    z = np.where(masks, logits, -np.inf)
    if deterministic:
        return z.argmax(axis=1)
    c = np.cumsum(np.exp(z - z.max(axis=1, keepdims=True)), axis=1)
    u = rng.random(len(c)) * c[:, -1]
    return np.minimum((c <= u[:, None]).sum(axis=1), c.shape[1] - 1)


def frozen_network(player) -> tuple[NumpyPolicy, bool] | None:
    """``(policy, deterministic)`` of a player that is a trained network
    alone (a ``policy`` player without endgame search), whose moves a
    batched forward pass can make; None for any other player."""
    if getattr(player, "kind", None) != "policy" or player.endgame_searcher is not None:
        return None
    return player.policy, not player.settings["sample"]


class BatchedSelfPlayVecEnv(VecEnv):
    """See the module docstring. The keyword arguments are those of
    ``SelfPlayEnv``; ``n_envs`` games; ``seed`` fixes the deals, roles,
    opponent draws and the opponents' randomness."""

    def __init__(self, n_envs: int, pool: dict | None = None, reward_mode: str = "mixed",
                 points_scale: float = 60.0, tokens_scale: float = 30.0, points_weight: float = 0.5,
                 seed: int | None = None, pool_size: int = 8, snapshot_latest_prob: float = 0.5,
                 opponent_deterministic: bool = False, skip_forced: bool = True, alifer_value: str = "replay",
                 alifer_ema: float = 0.01, full_deal: bool = False, players: dict | None = None,
                 privileged: bool = False, opponent_workers: int = 0):
        if reward_mode not in ENV_REWARD_MODE:
            raise ValueError(f"reward_mode must be one of {tuple(ENV_REWARD_MODE)}, got {reward_mode!r}")
        if alifer_value not in ("replay", "zero"):
            raise ValueError(f"alifer_value must be 'replay' or 'zero', got {alifer_value!r}")
        if isinstance(n_envs, bool) or not isinstance(n_envs, int) or n_envs < 1:
            raise ValueError(f"n_envs must be a positive int, got {n_envs!r}")
        if isinstance(opponent_workers, bool) or not isinstance(opponent_workers, int) or opponent_workers < 0:
            raise ValueError(f"opponent_workers must be an int >= 0, got {opponent_workers!r}")
        self.render_mode = None
        self.privileged = bool(privileged)
        full_deal = full_deal or self.privileged
        size = OBS_SIZE + (FULL_DEAL_SIZE if self.privileged else 0)
        super().__init__(n_envs, spaces.Box(0.0, 1.0, (size,), np.float32), spaces.Discrete(N_ACTIONS))
        pool = dict(pool or {"rule": 1.0})
        self.weights = {k: float(v) for k, v in pool.items() if v > 0}
        if not self.weights:
            raise ValueError("the opponent pool needs at least one member with a positive weight")
        self.reward_mode = reward_mode
        self.env_reward_mode = ENV_REWARD_MODE[reward_mode]
        self.points_scale, self.tokens_scale = float(points_scale), float(tokens_scale)
        self.points_weight = float(points_weight)
        self.alifer_value, self.alifer_ema = alifer_value, float(alifer_ema)
        self.replay_value: dict[str, float] = {}
        self.skip_forced = skip_forced
        self.pool_size, self.latest_prob = pool_size, snapshot_latest_prob
        self.deterministic = opponent_deterministic
        self.with_full_deal = full_deal
        self._rng = np.random.default_rng(seed)
        BatchPartie.seed_random(int(self._rng.integers(2**31)))
        self.players = {}  # pool name -> PlayerOpponent, for members that play one game at a time
        # pool name -> (TorchActor, deterministic): frozen networks, batched like the snapshots
        self.frozen: dict[str, tuple[TorchActor, bool]] = {}
        players = dict(players or {})
        seeds = {}
        for name in self.weights:
            if name not in ("self", "random", "exploiter"):
                if name not in players:
                    from trappola.agents import make_player

                    players[name] = make_player(name)
                seeds[name] = int(self._rng.integers(2**31))
                network = frozen_network(players[name])
                if network is not None:
                    self.frozen[name] = (TorchActor(network[0]), network[1])
                    continue
                opp = PlayerOpponent(players[name], name)
                opp.reset(seeds[name])
                self.players[name] = opp
        self._workers = None
        if opponent_workers and self.players:
            self._workers = OpponentWorkers({k: v.player for k, v in self.players.items()}, seeds,
                                            opponent_workers)
        self.snapshots: list[int] = []  # ids of the snapshots in the pool, oldest first
        self.exploiters: list[str] = []  # names of the exploiters in the pool (in self.frozen), oldest first
        self.n_exploiters = 0
        self._policies: dict[int, TorchActor] = {}
        self.n_added = 0
        self.batch = BatchPartie(n_envs)
        n = n_envs
        self.learner_seat = np.zeros(n, np.int64)
        self.opp_kind = np.zeros(n, np.int64)
        self.opp_snapshot = np.zeros(n, np.int64)  # snapshot id for SNAPSHOT games
        self.opp_name = [""] * n
        self.mirror: list[Partie | None] = [None] * n
        self._masks = np.zeros((n, N_ACTIONS), bool)
        self._full = np.zeros((n, FULL_DEAL_SIZE), np.float32) if full_deal else None
        self._actions = None
        # tests: deal this deck order (36 ids) and seat the learner here in every new game
        self.forced_order = None
        self.forced_learner_seat = None

    # ------------------------------------------------------------ the pool
    def add_snapshot(self, weights: dict) -> None:
        """Push a frozen learner snapshot into the pool (the newest
        ``pool_size`` are kept; games under way keep their opponent)."""
        self.n_added += 1
        self._policies[self.n_added] = TorchActor(NumpyPolicy.from_weights(weights))
        self.snapshots.append(self.n_added)
        del self.snapshots[:-self.pool_size]
        live = set(self.snapshots) | set(self.opp_snapshot[self.opp_kind == SNAPSHOT].tolist())
        for k in [k for k in self._policies if k not in live]:
            del self._policies[k]

    def add_exploiter(self, weights: dict) -> None:
        """Push a frozen exploiter (a best response trained against the
        learner, ``trappola.train.exploiters``) into the pool member ``exploiter``:
        greedy, batched like the snapshots; the newest ``pool_size`` are
        kept, drawn uniformly, and games under way keep their opponent."""
        self.n_exploiters += 1
        name = f"exploiter{self.n_exploiters}"
        self.frozen[name] = (TorchActor(NumpyPolicy.from_weights(weights)), True)
        self.exploiters.append(name)
        del self.exploiters[:-self.pool_size]
        live = set(self.exploiters) | set(self.opp_name)
        for old in [k for k in self.frozen if k.startswith("exploiter") and k not in live]:
            del self.frozen[old]

    def _draw(self, rows: np.ndarray) -> None:
        names = [k for k in self.weights if (k != "self" or self.snapshots) and (k != "exploiter" or self.exploiters)]
        if not names:
            raise RuntimeError("the pool has only 'self' and no snapshot yet; call add_snapshot first")
        w = np.array([self.weights[k] for k in names])
        picks = self._rng.choice(len(names), size=rows.size, p=w / w.sum())
        latest = self._rng.random(rows.size) < self.latest_prob
        older = self._rng.integers(len(self.snapshots) or 1, size=rows.size)
        which = self._rng.integers(len(self.exploiters) or 1, size=rows.size) if "exploiter" in names else None
        for j, i in enumerate(rows):
            name = names[picks[j]]
            self.mirror[i] = None
            if name == "self":
                sid = self.snapshots[-1] if len(self.snapshots) == 1 or latest[j] else self.snapshots[older[j]]
                self.opp_kind[i], self.opp_snapshot[i] = SNAPSHOT, sid
                self.opp_name[i] = f"self{sid}"
            elif name == "random":
                self.opp_kind[i] = RANDOM
                self.opp_name[i] = name
            elif name in self.frozen:
                self.opp_kind[i] = FROZEN
                self.opp_name[i] = name
            elif name == "exploiter":
                self.opp_kind[i] = FROZEN
                self.opp_name[i] = self.exploiters[which[j]]
            else:
                self.opp_kind[i] = PLAYER
                self.opp_name[i] = name

    # ------------------------------------------------------------- dealing
    def _deal(self, rows: np.ndarray) -> None:
        orders = random_orders(self._rng, rows.size)
        seats = self._rng.random(rows.size) < 0.5  # the learner deals (seat 1)
        if self.forced_order is not None:
            orders[:] = self.forced_order
        if self.forced_learner_seat is not None:
            seats[:] = self.forced_learner_seat
        self.batch.deal(rows, orders)
        self.learner_seat[rows] = seats
        self._draw(rows)
        for j, i in enumerate(rows):
            if self.opp_kind[i] == PLAYER:
                self.mirror[i] = Partie(deal_from_order(orders[j].tolist()))
        if self._advance(rows).size:  # cannot happen: the opponent cannot end a partie before we move
            raise RuntimeError("a partie ended before the learner's first move")

    def _apply(self, rows: np.ndarray, actions: np.ndarray) -> None:
        self.batch.step(actions, rows)
        if self.players:
            for i, a in zip(rows[self.opp_kind[rows] == PLAYER], actions[self.opp_kind[rows] == PLAYER]):
                self.mirror[i].apply(int(a))

    def _opponent_actions(self, rows: np.ndarray) -> np.ndarray:
        out = np.empty(rows.size, np.int64)
        kinds = self.opp_kind[rows]
        per_game = np.flatnonzero(kinds == PLAYER)
        remote = per_game.size > 0 and self._workers is not None
        if remote:
            # the workers play these while this process moves the batched opponents
            views = [self.mirror[rows[j]] for j in per_game]
            self._workers.submit(rows[per_game], [self.opp_name[rows[j]] for j in per_game],
                                 [p.info_state(p.to_act) for p in views], [p.legal_mask() for p in views])
        sel = kinds == RANDOM
        if sel.any():
            out[sel] = self.batch.random_actions(rows[sel])
        sel = np.flatnonzero(kinds == SNAPSHOT)
        if sel.size:
            ids = self.opp_snapshot[rows[sel]]
            for sid in np.unique(ids):
                part = sel[ids == sid]
                out[part] = self._network_actions(rows[part], self._policies[sid], self.deterministic)
        sel = np.flatnonzero(kinds == FROZEN)
        if sel.size:
            names = [self.opp_name[i] for i in rows[sel]]
            for name in sorted(set(names)):
                part = sel[[n == name for n in names]]
                out[part] = self._network_actions(rows[part], *self.frozen[name])
        if remote:
            out[per_game] = self._workers.gather()
            return out
        for j in per_game:
            p = self.mirror[rows[j]]
            out[j] = self.players[self.opp_name[rows[j]]].policy(p.info_state(p.to_act), p.legal_mask())
        return out

    def _network_actions(self, rows: np.ndarray, actor: TorchActor, deterministic: bool) -> np.ndarray:
        """The moves of a network opponent in ``rows``, one forward pass."""
        obs = self.batch.observe(1 - self.learner_seat[rows], rows)
        masks = self.batch.legal_masks(rows).astype(bool)
        return sample_masked(actor.logits(obs), masks, self._rng, deterministic)

    def _advance(self, rows: np.ndarray) -> np.ndarray:
        """Play opponent moves and forced learner moves in ``rows`` until the
        learner has a choice; returns the rows whose partie ended."""
        b = self.batch
        ended = []
        while rows.size:
            over = b.done[rows]
            if over.any():
                ended.append(rows[over])
                rows = rows[~over]
            theirs = b.to_act[rows] != self.learner_seat[rows]
            acts = np.empty(rows.size, np.int64)
            if theirs.any():
                acts[theirs] = self._opponent_actions(rows[theirs])
            mine = ~theirs
            if mine.any():
                bits = b.legal_bits()[rows[mine]]
                forced = (bits & (bits - 1)) == 0 if self.skip_forced else np.zeros(bits.size, bool)
                # a forced move's action: the index of its one bit
                acts[np.flatnonzero(mine)[forced]] = np.log2(bits[forced].astype(np.float64)).astype(np.int64)
                mine[np.flatnonzero(mine)[~forced]] = False
            move = theirs | mine
            rows, acts = rows[move], acts[move]
            if rows.size:
                self._apply(rows, acts)
        return np.concatenate(ended) if ended else np.empty(0, np.int64)

    # ------------------------------------------------------------ VecEnv API
    def reset(self):
        all_rows = np.arange(self.num_envs)
        self._deal(all_rows)
        self.reset_infos = [{"role": ROLES[s]} for s in self.learner_seat]
        return self._observe()

    def _observe(self) -> np.ndarray:
        seats = self.learner_seat
        self._masks = self.batch.legal_masks().astype(bool)
        if self._full is not None:
            self.batch.full_deal(seats, out=self._full)
        obs = self.batch.observe(seats)
        return np.concatenate([obs, self._full], axis=1) if self.privileged else obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(-1)

    def step_wait(self):
        n = self.num_envs
        b = self.batch
        if self._actions is None or self._actions.size != n:
            raise ValueError(f"step needs one action per game ({n})")
        rows = np.arange(n)
        self._apply(rows, self._actions)
        self._actions = None
        ended = np.sort(self._advance(rows))
        rewards = np.zeros(n, np.float32)
        dones = np.zeros(n, bool)
        infos = [{} for _ in range(n)]
        if ended.size:
            dones[ended] = True
            rewards[ended] = self._finish(ended, infos)
            self._deal(ended)
        for i in ended:
            self.reset_infos[i] = {"role": ROLES[self.learner_seat[i]]}
        return self._observe(), rewards, dones, infos

    def _finish(self, rows: np.ndarray, infos: list) -> np.ndarray:
        b = self.batch
        seats = self.learner_seat[rows]
        res = b.results(rows)
        env_r = rewards_of(res, seats, self.env_reward_mode)
        terminal = b.observe(seats, rows)
        full = b.full_deal(seats, rows) if self._full is not None else None
        if self.privileged:
            terminal = np.concatenate([terminal, full], axis=1)
        k = np.arange(rows.size)
        totals = res["totals"]
        diff = totals[k, seats] - totals[k, 1 - seats]
        out = np.empty(rows.size, np.float64)
        for j, i in enumerate(rows):
            w = res["winner"][j]
            result = "alifer" if w < 0 else _RESULT[bool(w == seats[j])]
            r = scale_reward(env_r[j], result, self.reward_mode, self.points_scale, self.tokens_scale,
                             self.points_weight)
            info = {"opponent": self.opp_name[i], "result": result,
                    "outcome": ("decided", "tie", "agreed_alifer", "forfeit")[res["outcome"][j]],
                    "role": ROLES[seats[j]], "points_diff": int(diff[j]), "tokens": int(res["tokens"][j, seats[j]]),
                    "env_reward": float(env_r[j]), "terminal_observation": terminal[j]}
            if full is not None:
                info["terminal_full_deal"] = full[j]
            if self.alifer_value == "replay" and self.reward_mode != "tokens":
                kind = pool_member(self.opp_name[i])
                v = self.replay_value.get(kind, 0.0)
                if result == "alifer":
                    r = v
                else:
                    self.replay_value[kind] = v + self.alifer_ema * (r - v)
                info["replay_value"] = v
            out[j] = r
            infos[i] = info
        return out

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, ``(N, 49)`` bool."""
        return self._masks.copy()

    def full_deals(self) -> np.ndarray:
        """The privileged vectors of the current observations, ``(N, 108)``
        (``full_deal=True`` only)."""
        if self._full is None:
            raise RuntimeError("full_deals() needs BatchedSelfPlayVecEnv(full_deal=True)")
        return self._full.copy()

    def close(self) -> None:
        if self._workers is not None:
            self._workers.close()
            self._workers = None

    def _indices(self, indices) -> list:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)

    def get_attr(self, attr_name: str, indices=None) -> list:
        value = getattr(self, attr_name)
        return [value] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        """``action_masks`` gives one mask per game; any other method (e.g.
        ``add_snapshot``) is called once, for all games."""
        idx = self._indices(indices)
        if method_name == "action_masks":
            return list(self._masks[idx])
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result] * len(idx)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list:
        return [False] * len(self._indices(indices))

    def seed(self, seed: int | None = None):
        self._rng = np.random.default_rng(seed)
        BatchPartie.seed_random(int(self._rng.integers(2**31)))
        return [seed] * self.num_envs
