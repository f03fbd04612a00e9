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

Nothing is inferred from what the opponent did *not* declare or from how it
chose its cards: declarations are voluntary, so their absence says nothing
without a model of the opponent's policy.

Every constraint is either a forbidden set of cards or an exact count of
one rank, and the ranks are disjoint, so the consistent hands factor into
independent groups: a group per constrained rank (choose ``k`` of its
candidate cards) and one group of unconstrained cards filling the rest.
Drawing each group uniformly therefore draws ``H`` uniformly from the
consistent hands, with no rejection at all, and the consistent hands can be
counted (``Constraints.count``) and listed (``Constraints.all_hands``).
Forced cards (a group whose candidates all must be held) are placed first.

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

__all__ = ["Constraints", "constraints_of", "dealt_consistent"]


@dataclass(frozen=True)
class Constraints:
    """The consistent opponent hands, as independent groups.

    ``unseen``: cards this seat has not seen (the opponent's hand and the 17
    hidden stock cards). ``hand_size``: cards the opponent holds now.
    ``forced``: cards it certainly holds. ``groups``: ``(cards, k)`` pairs,
    disjoint from each other and from ``forced``: exactly ``k`` of ``cards``
    are in the hand. Every unseen card outside ``forced`` and the groups is
    certainly in the stock."""

    unseen: int
    hand_size: int
    forced: int
    groups: tuple

    @property
    def possible(self) -> int:
        """Cards that may be in the opponent's hand."""
        m = self.forced
        for cards, k in self.groups:
            if k:
                m |= cards
        return m

    def count(self) -> int:
        """How many hands are consistent (each is one layout)."""
        n = 1
        for cards, k in self.groups:
            n *= math.comb(cards.bit_count(), k)
        return n

    def sample(self, rng, n: int) -> np.ndarray:
        """``n`` hands drawn independently and uniformly (int64 bit sets)."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n must be a positive int, got {n!r}")
        pools = [(cards_of(cards), k) for cards, k in self.groups if k]
        out = np.empty(n, dtype=np.int64)
        for i in range(n):
            h = self.forced
            for pool, k in pools:
                for c in rng.sample(pool, k):
                    h |= 1 << c
            out[i] = h
        return out

    def all_hands(self) -> np.ndarray:
        """Every consistent hand once (use when ``count()`` is small)."""
        parts = [[mask_of(combo) for combo in itertools.combinations(cards_of(cards), k)]
                 for cards, k in self.groups]
        hands = [self.forced | sum(choice) for choice in itertools.product(*parts)]
        return np.array(hands, dtype=np.int64)

    def allows(self, hand: int) -> bool:
        """Whether ``hand`` is one of the consistent hands."""
        if hand & self.forced != self.forced or hand.bit_count() != self.hand_size:
            return False
        rest = hand & ~self.forced
        for cards, k in self.groups:
            if (rest & cards).bit_count() != k:
                return False
            rest &= ~cards
        return rest == 0


def constraints_of(info: InfoState) -> Constraints:
    """What ``info.seat`` knows about its opponent's current hand.

    Raises ``ValueError`` if the record admits no hand at all (it cannot,
    for a record the engine produced)."""
    opp = 1 - info.seat
    unseen = info.unseen()
    hand_size = 9 - info.ncards[opp]
    played = mask_of(info.played_by(opp))

    forbidden = 0
    for s in info.void_suits(opp):
        forbidden |= SUIT_MASK[s]
    decl = info.declarations[opp]
    if BIANKA in decl:
        forbidden |= COURT_MASK | ACE_MASK
    if BLANS in decl:
        forbidden |= COURT_MASK
    missing = {}
    for rank, suit in info.manko_answer[opp] or ():
        missing[rank] = suit
        forbidden |= 1 << (9 * suit + rank)

    forced = 0
    groups = []
    constrained = 0
    for action, n in sorted(decl.items()):
        if action in FIGURA_RANK:
            rank = FIGURA_RANK[action]
        elif action == ACES:
            rank = ACE
        else:
            continue
        of_rank = RANK_MASK[rank]
        constrained |= of_rank
        need = n - (played & of_rank).bit_count()
        candidates = unseen & of_rank & ~forbidden
        have = candidates.bit_count()
        if need < 0 or need > have:
            raise ValueError(f"inconsistent record: the opponent declared {n} of rank {RANKS[rank]} but "
                             f"{need} of them would have to come from {have} candidate cards")
        if need == have:
            forced |= candidates
        elif need:
            groups.append((candidates, need))
    free = unseen & ~forbidden & ~constrained & ~forced
    k_free = hand_size - forced.bit_count() - sum(k for _, k in groups)
    if not 0 <= k_free <= free.bit_count():
        raise ValueError(f"inconsistent record: the opponent holds {hand_size} cards, {forced.bit_count()} "
                         f"forced, and {k_free} would have to come from {free.bit_count()} free cards")
    groups.append((free, k_free))
    return Constraints(unseen, hand_size, forced, tuple(groups))


def dealt_consistent(info: InfoState, hand: int) -> bool:
    """Independent check (for tests and assertions): is ``hand`` a possible
    current hand of the opponent, by the rules stated on its dealt hand?"""
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
    return True
