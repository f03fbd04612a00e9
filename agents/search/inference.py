"""Reading the opponent's hand from its decisions: policy-based inference.

``pimc`` draws the layouts of the cards it cannot see uniformly among those
the record allows (``trappola.agents.search.sampling``). The opponent did not choose its
cards, declarations and Manko questions at random, though, and each choice
says something about its hand. Policy-based inference (Rebstock, Solinas,
Buro and Sturtevant, "Policy Based Inference in Trick-Taking Card Games",
2019) weighs each layout by how likely the opponent's actual decisions were
had that layout been true: the product, over its past decisions, of an
opponent model's probability of the action it took, evaluated from the
information state the opponent had then in that layout.

Here the opponent model is a trained actor (``NumpyPolicy``: the shipped
network, or any checkpoint). For each layout the opponent's past
observations are rebuilt by replaying the public record (``InfoState.history``,
every action in order) in the batched engine (``trappola_env.batch``), one
party per layout: this seat's dealt hand, the layout's opponent dealt hand
(its current hand plus the cards it has played) and the rest in the stock.
At each of the opponent's past decisions the engine gives its observation
and legal mask in every layout at once (numba), so the legal mask itself
carries evidence: a hand that could have declared Aces and did not, or a
hand that had to follow suit. Only two fields of those observations depend
on the layout, the opponent's hand and dealt hand (72 inputs); the rest is
the public record, the same in every layout. The network's first layer is
therefore computed once per decision for the public part and once per layout
for the 72 hand inputs, and the remaining layers run on all layouts and
decisions in one batch.

The record's hard constraints hold in every layout drawn (``trappola.agents.search.sampling``);
inference only reweighs them. Nothing but the seat's ``InfoState`` and the
hypothesised layouts enters the replay (the tests swap hidden cards and check
that the weights do not move).

Two knobs make the model robust to an opponent that plays differently from
it: ``temperature`` divides the logits (above 1 trusts the model less), and
``floor`` mixes each probability with the uniform choice among the legal
actions, so no layout is ruled out by one surprising move.
"""

from __future__ import annotations

from importlib import resources

import numpy as np

from trappola.agents.model_io.model_files import load_checkpoint_policy
from trappola.agents.model_io.numpy_policy import NumpyPolicy
from trappola_env.batch import BatchPartie
from trappola_env.engine.actions import N_ACTIONS, PROPOSE_ALIFER
from trappola_env.engine.cards import N_CARDS
from trappola_env.engine.infostate import InfoState
from trappola_env.observation import OBS_SIZE

#: ``infer`` values naming a model shipped in ``agents/models/``: the shipped
#: network itself, and that network fitted to imitate ``pimc:samples=32``
#: (``python -m trappola.train.fit.opponent_model``, ``make opponent``).
SHIPPED_OPPONENT_MODELS = {"policy": "default.zip", "pimc": "opponent_pimc.zip"}
_HAND_INPUTS = 2 * N_CARDS  # the observation's ``hand`` and ``dealt_hand`` fields come first
_ALL = (1 << N_CARDS) - 1
_BITS = np.arange(N_CARDS, dtype=np.int64)


class PolicyInference:
    """Log-likelihood of the opponent's past decisions per layout.

    ``policy``: the opponent model (the actor of a checkpoint);
    ``temperature`` > 0 divides its logits; ``floor`` in [0, 1] mixes each
    probability with the uniform one over the legal actions:
    ``(1 - floor) * p_model + floor / legal``."""

    def __init__(self, policy: NumpyPolicy, temperature: float = 1.0, floor: float = 0.0):
        if not temperature > 0:
            raise ValueError(f"temperature must be > 0, got {temperature!r}")
        if not 0.0 <= floor <= 1.0:
            raise ValueError(f"floor must lie in [0, 1], got {floor!r}")
        if not policy.layers:
            raise ValueError("the opponent model needs at least one hidden layer")
        self.policy = policy
        self.temperature = float(temperature)
        self.floor = float(floor)
        w0, b0 = policy.layers[0]
        self._w_hand = np.ascontiguousarray(w0[:, :_HAND_INPUTS].T)  # (72, width)
        self._w_public = np.ascontiguousarray(w0[:, _HAND_INPUTS:].T)
        self._b0 = b0

    def decisions(self, info: InfoState, hands: np.ndarray):
        """Replay the record once per layout; returns ``(hand_inputs,
        public, masks, actions, possible)``: for each past decision of the
        opponent with a choice in at least one layout, the layout-dependent
        observation inputs (its hand and dealt hand) ``(T, L, 72)``, the rest
        of its observation, the same in every layout, ``(T, 275)``, its legal
        masks ``(T, L, 49)``, the action it took ``(T,)``; and per layout
        whether the record is legal in it at all (a layout that contradicts
        it gets probability 0)."""
        hands = np.ascontiguousarray(hands, dtype=np.int64).reshape(-1)
        n = hands.size
        opp = 1 - info.seat
        hand_inputs, public, masks, actions = [], [], [], []
        possible = np.ones(n, dtype=bool)
        if n and any(seat == opp for seat, _ in info.history):
            b = BatchPartie(n, ace_declaration=info.ace_declaration)
            b.deal(orders=_orders(info, hands), multipliers=info.multiplier)
            rows = np.arange(n, dtype=np.int64)
            for seat, action in info.history:
                live = rows[possible]
                if not live.size:
                    break
                legal = b.legal_masks(live)
                if not info.alifer_allowed:  # the batched engine always offers the proposal
                    legal[:, PROPOSE_ALIFER] = 0
                if seat == opp and (legal.sum(axis=1) > 1).any():
                    o = b.observe(opp, live)
                    h = np.zeros((n, _HAND_INPUTS), np.float32)
                    m = np.zeros((n, N_ACTIONS), np.int8)
                    h[live] = o[:, :_HAND_INPUTS]
                    m[live] = legal
                    hand_inputs.append(h)
                    public.append(o[0, _HAND_INPUTS:])
                    masks.append(m)
                    actions.append(action)
                ok = legal[:, action] == 1
                possible[live[~ok]] = False
                live = live[ok]
                if live.size:
                    b.step(np.full(live.size, action, np.int64), live)
        if not actions:
            return (
                np.zeros((0, n, _HAND_INPUTS), np.float32),
                np.zeros((0, OBS_SIZE - _HAND_INPUTS), np.float32),
                np.zeros((0, n, N_ACTIONS), np.int8),
                np.zeros(0, np.int64),
                possible,
            )
        return np.stack(hand_inputs), np.stack(public), np.stack(masks), np.asarray(actions, np.int64), possible

    def log_likelihood(self, info: InfoState, hands: np.ndarray) -> np.ndarray:
        """Per layout (``hands``: the opponent's current hand, int64 bit
        sets), the log-probability of the opponent's past decisions under
        the model; ``-inf`` for a layout the record rules out."""
        hand_inputs, public, masks, actions, possible = self.decisions(info, hands)
        out = np.zeros(possible.size)
        if actions.size:
            out += self._log_probs(hand_inputs, public, masks, actions).sum(axis=0)
        out[~possible] = -np.inf
        return out

    def layout_weights(self, info: InfoState, hands: np.ndarray) -> np.ndarray:
        """Normalised weights of the layouts, proportional to the likelihood
        of the opponent's decisions (uniform when it has made none)."""
        return normalise(self.log_likelihood(info, hands))

    def _log_probs(self, hand_inputs, public, masks, actions) -> np.ndarray:
        """log P(action taken) per decision and layout ``(T, L)``, in one batch."""
        t, n, _ = hand_inputs.shape
        x = (hand_inputs.reshape(t * n, _HAND_INPUTS) @ self._w_hand).reshape(t, n, -1)
        x += (public @ self._w_public + self._b0)[:, None, :]
        x = self.policy._act(x.reshape(t * n, -1))
        for w, b in self.policy.layers[1:]:
            x = self.policy._act(x @ w.T + b)
        w, b = self.policy.head
        z = (x @ w.T + b).astype(np.float64) / self.temperature
        legal = masks.reshape(t * n, -1).astype(bool)
        z = np.where(legal, z, -np.inf)
        top = z.max(axis=1, keepdims=True)
        top = np.where(np.isfinite(top), top, 0.0)  # rows of layouts already ruled out: no legal action stored
        with np.errstate(divide="ignore", invalid="ignore"):
            logsum = np.log(np.exp(z - top).sum(axis=1)) + top[:, 0]
            taken = z[np.arange(t * n), np.repeat(actions, n)] - logsum
            if self.floor > 0:
                taken = np.log((1 - self.floor) * np.exp(taken) + self.floor / np.maximum(legal.sum(axis=1), 1))
        # A ruled-out layout's rows are empty; ``possible`` gives it -inf instead.
        taken = np.where(legal.any(axis=1), taken, 0.0)
        return taken.reshape(t, n)


def load_inference(spec: str, temperature: float = 1.0, floor: float = 0.0) -> PolicyInference:
    """The inference of ``pimc:infer=spec``: ``policy`` models the opponent
    with the shipped network, ``pimc`` with the shipped model of
    ``pimc:samples=32``, any other value is a checkpoint path."""
    if spec in SHIPPED_OPPONENT_MODELS:
        spec = str(resources.files("trappola.agents") / "models" / SHIPPED_OPPONENT_MODELS[spec])
    policy, _ = load_checkpoint_policy(spec)
    return PolicyInference(policy, temperature, floor)


def normalise(log_weights: np.ndarray) -> np.ndarray:
    """Weights summing to 1 from log-weights (``-inf`` allowed; all
    ``-inf`` gives uniform weights, as if there were no evidence)."""
    lw = np.asarray(log_weights, dtype=np.float64)
    top = lw.max() if lw.size else 0.0
    if not np.isfinite(top):
        return np.full(lw.size, 1.0 / max(lw.size, 1))
    w = np.exp(lw - top)
    return w / w.sum()


def effective_sample_size(weights: np.ndarray) -> float:
    """Kish's effective sample size of normalised weights: ``1 / sum w^2``."""
    w = np.asarray(weights, dtype=np.float64)
    return float(1.0 / (w @ w)) if w.size else 0.0


def _orders(info: InfoState, hands: np.ndarray) -> np.ndarray:
    """One deck order per layout for ``BatchPartie.deal``: the seat's dealt
    hand, the layout's opponent dealt hand (its hand plus the cards it has
    played) and the other unseen cards in the stock, the face-up card last."""
    n = hands.size
    opp = 1 - info.seat
    opp_played = 0
    for seat, action in info.history:
        if seat == opp and action < N_CARDS:
            opp_played |= 1 << action
    opp_dealt = hands | opp_played
    mine = np.full(n, info.dealt, np.int64)
    stock = (_ALL & ~(info.dealt | 1 << info.bottom)) & ~opp_dealt
    ch, de = (mine, opp_dealt) if info.seat == 0 else (opp_dealt, mine)

    def ids(bits: np.ndarray, k: int) -> np.ndarray:
        m = (bits[:, None] >> _BITS) & 1
        if (m.sum(axis=1) != k).any():
            raise ValueError(f"a layout does not leave {k} cards where it should: not a hand of the record")
        return np.nonzero(m)[1].reshape(n, k)

    c, d = ids(ch, 9), ids(de, 9)
    out = np.empty((n, N_CARDS), np.int64)
    for p in range(3):
        out[:, 6 * p : 6 * p + 3] = c[:, 3 * p : 3 * p + 3]
        out[:, 6 * p + 3 : 6 * p + 6] = d[:, 3 * p : 3 * p + 3]
    out[:, 18:35] = ids(stock, 17)
    out[:, 35] = info.bottom
    return out


__all__ = ["PolicyInference", "SHIPPED_OPPONENT_MODELS", "effective_sample_size", "load_inference", "normalise"]
