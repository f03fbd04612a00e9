"""The observer of ``trappola_v0``: what one seat may know, as a flat
``float32`` vector, and back.

``encode(partie, seat, out=None)`` writes the observation of ``seat``
(engine seat: 0 = challenger, 1 = dealer) of a ``Partie``; it needs no
environment, so other environments (``bulka_v0``) and search code can call
it directly. ``decode_observation(vec)`` turns a vector back into named
fields with card names, for debugging and tests.

Perspective: every per-player field is "me / opponent" (not seat-absolute),
so one policy can play both roles; the role itself is a field.

Content (and nothing else): own hand, own dealt hand, the face-up bottom
card of the stock, every card played with who played it and in which
trick, the card led to the current trick, who led and who won each
completed trick, both players' declarations with counts, Manko asked and
answered (rank and missing suit), card points so far, role, number of
completed tricks, the Alifer multiplier, a pending Alifer proposal and
whether each player already used its one proposal. The opponent's hand and
the 17 hidden stock cards never reach the vector (the opponent's played
cards are read as ``dealt & ~hand`` of the opponent, which is exactly its
public record).

All values lie in [0, 1]. The binary fields come first (bits 0..306), the
graded ones after them:

* ``played_in_trick``: ``t / 9`` for a card played in trick ``t`` (1..9,
  the current unfinished trick included), 0 for a card not played.
* ``card_points``: points of the cards in the tricks won, ``/ 72`` (all
  card points of the deck).
* ``trick_number``: completed tricks ``/ 9``.
* ``multiplier``: ``log2(m) / 16``, clipped to 1: multipliers of
  ``2**16`` (16 Alifers in a row) and above all encode as 1.0, and the
  decoder reports them as ``65536``.

``LAYOUT`` is the layout as data, a list of ``(name, offset, size)``; the
table in the ``trappola_v0`` docstring is checked against it by the tests.
``OBS_SIZE`` is its total size (347). A sibling environment that appends
its own features after ``OBS_SIZE`` can still use ``decode_observation``:
it reads the first ``OBS_SIZE`` entries.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Protocol, cast

import numpy as np
import numpy.typing as npt

from trappola_env.engine.actions import (
    ACES,
    BIANKA,
    BLANS,
    FIGURA_BUBE,
    FIGURA_CAVALL,
    FIGURA_RE,
    FIGURA_TWOS,
    MANKO,
    PROPOSE_ALIFER,
)
from trappola_env.engine.cards import BUBE, CARD_NAMES, CARD_POINTS, CAVALL, RE, SUITS, TWO, cards_of, mask_of
from trappola_env.engine.partie import ALIFER_ANSWER, Partie

if TYPE_CHECKING:
    from trappola_env.engine.infostate import InfoState

Vector = npt.NDArray[np.float32]


class _FloatView(Protocol):
    # What the encoders use of a float32 memoryview (typeshed's memoryview takes ints only).
    def __setitem__(self, i: int, v: float, /) -> None: ...


def _float_view(vec: Vector) -> _FloatView:
    # Item assignment through a memoryview is about twice as fast as through the ndarray.
    return cast(_FloatView, vec.data)


# (name, size, meaning). The order is the vector's order.
FIELDS = (
    ("hand", 36, "cards in my hand now, by card id"),
    ("dealt_hand", 36, "the 9 cards I was dealt"),
    ("stock_bottom", 36, "the face-up bottom card of the stock (one-hot)"),
    ("played_by_me", 36, "cards I have played"),
    ("played_by_opponent", 36, "cards the opponent has played"),
    ("table_lead", 36, "the card led to the current trick, if any (one-hot)"),
    ("trick_led_by_me", 9, "completed trick t was led by me"),
    ("trick_won_by_me", 9, "completed trick t was won by me"),
    ("trick_won_by_opponent", 9, "completed trick t was won by the opponent"),
    ("declared_by_me", 12, "my declarations: Re3 Re4 Cavall3 Cavall4 Bube3 Bube4 Twos3 Twos4 Aces3 Aces4 Blans Bianka"),
    ("declared_by_opponent", 12, "the opponent's declarations, same order"),
    ("manko_asked_by_me", 1, "I asked Manko"),
    ("manko_asked_by_opponent", 1, "the opponent asked Manko"),
    ("manko_answer_by_me", 16, "missing suit of my 3-card Figura, rank (Re Cavall Bube Twos) x suit (S C D B)"),
    ("manko_answer_by_opponent", 16, "missing suit of the opponent's 3-card Figura, same order"),
    ("role", 2, "one-hot: challenger, dealer"),
    ("alifer_pending", 2, "a proposal waits for an answer: proposed by me, proposed by the opponent"),
    ("alifer_proposed", 2, "already used the one Alifer proposal: me, opponent"),
    ("played_in_trick", 36, "t/9 for a card played in trick t (1..9), else 0"),
    ("card_points", 2, "card points won so far / 72: me, opponent"),
    ("trick_number", 1, "completed tricks / 9"),
    ("multiplier", 1, "log2(m) / 16, clipped to 1"),
)


def _layout() -> tuple[list[tuple[str, int, int]], int]:
    out: list[tuple[str, int, int]] = []
    off = 0
    for name, size, _ in FIELDS:
        out.append((name, off, size))
        off += size
    return out, off


LAYOUT, OBS_SIZE = _layout()
OFFSET = {name: off for name, off, _ in LAYOUT}
SIZE = {name: size for name, _, size in LAYOUT}
N_BITS = OFFSET["played_in_trick"]  # fields before it are all 0/1
MULTIPLIER_LOG2_MAX = 16
CARD_POINTS_TOTAL = sum(CARD_POINTS)  # 72

# Bit of each (declaration action, declared count) inside a declared_by_* field.
_DECL_BIT = {}
for _i, _a in enumerate((FIGURA_RE, FIGURA_CAVALL, FIGURA_BUBE, FIGURA_TWOS, ACES)):
    _DECL_BIT[(_a, 3)] = 2 * _i
    _DECL_BIT[(_a, 4)] = 2 * _i + 1
_DECL_BIT[(BLANS, 1)] = 10
_DECL_BIT[(BIANKA, 1)] = 11
_DECL_NAMES = (
    "Figura Re",
    "Figura Re",
    "Figura Cavall",
    "Figura Cavall",
    "Figura Bube",
    "Figura Bube",
    "Figura Twos",
    "Figura Twos",
    "Aces",
    "Aces",
    "Blans",
    "Bianka",
)
_DECL_COUNTS = (3, 4, 3, 4, 3, 4, 3, 4, 3, 4, None, None)
_MANKO_RANKS = (RE, CAVALL, BUBE, TWO)
_MANKO_RANK_NAMES = ("Re", "Cavall", "Bube", "Twos")
_MANKO_ROW = {r: 4 * i for i, r in enumerate(_MANKO_RANKS)}

_O_HAND = OFFSET["hand"]
_O_DEALT = OFFSET["dealt_hand"]
_O_BOTTOM = OFFSET["stock_bottom"]
_O_PME = OFFSET["played_by_me"]
_O_POPP = OFFSET["played_by_opponent"]
_O_LEAD = OFFSET["table_lead"]
_O_LED = OFFSET["trick_led_by_me"]
_O_WME = OFFSET["trick_won_by_me"]
_O_WOPP = OFFSET["trick_won_by_opponent"]
_O_DECL = (OFFSET["declared_by_me"], OFFSET["declared_by_opponent"])
_O_MASKED = (OFFSET["manko_asked_by_me"], OFFSET["manko_asked_by_opponent"])
_O_MANSWER = (OFFSET["manko_answer_by_me"], OFFSET["manko_answer_by_opponent"])
_O_ROLE = OFFSET["role"]
_O_PENDING = OFFSET["alifer_pending"]
_O_PROPOSED = OFFSET["alifer_proposed"]
_O_TRICK_OF = OFFSET["played_in_trick"]
_O_POINTS = OFFSET["card_points"]
_O_TRICKNO = OFFSET["trick_number"]
_O_MULT = OFFSET["multiplier"]
_BITS_FORMAT = f"0{N_BITS}b"
_DIGIT_TO_BYTE = bytes.maketrans(b"01", b"\x00\x01")
# Python floats equal to their float32 roundings: writing a numpy scalar
# into an array costs ten times more than writing a float.
#: The feature of trick number t (0..9): t / 9; public so that the batch kernels can be checked against it.
TRICK_VALUE = tuple(float(np.float32(t / 9)) for t in range(10))
#: Card points are encoded as points * POINT_SCALE (a share of all card points).
POINT_SCALE = 1.0 / CARD_POINTS_TOTAL
_MANKO_BIT = 1 << MANKO
_PROPOSE_BIT = 1 << PROPOSE_ALIFER


def multiplier_feature(m: int) -> float:
    """The encoded multiplier: ``log2(m) / 16`` clipped to 1 (``m >= 1``)."""
    if m < 1:
        raise ValueError(f"multiplier must be >= 1, got {m!r}")
    return min(math.log2(m) / MULTIPLIER_LOG2_MAX, 1.0)


def seat_buffer(seat: int, out: Vector | None, size: int) -> Vector:
    """Check ``seat`` (0 or 1) and return ``out`` (checked: float32 of shape
    ``(size,)``) or a new buffer of that shape, for a per-seat encoder."""
    if seat != 0 and seat != 1:
        raise ValueError(f"seat must be 0 (challenger) or 1 (dealer), got {seat!r}")
    if out is None:
        return np.empty(size, np.float32)
    if out.shape != (size,) or out.dtype != np.float32:
        raise ValueError(f"out must be a float32 array of shape ({size},), got {out.dtype} {out.shape}")
    return out


def encode(partie: Partie | _SeatView, seat: int, out: Vector | None = None) -> Vector:
    """The observation vector of ``seat`` (0 = challenger, 1 = dealer).

    ``out``, when given, must be a writable float32 array of shape
    ``(OBS_SIZE,)`` (a view into a larger buffer is fine); it is overwritten
    and returned. Otherwise a new array is returned."""
    out = seat_buffer(seat, out, OBS_SIZE)
    if not partie.history:
        # A fresh partie: a handful of ones, cheaper written one by one.
        out.fill(0.0)
        view = _float_view(out)
        for c in cards_of(partie.dealt[seat]):
            view[_O_HAND + c] = view[_O_DEALT + c] = 1.0
        view[_O_BOTTOM + partie.bottom] = view[_O_ROLE + seat] = 1.0
        view[_O_MULT] = multiplier_feature(partie.multiplier)
        return out
    opp = 1 - seat
    hands = partie.hands
    dealt = partie.dealt
    mine = dealt[seat]
    theirs = dealt[opp]
    bits = (
        hands[seat] << _O_HAND
        | mine << _O_DEALT
        | 1 << (_O_BOTTOM + partie.bottom)
        | (mine & ~hands[seat]) << _O_PME
        | (theirs & ~hands[opp]) << _O_POPP
        | 1 << (_O_ROLE + seat)
    )
    # played_in_trick: graded values, written after the bits.
    trick_cards = []
    trick_values = []
    for t, (leader, lead, follow, winner) in enumerate(partie.tricks):
        v = TRICK_VALUE[t + 1]
        trick_cards.append(lead)
        trick_cards.append(follow)
        trick_values.append(v)
        trick_values.append(v)
        if leader == seat:
            bits |= 1 << (_O_LED + t)
        bits |= 1 << ((_O_WME if winner == seat else _O_WOPP) + t)
    lead = partie.lead
    if lead >= 0:
        bits |= 1 << (_O_LEAD + lead)
        trick_cards.append(lead)
        trick_values.append(TRICK_VALUE[partie.trick + 1])
    done = partie.done
    # Every declaration, question and proposal sets a ``done`` bit of its
    # maker, so most observations skip this part.
    if done[0] or done[1]:
        counts = partie.counts
        answers = partie.manko_answer
        for who, s in ((0, seat), (1, opp)):
            if counts[s]:
                base = _O_DECL[who]
                for a, n in counts[s].items():
                    bits |= 1 << (base + _DECL_BIT[a, n])
            if done[s] & _MANKO_BIT:
                bits |= 1 << _O_MASKED[who]
            answered = answers[s]
            if answered:
                base = _O_MANSWER[who]
                for rank, suit in answered:
                    bits |= 1 << (base + _MANKO_ROW[rank] + suit)
            if done[s] & _PROPOSE_BIT:
                bits |= 1 << (_O_PROPOSED + who)
        if partie.phase == ALIFER_ANSWER:
            bits |= 1 << (_O_PENDING + (partie.alifer_proposer != seat))
    # The binary digits of ``bits``, highest first, as bytes 0/1, written
    # backwards: faster than np.unpackbits for one vector.
    out[N_BITS - 1 :: -1] = np.frombuffer(format(bits, _BITS_FORMAT).encode().translate(_DIGIT_TO_BYTE), np.uint8)
    out[N_BITS:] = 0.0
    if trick_cards:
        out[[_O_TRICK_OF + c for c in trick_cards]] = trick_values
    points = partie.card_points
    out[_O_POINTS] = points[seat] * POINT_SCALE
    out[_O_POINTS + 1] = points[opp] * POINT_SCALE
    out[_O_TRICKNO] = TRICK_VALUE[partie.trick]
    out[_O_MULT] = multiplier_feature(partie.multiplier)
    return out


class _SeatView:
    """What ``observation.encode`` reads of a ``Partie``, rebuilt from one
    seat's ``InfoState``: the opponent's "hand" is empty and its "dealt
    hand" is the cards it has played, so ``dealt & ~hand`` (all the encoder
    takes from the opponent) is its public record and nothing more."""

    __slots__ = (
        "hands",
        "dealt",
        "bottom",
        "tricks",
        "lead",
        "trick",
        "counts",
        "done",
        "manko_answer",
        "phase",
        "alifer_proposer",
        "card_points",
        "multiplier",
        "history",
    )

    def __init__(self, info: InfoState):
        seat = info.seat
        opp_played = mask_of(info.played_by(1 - seat))
        self.hands = (info.hand, 0) if seat == 0 else (0, info.hand)
        self.dealt = (info.dealt, opp_played) if seat == 0 else (opp_played, info.dealt)
        self.bottom = info.bottom
        self.tricks = info.tricks
        self.lead = info.lead
        self.trick = info.trick
        self.counts = info.declarations
        self.done = info.used
        self.manko_answer = info.manko_answer
        self.phase = info.phase
        self.alifer_proposer = info.alifer_proposer
        self.card_points = info.card_points
        self.multiplier = info.multiplier
        # The encoder only asks whether anything happened yet; every action
        # leaves a public trace (a card, or a declaration/question/proposal bit).
        self.history = (True,) if (info.tricks or info.lead >= 0 or info.used[0] or info.used[1]) else ()


def encode_info(info: InfoState, out: Vector | None = None) -> Vector:
    """The observation vector of an ``InfoState``'s seat: the same vector as
    ``encode(partie, info.seat)``, built from that seat's information alone
    (an agent holding only its ``InfoState`` needs no ``Partie``)."""
    return encode(_SeatView(info), info.seat, out)


def encode_public(info: InfoState, out: Vector | None = None) -> Vector:
    """The observation an onlooker can write from a public ``InfoState``
    (``InfoState.public(partie, seat)``: no hand): ``encode_info`` of that
    seat with ``hand`` and ``dealt_hand`` all zeros and everything public
    (its played cards included) as the seat itself sees it. What an adviser
    of ``bulka_v0(advice=True)`` observes of the partie."""
    if info.dealt or info.hand:
        raise ValueError("encode_public takes a public InfoState (InfoState.public), which shows no hand")
    view = _SeatView(info)
    dealt = list(view.dealt)
    dealt[info.seat] = mask_of(info.played_by(info.seat))  # so that played_by_me = dealt & ~hand
    view.dealt = (dealt[0], dealt[1])
    out = encode(view, info.seat, out)
    out[_O_DEALT : _O_DEALT + 36] = 0.0
    return out


class Observer:
    """Both seats' observation vectors of one partie, kept current action by
    action.

    A from-scratch ``encode`` costs several microseconds; one action changes
    a handful of entries, so the environment keeps an ``Observer`` and calls
    ``sync()`` before reading: ``vectors[seat]`` then equals
    ``encode(partie, seat)`` (a test checks this after every action of
    thousands of random parties, forfeits included). When more than one
    action was applied since the last ``sync`` (or the partie was replaced)
    it re-encodes from scratch, so it is always correct, only slower.
    ``vectors`` are updated in place: hand out copies."""

    __slots__ = ("partie", "vectors", "_views", "_seen")

    def __init__(self, partie: Partie):
        self.partie = partie
        self.vectors = (np.empty(OBS_SIZE, np.float32), np.empty(OBS_SIZE, np.float32))
        # sync() is all single-item writes: through memoryviews.
        self._views = (_float_view(self.vectors[0]), _float_view(self.vectors[1]))
        self.refresh()

    # Memoryviews cannot be copied or pickled: copies (of an environment
    # mid-game) carry the rest and make new views of the copied vectors.
    def __getstate__(self) -> tuple[Partie, tuple[Vector, Vector], int]:
        return self.partie, self.vectors, self._seen

    def __setstate__(self, state: tuple[Partie, tuple[Vector, Vector], int]) -> None:
        self.partie, self.vectors, self._seen = state
        self._views = (_float_view(self.vectors[0]), _float_view(self.vectors[1]))

    def refresh(self) -> None:
        """Re-encode both seats from scratch."""
        encode(self.partie, 0, self.vectors[0])
        encode(self.partie, 1, self.vectors[1])
        self._seen = len(self.partie.history)

    def sync(self) -> None:
        """Bring both seats' vectors up to date with the partie: one action
        since the last sync is encoded incrementally, anything else re-encodes."""
        p = self.partie
        n = len(p.history)
        if n == self._seen:
            return
        if n != self._seen + 1:
            self.refresh()
            return
        self._seen = n
        v = self._views
        if p.forfeited_by is not None:
            # The last history entry is the illegal action that ended the
            # partie; it changed nothing but a pending proposal.
            v[0][_O_PENDING] = v[0][_O_PENDING + 1] = v[1][_O_PENDING] = v[1][_O_PENDING + 1] = 0.0
            return
        seat, action = p.history[-1]
        me = v[seat]
        opp = v[1 - seat]
        if action < 36:
            me[_O_HAND + action] = 0.0
            me[_O_PME + action] = 1.0
            opp[_O_POPP + action] = 1.0
            if p.lead >= 0:  # this card was led
                me[_O_LEAD + action] = opp[_O_LEAD + action] = 1.0
                me[_O_TRICK_OF + action] = opp[_O_TRICK_OF + action] = TRICK_VALUE[p.trick + 1]
                return
            t = p.trick  # this card completed trick t
            leader, lead, _, winner = p.tricks[-1]
            val = TRICK_VALUE[t]
            me[_O_TRICK_OF + action] = opp[_O_TRICK_OF + action] = val
            me[_O_LEAD + lead] = opp[_O_LEAD + lead] = 0.0
            v[leader][_O_LED + t - 1] = 1.0
            v[winner][_O_WME + t - 1] = 1.0
            v[1 - winner][_O_WOPP + t - 1] = 1.0
            pts = p.card_points
            v0, v1 = v
            v0[_O_POINTS] = v1[_O_POINTS + 1] = pts[0] * POINT_SCALE
            v0[_O_POINTS + 1] = v1[_O_POINTS] = pts[1] * POINT_SCALE
            v0[_O_TRICKNO] = v1[_O_TRICKNO] = val
        elif action < MANKO:
            bit = _DECL_BIT[action, p.counts[seat][action]]
            me[_O_DECL[0] + bit] = opp[_O_DECL[1] + bit] = 1.0
        elif action == MANKO:
            me[_O_MASKED[0]] = opp[_O_MASKED[1]] = 1.0
            for rank, suit in p.manko_answer[1 - seat] or ():  # answered as Manko is asked
                row = _MANKO_ROW[rank] + suit
                opp[_O_MANSWER[0] + row] = me[_O_MANSWER[1] + row] = 1.0
        elif action == PROPOSE_ALIFER:
            me[_O_PROPOSED] = opp[_O_PROPOSED + 1] = 1.0
            me[_O_PENDING] = opp[_O_PENDING + 1] = 1.0
        else:  # accept or decline: the proposal is answered
            me[_O_PENDING] = me[_O_PENDING + 1] = opp[_O_PENDING] = opp[_O_PENDING + 1] = 0.0


def _cards(block: Vector) -> list[str]:
    return [CARD_NAMES[c] for c in np.flatnonzero(block > 0.5)]


def _field(vec: Vector, name: str) -> Vector:
    off = OFFSET[name]
    return vec[off : off + SIZE[name]]


def decode_observation(vec: npt.ArrayLike | dict[str, Any]) -> dict[str, Any]:
    """Named fields of an observation vector (cards as names), for
    debugging. Accepts the vector or an environment's observation dict.
    Reads the first ``OBS_SIZE`` entries, so a longer vector that starts
    with this layout (``bulka_v0``) decodes too.

    Keys: ``role``, ``hand``, ``dealt_hand``, ``stock_bottom``,
    ``played_by_me`` / ``played_by_opponent`` (card name -> trick number),
    ``table_lead`` (name or None), ``tricks`` (one dict per completed trick:
    ``led_by`` and ``won_by``, each "me" or "opponent"), ``declarations``
    and ``manko_asked`` / ``manko_answers`` / ``card_points`` /
    ``alifer_proposed`` (each ``{"me": ..., "opponent": ...}``),
    ``trick_number`` (completed tricks), ``multiplier``, ``alifer_pending``
    (None, "me" or "opponent")."""
    if isinstance(vec, dict):  # an environment observation
        vec = vec["observation"]
    vec = np.asarray(vec, dtype=np.float32)
    if vec.ndim != 1 or vec.shape[0] < OBS_SIZE:
        raise ValueError(f"an observation is a 1-d vector of at least {OBS_SIZE} values, got shape {vec.shape}")
    vec = vec[:OBS_SIZE]
    if not np.all((vec >= 0.0) & (vec <= 1.0)):
        raise ValueError("observation values must lie in [0, 1]; this is not a trappola_v0 observation")
    trick_of = _field(vec, "played_in_trick")

    def played(name: str) -> dict[str, int]:
        return {CARD_NAMES[c]: int(round(float(trick_of[c]) * 9)) for c in np.flatnonzero(_field(vec, name) > 0.5)}

    led = _field(vec, "trick_led_by_me")
    won_me = _field(vec, "trick_won_by_me")
    won_opp = _field(vec, "trick_won_by_opponent")
    tricks = []
    for t in range(9):
        if won_me[t] > 0.5 or won_opp[t] > 0.5:
            tricks.append(
                {
                    "trick": t + 1,
                    "led_by": "me" if led[t] > 0.5 else "opponent",
                    "won_by": "me" if won_me[t] > 0.5 else "opponent",
                }
            )

    def declarations(name: str) -> dict[str, int]:
        out: dict[str, int] = {}
        for b in np.flatnonzero(_field(vec, name) > 0.5):
            count = _DECL_COUNTS[b]
            out[_DECL_NAMES[b]] = count if count is not None else 1
        return out

    def answers(name: str) -> dict[str, str]:
        block = _field(vec, name)
        return {_MANKO_RANK_NAMES[b // 4]: SUITS[b % 4] for b in np.flatnonzero(block > 0.5)}

    bottom = _cards(_field(vec, "stock_bottom"))
    lead = _cards(_field(vec, "table_lead"))
    role = _field(vec, "role")
    pending = _field(vec, "alifer_pending")
    proposed = _field(vec, "alifer_proposed")
    points = _field(vec, "card_points")
    m_log2 = float(vec[OFFSET["multiplier"]]) * MULTIPLIER_LOG2_MAX
    return {
        "role": "challenger" if role[0] > 0.5 else "dealer",
        "hand": _cards(_field(vec, "hand")),
        "dealt_hand": _cards(_field(vec, "dealt_hand")),
        "stock_bottom": bottom[0] if bottom else None,
        "played_by_me": played("played_by_me"),
        "played_by_opponent": played("played_by_opponent"),
        "table_lead": lead[0] if lead else None,
        "tricks": tricks,
        "declarations": {"me": declarations("declared_by_me"), "opponent": declarations("declared_by_opponent")},
        "manko_asked": {
            "me": bool(vec[OFFSET["manko_asked_by_me"]] > 0.5),
            "opponent": bool(vec[OFFSET["manko_asked_by_opponent"]] > 0.5),
        },
        "manko_answers": {"me": answers("manko_answer_by_me"), "opponent": answers("manko_answer_by_opponent")},
        "card_points": {
            "me": int(round(float(points[0]) * CARD_POINTS_TOTAL)),
            "opponent": int(round(float(points[1]) * CARD_POINTS_TOTAL)),
        },
        "trick_number": int(round(float(vec[OFFSET["trick_number"]]) * 9)),
        "multiplier": int(round(2.0**m_log2)),
        "alifer_pending": "me" if pending[0] > 0.5 else ("opponent" if pending[1] > 0.5 else None),
        "alifer_proposed": {"me": bool(proposed[0] > 0.5), "opponent": bool(proposed[1] > 0.5)},
    }


__all__ = [
    "FIELDS",
    "LAYOUT",
    "OBS_SIZE",
    "Observer",
    "OFFSET",
    "SIZE",
    "N_BITS",
    "MULTIPLIER_LOG2_MAX",
    "CARD_POINTS_TOTAL",
    "encode",
    "encode_info",
    "encode_public",
    "decode_observation",
    "multiplier_feature",
    "TRICK_VALUE",
    "POINT_SCALE",
]
