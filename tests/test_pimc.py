"""The ``pimc`` player: legal, reproducible, declares when its settings say,
answers Alifer by the sampled outcome, finds a winning endgame move, and
beats ``random``."""

from __future__ import annotations

import random

import numpy as np
import pytest
from helpers import act, make_deal_spec, make_partie

from trappola.agents import make_player
from trappola.agents.base import Player
from trappola.agents.evaluation import head_to_head
from trappola.agents.players.pimc import PimcPlayer, opponent_pending
from trappola_env.engine import RuleConfig, card_id, deal_from_names, mask_of, random_deal
from trappola_env.engine.actions import (
    ACCEPT_ALIFER,
    ACES,
    BIANKA,
    BLANS,
    DECLINE_ALIFER,
    FIGURA_RE,
    PROPOSE_ALIFER,
    action_id,
)
from trappola_env.engine.declarations import aces_possible, bianka_possible, first_card_declarations
from trappola_env.interface import TurnView
from trappola_env.referee import play_partie

DECLS = set(range(FIGURA_RE, BIANKA + 1))


def _deals(n, seed, predicate):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        d = random_deal(rng)
        if predicate(d.hands[0]) or predicate(d.hands[1]):
            out.append(d)
    return out


def _any_declaration(h):
    return bool(first_card_declarations(h)) or aces_possible(h) or bianka_possible(h)


def _play(spec_a, spec_b, deal, seed=0, config=RuleConfig()):
    a, b = make_player(spec_a), make_player(spec_b)
    a.reset(seed)
    b.reset(seed + 1)
    return play_partie([a, b], deal, config=config)


def _seat_actions(history, seat):
    return [a for s, a in history if s == seat]


@pytest.mark.parametrize(
    "spec,config",
    [
        ("pimc", RuleConfig()),
        ("pimc:declare=last,objective=win", RuleConfig()),
        ("pimc:declare=last,alifer=losing,objective=points", RuleConfig(ace_declaration="first_card")),
        ("pimc:silence=true,anticipate=true", RuleConfig()),  # against random the silence model is wrong: fallback
    ],
)
def test_always_legal_against_rule_and_random(spec, config):
    # The referee raises ValueError on any illegal action.
    for i, deal in enumerate(_deals(4, seed=2, predicate=_any_declaration)):
        _play(spec, "rule", deal, seed=i, config=config)
        _play("random", spec, deal, seed=i, config=config)  # random proposes Alifer at random


def test_same_seed_same_play():
    deal = random_deal(random.Random(5))
    runs = [_play("pimc:samples=8", "rule", deal, seed=3).history for _ in range(2)]
    assert runs[0] == runs[1]
    # The seed is what fixes the samples: a player reused with a new reset replays identically.
    p, r = make_player("pimc:samples=8"), make_player("rule")
    first = []
    for _ in range(2):
        p.reset(3)
        r.reset(4)
        first.append(play_partie([p, r], deal).history)
    assert first[0] == first[1] == runs[0]


def _two_then_ace_endgame():
    """Seat 0 leads trick 8 holding 2S and AC; the dealer has shown it is
    void in Spade and holds 2C and CB (pinned down by its Figura of Twos and
    Figura of Cavall). AC first then 2S wins trick 9 with a Two (4a, 26
    points): 45-38. 2S first scores 10 + the last trick's 6: 35-38, lost."""
    p = make_partie(challenger="2S 7S 8S AC RC 7C 7D 8D 9D", dealer="2C 2D 2B CC CD CB RD BD 9C")
    act(
        p,
        "7S",
        "declare Figura Twos",
        "declare Figura Cavall",
        "2B",
        "7C",
        "9C",
        "RD",
        "7D",
        "CD",
        "8D",
        "BD",
        "9D",
        "2D",
        "8S",
        "CC",
        "RC",
    )
    return p


def test_finds_the_only_winning_endgame_move():
    p = _two_then_ace_endgame()
    outcomes = {}
    for first, reply in (("AC", "2C"), ("2S", "CB")):
        q = p.copy()
        act(q, first, reply)
        while not q.terminal:
            q.apply(q.legal_actions()[0])
        outcomes[first] = q.result().winner
    assert outcomes == {"AC": 0, "2S": 1}
    for spec in ("pimc", "pimc:objective=win", "pimc:objective=points", "pimc:samples=1,exact=0"):
        player = make_player(spec)
        player.reset(0)
        assert player.act(TurnView(p.info_state(0))) == action_id("AC"), spec


class Scripted(Player):
    """Plays its highest legal card, declares what it can, proposes Alifer
    once when it is about to play card number ``propose_at`` (1-based)."""

    kind = "scripted"

    def __init__(self, propose_at=0):
        super().__init__()
        self.propose_at = propose_at

    def act(self, view):
        mask = view.legal_mask
        if mask >> ACCEPT_ALIFER & 1:
            return DECLINE_ALIFER
        for a in sorted(DECLS):
            if mask >> a & 1:
                return a
        if mask >> PROPOSE_ALIFER & 1 and view.info.ncards[view.seat] + 1 == self.propose_at:
            return PROPOSE_ALIFER
        return max(a for a in view.legal_actions if a < 36)


STRONG = "AS AC AD AB RS RC RD RB CS"
WEAK = "7C 8C 9C TC 7D 8D 9D TD 7B"


@pytest.mark.parametrize("pimc_strong", [True, False])
def test_alifer_answer_follows_the_sampled_outcome(pimc_strong):
    deal = deal_from_names(make_deal_spec(STRONG, WEAK))
    pimc = make_player("pimc:samples=16")
    pimc.reset(0)
    proposer = Scripted(propose_at=5)
    players = [pimc, proposer] if pimc_strong else [proposer, pimc]
    rec = play_partie(players, deal)
    pimc_seat = 0 if pimc_strong else 1
    answers = [a for s, a in rec.history if s == pimc_seat and a in (ACCEPT_ALIFER, DECLINE_ALIFER)]
    assert PROPOSE_ALIFER in _seat_actions(rec.history, 1 - pimc_seat)
    if pimc_strong:
        assert answers == [DECLINE_ALIFER] and rec.result.winner == 0
    else:
        assert answers == [ACCEPT_ALIFER] and rec.result.outcome == "agreed_alifer"


def _aces_game(spec, config=RuleConfig()):
    """pimc deals, holding three Aces; the challenger leads Bastoni (its
    highest card), which pimc must follow with a plain card, so its first
    card cannot be an Ace. Returns pimc's actions in order."""
    deal = deal_from_names(make_deal_spec("9B TB BB 2D 7D 8D 9D TD 2C", "AS AC AD 7B 8B 7S 8S 9C BC"))
    pimc = make_player(spec)
    pimc.reset(0)
    return _seat_actions(play_partie([Scripted(), pimc], deal, config=config).history, 1)


def test_declares_aces_first_or_last():
    assert _aces_game("pimc")[0] == ACES
    hist = _aces_game("pimc:declare_aces=last")
    i = hist.index(ACES)
    cards_before = [a for a in hist[:i] if a < 36]
    assert cards_before and all(a % 9 != 8 for a in cards_before), "declared before its first Ace, not at it"
    assert hist[i + 1] < 36 and hist[i + 1] % 9 == 8, "the Ace goes in the turn of the declaration"
    # Under first_card the first card is the only (so the last) chance.
    assert _aces_game("pimc:declare_aces=last", RuleConfig(ace_declaration="first_card"))[0] == ACES
    assert not DECLS & set(_aces_game("pimc:declare=never"))


def test_declares_bianka_first_or_last():
    deal = deal_from_names(make_deal_spec("2S 7S 8S 9S 7C 8C 9C TC 7D", "AS AC RS RC CS CC BS BC 2D"))
    hist = _seat_actions(_play("pimc", "rule", deal).history, 0)
    assert hist[:2] == [BLANS, BIANKA]
    hist = _seat_actions(_play("pimc:declare_bianka=last", "rule", deal).history, 0)
    assert hist[0] == BLANS and hist[-2] == BIANKA and len([a for a in hist if a < 36]) == 9
    hist = _seat_actions(_play("pimc:declare=never,declare_bianka=first", "rule", deal).history, 0)
    assert hist[0] == BIANKA and BLANS not in hist


def test_bad_settings_raise():
    for spec in ("pimc:samples=0", "pimc:exact=-1", "pimc:objective=maybe", "pimc:declare=sometimes", "pimc:bogus=1"):
        with pytest.raises(ValueError):
            make_player(spec)
    assert isinstance(make_player("pimc"), PimcPlayer)


def test_beats_random_in_duplicate():
    res = head_to_head("pimc", "random", deals=30, duplicate=True, seed=11, workers=1)
    s = res.summary
    assert s["decided"] >= 20
    assert s["win_rate"] > 0.8, s


def test_anticipate_counts_the_declarations_still_to_come():
    # The dealer declared Blans and the challenger holds every Ace: in every
    # layout the dealer also holds a Bianka hand it has not declared yet.
    p = make_partie(challenger="AS AC AD AB RS CS BS RC 7D", dealer="2S 7S 8S 9S 7C 8C 9C TC 8D")
    act(p, "declare Aces", "AS", "declare Blans", "2S")
    info = p.info_state(0)
    plain, ahead = make_player("pimc"), make_player("pimc:anticipate=true")
    plain.reset(4)
    ahead.reset(4)
    v0, v1 = plain.solve_layouts(info, 0)[0], ahead.solve_layouts(info, 0)[0]
    legal = [c for c in range(36) if info.legal_mask >> c & 1]
    assert (v1[:, legal] == v0[:, legal] - 20).all()
    # Before the opponent's first card: Figura, Blans, Aces and Bianka are all still open.
    p = make_partie(challenger="7S 8S 9S 7C 8C 9C 7D 8D 9D", dealer="2C TC BC 2D TD BD 2B TB BB")
    info = p.info_state(0)
    hands = np.array(
        [
            mask_of(card_id(n) for n in h.split())
            for h in (
                "AS AC AD RS RC RD 2S TC 2C",  # 3 Aces, Figura of Re (6)
                "2S TS 2C TC 2D TD 2B TB 8B",  # 4 Twos (20), Blans (10), Bianka (20)
            )
        ],
        dtype=np.int64,
    )
    aces, points = opponent_pending(info, hands)
    assert aces.tolist() == [3, 0] and points.tolist() == [6, 50]
