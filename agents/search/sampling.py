"""Hidden layouts consistent with what one seat knows, sampled exactly.

A *layout* is where the cards this seat cannot see lie: the opponent's
current hand, the rest in the 17 hidden stock cards (their order never
matters). The bottom stock card is face up, so it is never part of a layout.

What the record pins down about the opponent's *dealt* hand ``D`` (its
current hand ``H`` is ``D`` minus the cards it has played):

* it holds no card of a suit it failed to follow (a void stays a void);
* a Figura declaration of ``n`` (Re, Cavall, Bube, Twos) or an Aces
  declaration of ``n``: ``D`` held exactly ``n`` cards of that rank (the
  engine makes the declared count the count held, and both are made before
  any card of that rank could leave the hand that mattered);
* a Manko answer naming suit ``m`` for a 3-card Figura of rank ``r``: the
  ``r`` of suit ``m`` was not dealt to it, so the other three were;
* Blans: no Bube, Cavall or Re dealt; Bianka: no court card and no Ace.

Nothing is inferred from how the opponent chose its cards, and by default
nothing from what it did *not* declare: declarations are voluntary, so their
absence says nothing without a model of the opponent's policy. With
``first_chance=True`` the opponent is modelled as declaring everything it
can at its first turn (as ``rule`` does): once it has played its first card,
a Figura or Aces it did not declare means at most 2 of that rank were dealt
to it, no Blans means at least one court card, no Bianka at least one court
card or Ace. These are the only inequalities (``Constraints.bounds``).

Every constraint is either a forbidden set of cards or an exact count of
one rank, and the ranks are disjoint, so the consistent hands factor into
independent groups: a group per constrained rank (choose ``k`` of its
candidate cards) and one group of unconstrained cards filling the rest.
Drawing each group uniformly therefore draws ``H`` uniformly from the
consistent hands, with no rejection at all, and the consistent hands can be
counted (``Constraints.count``) and listed (``Constraints.all_hands``).
Forced cards (a group whose candidates all must be held) are placed first.
The optional inequalities are met by rejection, which keeps the draw
uniform over the hands that meet them too.

Under the assumption that the deal is uniform and declarations are truthful
functions of the dealt hand, the uniform distribution over consistent hands
is the exact posterior the seat should sample from.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from trappola_env.engine.actions import ACES, BIANKA, BLANS
from trappola_env.engine.cards import ACE, ACE_MASK, COURT_MASK, RANK_MASK, RANKS, SUIT_MASK, cards_of, mask_of
from trappola_env.engine.declarations import FIGURA_RANK
from trappola_env.engine.infostate import InfoState

__all__ = ["Constraints", "constraints_of", "dealt_consistent", "declared_ranks", "excluded_by_play"]


@dataclass(frozen=True)
class Constraints:
    """The consistent opponent hands, as independent groups.

    ``unseen``: cards this seat has not seen (the opponent's hand and the 17
    hidden stock cards). ``hand_size``: cards the opponent holds now.
    ``forced``: cards it certainly holds. ``groups``: ``(cards, k)`` pairs,
    disjoint from each other and from ``forced``: exactly ``k`` of ``cards``
    are in the hand. Every unseen card outside ``forced`` and the groups is
    certainly in the stock. ``bounds``: ``(cards, lo, hi)`` triples, each
    requiring ``lo <= |hand & cards| <= hi`` (only with ``first_chance``)."""

    unseen: int
    hand_size: int
    forced: int
    groups: tuple
    bounds: tuple = ()

    #: Draws tried per requested sample before the bounds count as unmeetable.
    MAX_TRIES = 2000

    @property
    def possible(self) -> int:
        """Cards that may be in the opponent's hand."""
        m = self.forced
        for cards, k in self.groups:
            if k:
                m |= cards
        return m

    def count(self) -> int:
        """How many hands meet the groups (each is one layout); with
        ``bounds`` this is an upper bound on the consistent ones."""
        n = 1
        for cards, k in self.groups:
            n *= math.comb(cards.bit_count(), k)
        return n

    def sample(self, rng, n: int) -> np.ndarray:
        """``n`` hands drawn independently and uniformly (int64 bit sets).
        Raises ``ValueError`` if the bounds reject ``MAX_TRIES`` draws in a
        row (the opponent model behind them is then surely wrong)."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n must be a positive int, got {n!r}")
        pools = [(cards_of(cards), k) for cards, k in self.groups if k]
        out = np.empty(n, dtype=np.int64)
        for i in range(n):
            for _ in range(self.MAX_TRIES):
                h = self.forced
                for pool, k in pools:
                    for c in rng.sample(pool, k):
                        h |= 1 << c
                if self._in_bounds(h):
                    break
            else:
                raise ValueError(f"no consistent hand in {self.MAX_TRIES} draws: the bounds exclude (nearly) all")
            out[i] = h
        return out

    def sample_array(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` hands drawn independently and uniformly, as ``sample``, but
        all at once in arrays (a numpy ``Generator``): each group's ``k``
        cards are the ``k`` smallest of ``n`` rows of random keys. Hands
        outside the ``bounds`` are drawn again; raises ``ValueError`` as
        ``sample`` does when they reject nearly everything."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n must be a positive int, got {n!r}")
        out = np.empty(0, dtype=np.int64)
        for _ in range(self.MAX_TRIES):
            hands = np.full(n, self.forced, dtype=np.int64)
            for cards, k in self.groups:
                if not k:
                    continue
                ids = np.array(cards_of(cards), dtype=np.int64)
                if k < ids.size:
                    ids = ids[np.argpartition(rng.random((n, ids.size)), k - 1, axis=1)[:, :k]]
                    hands |= np.bitwise_or.reduce(np.left_shift(np.int64(1), ids), axis=1)
                else:
                    hands |= np.int64(cards)
            if self.bounds:
                keep = np.ones(n, dtype=bool)
                for cards, lo, hi in self.bounds:
                    held = _popcount(hands & np.int64(cards))
                    keep &= (held >= lo) & (held <= hi)
                hands = hands[keep]
            out = np.concatenate([out, hands])[:n]
            if out.size == n:
                return out
        raise ValueError(f"no consistent hand in {self.MAX_TRIES} draws: the bounds exclude (nearly) all")

    def all_hands(self) -> np.ndarray:
        """Every consistent hand once (use when ``count()`` is small)."""
        parts = [[mask_of(combo) for combo in itertools.combinations(cards_of(cards), k)] for cards, k in self.groups]
        hands = [self.forced | sum(choice) for choice in itertools.product(*parts)]
        return np.array([h for h in hands if self._in_bounds(h)], dtype=np.int64)

    def _in_bounds(self, hand: int) -> bool:
        return all(lo <= (hand & cards).bit_count() <= hi for cards, lo, hi in self.bounds)

    def holding(self, cards: int) -> Constraints:
        """The consistent hands that hold every card of the bit set ``cards``
        (what a seat knows once those cards are shown to it): each moves from
        its group, with one fewer to choose there, to ``forced``. Raises
        ``ValueError`` if some card cannot be in the hand."""
        forced, groups = self.forced, list(self.groups)
        for c in cards_of(cards & ~forced):
            bit = 1 << c
            i = next((i for i, (g, k) in enumerate(groups) if g & bit and k), None)
            if i is None:
                raise ValueError(f"card {c} cannot be in the opponent's hand under these constraints")
            g, k = groups[i]
            groups[i] = (g & ~bit, k - 1)
            forced |= bit
        return Constraints(self.unseen, self.hand_size, forced, tuple(groups), self.bounds)

    def allows(self, hand: int) -> bool:
        """Whether ``hand`` is one of the consistent hands."""
        if hand & self.forced != self.forced or hand.bit_count() != self.hand_size:
            return False
        rest = hand & ~self.forced
        for cards, k in self.groups:
            if (rest & cards).bit_count() != k:
                return False
            rest &= ~cards
        return rest == 0 and self._in_bounds(hand)


def _popcount(x: np.ndarray) -> np.ndarray:
    """Set bits per int64 of an array (at most 36 bits are ever set)."""
    bits = (x[:, None] >> np.arange(36, dtype=np.int64)) & 1
    return bits.sum(axis=1)


def constraints_of(info: InfoState, first_chance: bool = False) -> Constraints:
    """What ``info.seat`` knows about its opponent's current hand
    (``first_chance``: also what its silence says, if it always declares
    at its first turn; see the module docstring).

    Raises ``ValueError`` if the record admits no hand at all (it cannot,
    for a record the engine produced)."""
    opp = 1 - info.seat
    unseen = info.unseen()
    hand_size = 9 - info.ncards[opp]
    played = mask_of(info.played_by(opp))

    forbidden = excluded_by_play(info)
    for rank, suit in info.manko_answer[opp] or ():
        forbidden |= 1 << (9 * suit + rank)

    forced = 0
    groups = []
    constrained = 0
    for rank, n in declared_ranks(info):
        of_rank = RANK_MASK[rank]
        constrained |= of_rank
        need = n - (played & of_rank).bit_count()
        candidates = unseen & of_rank & ~forbidden
        have = candidates.bit_count()
        if need < 0 or need > have:
            raise ValueError(
                f"inconsistent record: the opponent declared {n} of rank {RANKS[rank]} but "
                f"{need} of them would have to come from {have} candidate cards"
            )
        if need == have:
            forced |= candidates
        elif need:
            groups.append((candidates, need))
    free = unseen & ~forbidden & ~constrained & ~forced
    k_free = hand_size - forced.bit_count() - sum(k for _, k in groups)
    if not 0 <= k_free <= free.bit_count():
        raise ValueError(
            f"inconsistent record: the opponent holds {hand_size} cards, {forced.bit_count()} "
            f"forced, and {k_free} would have to come from {free.bit_count()} free cards"
        )
    groups.append((free, k_free))
    bounds = _silence_bounds(info, played) if first_chance else ()
    return Constraints(unseen, hand_size, forced, tuple(groups), bounds)


def excluded_by_play(info: InfoState) -> int:
    """Cards the opponent of ``info.seat`` certainly does not hold now, from
    its play alone: every card of a suit it failed to follow, and what its
    Bianka (court cards and Aces) or Blans (court cards) rules out."""
    opp = 1 - info.seat
    out = 0
    for s in info.void_suits(opp):
        out |= SUIT_MASK[s]
    decl = info.declarations[opp]
    if BIANKA in decl:
        out |= COURT_MASK | ACE_MASK
    if BLANS in decl:
        out |= COURT_MASK
    return out


def declared_ranks(info: InfoState) -> list[tuple[int, int]]:
    """``(rank, n)`` for each Figura or Aces declaration of the opponent of
    ``info.seat``: its dealt hand held exactly ``n`` cards of ``rank``."""
    out = []
    for action, n in sorted(info.declarations[1 - info.seat].items()):
        if action in FIGURA_RANK:
            out.append((FIGURA_RANK[action], n))
        elif action == ACES:
            out.append((ACE, n))
    return out


def _silence_bounds(info: InfoState, played: int) -> tuple:
    """Bounds on the opponent's current hand from the declarations it did
    not make at its first turn (nothing before it has played a card)."""
    opp = 1 - info.seat
    if info.ncards[opp] == 0:
        return ()
    decl = info.declarations[opp]
    out = []
    for action, rank in list(FIGURA_RANK.items()) + [(ACES, ACE)]:
        if action not in decl:
            of_rank = RANK_MASK[rank]
            out.append((of_rank, 0, 2 - (played & of_rank).bit_count()))
    for action, cards in ((BLANS, COURT_MASK), (BIANKA, COURT_MASK | ACE_MASK)):
        if action not in decl:
            out.append((cards, 1 - (played & cards).bit_count(), 9))
    return tuple(out)


def dealt_consistent(info: InfoState, hand: int, first_chance: bool = False) -> bool:
    """Independent check (for tests and assertions): is ``hand`` a possible
    current hand of the opponent, by the rules stated on its dealt hand
    (and, with ``first_chance``, by what its silence says)?"""
    opp = 1 - info.seat
    if hand & ~info.unseen() or hand.bit_count() != 9 - info.ncards[opp]:
        return False
    dealt = hand | mask_of(info.played_by(opp))
    for s in info.void_suits(opp):
        if hand & SUIT_MASK[s]:
            return False
    decl = info.declarations[opp]
    if BIANKA in decl and dealt & (COURT_MASK | ACE_MASK):
        return False
    if BLANS in decl and dealt & COURT_MASK:
        return False
    for action, n in decl.items():
        rank = ACE if action == ACES else FIGURA_RANK.get(action)
        if rank is not None and (dealt & RANK_MASK[rank]).bit_count() != n:
            return False
    for rank, suit in info.manko_answer[opp] or ():
        of_rank = RANK_MASK[rank]
        if dealt & of_rank != of_rank & ~(1 << (9 * suit + rank)):
            return False
    if first_chance and info.ncards[opp] > 0:
        for action, rank in list(FIGURA_RANK.items()) + [(ACES, ACE)]:
            if action not in decl and (dealt & RANK_MASK[rank]).bit_count() > 2:
                return False
        if BLANS not in decl and not dealt & COURT_MASK:
            return False
        if BIANKA not in decl and not dealt & (COURT_MASK | ACE_MASK):
            return False
    return True
