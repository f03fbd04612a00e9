"""Players and their interface: the registry, legality of every answer,
information hiding, the rule player's heuristics and endgame search, Pro
rules, and the human player driven by scripted input."""

import importlib.util
import io
import random

import numpy as np
import pytest
from helpers import act, make_partie
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trappola.agents import REGISTRY, make_player, parse_spec, registry, split_player_list
from trappola.agents.base import Player
from trappola.agents.players.human import HumanPlayer, HumanQuit, parse_choice, render_view
from trappola.agents.pro_rules import ProRule
from trappola.agents.search.endgame import WIN, card_values
from trappola.agents.search.knowledge import opponent_cards, public_points
from trappola_env.engine import Deal, Partie, action_id, random_deal
from trappola_env.engine.actions import ACCEPT_ALIFER, BIANKA, BLANS, DECLINE_ALIFER, FIGURA_RE, MANKO, PROPOSE_ALIFER
from trappola_env.engine.bonuses import trick_bonuses
from trappola_env.engine.cards import CARD_NAMES, CARD_POINTS, SUIT_MASK, card_id, cards_of, mask_of
from trappola_env.engine.declarations import declaration_value
from trappola_env.engine.infostate import InfoState
from trappola_env.interface import ProView, TurnView
from trappola_env.referee import play_partie

SPECS = [
    "random",
    "random:alifer=false",
    "rule",
    "rule:declare=never,manko=false,alifer=never",
    "rule:twos=false,endgame=0",
    "rule:declare=no_aces,endgame=2,samples=3",
]


def view_of(partie):
    return TurnView(partie.info_state(partie.to_act))


# ------------------------------------------------------------------ registry
def test_parse_spec_splits_name_bare_and_settings():
    assert parse_spec("rule") == ("rule", [], {})
    assert parse_spec(" Rule : declare=never , manko=false") == ("rule", [], {"declare": "never", "manko": "false"})
    assert parse_spec("policy:runs/x/best.zip,sample=true") == ("policy", ["runs/x/best.zip"], {"sample": "true"})


@pytest.mark.parametrize(
    "spec, message",
    [
        ("", "non-empty"),
        ("rule:declare=never,declare=always", "given twice"),
        ("rule:manko=false,stray", "must come first"),
        ("rule:,", "empty setting"),
        ("rule:=3", "has no name"),
    ],
)
def test_parse_spec_rejects_malformed(spec, message):
    with pytest.raises(ValueError, match=message):
        parse_spec(spec)


def test_make_player_builds_with_typed_settings_and_canonical_name():
    p = make_player("rule:declare=never,alifer_margin=7,twos=no")
    assert p.settings["declare"] == "never" and p.settings["alifer_margin"] == 7 and p.settings["twos"] is False
    assert p.name == "rule:declare=never,alifer_margin=7,twos=false"
    assert make_player("rule:declare=always").name == "rule"  # defaults are left out
    for spec in SPECS:
        assert make_player(make_player(spec).name).settings == make_player(spec).settings


def test_unknown_player_lists_the_registry():
    with pytest.raises(ValueError) as e:
        make_player("alphazero")
    for name in REGISTRY:
        assert name in str(e.value)


def test_unknown_setting_lists_the_settings():
    with pytest.raises(ValueError) as e:
        make_player("rule:depth=3")
    assert "no setting depth" in str(e.value) and "declare" in str(e.value) and "endgame" in str(e.value)


@pytest.mark.parametrize(
    "spec, message",
    [
        ("rule:declare=sometimes", "choose one of always, never, no_aces"),
        ("random:alifer=2", "expected true or false"),
        ("rule:alifer_margin=lots", "expected int"),
        ("rule:fast", "settings are key=value"),
        ("rule:pro=maybe", "choose one of never, always, threshold, random"),
        ("rule:rollout_p=nan", r"rollout_p='nan': expected a finite number from 0 to 1"),
        ("rule:rollout_p=1.5", r"rollout_p='1.5': expected a finite number from 0 to 1"),
        ("rule:samples=0", r"samples='0': expected an integer from 1 to 4096"),
        ("rule:answer_rollouts=-1", r"answer_rollouts='-1': expected an integer from 0 to 4096"),
        ("rule:first_two=inf", "first_two='inf': expected a finite number"),
        ("random:pro_bulka=-5", r"pro_bulka='-5': expected a finite number from 0 to 1000"),
        ("policy:pro_bulka=nan", r"pro_bulka='nan': expected a finite number from 0 to 1000"),
    ],
)
def test_bad_setting_values_say_what_fits(spec, message):
    with pytest.raises(ValueError, match=message):
        make_player(spec)


@pytest.mark.parametrize("name, dependency, extra", [("pimc", "numba", "search"), ("policy", "torch", "train")])
def test_a_missing_optional_dependency_names_the_extra(monkeypatch, name, dependency, extra):
    real = importlib.import_module

    def without_dependency(module_name, *args):
        if module_name == f"trappola.agents.players.{name}":
            raise ModuleNotFoundError(f"No module named {dependency!r}", name=dependency)
        return real(module_name, *args)

    monkeypatch.setattr(importlib, "import_module", without_dependency)
    with registry.fresh():  # as in a fresh process
        with pytest.raises(ValueError, match=rf"player '{name}' needs {dependency}.*trappola-lab\[{extra}\]"):
            make_player(name)
        assert name not in registry.rows() and any(dependency in why for why in registry.missing().values())


def test_a_missing_checkpoint_is_a_value_error():
    with pytest.raises(ValueError, match="no/such/model.zip"):
        make_player("policy:no/such/model.zip")


def test_split_player_list_keeps_settings_with_their_player():
    assert split_player_list("rule:declare=never,manko=false,random,random:alifer=false") == [
        "rule:declare=never,manko=false",
        "random",
        "random:alifer=false",
    ]
    assert split_player_list("policy:m.zip,rule") == ["policy:m.zip", "rule"]
    with pytest.raises(ValueError, match="empty player"):
        split_player_list("rule,,random")


# ------------------------------------------------------------- legality
def random_position(seed: int, steps: int) -> Partie:
    rng = random.Random(seed)
    p = Partie(random_deal(rng))
    for _ in range(steps):
        if p.terminal:
            break
        actions = p.legal_actions()
        if rng.random() < 0.8:  # mostly cards, so positions reach the late tricks
            actions = [a for a in actions if a < 36] or actions
        p.apply(rng.choice(actions))
    return p


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.integers(0, 30), st.sampled_from(SPECS))
def test_players_always_answer_a_legal_action(seed, steps, spec):
    p = random_position(seed, steps)
    if p.terminal:
        return
    player = make_player(spec)
    player.reset(seed)
    view = view_of(p)
    a = player.act(view)
    assert type(a) is int and p.is_legal(a)


@pytest.mark.parametrize("spec", SPECS)
def test_full_parties_between_players_stay_legal(spec):
    # play_partie raises ValueError on any illegal answer.
    a, b = make_player(spec), make_player("rule")
    for i in range(15):
        a.reset(i)
        b.reset(i + 100)
        rec = play_partie((a, b) if i % 2 else (b, a), random_deal(random.Random(i)))
        assert rec.result.outcome in ("decided", "tie", "agreed_alifer")


def test_referee_names_the_player_that_answers_illegally():
    class Cheat(Player):
        kind = "cheat"

        def act(self, view):
            return 44 if not view.is_legal(44) else 0  # Alifer once used, or a card it may not hold

    p = make_partie("AS 7S 8S 9S TS BS CS RS 2S", "AC 7C 8C 9C TC BC CC RC 2C")
    act(p, "propose Alifer", "decline Alifer")
    with pytest.raises(ValueError, match="'cheat'.*illegal action"):
        play_partie((Cheat(), make_player("rule")), p.deal)


# ---------------------------------------------------------- information
class Spy(Player):
    kind = "spy"

    def __init__(self, inner):
        super().__init__()
        self.inner = inner
        self.views = []

    def reset(self, seed=None):
        self.inner.reset(seed)

    def act(self, view):
        self.views.append(view)
        return self.inner.act(view)


_PLAIN = (int, str, bool, type(None))


def _only_plain_data(v) -> bool:
    if isinstance(v, _PLAIN):
        return True
    if isinstance(v, (tuple, list)):
        return all(_only_plain_data(x) for x in v)
    if isinstance(v, dict):
        return all(_only_plain_data(k) and _only_plain_data(x) for k, x in v.items())
    return False


def test_players_receive_only_their_seat_view():
    spy = Spy(make_player("rule"))
    deal = random_deal(random.Random(5))
    play_partie((spy, make_player("random")), deal)
    assert spy.views
    for view in spy.views:
        assert type(view) is TurnView and type(view.info) is InfoState
        assert view.info.seat == 0 and view.info.dealt == deal.hands[0]
        for slot in InfoState.__slots__:
            assert _only_plain_data(getattr(view.info, slot)), slot  # no Partie, Deal or hidden object
        assert view.opponent == "random"
        # The opponent's unplayed cards appear nowhere in the view.
        opp_unplayed = deal.hands[1] & ~mask_of(view.info.played_by(1))
        assert not (view.info.hand | view.info.dealt) & opp_unplayed


def first_decisions_on_swapped_deals(spec: str, seeds=range(12)):
    """(decision on a deal, decision on the same deal with the dealer's hand
    swapped with hidden stock cards) of the challenger's first move, per seed."""
    for seed in seeds:
        deal = random_deal(random.Random(seed))
        order = list(deal.dealer) + list(deal.stock[:-1])
        random.Random(seed + 1).shuffle(order)
        other = Deal(deal.challenger, tuple(order[:9]), tuple(order[9:]) + (deal.bottom,))
        firsts = []
        for d in (deal, other):
            player = make_player(spec)
            player.reset(seed)
            firsts.append(player.act(view_of(Partie(d))))
        yield seed, firsts


def test_decisions_do_not_depend_on_hidden_cards():
    """Swap the dealer's hand with hidden stock cards: the challenger's first
    decisions (same seed) must not change, whatever player it is."""
    for spec in (
        "rule",
        "random",
        "rule:first_two=0,samples=2",
        "policy",
        "policy:sample=true",
        "policy:endgame=9,endgame_samples=4",
        "vecpimc:samples=4,depth=1",
        "alphamu:samples=4",
        "infopimc:samples=4,rollouts=2,rollout_samples=2",
        "cfrdecl:samples=4,iterations=20",
        "policy:endgame=9,endgame_samples=4,endgame_search=vecpimc1",
    ):  # the belief-weighted search from the first card; tests/test_beyond_pimc.py checks late positions
        for seed, (a, b) in first_decisions_on_swapped_deals(spec):
            assert a == b, (spec, seed)


def test_observation_is_computed_only_when_read():
    calls = []

    def encoder(info):
        calls.append(info.seat)
        return np.zeros(3)

    p = Partie(random_deal(random.Random(0)))
    view = TurnView(p.info_state(0), encoder=encoder)
    make_player("rule").act(view)
    make_player("random").act(view)
    assert calls == []
    assert view.observation.shape == (3,) and view.observation.shape == (3,)
    assert calls == [0]
    given = TurnView(p.info_state(0), observation=np.ones(2), encoder=encoder)
    assert given.observation.sum() == 2 and calls == [0]


def test_turn_view_legality_checks():
    view = view_of(Partie(random_deal(random.Random(0))))
    a = view.legal_actions[0]
    assert view.is_legal(a) and view.is_legal(np.int64(a))
    assert not view.is_legal(True) and not view.is_legal(1.0) and not view.is_legal(99)


# ------------------------------------------------------------ random
def test_random_player_is_seeded_and_alifer_switch_works():
    p = Partie(random_deal(random.Random(1)))
    r1, r2 = make_player("random"), make_player("random")
    r1.reset(7)
    r2.reset(7)
    view = view_of(p)
    assert [r1.act(view) for _ in range(20)] == [r2.act(view) for _ in range(20)]
    polite = make_player("random:alifer=false")
    assert all(polite.act(view) != PROPOSE_ALIFER for _ in range(200))
    act(p, "propose Alifer")
    assert polite.act(view_of(p)) == DECLINE_ALIFER


def test_random_player_covers_every_legal_action():
    p = Partie(random_deal(random.Random(2)))
    view = view_of(p)
    r = make_player("random")
    r.reset(0)
    assert {r.act(view) for _ in range(600)} == set(view.legal_actions)


# ------------------------------------------------------------ rule player
def test_rule_declares_at_first_chance_and_asks_manko():
    p = make_partie("RS RC RD 7S 8S 9S TS 2C 7C", "BS BC BD 7B 8B 9B TB 2B 7D")
    rule = make_player("rule")
    assert rule.act(view_of(p)) == FIGURA_RE
    assert make_player("rule:declare=never").act(view_of(p)) < 36
    act(p, "declare Figura Re", "7S")
    assert rule.act(view_of(p)) == action_id("declare Figura Bube")  # the dealer's three Bube
    act(p, "declare Figura Bube", "BS")
    # Trick 2: the challenger (led 7S, lost to BS) now leads again? No: the dealer won and leads.
    act(p, "7B")
    assert rule.act(view_of(p)) == MANKO  # the challenger's 2nd card, the dealer declared 3 Bube
    assert make_player("rule:manko=false").act(view_of(p)) < 36


def test_rule_declares_blans_with_no_court_cards():
    p = make_partie("2S 7S 8S 9S TS AS 7C 8C 9C", "BS BC BD 7B 8B 9B TB 2B 7D")
    assert make_player("rule").act(view_of(p)) == BLANS


def test_rule_follows_with_the_lowest_winner_and_keeps_twos():
    # Dealer leads 9C after trick 1; the challenger holds TC and AC (both win): TC is cheap.
    p = make_partie("7S 2C TC AC 7D 8D 9D TD 7B", "8S 9C 8C BD CD RD 8B 9B TB")
    act(p, "7S", "8S")  # dealer wins trick 1 and leads
    act(p, "9C")
    assert make_player("rule:endgame=0").act(view_of(p)) == card_id("TC")
    # Cannot win 9B: throw the cheapest, which is not a point card.
    p = make_partie("7S 2B 7B CB 7D 8D 9D TD 7C", "8S 9C 8C BD CD RD 8B AB TB")
    act(p, "7S", "8S", "AB")
    assert make_player("rule:endgame=0").act(view_of(p)) == card_id("7B")  # keeps CB and the Two


def test_rule_discards_a_blank_card_not_an_ace_when_void():
    p = make_partie("7S AC AD 7D 8D 9D TD 7B 8B", "8S 9C 8C BC CC RC 2C TB 9B")
    act(p, "7S", "8S", "9C")  # dealer leads clubs; challenger holds only AC there -> must play it
    assert make_player("rule:endgame=0").act(view_of(p)) == card_id("AC")
    act(p, "AC")
    # Challenger (won with AC) leads; make it lose the lead and face a club while void.
    q = make_partie("7S AD 7D 8D 9D TD 7B 8B AB", "8S 9C 8C BC CC RC 2C TB 9B")
    act(q, "7S", "8S", "9C")
    assert make_player("rule:endgame=0").act(view_of(q)) in {card_id(c) for c in ("7D", "8D", "9D", "TD", "7B", "8B")}


def test_rule_answers_alifer_by_the_score():
    # Trick 1, nothing known: the rule player declines (not losing clearly).
    p = make_partie("RS RC RD 7S 8S 9S TS 2C 7C", "BS BC BD 7B 8B 9B TB 2B 7D")
    act(p, "propose Alifer")
    assert make_player("rule").act(view_of(p)) == DECLINE_ALIFER
    # Behind by far more than the margin: it accepts; alifer=never never does.
    p = make_partie("AS RS CS AC RC CC 7D 8D 9D", "7S 8S 9S 7C 8C 9C TD BD 2B")
    act(p, "AS", "7S", "RS", "8S", "CS", "9S", "AC", "7C", "propose Alifer")
    assert public_points(p.info_state(1), 0) - public_points(p.info_state(1), 1) >= 20
    assert make_player("rule:answer_rollouts=0").act(view_of(p)) == ACCEPT_ALIFER
    assert make_player("rule:alifer=never").act(view_of(p)) == DECLINE_ALIFER


def test_rule_proposes_alifer_when_the_endgame_is_lost():
    # Challenger won nothing and holds three losers against known top cards.
    p = make_partie("7S 8S 9S 7C 8C 9C 7D 8D 9D", "AS RS CS AC RC CC AD RD CD")
    act(p, "7S", "AS", "AD", "7D", "AC", "7C", "RD", "8D", "RC", "8C", "RS", "8S", "CS")
    assert p.to_act == 0 and p.info_state(0).hand.bit_count() == 3
    # Its dealt hand had no court card or Ace: Bianka first (legal at any turn), then the proposal.
    assert make_player("rule").act(view_of(p)) == BIANKA
    act(p, "declare Bianka")
    assert make_player("rule").act(view_of(p)) == PROPOSE_ALIFER
    assert make_player("rule:alifer=never").act(view_of(p)) < 36


# ------------------------------------------------------------ knowledge
def test_opponent_cards_use_voids_and_declarations():
    p = make_partie("AS 7S 8S 9S TS 7C 8C 9C TC", "RB CB BB 2B 7B 8B 9B TB AB")
    act(p, "declare Figura Re") if p.is_legal(FIGURA_RE) else None
    act(p, "AS", "7B")  # the dealer shows it has no Spade
    info = p.info_state(0)
    opp = opponent_cards(info)
    assert opp.suit_void(0) and not opp.possible & SUIT_MASK[0]
    assert opp.count == 8 and not opp.possible & info.dealt
    # Blans excludes court cards.
    q = make_partie("AS 7S 8S 9S TS 7C 8C 9C TC", "2B 7B 8B 9B TB AB 2D 7D 8D")
    act(q, "7S", "declare Blans", "7B")
    opp = opponent_cards(q.info_state(0))
    assert not any(opp.possible >> c & 1 for c in cards_of(opp.possible) if c % 9 in (5, 6, 7))
    # A 4-card Figura names every card of its rank.
    r = make_partie("AS 7S 8S 9S TS 7C 8C 9C TC", "RS RC RD RB 7B 8B 9B 2D 7D")
    act(r, "7S", "declare Figura Re")
    act(r, "RS")
    opp = opponent_cards(r.info_state(0))
    assert opp.known & mask_of(card_id(n) for n in ("RC", "RD", "RB")) == mask_of(
        card_id(n) for n in ("RC", "RD", "RB")
    )


def test_p_none_of_and_sampling_agree_with_the_pool():
    info = Partie(random_deal(random.Random(3))).info_state(0)
    opp = opponent_cards(info)
    assert opp.p_none_of(0) == 1.0
    spade = opp.possible & SUIT_MASK[0]
    rng = random.Random(0)
    samples = [opp.sample(rng) for _ in range(3000)]
    assert all(s.bit_count() == 9 and not s & ~opp.possible for s in samples)
    empirical = sum(1 for s in samples if not s & spade) / len(samples)
    assert abs(empirical - opp.p_none_of(spade)) < 0.03


# ------------------------------------------------------------ endgame search
def brute_force_values(info, opp_hand):
    """Reference minimax without pruning, scored exactly like the engine."""
    me = info.seat

    def final(points, failed, winners, two):
        total = list(points)
        for _, s, pts, _ in trick_bonuses(winners, two):
            total[s] += pts
        for s in (0, 1):
            for a, n in info.declarations[s].items():
                total[s] += declaration_value(a, n, not failed[s])[0]
        d = total[me] - total[1 - me]
        return d + (WIN if d > 0 else -WIN if d < 0 else 0)

    def legal(hand, lead):
        if lead >= 0 and hand & SUIT_MASK[lead // 9]:
            return cards_of(hand & SUIT_MASK[lead // 9])
        return cards_of(hand)

    def go(hands, p, lead, leader, points, failed, winners, two):
        if len(winners) == 9:
            return final(points, failed, winners, two)
        vals = [step(hands, p, c, lead, leader, points, failed, winners, two) for c in legal(hands[p], lead)]
        return max(vals) if p == me else min(vals)

    def step(hands, p, c, lead, leader, points, failed, winners, two):
        hands = list(hands)
        hands[p] &= ~(1 << c)
        if lead < 0:
            return go(hands, 1 - p, c, p, points, failed, winners, two)
        w = p if (c // 9 == lead // 9 and c > lead) else leader
        points = list(points)
        points[w] += CARD_POINTS[c] + CARD_POINTS[lead]
        failed = list(failed)
        if c % 9 == 8 and w != p and 40 in info.declarations[p]:
            failed[p] = True
        win_card = c if w == p else lead
        return go(hands, w, -1, w, points, failed, winners + [w], two + [w if win_card % 9 == 0 else -1])

    hands = [0, 0]
    hands[me], hands[1 - me] = info.hand, opp_hand
    from trappola.agents.search.knowledge import aces_failed

    failed = [aces_failed(info, 0), aces_failed(info, 1)]
    return {
        c: step(
            hands,
            me,
            c,
            info.lead,
            info.leader,
            info.card_points,
            failed,
            [t[3] for t in info.tricks],
            list(info.two_winner),
        )
        for c in legal(info.hand, info.lead)
    }


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.integers(4, 5))
def test_endgame_search_matches_brute_force(seed, cards_left):
    rng = random.Random(seed)
    p = Partie(random_deal(rng))
    while not p.terminal and 9 - p.ncards[p.to_act] > cards_left:
        actions = p.legal_actions()
        cards = [a for a in actions if a < 36]
        decl = [a for a in actions if 36 <= a <= 42]
        p.apply(rng.choice(decl) if decl and rng.random() < 0.5 else rng.choice(cards))
    if p.terminal or p.phase != 0:
        return
    info = p.info_state(p.to_act)
    opp_hand = p.hands[1 - p.to_act]
    assert card_values(info, opp_hand) == brute_force_values(info, opp_hand)


# ------------------------------------------------------------ Pro rules
def pro_view(bulka=60.0, opponent="random", streak=2):
    return ProView(
        player=0,
        players=("me", opponent),
        balances=(5.0, -5.0),
        streaks=(streak, 0),
        bulka=bulka,
        opponent=opponent,
        parties_left=10,
    )


def test_pro_rules():
    rng = random.Random(0)
    assert ProRule("never").decide(pro_view(), rng) is False
    assert ProRule("always").decide(pro_view(bulka=0), rng) is True
    assert ProRule("threshold", bulka=3).decide(pro_view(bulka=30), rng) is True
    assert ProRule("threshold", bulka=3).decide(pro_view(bulka=29), rng) is False
    assert ProRule("threshold", bulka=0, vs=("rule",)).decide(pro_view(opponent="rule:declare=never"), rng)
    assert not ProRule("threshold", bulka=0, vs=("rule",)).decide(pro_view(opponent="random"), rng)
    answers = [ProRule("random").decide(pro_view(), rng) for _ in range(400)]
    assert 120 < sum(answers) < 280
    assert pro_view().pro_cost == 10 and pro_view().balance == 5.0 and pro_view().streak == 2
    with pytest.raises(ValueError, match="pro mode"):
        ProRule("sometimes")


def test_players_answer_pro_through_their_settings():
    assert make_player("rule:pro=always").decide_pro(pro_view(bulka=0)) is True
    assert make_player("rule:pro=never").decide_pro(pro_view(bulka=500)) is False
    assert make_player("rule:pro_bulka=10").decide_pro(pro_view(bulka=99)) is False
    assert make_player("rule:pro_bulka=10").decide_pro(pro_view(bulka=100)) is True
    assert make_player("rule:pro_vs=rule").decide_pro(pro_view(bulka=100, opponent="random")) is False


# ------------------------------------------------------------ human player
def human(script: str):
    out = io.StringIO()
    return HumanPlayer(stdin=io.StringIO(script), stdout=out), out


def test_human_reasks_on_bad_input_and_takes_numbers_cards_and_names():
    p = make_partie("RS RC RD 7S 8S 9S TS 2C 7C", "BS BC BD 7B 8B 9B TB 2B 7D")
    h, out = human("hello\n0\n42\nAS\n7s\n")
    assert h.act(view_of(p)) == card_id("7S")
    text = out.getvalue()
    assert text.count("is not one of your moves") == 4
    assert "Re of Spade" in text and "declare Figura Re" in text and "Stock bottom" in text
    h, _ = human("declare figura re\n")
    assert h.act(view_of(p)) == FIGURA_RE
    h, _ = human("1\n")
    assert h.act(view_of(p)) == view_of(p).legal_actions[0]


def test_human_sees_only_its_seat():
    p = make_partie("RS RC RD 7S 8S 9S TS 2C 7C", "BS BC BD 7B 8B 9B TB 2B 7D")
    act(p, "7S")
    text = render_view(p.info_state(1))
    hand_line = [line for line in text.splitlines() if line.startswith("Your hand")][0]
    assert "BS" in hand_line and "RS" not in hand_line
    assert "RC" not in text and "opponent led 7S" in text


def test_human_quits_on_q_or_end_of_input_and_answers_pro():
    p = Partie(random_deal(random.Random(0)))
    for script in ("q\n", ""):
        h, _ = human(script)
        with pytest.raises(HumanQuit):
            h.act(view_of(p))
    h, out = human("perhaps\ny\n")
    assert h.decide_pro(pro_view()) is True and "please answer y or n" in out.getvalue()
    h, _ = human("n\n")
    assert h.decide_pro(pro_view()) is False


def test_human_plays_a_whole_partie_and_sees_the_result():
    h, out = human("1\n" * 60)
    rec = play_partie((h, make_player("rule:alifer=never")), random_deal(random.Random(4)))
    assert rec.result.outcome in ("decided", "tie")
    assert "Partie over" in out.getvalue()


def test_parse_choice():
    actions = [card_id("7S"), card_id("AS"), PROPOSE_ALIFER]
    assert parse_choice("2", actions) == card_id("AS")
    assert parse_choice("play as", actions) == card_id("AS")
    assert parse_choice("Propose Alifer", actions) == PROPOSE_ALIFER
    assert parse_choice("4", actions) is None and parse_choice("RS", actions) is None
    assert parse_choice("", actions) is None and CARD_NAMES[card_id("AS")] == "AS"


# ------------------------------------------------------------ determinization
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.integers(0, 17))
def test_determinize_with_the_true_hand_rebuilds_the_view(seed, cards):
    """A world dealt with the opponent's true hand replays to exactly the
    view the seat had: same hand, record, declarations, Manko, legal mask."""
    from trappola.agents.search.worlds import determinize

    rng = random.Random(seed)
    p = Partie(random_deal(rng))
    while not p.terminal and sum(p.ncards) < cards:
        actions = p.legal_actions()
        extra = [a for a in actions if 36 <= a <= 44 or a == DECLINE_ALIFER]
        p.apply(
            rng.choice(extra) if extra and rng.random() < 0.4 else rng.choice([a for a in actions if a < 36] or actions)
        )
    if p.terminal or p.phase != 0:
        return
    for seat in (0, 1):
        info = p.info_state(seat)
        world = determinize(info, p.hands[1 - seat], random.Random(1))
        assert world is not None
        rebuilt = world.info_state(seat)
        for slot in InfoState.__slots__:
            if slot != "history":  # replayed in a canonical order (trappola.agents.search.worlds), the same state
                assert getattr(rebuilt, slot) == getattr(info, slot), slot
        assert sorted(rebuilt.history) == sorted(info.history)
        assert world.hands[1 - seat] == p.hands[1 - seat]


def test_determinize_rejects_a_guess_that_contradicts_the_record():
    from trappola.agents.search.worlds import determinize

    p = make_partie("RS RC RD 7S 8S 9S TS 2C 7C", "BS BC BD 7B 8B 9B TB 2B 7D")
    act(p, "declare Figura Re", "7S")
    info = p.info_state(1)
    assert determinize(info, p.hands[0], random.Random(0)) is not None
    # Give the challenger a hand without its three Re: the declaration cannot be replayed.
    fake = mask_of(card_id(n) for n in ("8S", "9S", "TS", "2C", "7C", "AS", "AC", "AD"))
    assert determinize(info, fake, random.Random(0)) is None


def test_samples_respect_declared_counts():
    p = make_partie("RS 7S 8S 9S TS 2C 7C 8C 9C", "BS BC BD 7B 8B 9B TB 2B 7D")
    act(p, "7S", "declare Figura Bube", "BS")
    opp = opponent_cards(p.info_state(0))
    rng = random.Random(0)
    bube = mask_of(card_id(n) for n in ("BS", "BC", "BD", "BB"))
    for _ in range(200):
        assert (opp.sample(rng) & bube).bit_count() == 2  # three declared, BS played
