"""The privileged view: it reconstructs the whole deal together with the
observation, follows the opponent's hand as cards are played, and is never
part of what a seat observes."""

import random

import numpy as np
import pytest

from trappola_env.engine import Partie, random_deal
from trappola_env.engine.cards import cards_of
from trappola_env.full_deal import FULL_DEAL_SIZE, encode_full_deal
from trappola_env.observation import OFFSET, encode


def _decode(vec):
    opp_hand = set(np.flatnonzero(vec[0:36]))
    opp_dealt = set(np.flatnonzero(vec[36:72]))
    stock = [int(c) for c in np.argsort(vec[72:108])[-18:]]
    stock.sort(key=lambda c: vec[72 + c])
    return opp_hand, opp_dealt, stock


@pytest.mark.parametrize("seed", range(30))
def test_full_deal_with_observation_is_the_whole_deal(seed):
    rng = random.Random(seed)
    deal = random_deal(rng)
    partie = Partie(deal)
    for _ in range(rng.randrange(0, 12)):
        if partie.terminal:
            break
        partie.apply(rng.choice(partie.legal_actions()))
    for seat in (0, 1):
        vec = encode_full_deal(partie, seat)
        assert vec.shape == (FULL_DEAL_SIZE,) and vec.dtype == np.float32
        opp_hand, opp_dealt, stock = _decode(vec)
        assert opp_hand == set(cards_of(partie.hands[1 - seat]))
        assert opp_dealt == set(cards_of(partie.dealt[1 - seat]))
        assert stock == list(deal.stock)
        obs = encode(partie, seat)
        mine = set(np.flatnonzero(obs[OFFSET["dealt_hand"] : OFFSET["dealt_hand"] + 36]))
        assert mine | opp_dealt | set(stock) == set(range(36))
        assert vec[72 + deal.bottom] == 1.0


def test_out_buffer_is_checked_and_reused():
    partie = Partie(random_deal(random.Random(1)))
    buf = np.full(FULL_DEAL_SIZE, 7.0, np.float32)
    assert encode_full_deal(partie, 1, out=buf) is buf
    assert np.array_equal(buf, encode_full_deal(partie, 1))
    with pytest.raises(ValueError, match="float32"):
        encode_full_deal(partie, 0, out=np.zeros(FULL_DEAL_SIZE))
    with pytest.raises(ValueError, match="seat"):
        encode_full_deal(partie, 2)
