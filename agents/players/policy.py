"""``policy``: a trained MaskablePPO checkpoint (``train/``) as a player.

    make_player("policy")                        # the shipped model, endgame search with the shipped belief
    make_player("policy:runs/x/best.zip")        # any checkpoint
    make_player("policy:endgame=0")              # the network alone
    make_player("policy:runs/x/best.zip,sample=true")

The checkpoint is checked before use (``trappola.agents.model_io.checkpoint_format``): a missing
file, a corrupt file, or one whose action table or observation layout
differs from this code's is refused with a ``ValueError`` saying which.
Without a path the player loads the model shipped inside the package
(``agents/models/default.zip``, found through ``importlib.resources``, so
it works wherever the package is installed); a path the user gives is
resolved from the working directory.

Card play: the policy network's actor, run in numpy (well under 1 ms per
decision on one core), greedy by default (``sample=true`` samples from
its distribution with the player's seeded ``rng``). The observation is
the ``trappola_v0`` vector, built from the seat's ``InfoState`` alone.

Endgame search (``endgame=K``, default 6; ``endgame=0`` turns it off):
once the seat's hand holds ``K`` cards or fewer, every turn in which it may
play a card is decided by ``pimc`` with ``endgame_samples`` layouts
(``trappola.agents.players.pimc``: the card, the declarations still open, Manko, an Alifer
proposal); answers to a proposal stay the network's. The layouts are
weighted by the learned belief about the opponent's hand
(``endgame_belief``, default the shipped ``agents/models/belief.npz``;
empty for uniform layouts, ``trappola.agents.search.belief``): it reads from the
opponent's play what the uniform layouts of plain ``pimc`` ignore.
``endgame_search`` names the search (``pimc``, default; ``vecpimc1``/``vecpimc2``, ``alphamu``, ``infopimc``:
``trappola.agents.players.tree_search``, ``trappola.agents.players.infopimc``; measured in docs/results/beyond_pimc.md).
``endgame_infer`` (off by default) also weighs them by the likelihood of the
opponent's past decisions under an opponent model (``pimc``'s ``infer``,
``trappola.agents.search.inference``), with ``endgame_infer_draws``, ``endgame_infer_temp``
and ``endgame_infer_floor`` as ``pimc``'s ``infer_*`` settings. The
network is weakest in the last tricks, which a double-dummy search solves
in a few milliseconds once the hands are small; the median decision stays
well under a millisecond, since most turns are the network's or have one
legal card. The search reads the seat's ``InfoState`` only, like every
player. Measured in ``docs/results/ablation.md`` ("Endgame search", "Reading the
opponent's hand").

Pro: ``pro=learned`` (default) uses the Pro decision trained by
``python -m trappola.train.pro`` and stored in the checkpoint (``trappola.agents.pro_learned``); a checkpoint
without one falls back to the ``threshold`` rule. ``never``, ``always``, ``threshold``
and ``random`` are the shared rules of ``trappola.agents.pro_rules``.
"""

from __future__ import annotations

import importlib.util

import numpy as np

from trappola.agents import registry
from trappola.agents.base import Player
from trappola.agents.model_io.model_files import DEFAULT_MODEL, load_checkpoint_policy
from trappola.agents.players.pimc import PimcPlayer
from trappola.agents.pro_learned import pro_policy_from_dict
from trappola.agents.pro_rules import PRO_MODES, ProRule
from trappola.agents.settings import NAMED_MODEL, LazyChoices, Setting, Values
from trappola_env.engine.actions import CARD_ACTIONS, NO_PRO, PRO
from trappola_env.extras import missing_dependency
from trappola_env.interface import ProView, TurnView
from trappola_env.observation import OBS_SIZE, encode_info
from trappola_env.trappola_v0 import mask_array

_PRO_BITS = (1 << PRO) | (1 << NO_PRO)
#: ``endgame_search`` choices: the searches the registered players offer (their ``ENDGAME`` rows).
ENDGAME_SEARCHES = LazyChoices(lambda: registry.endgame_searches(), lambda c: registry.find_endgame(c) is not None)


def pro_view_from_bulka_obs(obs) -> ProView:
    """A ``ProView`` rebuilt from a ``bulka_v0`` observation, for a player
    driven through the environment's actions 47/48 rather than
    ``decide_pro``. The Bulka is read back from its log feature (in base
    stakes, exact up to float rounding); what the vector does not hold
    (other balances, absolute parties left) is left neutral."""
    if obs is None or len(obs) <= OBS_SIZE:
        raise ValueError("a Pro decision through act() needs the bulka_v0 observation vector")
    from trappola_env.bulka_v0 import _OFF, LOG2_SCALE

    units = 2.0 ** (float(obs[_OFF["bulka"]]) * LOG2_SCALE) - 1.0
    return ProView(
        player=0,
        players=("me", "opponent"),
        balances=(0, 0),
        streaks=(2, 0),
        bulka=round(units * 10.0, 6),
        opponent="opponent",
        parties_left=None,
    )


class PolicyPlayer(Player):
    """The ``policy`` player: a trained checkpoint's actor, with the endgame search
    and the Pro decision described in the module docstring."""

    kind = "policy"
    HELP = "a trained MaskablePPO policy checkpoint, pimc with a learned belief for its last cards"
    WEB = {
        "sample": None,
        "pro": None,
        "pro_bulka": (0, 100),
        "endgame": (0, 9),
        "endgame_samples": (1, 128),
        "endgame_belief": NAMED_MODEL,
    }
    POSITIONAL = "path"
    SETTINGS = {
        "path": Setting(str, DEFAULT_MODEL, "checkpoint .zip written by `trappola train` (default: the shipped model)"),
        "sample": Setting(bool, False, "sample moves from the policy (default: its most likely move)"),
        "pro": Setting(
            PRO_MODES + ("learned",),
            "learned",
            "when to declare Pro: learned (the checkpoint's), never, always, threshold, random",
        ),
        "pro_bulka": Setting(float, 3.0, "threshold: least Bulka, in base stakes, to declare Pro", low=0, high=1000),
        "pro_vs": Setting(str, "", "threshold: '+'-separated opponent names/kinds to declare against (empty: any)"),
        "endgame": Setting(
            int,
            6,
            "search (pimc) every turn with a card to play once the hand holds this many "
            "cards or fewer (0: never, the network alone)",
            low=0,
            high=9,
        ),
        "endgame_search": Setting(
            ENDGAME_SEARCHES,
            "pimc",
            "endgame: the search that decides those turns: pimc, vecpimc1 / vecpimc2 (vecpimc at depth 1 / 2), "
            "alphamu (alpha-mu over the last 3 cards, pimc before), infopimc (pimc pricing what its cards reveal)",
        ),
        "endgame_samples": Setting(
            int, 32, "endgame: layouts of the unseen cards solved per decision", low=1, high=4096
        ),
        "endgame_belief": Setting(
            str,
            "default",
            "endgame: learned model of the opponent's hand weighting "
            "the layouts (trappola.agents.search.belief): 'default' (shipped), a path, "
            "or empty for uniform layouts",
        ),
        "endgame_infer": Setting(
            str,
            "",
            "endgame: weight the layouts by the likelihood of the opponent's "
            "decisions (pimc's infer): empty for none, 'policy' for the "
            "shipped network, 'pimc' for the shipped model of pimc, or a path",
        ),
        "endgame_infer_draws": Setting(
            int, 128, "endgame_infer: layouts drawn and weighted per search", low=1, high=4096
        ),
        "endgame_infer_temp": Setting(
            float, 1.0, "endgame_infer: temperature of the opponent model", low=0.05, high=100
        ),
        "endgame_infer_floor": Setting(
            float, 0.0, "endgame_infer: uniform share mixed into the opponent model's probabilities", low=0, high=1
        ),
    }

    def __init__(self, **given):
        pro = given.pop("pro", "learned")
        learned = str(pro).strip().lower() == "learned"
        # Player.__init__ builds a shared ProRule, which knows no "learned" mode.
        super().__init__(**given, pro="never" if learned else pro)
        if learned:
            self.settings = self.settings.replace(pro="learned")
            self.name = self._canonical_name(self.settings)
        self.policy, self.meta = load_checkpoint_policy(self.settings.path)
        if self.policy.obs_dim != OBS_SIZE:
            raise ValueError(
                f"checkpoint {self.settings.path!r} expects {self.policy.obs_dim} inputs, "
                f"trappola_v0 observations have {OBS_SIZE}"
            )
        self.learned_pro = None
        if learned:
            spec = self.meta.get("pro_policy")
            self.learned_pro = pro_policy_from_dict(spec) if spec else None
            if self.learned_pro is None:  # a checkpoint without a learned Pro decision: the shared threshold rule
                self.pro_rule = ProRule.from_settings({**self.settings, "pro": "threshold"})
        self._np_rng = np.random.default_rng(0)
        self._searcher = self._endgame_searcher(self.settings)

    @staticmethod
    def _endgame_searcher(settings: Values) -> PimcPlayer | None:
        if not settings.endgame:
            return None
        if importlib.util.find_spec("numba") is None:  # else the first endgame turn would fail mid-partie
            needs = missing_dependency("the policy player's endgame search", "numba")
            raise ValueError(f"{needs}; policy:endgame=0 plays the network alone")
        found = registry.find_endgame(settings.endgame_search)
        if found is None:
            raise ValueError(f"no player offers the endgame search {settings.endgame_search!r}")
        cls, extra = found
        if not issubclass(cls, PimcPlayer):  # the endgame asks the searcher for its layouts' values
            raise ValueError(f"endgame search {settings.endgame_search!r}: {cls.__name__} is not a pimc player")
        return cls(
            **extra,
            samples=settings.endgame_samples,
            belief=settings.endgame_belief,
            infer=settings.endgame_infer,
            infer_draws=settings.endgame_infer_draws,
            infer_temp=settings.endgame_infer_temp,
            infer_floor=settings.endgame_infer_floor,
        )

    @property
    def endgame_searcher(self) -> PimcPlayer | None:
        """The ``pimc`` player (or the ``endgame_search`` subclass) that decides endgame turns, or None."""
        return self._searcher

    @classmethod
    def _canonical_name(cls, values: Values) -> str:
        """``policy[:path][,key=value...]`` with defaults left out, the
        registry's spec format (``make_player(player.name)`` rebuilds it)."""
        items = [str(values["path"])] if values["path"] != DEFAULT_MODEL else []
        for k, s in cls.SETTINGS.items():
            if k != "path" and values[k] != s.default:
                v = values[k]
                items.append(f"{k}={str(v).lower() if isinstance(v, bool) else v}")
        return cls.kind + (":" + ",".join(items) if items else "")

    @classmethod
    def from_numpy(cls, policy, meta: dict | None = None, name: str = "learner", **settings) -> PolicyPlayer:
        """A player around an in-memory ``NumpyPolicy`` (training-time
        evaluation): no file involved, and the network alone unless
        ``endgame`` says otherwise, since a run evaluates what it trains."""
        import random

        self = cls.__new__(cls)
        self.settings = cls._validate({"pro": "threshold", "endgame": 0, **settings})
        self.name = name
        self.rng = random.Random(0)
        self.policy, self.meta = policy, meta or {}
        self.learned_pro = None
        self.pro_rule = ProRule.from_settings(self.settings)
        self._np_rng = np.random.default_rng(0)
        self._searcher = cls._endgame_searcher(self.settings)
        return self

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._np_rng = np.random.default_rng(self.rng.getrandbits(32))
        if self._searcher is not None:
            self._searcher.reset(self.rng.getrandbits(32))

    def act(self, view: TurnView) -> int:
        """The network's move, or the endgame search's once the hand is small enough."""
        mask = view.legal_mask
        if mask & (mask - 1) == 0:  # one legal action: nothing to decide
            return mask.bit_length() - 1
        if self._searcher is not None and mask & CARD_ACTIONS and view.info.hand.bit_count() <= self.settings.endgame:
            return self._searcher.act(view)
        obs = view._observation if view._observation is not None else encode_info(view.info)
        return self.policy.act(obs[:OBS_SIZE], mask_array(mask), self._np_rng, deterministic=not self.settings.sample)

    def act_observation(self, obs, action_mask) -> int:
        """An action straight from an environment observation: a
        ``trappola_v0`` or ``bulka_v0`` vector and its 49-entry mask. In a
        ``bulka_v0`` Pro decision (only 47/48 legal) the Pro rule answers.
        The vector does not say which layouts are consistent with the record,
        so a player with ``endgame`` search refuses it: use ``act``."""
        if self._searcher is not None:
            raise ValueError(
                f"{self.name} searches the endgame, which needs the seat's InfoState: "
                "call act(view), not act_observation"
            )
        legal = np.asarray(action_mask, dtype=bool)
        bits = sum(1 << int(a) for a in np.flatnonzero(legal))
        if bits and bits & _PRO_BITS == bits:
            return PRO if self.decide_pro(pro_view_from_bulka_obs(obs)) else NO_PRO
        if bits & (bits - 1) == 0:
            return bits.bit_length() - 1
        return self.policy.act(
            np.asarray(obs, np.float32)[:OBS_SIZE], legal, self._np_rng, deterministic=not self.settings.sample
        )

    def decide_pro(self, view: ProView) -> bool:
        """The checkpoint's learned Pro decision with ``pro=learned``, else the ``ProRule``."""
        if self.learned_pro is not None:
            return self.learned_pro.decide(view)
        return self.pro_rule.decide(view, self.rng)


__all__ = ["PolicyPlayer", "pro_view_from_bulka_obs", "load_checkpoint_policy", "DEFAULT_MODEL"]
