"""Determinization: a full ``Partie`` consistent with one seat's view.

``determinize(info, opp_hand, rng)`` deals the seat's own dealt hand, the
guessed opponent hand (plus the cards the opponent has played) and a
shuffled stock with the known bottom card, then replays the public record
through the engine: the cards in order, each seat's declarations before its
first card (Figura, Blans, Bianka and Aces counts only depend on the dealt
hand, so that moment is always legal and gives the same state), a Manko
question before the asker's second card, a declined Alifer proposal for a
seat that used its one. The engine checks every step, so a guess that
contradicts the record gives ``None`` instead of a wrong world. A proposal
waiting for an answer is replayed as declined: the world is the one in which
play goes on. The world's state is the record's; only the order of its
actions (``InfoState.history``) may differ from the one played.

Used by the rule player's rollouts; any sampling (PIMC) player can use it
to play hypothetical continuations with the real rules.
"""

from __future__ import annotations

from trappola_env.engine import Deal, Partie, RuleConfig
from trappola_env.engine.actions import (
    ACES,
    BIANKA,
    BLANS,
    DECLINE_ALIFER,
    FIGURA_RE,
    FIGURA_TWOS,
    MANKO,
    PROPOSE_ALIFER,
)
from trappola_env.engine.cards import N_CARDS, cards_of
from trappola_env.engine.infostate import InfoState

_FIRST_CARD = tuple(range(FIGURA_RE, FIGURA_TWOS + 1)) + (ACES, BLANS, BIANKA)


def card_sequence(info: InfoState) -> list[tuple[int, int]]:
    """(seat, card) of every card played so far, in order."""
    out = []
    for leader, lead, follow, _ in info.tricks:
        out.append((leader, lead))
        out.append((1 - leader, follow))
    if info.lead >= 0:
        out.append((info.leader, info.lead))
    return out


def determinize(info: InfoState, opp_hand: int, rng) -> Partie | None:
    """A ``Partie`` in which the opponent holds ``opp_hand`` now and the stock is
    shuffled by ``rng``, replayed to the state ``info`` shows; ``None`` when
    that hand contradicts the record."""
    me, opp = info.seat, 1 - info.seat
    seq = card_sequence(info)
    opp_dealt = opp_hand
    for seat, card in seq:
        if seat == opp:
            opp_dealt |= 1 << card
    if opp_dealt.bit_count() != 9 or opp_dealt & (info.dealt | 1 << info.bottom):
        return None
    rest = [c for c in range(N_CARDS) if not (info.dealt | opp_dealt | 1 << info.bottom) >> c & 1]
    rng.shuffle(rest)
    hands = [0, 0]
    hands[me], hands[opp] = info.dealt, opp_dealt
    deal = Deal(tuple(cards_of(hands[0])), tuple(cards_of(hands[1])), tuple(rest) + (info.bottom,))
    p = Partie(
        deal,
        RuleConfig(ace_declaration=info.ace_declaration),
        stake_multiple=info.stake_multiple,
        multiplier=info.multiplier,
    )
    played = [0, 0]
    try:
        for seat, card in seq:
            _before_card(p, info, seat, played[seat])
            p.apply(card)
            played[seat] += 1
        if not p.terminal:
            _before_card(p, info, p.to_act, played[p.to_act])
    except ValueError:
        return None
    return p


def _before_card(p: Partie, info: InfoState, seat: int, k: int) -> None:
    """Replay what ``seat`` did in its turn before its card number ``k + 1``."""
    if p.to_act != seat:
        return
    if k == 0:
        for a in _FIRST_CARD:
            if a in info.declarations[seat]:
                p.apply(a)
        if info.used[seat] >> PROPOSE_ALIFER & 1:
            p.apply(PROPOSE_ALIFER)
            p.apply(DECLINE_ALIFER)
    if k == 1 and info.used[seat] >> MANKO & 1:
        p.apply(MANKO)
