"""One seat of a Trappola partie as a single-agent Gymnasium environment,
for your own model in your own training loop.

    from sb3_contrib import MaskablePPO
    from trappola.train.selfplay.single_agent import OpponentPoolEnv

    env = OpponentPoolEnv({"rule": 0.7, "random": 0.3}, seed=0)
    model = MaskablePPO("MlpPolicy", env).learn(100_000)
    model.save("mine.zip")                 # trappola evaluate --players policy:mine.zip,rule

* Observation: the ``trappola_v0`` vector of the learner's seat (``Box(0, 1,
  (347,))``, ``trappola_env.observation``); action: ``Discrete(49)``, the
  action table of ``trappola_env.engine.actions``; ``action_masks()`` (and
  ``info["action_mask"]``) the legal ones, as sb3-contrib's masked algorithms
  read them.
* Opponents: a fixed pool of registered players (any spec: ``rule``,
  ``pimc:samples=8``, ``policy:other.zip``, ``path/to/mine.py:Class``), one
  drawn per episode by weight; each decides from its own seat's
  information, never from the environment. No snapshots of the learner: that
  is self-play, ``trappola train``'s business.
* Reward: at the end of the partie only, ``win`` mode: +1 a win, -1 a loss,
  0 an Alifer (a tie or an agreed draw; no moving average of Alifer values).
* Stable defaults: which seat deals is drawn per episode; forced moves (a
  single legal action) are played for the learner; an illegal action ends
  the episode as a lost forfeit (``illegal_action="forfeit"``), so an
  unmasked algorithm, or Gymnasium's ``check_env``, can step it.
* ``info`` at the end of an episode: ``opponent``, ``result`` ("win" |
  "loss" | "alifer"), ``points_diff``, ``tokens``.

A MaskablePPO zip trained on it plays as ``policy:PATH`` (with a one-line
warning that it has no lab metadata) or becomes a lab checkpoint with
``trappola.train.run.checkpoint.adopt(SRC, DST)``.

Version history: v0, this first public version.
"""

from __future__ import annotations

from trappola.train.selfplay.env import SelfPlayEnv
from trappola.train.selfplay.pool import NETWORK_MEMBERS


class OpponentPoolEnv(SelfPlayEnv):
    """The learner's seat against a fixed pool (see the module docstring).

    :param opponents: player spec -> weight (default: ``{"rule": 1.0}``)
    :param seed: seeds the seats, opponents and deals (``reset(seed=...)`` too)
    :param reward_mode: ``win`` (default), ``points`` or ``tokens``
        (``trappola.train.selfplay.reward``)
    :param illegal_action: ``forfeit`` (default) or ``raise``
    """

    def __init__(
        self,
        opponents: dict[str, float] | None = None,
        seed: int | None = None,
        reward_mode: str = "win",
        illegal_action: str = "forfeit",
    ):
        pool = dict(opponents or {"rule": 1.0})
        fixed = [m for m in pool if m in NETWORK_MEMBERS]
        if fixed:
            raise ValueError(f"opponents are fixed players; {', '.join(fixed)} belong to self-play (trappola train)")
        super().__init__(
            pool=pool,
            reward_mode=reward_mode,
            seed=seed,
            alifer_value="zero",
            illegal_action=illegal_action,
        )


__all__ = ["OpponentPoolEnv"]
