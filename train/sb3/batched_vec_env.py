"""``BatchedSelfPlayVecEnv``: N self-play games in one process, as one SB3
``VecEnv`` for sb3-contrib's MaskablePPO.

The games live in one ``trappola_env.batch.BatchPartie``; each ``step``
applies the learner's N actions together and then plays, round by round,
every opponent move and every forced learner move, until in each game the
learner has a choice again or the partie is over (a finished game is
dealt again at once, SB3's automatic reset).

* Opponents, drawn per episode from ``pool`` by weight by the self-play
  core's ``trappola.train.selfplay.pool.OpponentPool``: ``self`` (a frozen
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
* Rewards and infos are those of ``SelfPlayEnv``, from the same core
  (``trappola.train.selfplay``: the reward modes, the learner's reward
  whoever ends the partie, the Alifer value of a replay as a running mean
  per pool member, forced moves skipped);
  the end-of-episode info has ``opponent``, ``result``, ``outcome``,
  ``role``, ``points_diff``, ``tokens``, ``env_reward`` (and
  ``replay_value``), so ``SelfPlayCallback`` logs per opponent kind.
* ``players``: extra per-game players by pool name (``trappola.agents.base.Player``
  objects), for members that are not registered players.
* ``opponent_workers=K``: those per-game players run in ``K`` worker
  processes (``trappola.train.selfplay.opponent_workers``) while this one moves the batched
  opponents; 0 (default) plays them here, one after the other.
* ``action_masks()`` gives the learner's legal actions, ``(N, 49)`` bool.
* ``full_deal=True``: ``full_deals()`` gives, for the current
  observations, the privileged vector of ``full_deal.encode_full_deal``
  (``(N, 108)``) for a critic that may see the deal; a finished game's is
  in its info under ``terminal_full_deal``. The actor's input stays the
  ``trappola_v0`` observation.
* ``set_options({"deal": ..., "dealer": ...})`` (SB3's reset options)
  deals the next ``reset`` as ``SelfPlayEnv.reset(options=...)`` does:
  the cards by name, and "player_0" (the learner) or "player_1" as dealer.
* ``batch_networks=False`` plays a network-alone player one game at a time,
  through its ``TurnView``, like any other player.
* ``random`` opponents draw from numba's generator, which is one per
  process and seeded by the constructor: two batched environments stepped
  in turn in one process share it, so each is reproducible only on its own.
* ``privileged=True``: the observation is the ``trappola_v0`` vector
  followed by the full-deal vector, as ``SelfPlayEnv(privileged=True)``
  gives it, for ``trappola.train.sb3.privileged_policy.PrivilegedCriticPolicy``.
"""

from __future__ import annotations

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from trappola.agents.model_io.numpy_policy import NumpyPolicy
from trappola.train.networks import activation_inplace
from trappola.train.selfplay.alifer import AliferValue
from trappola.train.selfplay.forced import forced_actions
from trappola.train.selfplay.opponent_workers import OpponentWorkers
from trappola.train.selfplay.pool import OpponentPool, PlayerOpponent, pool_member
from trappola.train.selfplay.reward import RewardShaping
from trappola.train.selfplay.settings import SelfPlaySettings, settings_of
from trappola_env.batch import BatchPartie, order_of, random_orders
from trappola_env.batch.engine import rewards_of
from trappola_env.engine import Partie, deal_from_names, deal_from_order
from trappola_env.engine.actions import N_ACTIONS
from trappola_env.full_deal import FULL_DEAL_SIZE
from trappola_env.observation import OBS_SIZE
from trappola_env.spaces_and_rewards import ROLES

RANDOM, PLAYER, NETWORK = 0, 1, 2
_RESULT = {True: "win", False: "loss"}


class TorchActor:
    """A snapshot's actor run by torch on the weights of its ``NumpyPolicy``
    (shared, not copied). The learner's torch threads then do this forward
    pass too: numpy's BLAS would start threads of its own, and the two
    pools would fight over the cores (on 2 cores the rollout ran at less
    than half its speed). On ``device="cuda"`` the weights are copied to
    the GPU once and each forward pass sends the observations there.

    :param policy: the actor whose weights are run
    :param device: the torch device of the forward passes (the learner's)
    """

    def __init__(self, policy: NumpyPolicy, device: str = "cpu"):
        self.device = torch.device(device)
        self.layers = [
            (torch.from_numpy(w).to(self.device), torch.from_numpy(b).to(self.device))
            for w, b in [*policy.layers, policy.head]
        ]
        self.act = activation_inplace(policy.activation)

    @torch.no_grad()
    def logits(self, obs: np.ndarray) -> np.ndarray:
        """The actor's logits.

        :param obs: observations, ``(N, obs_dim)``
        :return: logits, ``(N, 49)``
        """
        x = torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32)).to(self.device)
        for i, (w, b) in enumerate(self.layers):
            x = torch.addmm(b, x, w.T)
            if i < len(self.layers) - 1:
                x = self.act(x)
        return x.cpu().numpy()


def sample_masked(logits: np.ndarray, masks: np.ndarray, rng: np.random.Generator, deterministic: bool) -> np.ndarray:
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
    """See the module docstring.

    :param n_envs: the number of games
    :param pool: pool member -> weight (``trappola.train.selfplay.pool.OpponentPool``); default ``{"rule": 1.0}``
    :param seed: fixes the deals, roles, opponent draws and the opponents' randomness
    :param full_deal: keep the privileged vectors (``full_deals()``)
    :param players: pool name -> ``trappola.agents.base.Player``, for members already built
    :param opponent_workers: per-game players in this many worker processes (0: here)
    :param batch_networks: move a player that is a network alone in one forward pass over
        its games; False plays it one game at a time, as any player (the reference of the batching)
    :param device: the torch device of those batched forward passes (snapshots, exploiters,
        frozen networks): the learner's
    :param env_threads: cores of the batched engine (``BatchPartie(threads=...)``; 0: every core);
        the games are the same with any number
    :param settings: the self-play settings (``trappola.train.selfplay.settings.SelfPlaySettings``);
        ``changes``: fields of it to change (``reward_mode="win"``)"""

    def __init__(
        self,
        n_envs: int,
        pool: dict | None = None,
        settings: SelfPlaySettings | None = None,
        seed: int | None = None,
        full_deal: bool = False,
        players: dict | None = None,
        opponent_workers: int = 0,
        batch_networks: bool = True,
        device: str = "cpu",
        env_threads: int = 1,
        **changes,
    ):
        s = settings_of(settings, changes)
        self.settings = s
        self.reward = RewardShaping(s.reward_mode, s.points_scale, s.tokens_scale, s.points_weight)
        self.alifer = AliferValue(s.alifer_value, s.reward_mode, s.alifer_ema)
        self.batch = BatchPartie(n_envs, threads=env_threads)  # first: the engine checks the number of games
        if isinstance(opponent_workers, bool) or not isinstance(opponent_workers, int) or opponent_workers < 0:
            raise ValueError(f"opponent_workers must be an int >= 0, got {opponent_workers!r}")
        self.render_mode = None
        self.privileged = bool(s.privileged)
        full_deal = full_deal or self.privileged
        size = OBS_SIZE + (FULL_DEAL_SIZE if self.privileged else 0)
        super().__init__(n_envs, spaces.Box(0.0, 1.0, (size,), np.float32), spaces.Discrete(N_ACTIONS))
        self.pool = OpponentPool(
            dict(pool or {"rule": 1.0}), s.pool_size, s.snapshot_latest_prob, s.opponent_deterministic, players
        )
        self.skip_forced = s.skip_forced
        self.device = device
        self._rng = np.random.default_rng(seed)
        BatchPartie.seed_random(int(self._rng.integers(2**31)))
        self.players = {}  # pool name -> PlayerOpponent, for members that play one game at a time
        # pool name -> (TorchActor, deterministic): frozen networks, batched like the snapshots
        self.frozen: dict[str, tuple[TorchActor, bool]] = {}
        seeds = {}
        for name, player in self.pool.players.items():
            if name == "random":  # batched, in compiled code
                continue
            seeds[name] = int(self._rng.integers(2**31))
            network = frozen_network(player) if batch_networks else None
            if network is not None:
                self.frozen[name] = (TorchActor(network[0], device), network[1])
                continue
            opp = PlayerOpponent(player, name)
            opp.reset(seeds[name])
            self.players[name] = opp
        self._workers: OpponentWorkers | None = None
        if opponent_workers and self.players:
            self._workers = OpponentWorkers({k: v.player for k, v in self.players.items()}, seeds, opponent_workers)
        self._actors: dict[str, tuple[TorchActor, bool]] = {}  # snapshots and exploiters, by name
        n = n_envs
        self.learner_seat = np.zeros(n, np.int64)
        self.opp_kind = np.zeros(n, np.int64)
        self.opp_name = [""] * n
        # a network opponent's number (name -> number, in order of first play), to group its games
        self.opp_net = np.zeros(n, np.int64)
        self._net_ids: dict[str, int] = {}
        self._net_names: list[str] = []
        self.mirror: list[Partie | None] = [None] * n
        self._masks = np.zeros((n, N_ACTIONS), bool)
        self._full = np.zeros((n, FULL_DEAL_SIZE), np.float32) if full_deal else None
        self._actions: np.ndarray | None = None

    @property
    def replay_value(self) -> dict:
        """The running value of a replay (an Alifer) per pool member."""
        return self.alifer.values

    # ------------------------------------------------------------ the pool
    def add_snapshot(self, weights: dict) -> None:
        """Push a frozen learner snapshot into the pool (the newest
        ``pool_size`` are kept; games under way keep their opponent).

        :param weights: ``NumpyPolicy.get_weights()`` of the learner's actor
        """
        self._network_added(self.pool.add_snapshot(weights, keep=self.opp_name))

    def add_exploiter(self, weights: dict) -> None:
        """Push a frozen exploiter (a best response trained against the
        learner, ``trappola.train.sb3.exploiters``) into the pool member ``exploiter``:
        greedy, batched like the snapshots; the newest ``pool_size`` are
        kept, drawn uniformly, and games under way keep their opponent.

        :param weights: ``NumpyPolicy.get_weights()`` of the exploiter's actor
        """
        self._network_added(self.pool.add_exploiter(weights, keep=self.opp_name))

    def _network_added(self, name: str) -> None:
        entry = self.pool.network(name)
        assert entry is not None  # the pool has just added it
        policy, deterministic = entry
        self._actors[name] = (TorchActor(policy, self.device), deterministic)
        for old in [k for k in self._actors if self.pool.network(k) is None]:
            del self._actors[old]

    def _draw(self, rows: np.ndarray) -> None:
        for i, name in zip(rows, self.pool.draw(self._rng, rows.size), strict=True):
            self.mirror[i] = None
            self.opp_name[i] = name
            if name in self._actors or name in self.frozen:
                self.opp_kind[i] = NETWORK
                if name not in self._net_ids:
                    self._net_ids[name] = len(self._net_names)
                    self._net_names.append(name)
                self.opp_net[i] = self._net_ids[name]
            elif name == "random":
                self.opp_kind[i] = RANDOM
            else:
                self.opp_kind[i] = PLAYER

    # ------------------------------------------------------------- dealing
    def _deal(self, rows: np.ndarray, options: list | None = None) -> None:
        orders = random_orders(self._rng, rows.size)
        seats = self._rng.random(rows.size) < 0.5  # the learner deals (seat 1)
        for j, i in enumerate(rows):
            if options and options[i]:
                orders[j], seats[j] = _deal_options(options[i], orders[j], seats[j])
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
            per_game = self.opp_kind[rows] == PLAYER
            for i, a in zip(rows[per_game], actions[per_game], strict=True):
                self.mirror[i].apply(int(a))

    def _opponent_actions(self, rows: np.ndarray) -> np.ndarray:
        out = np.empty(rows.size, np.int64)
        kinds = self.opp_kind[rows]
        per_game = np.flatnonzero(kinds == PLAYER)
        workers = self._workers if per_game.size > 0 else None
        if workers is not None:
            # the workers play these while this process moves the batched opponents
            views = [self.mirror[rows[j]] for j in per_game]
            workers.submit(
                rows[per_game],
                [self.opp_name[rows[j]] for j in per_game],
                [p.info_state(p.to_act) for p in views],
                [p.legal_mask() for p in views],
            )
        sel = kinds == RANDOM
        if sel.any():
            out[sel] = self.batch.random_actions(rows[sel])
        sel = np.flatnonzero(kinds == NETWORK)
        if sel.size:
            ids = self.opp_net[rows[sel]]
            for k in np.unique(ids):
                part = sel[ids == k]
                name = self._net_names[k]
                out[part] = self._network_actions(rows[part], *(self._actors.get(name) or self.frozen[name]))
        if workers is not None:
            out[per_game] = workers.gather()
            return out
        for j in per_game:
            p = self.mirror[rows[j]]
            out[j] = self.players[self.opp_name[rows[j]]].policy(p.info_state(p.to_act), p.legal_mask())
        return out

    def _network_actions(self, rows: np.ndarray, actor: TorchActor, deterministic: bool) -> np.ndarray:
        """The moves of a network opponent in ``rows``, one forward pass
        over its seat's observations (encoded from its information state)."""
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
                if self.skip_forced:
                    forced, moves = forced_actions(b.legal_bits()[rows[mine]])
                    acts[np.flatnonzero(mine)[forced]] = moves
                    mine[np.flatnonzero(mine)[~forced]] = False
                else:
                    mine[:] = False
            move = theirs | mine
            rows, acts = rows[move], acts[move]
            if rows.size:
                self._apply(rows, acts)
        return np.concatenate(ended) if ended else np.empty(0, np.int64)

    # ------------------------------------------------------------ VecEnv API
    def reset(self):
        """Deal every game again; the options of ``set_options`` (``deal``:
        the cards as ``trappola_v0``'s reset option, ``dealer``: "player_0"
        for the learner) apply to this reset only.

        :return: the learner's observations
        """
        all_rows = np.arange(self.num_envs)
        self._deal(all_rows, self._options)
        self._reset_options()
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
        env_r = rewards_of(res, seats, self.reward.env_mode)
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
            r, value = self.alifer.score(pool_member(self.opp_name[i]), self.reward(env_r[j], result), result)
            info = {
                "opponent": self.opp_name[i],
                "result": result,
                "outcome": ("decided", "tie", "agreed_alifer", "forfeit")[res["outcome"][j]],
                "role": ROLES[seats[j]],
                "points_diff": int(diff[j]),
                "tokens": int(res["tokens"][j, seats[j]]),
                "env_reward": float(env_r[j]),
                "terminal_observation": terminal[j],
            }
            if full is not None:
                info["terminal_full_deal"] = full[j]
            if value is not None:
                info["replay_value"] = value
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


def _deal_options(options: dict, order: np.ndarray, learner_deals: bool) -> tuple:
    """A game's deck order and learner seat under reset options (``deal``,
    ``dealer``, as ``SelfPlayEnv.reset`` takes them)."""
    unknown = set(options) - {"deal", "dealer"}
    if unknown:
        raise ValueError(f"unknown reset options {sorted(unknown)}; the batched VecEnv takes 'deal' and 'dealer'")
    if "deal" in options:
        order = np.asarray(order_of(deal_from_names(options["deal"])))
    if "dealer" in options:
        if options["dealer"] not in ("player_0", "player_1"):
            raise ValueError(f"options['dealer'] must be 'player_0' or 'player_1', got {options['dealer']!r}")
        learner_deals = options["dealer"] == "player_0"
    return order, learner_deals
