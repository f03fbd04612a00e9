"""What a seat can infer about its opponent from public information only.

Built from an ``InfoState``: cards seen, suits the opponent has shown void
in, and what its declarations reveal about its dealt hand (a 4-card Figura
or Aces names every card of that rank; a 3-card Figura names three, and all
of them once Manko has been asked or the fourth card is accounted for;
Blans excludes court cards, Bianka court cards and Aces). The facts come from
``sampling``, which turns them into the exact set of consistent hands for
the search players; ``OpponentCards`` is the cheap summary the ``rule``
player's heuristics read (cards the opponent may hold, surely holds, and
declared counts), with a rejection sampler for its rollouts.

Points "so far" (``public_points``) are card points won plus declaration
points as they stand (an Aces declaration counts its full value until one of
the declared Aces loses a trick); trick bonuses are not known until the end.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

from trappola.agents.search.sampling import declared_ranks, excluded_by_play
from trappola_env.engine.cards import ACE, RANK_MASK, SUIT_MASK, cards_of, mask_of
from trappola_env.engine.declarations import declaration_value
from trappola_env.engine.infostate import InfoState


@dataclass(frozen=True)
class OpponentCards:
    """``possible``: cards that may be in the opponent's hand now;
    ``known``: cards certainly in it (a subset of ``possible``);
    ``count``: how many cards it holds."""

    possible: int
    known: int
    count: int
    #: (rank mask, n): the opponent's *hand now* holds exactly n cards of the
    #: mask (from a declared count, less the ones it has played).
    exact: tuple = ()

    def suit_void(self, suit: int) -> bool:
        """Whether the opponent certainly holds no card of ``suit``."""
        return not self.possible & SUIT_MASK[suit]

    def higher_in_suit(self, card: int) -> int:
        """Bit set of cards the opponent may hold that beat ``card`` in its suit."""
        suit_mask = SUIT_MASK[card // 9]
        above = suit_mask & ~((2 << card) - 1)
        return self.possible & above

    def p_none_of(self, cards: int) -> float:
        """Chance the opponent holds none of ``cards``, if its cards not yet
        pinned down are a uniform draw from the ones it may hold (exact given
        only the public record; it ignores what its play style suggests)."""
        if self.known & cards:
            return 0.0
        pool = self.possible & ~self.known
        k = self.count - self.known.bit_count()
        n = pool.bit_count()
        h = (pool & cards).bit_count()
        if h == 0 or k <= 0:
            return 1.0
        if k > n - h:
            return 0.0
        return comb(n - h, k) / comb(n, k)

    def sample(self, rng, tries: int = 30) -> int:
        """One hand the opponent may hold: the known cards plus a uniform
        draw from the rest of ``possible``, redrawn (up to ``tries`` times)
        until it holds each declared count exactly."""
        pool = cards_of(self.possible & ~self.known)
        k = self.count - self.known.bit_count()
        if k > len(pool):
            raise ValueError(f"inconsistent knowledge: {k} cards to draw from {len(pool)}")
        for _ in range(tries):
            hand = self.known | mask_of(rng.sample(pool, k))
            if all((hand & m).bit_count() == n for m, n in self.exact):
                break
        return hand


def opponent_cards(info: InfoState) -> OpponentCards:
    """The ``OpponentCards`` summary of the public record; the facts read
    from it are ``sampling``'s (``excluded_by_play``, ``declared_ranks``)."""
    opp = 1 - info.seat
    unseen = info.unseen()
    count = 9 - info.ncards[opp]
    possible = unseen & ~excluded_by_play(info)
    known = 0
    exact = []
    opp_played = mask_of(info.played_by(opp))
    # Cards of a rank that this seat knows are not in the opponent's dealt hand.
    elsewhere = info.dealt | (1 << info.bottom)
    for rank, n in declared_ranks(info):
        of_rank = RANK_MASK[rank]
        candidates = of_rank & ~elsewhere
        answer = info.manko_answer[opp]
        if n == 3 and answer:
            for r, missing in answer:
                if r == rank:
                    candidates &= ~(1 << (missing * 9 + rank))
        if candidates.bit_count() == n:
            known |= candidates & unseen
            possible &= ~(of_rank & ~candidates)
        exact.append((of_rank, n - (opp_played & of_rank).bit_count()))
    if possible.bit_count() == count:
        known = possible
    return OpponentCards(possible, known, count, tuple(exact))


def aces_failed(info: InfoState, seat: int) -> bool:
    """Whether one of ``seat``'s Aces has lost a trick (which breaks an Aces
    declaration)."""
    for leader, lead, follow, winner in info.tricks:
        card = lead if leader == seat else follow
        if card % 9 == ACE and winner != seat:
            return True
    return False


def public_points(info: InfoState, seat: int) -> int:
    """Card points won by ``seat`` plus the points of its declarations so far."""
    total = info.card_points[seat]
    failed = aces_failed(info, seat)
    for action, n in info.declarations[seat].items():
        total += declaration_value(action, n, not failed)[0]
    return total
