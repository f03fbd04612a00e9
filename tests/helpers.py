"""Shared helpers for engine tests: build a partie from card names and
drive it by action names.

    from helpers import make_partie, act
    p = make_partie(challenger="RS RC RD 2S 7S 8S 9S TS BS",
                    dealer="2C 7C 8C 9C TC BC CC AC 2D")
    act(p, "declare Figura Re", "2S", "2C")

Hands are 9 names (a list or one space-separated string). ``stock`` is 18
names, the last being the face-up bottom card; when omitted it is the 18
remaining cards in id order (so the bottom is the highest remaining id),
which keeps tests short when the stock does not matter (it never affects
play, only what is seen). The deal always goes through
``deal_from_names`` so every helper-built deal is a valid 36-card deal.
"""

from __future__ import annotations

from trappola_env.engine import DEFAULT_CONFIG, Partie, action_id, deal_from_names
from trappola_env.engine.cards import CARD_NAMES, card_id


def names(cards) -> list[str]:
    """A list of card names from a list or a space-separated string."""
    if isinstance(cards, str):
        return cards.split()
    return list(cards)


def make_deal_spec(challenger, dealer, stock=None) -> dict:
    ch, de = names(challenger), names(dealer)
    if stock is None:
        used = {card_id(n) for n in ch + de}
        stock = [CARD_NAMES[c] for c in range(36) if c not in used]
    return {"challenger": ch, "dealer": de, "stock": names(stock)}


def make_partie(challenger, dealer, stock=None, config=DEFAULT_CONFIG, stake_multiple=1, multiplier=1) -> Partie:
    """A fresh partie from named hands (seat 0 = challenger, 1 = dealer)."""
    deal = deal_from_names(make_deal_spec(challenger, dealer, stock))
    return Partie(deal, config, stake_multiple=stake_multiple, multiplier=multiplier)


def act(partie: Partie, *actions) -> Partie:
    """Apply actions given as names ("AS", "declare Aces", "ask Manko") or
    ids, in order, whoever is to act; returns the partie."""
    for a in actions:
        partie.apply(action_id(a))
    return partie


def legal_names(partie: Partie) -> set[str]:
    """The legal actions as names: cards as "AS", others as in ACTION_NAMES."""
    from trappola_env.engine import action_name

    return {action_name(a).removeprefix("play ") for a in partie.legal_actions()}


def state_key(partie: Partie) -> tuple:
    """Every slot of a partie, for comparing two states for equality."""
    return tuple(_freeze(getattr(partie, s)) for s in Partie.__slots__)


def _freeze(v):
    if isinstance(v, dict):
        return tuple(sorted(v.items()))
    if isinstance(v, (list, tuple)):
        return tuple(_freeze(x) for x in v)
    return v


def play_lowest(partie: Partie) -> Partie:
    """Finish the partie by always playing the lowest-id legal card (no
    declarations): a fixed, easily hand-followed policy."""
    while not partie.terminal:
        cards = [a for a in partie.legal_actions() if a < 36]
        partie.apply(cards[0])
    return partie
