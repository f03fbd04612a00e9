"""A small exact endgame search for the last few tricks, used by ``rule``.

Given the seat's ``InfoState`` and one guess of the opponent's remaining
hand, ``card_values`` plays the rest of the partie out by alpha-beta
minimax (both hands open) and scores each candidate card by the final
outcome: the win/loss sign first (``WIN`` points), the point difference
second. Leaves are scored with the engine's own ``trick_bonuses`` and
``declaration_value`` (last trick, Twos 4a-4c, Marc, an Aces declaration
broken by a lost Ace), so the search cannot drift from the rules.

Pruning: alpha-beta below the root (each root card still gets its exact
value, so values can be averaged over guesses), and of two zero-point
cards of one suit (7..10) with no card of the other hand between them only
the lower is searched: they can never play differently. Meant for three or
four cards a hand; the tree grows as the factorial of the cards left.
"""

from __future__ import annotations

from trappola.agents.search.knowledge import aces_failed
from trappola_env.engine.actions import ACES
from trappola_env.engine.bonuses import trick_bonuses
from trappola_env.engine.cards import ACE, CARD_POINTS, SUIT_MASK, TEN, cards_of
from trappola_env.engine.declarations import declaration_value
from trappola_env.engine.infostate import InfoState

WIN = 1000  # the sign of the outcome outweighs any point difference
_INF = 1 << 30


def _moves(hand: int, lead: int, other: int) -> list[int]:
    """Legal cards of ``hand``, one of each run of interchangeable plain cards."""
    if lead >= 0:
        follow = hand & SUIT_MASK[lead // 9]
        if follow:
            hand = follow
    out = []
    prev = -1
    # Highest first: winning cards tend to be the best, which makes cut-offs come early.
    for c in cards_of(hand):
        r = c % 9
        if (
            prev >= 0
            and 1 <= r <= TEN
            and prev // 9 == c // 9
            and prev % 9 >= 1
            and not (other >> (prev + 1)) & ((1 << (c - prev - 1)) - 1)
            and not prev < lead < c
        ):
            prev = c
            continue
        out.append(c)
        prev = c
    out.reverse()
    return out


def card_values(
    info: InfoState, opp_hand: int, candidates: list[int] | None = None, mover: int | None = None
) -> dict[int, int]:
    """Value (for ``info.seat``) of ``mover`` (default: this seat) playing
    each candidate card now (default: each card it may play), both hands
    then played perfectly; ``opp_hand`` is a guess at the opponent's cards."""
    me = info.seat
    mover = me if mover is None else mover
    decl = info.declarations
    aces_declared = (ACES in decl[0], ACES in decl[1])
    past_winners = [t[3] for t in info.tricks]
    past_two = list(info.two_winner)

    # Declaration points per seat, by whether its Aces declaration broke.
    decl_points = tuple(
        tuple(sum(declaration_value(a, n, not broke)[0] for a, n in decl[s].items()) for broke in (False, True))
        for s in (0, 1)
    )

    def final(points, failed, winners, two):
        total = [points[0] + decl_points[0][failed[0]], points[1] + decl_points[1][failed[1]]]
        for _, seat, pts, _ in trick_bonuses(winners, two):
            total[seat] += pts
        diff = total[me] - total[1 - me]
        return diff + (WIN if diff > 0 else -WIN if diff < 0 else 0)

    def last_trick(hands, leader, points, failed, winners, two):
        """Trick 9: one card each, nothing to choose."""
        lead = hands[leader].bit_length() - 1
        follower = 1 - leader
        card = hands[follower].bit_length() - 1
        winner = follower if (card // 9 == lead // 9 and card > lead) else leader
        points = list(points)
        points[winner] += CARD_POINTS[card] + CARD_POINTS[lead]
        loser = 1 - winner
        lost_card = card if loser == follower else lead
        if lost_card % 9 == ACE and aces_declared[loser] and not failed[loser]:
            failed = list(failed)
            failed[loser] = True
        win_card = card if winner == follower else lead
        return final(points, failed, winners + [winner], two + [winner if win_card % 9 == 0 else -1])

    def search(hands, p, lead, leader, points, failed, winners, two, alpha, beta):
        if len(winners) == 9:
            return final(points, failed, winners, two)
        if not hands[p] & (hands[p] - 1):  # one card left: nothing to choose
            return play(hands, p, hands[p].bit_length() - 1, lead, leader, points, failed, winners, two, alpha, beta)
        maximize = p == me
        best = -_INF if maximize else _INF
        for card in _moves(hands[p], lead, hands[1 - p]):
            value = play(hands, p, card, lead, leader, points, failed, winners, two, alpha, beta)
            if maximize:
                if value > best:
                    best = value
                    if best > alpha:
                        alpha = best
            elif value < best:
                best = value
                if best < beta:
                    beta = best
            if alpha >= beta:
                break
        return best

    def play(hands, p, card, lead, leader, points, failed, winners, two, alpha, beta):
        hands = list(hands)
        hands[p] &= ~(1 << card)
        if lead < 0:
            return search(hands, 1 - p, card, p, points, failed, winners, two, alpha, beta)
        winner = p if (card // 9 == lead // 9 and card > lead) else leader
        points = list(points)
        points[winner] += CARD_POINTS[card] + CARD_POINTS[lead]
        if card % 9 == ACE and winner != p and aces_declared[p]:
            failed = list(failed)
            failed[p] = True
        win_card = card if winner == p else lead
        winners = winners + [winner]
        two = two + [winner if win_card % 9 == 0 else -1]
        if len(winners) == 8:
            return last_trick(hands, winner, points, failed, winners, two)
        return search(hands, winner, -1, winner, points, failed, winners, two, alpha, beta)

    hands = [0, 0]
    hands[me] = info.hand
    hands[1 - me] = opp_hand
    if candidates is None:
        candidates = (
            cards_of(hands[mover] & SUIT_MASK[info.lead // 9] or hands[mover])
            if info.lead >= 0
            else cards_of(hands[mover])
        )
    points = list(info.card_points)
    failed = [aces_failed(info, 0), aces_failed(info, 1)]
    return {
        c: play(hands, mover, c, info.lead, info.leader, points, failed, past_winners, past_two, -_INF, _INF)
        for c in candidates
    }


def win_chance(info: InfoState, opp_hands) -> float:
    """Share of the guesses of the opponent's hand in which this seat wins
    (ties count half) when both play perfectly from here; the player due
    to play a card next is the proposer while an Alifer proposal waits."""
    me = info.seat
    mover = info.alifer_proposer if info.alifer_proposer >= 0 else info.to_act
    wins = 0.0
    n = 0
    for opp_hand in opp_hands:
        values = card_values(info, opp_hand, mover=mover).values()
        v = max(values) if mover == me else min(values)
        wins += 1.0 if v > 0 else 0.5 if v == 0 else 0.0
        n += 1
    return wins / max(n, 1)
