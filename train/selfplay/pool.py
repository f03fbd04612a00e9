"""The opponent pool of self-play, shared by every adapter.

Members, by weight: ``self`` (frozen snapshots of the learner, pushed in
with ``add_snapshot``; the newest ``size`` are kept, and ``self`` plays the
latest with probability ``latest_prob``, else one uniformly), ``exploiter``
(frozen best responses to the learner, ``add_exploiter``: greedy, the
newest ``size`` kept, drawn uniformly) and any registered computer
player's spec ("rule", "random", "pimc:samples=4", "policy"...) or a
player handed in by name. Until a snapshot (an exploiter) exists, ``self``
(``exploiter``) falls back to the other members.

Every opponent decides from its seat's information state only: a player
through its ``TurnView`` (``PlayerOpponent``), a network from the
observation vector of its seat, which is encoded from that state. An
adapter may move the network opponents of many games in one forward pass.
"""

from __future__ import annotations

import numpy as np

from trappola.agents.model_io.numpy_policy import NumpyPolicy
from trappola_env.seat_adapters import seat_policy

NETWORK_MEMBERS = ("self", "exploiter")
LEARNER_NAME = "policy"  # the opponent's name a pool player's TurnView shows: the learner


def pool_member(name: str) -> str:
    """The pool member an opponent name belongs to.

    :param name: an opponent's name: "self3", "exploiter2", "rule"...
    :return: "self" for a snapshot, "exploiter" for an exploiter, else ``name``
    """
    for member in NETWORK_MEMBERS:
        if name.startswith(member) and name[len(member) :].isdigit():
            return member
    return name


class PlayerOpponent:
    """A ``trappola.agents.base.Player`` shown its ``TurnView``.

    :param player: the player
    :param name: its name in the pool
    """

    def __init__(self, player, name: str):
        self.player = player
        self.name = name
        self.policy = seat_policy(player, LEARNER_NAME)

    def reset(self, seed: int) -> None:
        """Reset the player for a new partie.

        :param seed: its random seed
        """
        self.player.reset(seed)


def make_pool_player(spec: str, players: dict | None = None):
    """The player of a pool member.

    :param spec: the member's name: a registered computer player's spec
    :param players: name -> player, for members already built
    :return: ``players[spec]`` if given, else the registered player
    :raises ValueError: for an unknown or interactive player
    """
    if players and spec in players:
        return players[spec]
    from trappola.agents import make_player

    player = make_player(spec)
    if getattr(player, "interactive", False):
        raise ValueError(f"pool member {spec!r} must be a computer player")
    return player


class OpponentPool:
    """Draws opponents by weight (see the module docstring).

    :param weights: pool member -> weight; members with weight 0 are left out
    :param size: how many snapshots (and exploiters) are kept
    :param latest_prob: the probability that ``self`` is the latest snapshot
    :param deterministic: whether snapshots play their arg max
    :param players: name -> player, for members that are no registered player
    """

    def __init__(
        self,
        weights: dict,
        size: int = 8,
        latest_prob: float = 0.5,
        deterministic: bool = False,
        players: dict | None = None,
    ):
        self.weights = {k: float(v) for k, v in weights.items() if v > 0}
        if not self.weights:
            raise ValueError("the opponent pool needs at least one member with a positive weight")
        self.size = size
        self.latest_prob = latest_prob
        self.deterministic = deterministic
        self.players = {k: make_pool_player(k, players) for k in self.weights if k not in NETWORK_MEMBERS}
        self.snapshots: list[str] = []  # names of the snapshots in the pool, oldest first
        self.exploiters: list[str] = []  # names of the exploiters in the pool, oldest first
        self._networks: dict[str, tuple[NumpyPolicy, bool]] = {}
        self.n_snapshots = self.n_exploiters = 0

    def add_snapshot(self, weights: dict, keep=()) -> str:
        """Push a frozen learner snapshot.

        :param weights: ``NumpyPolicy.get_weights()`` of the learner's actor
        :param keep: names of networks still playing, kept even if dropped from the pool
        :return: the snapshot's name, ``self<k>``
        """
        self.n_snapshots += 1
        name = f"self{self.n_snapshots}"
        self._networks[name] = (NumpyPolicy.from_weights(weights), self.deterministic)
        self.snapshots.append(name)
        del self.snapshots[: -self.size]
        self._prune(keep)
        return name

    def add_exploiter(self, weights: dict, keep=()) -> str:
        """Push a frozen exploiter (a best response to the learner), greedy.

        :param weights: ``NumpyPolicy.get_weights()`` of its actor
        :param keep: names of networks still playing, kept even if dropped from the pool
        :return: the exploiter's name, ``exploiter<k>``
        """
        self.n_exploiters += 1
        name = f"exploiter{self.n_exploiters}"
        self._networks[name] = (NumpyPolicy.from_weights(weights), True)
        self.exploiters.append(name)
        del self.exploiters[: -self.size]
        self._prune(keep)
        return name

    def _prune(self, keep) -> None:
        live = set(self.snapshots) | set(self.exploiters) | set(keep)
        for name in [k for k in self._networks if k not in live]:
            del self._networks[name]

    def network(self, name: str) -> tuple[NumpyPolicy, bool] | None:
        """A snapshot's or exploiter's network.

        :param name: an opponent name drawn from the pool
        :return: (its policy, whether it plays its arg max); None for a player
        """
        return self._networks.get(name)

    def draw(self, rng: np.random.Generator, n: int = 1) -> list[str]:
        """Opponents for ``n`` new games.

        :param rng: the generator to draw from
        :param n: how many
        :return: their names: a snapshot's, an exploiter's or a player's
        :raises RuntimeError: when only members without a network yet are weighted
        """
        names = [k for k in self.weights if (k != "self" or self.snapshots) and (k != "exploiter" or self.exploiters)]
        if not names:
            raise RuntimeError("the pool has only 'self' and no snapshot yet; call add_snapshot first")
        w = np.array([self.weights[k] for k in names])
        picks = rng.choice(len(names), size=n, p=w / w.sum())
        latest = rng.random(n) < self.latest_prob
        older = rng.integers(len(self.snapshots) or 1, size=n)
        which = rng.integers(len(self.exploiters) or 1, size=n) if "exploiter" in names else None
        out = []
        for j in range(n):
            name = names[picks[j]]
            if name == "self":
                name = self.snapshots[-1] if len(self.snapshots) == 1 or latest[j] else self.snapshots[older[j]]
            elif name == "exploiter":
                assert which is not None  # drawn when "exploiter" is a name
                name = self.exploiters[which[j]]
            out.append(name)
        return out
