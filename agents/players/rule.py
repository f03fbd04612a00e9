"""``rule``: a hand-written player that uses only its seat's knowledge.

Card play (``trappola.agents.search.knowledge`` tracks seen cards, the opponent's shown
voids and what its declarations reveal):

* Following a suit it can win: capture with its highest card that could
  otherwise be lost later (a court card some unseen card still beats), else
  win with the lowest winning card. Cannot win: play the cheapest card of
  the suit, keeping its Two. Void: discard the card worth least to keep
  (no points, not a sure winner, not a Two that can still score, never a
  declared Ace while another card will do).
* Leading: with Twos in suits the opponent is certainly void in ("live
  Twos", each a sure trick and a bonus) it keeps them for the last tricks
  when its sure winners can carry it there (bonuses 4a-4c: 26/52/78 instead
  of 10 per Two), else cashes them (10 each). Otherwise it cashes sure
  winners (declared Aces first: they must win their tricks), and with none
  left leads the card with the best estimated value: chance of winning the
  trick (hypergeometric over the cards the opponent may hold) times what it
  gains, including the Two bonuses (52 at trick 1: a Two lead on a long
  suit is worth it when ``first_two`` allows).

* Endgame: once its hand holds ``endgame`` cards or fewer (default 4) it
  guesses the opponent's hand ``samples`` times (consistent with the
  record) and plays the card with the best mean exact value
  (``trappola.agents.search.endgame``: win/loss first, then the point difference).

Declarations: ``declare=always`` (default) makes every legal scoring
declaration at the first chance; ``never``; ``no_aces`` (all but Aces).
``manko=true`` asks Manko whenever legal (free information).

Alifer (``alifer=losing``, default; ``never`` never proposes and always
declines): it proposes, and accepts a proposal, when it is losing clearly:
in the endgame when it wins fewer than ``alifer_p`` (0.5) of the sampled
exact solutions; earlier, when answering a proposal, when fewer than
``rollout_p`` (0.3) of ``answer_rollouts`` (32) rollouts are won, each from
a world consistent with the record (``trappola.agents.search.worlds``) played on with these
heuristics for both seats; otherwise when its public points trail by
``alifer_margin`` (20). Against a weak opponent this accepts some
proposals it would have won: the rollouts assume an opponent as good as
itself.

Pro: ``trappola.agents.pro_rules`` (default ``threshold`` at 3 base stakes).

Advice (sessions with advice, docs/rules.md section 8): as an adviser it
gives its own choice over ``advice_worlds`` (8) imagined defender hands
(``trappola.agents.advice.honest_advice``); ``heed=true`` plays the advice it gets
when legal (default: it decides alone).

Speed: about 2-3 ms a partie on one core; ``endgame=0,answer_rollouts=0``
gives the bare heuristics at about 0.15 ms.
"""

from __future__ import annotations

from trappola.agents.advice import HEED_WEB, advice_settings, heeded, honest_advice
from trappola.agents.base import AdviceView, Player, TurnView, pro_settings
from trappola.agents.pro_rules import PRO_WEB
from trappola.agents.search.endgame import card_values, win_chance
from trappola.agents.search.knowledge import OpponentCards, aces_failed, opponent_cards, public_points
from trappola.agents.search.worlds import determinize
from trappola.agents.settings import Setting
from trappola_env.engine.actions import (
    ACCEPT_ALIFER,
    ACES,
    BIANKA,
    DECLINE_ALIFER,
    FIGURA_RE,
    MANKO,
    PROPOSE_ALIFER,
)
from trappola_env.engine.cards import ACE, CARD_POINTS, SUIT_MASK, TWO, cards_of
from trappola_env.engine.infostate import InfoState

_SCORING = tuple(range(FIGURA_RE, BIANKA + 1))  # 36..42
_CARDS = (1 << 36) - 1
# Bonus for a trick won with a Two: trick 1 (bonus 2), tricks 2-8 (bonus 3), trick 9 (4a).
_TWO_BONUS = (52,) + (10,) * 7 + (26,)


class RulePlayer(Player):
    """The ``rule`` player (see the module docstring for its settings)."""

    kind = "rule"
    HELP = "hand-written heuristics (declares, tracks voids, plays for Twos)"
    WEB = {
        "declare": None,
        "manko": None,
        "alifer": None,
        "alifer_margin": (0, 200),
        "answer_rollouts": (0, 64),
        "rollout_p": None,
        "alifer_p": None,
        "twos": None,
        "first_two": None,
        "cash": None,
        "endgame": (0, 9),
        "samples": (1, 32),
        **PRO_WEB,
        **HEED_WEB,
        "advice_worlds": (0, 64),
    }
    SETTINGS = {
        "declare": Setting(
            ("always", "never", "no_aces"), "always", "scoring declarations: always (first chance), never, no_aces"
        ),
        "manko": Setting(bool, True, "ask Manko whenever legal"),
        "alifer": Setting(
            ("losing", "never"), "losing", "propose/accept Alifer when trailing by alifer_margin points, or never"
        ),
        "alifer_margin": Setting(
            int, 20, "before the endgame: points behind that count as losing clearly", low=0, high=1000
        ),
        "answer_rollouts": Setting(
            int,
            32,
            "answering a proposal before the endgame: rollouts to estimate the win chance (0: judge by alifer_margin)",
            low=0,
            high=4096,
        ),
        "rollout_p": Setting(
            float,
            0.3,
            "answering before the endgame: rollout win chance below which to "
            "accept (rollouts model the opponent as this player: cautious)",
            low=0,
            high=1,
        ),
        "alifer_p": Setting(float, 0.5, "in the endgame: win chance below which it counts as losing", low=0, high=1),
        "twos": Setting(bool, True, "play for the Two bonuses (keep live Twos for the last tricks)"),
        "first_two": Setting(
            float, 0.05, "least chance the opponent is void for a Two lead at trick 1 (1 disables)", low=0, high=1
        ),
        "cash": Setting(("early", "late"), "early", "lead sure winners first (early) or keep them as entries (late)"),
        "endgame": Setting(
            int, 4, "solve exactly once a hand holds this many cards or fewer (0: never)", low=0, high=9
        ),
        "samples": Setting(int, 8, "endgame: guesses of the opponent's hand to average over", low=1, high=4096),
        **pro_settings("threshold"),
        **advice_settings(),
    }

    def __init__(self, **settings):
        super().__init__(**settings)
        self._rollout_policy = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self._rollout_policy is not None:
            self._rollout_policy.reset(seed)

    def advise(self, view: AdviceView) -> int:
        """Honest advice: its own choice over imagined defender hands (``trappola.agents.advice``)."""
        return honest_advice(self, view, self.settings.advice_worlds)

    def act(self, view: TurnView) -> int:
        """Heed advice if asked to, answer or propose Alifer, declare, ask Manko,
        then play a card by the rules of the module docstring."""
        info = view.info
        mask = view.legal_mask
        cfg = self.settings
        if view.advice and self.settings.heed:
            advised = heeded(view)
            if advised is not None:
                return advised
        if mask >> ACCEPT_ALIFER & 1:
            return ACCEPT_ALIFER if self._losing(info, opponent_cards(info), answering=True) else DECLINE_ALIFER
        declare = cfg["declare"]
        if declare != "never":
            for a in _SCORING:
                if mask >> a & 1 and not (a == ACES and declare == "no_aces"):
                    return a
        if cfg["manko"] and mask >> MANKO & 1:
            return MANKO
        cards = mask & _CARDS
        opp = opponent_cards(info)
        may_propose = mask >> PROPOSE_ALIFER & 1 and cfg["alifer"] != "never"
        if not cards & (cards - 1) and not may_propose:
            return cards.bit_length() - 1  # one card and nothing else to decide
        if info.hand.bit_count() <= cfg["endgame"]:
            totals, p_win = self._endgame(info, cards, opp)
            if may_propose and p_win < cfg["alifer_p"]:
                return PROPOSE_ALIFER
            return max(totals, key=lambda c: (totals[c], -c))
        if mask >> PROPOSE_ALIFER & 1 and self._losing(info, opp):
            return PROPOSE_ALIFER
        if info.lead >= 0:
            return self._follow(info, cards, opp)
        return self._lead(info, cards, opp)

    # ---------------------------------------------------------------- alifer
    def _losing(self, info: InfoState, opp: OpponentCards, answering: bool = False) -> bool:
        """Trailing clearly: by the endgame search once the hands are small
        enough; before that, when answering a proposal (at most once a
        partie, so it may cost more), by rollouts; else by ``alifer_margin``
        public points."""
        cfg = self.settings
        if cfg["alifer"] == "never":
            return False
        if info.hand.bit_count() <= cfg["endgame"]:
            n = max(1, cfg["samples"])
            return win_chance(info, [opp.sample(self.rng) for _ in range(n)]) < cfg["alifer_p"]
        if answering and cfg["answer_rollouts"] > 0:
            return self._rollout_win_chance(info, opp, cfg["answer_rollouts"]) < cfg["rollout_p"]
        me = info.seat
        return public_points(info, 1 - me) - public_points(info, me) >= self.settings.alifer_margin

    def _rollout_win_chance(self, info: InfoState, opp: OpponentCards, n: int) -> float:
        """Share of ``n`` rollouts this seat wins: each deals the opponent a
        hand consistent with the record (``worlds.determinize``) and plays
        on with this player's card heuristics for both seats."""
        me = info.seat
        if self._rollout_policy is None:
            cfg = self.settings
            self._rollout_policy = RulePlayer(
                declare=cfg["declare"],
                endgame=0,
                alifer="never",
                twos=cfg["twos"],
                first_two=cfg["first_two"],
                cash=cfg["cash"],
            )
        policy = self._rollout_policy
        wins = 0.0
        played = 0
        for _ in range(n):
            world = determinize(info, opp.sample(self.rng), self.rng)
            if world is None:
                continue
            while not world.terminal:
                world.apply(policy.act(TurnView(world.info_state(world.to_act))))
            winner = world.winner
            wins += 1.0 if winner == me else 0.5 if winner is None else 0.0
            played += 1
        return wins / played if played else 0.5

    def _endgame(self, info: InfoState, cards: int, opp: OpponentCards) -> tuple[dict[int, float], float]:
        """Mean endgame value of each legal card over sampled opponent
        hands, and the share of samples this seat wins with its best card."""
        candidates = cards_of(cards)
        n = max(1, self.settings.samples)
        totals = dict.fromkeys(candidates, 0.0)
        wins = 0.0
        for _ in range(n):
            values = card_values(info, opp.sample(self.rng), candidates)
            best = max(values.values())
            wins += 1.0 if best > 0 else 0.5 if best == 0 else 0.0
            for c in candidates:
                totals[c] += values[c] / n
        return totals, wins / n

    # ------------------------------------------------------------- following
    def _follow(self, info: InfoState, cards: int, opp: OpponentCards) -> int:
        lead = info.lead
        in_suit = cards & SUIT_MASK[lead // 9]
        if not in_suit:
            return min(cards_of(cards), key=lambda c: self._keep_value(info, c, opp))
        mine = cards_of(in_suit)
        winners = [c for c in mine if c > lead]
        if winners:
            # A court card that an unseen card still beats is safest won now.
            exposed = [c for c in winners if CARD_POINTS[c] and opp.higher_in_suit(c)]
            if exposed:
                return max(exposed, key=lambda c: CARD_POINTS[c])
            return winners[0]
        return min(mine, key=lambda c: (CARD_POINTS[c], c % 9 == TWO, c))

    def _keep_value(self, info: InfoState, card: int, opp: OpponentCards) -> float:
        """How much keeping ``card`` is worth when something must be thrown."""
        value = 3.0 * CARD_POINTS[card] + (card % 9) / 100
        if not opp.higher_in_suit(card):
            value += 4  # wins whenever led: a way back to the lead
        if card % 9 == TWO:
            value += 8 if opp.suit_void(card // 9) and self.settings.twos else 1
        if card % 9 == ACE and ACES in info.declarations[info.seat] and not aces_failed(info, info.seat):
            value += 100
        return value

    # --------------------------------------------------------------- leading
    def _lead(self, info: InfoState, cards: int, opp: OpponentCards) -> int:
        hand = cards_of(cards)
        sure = [c for c in hand if not opp.higher_in_suit(c)]
        live_twos = [c for c in sure if c % 9 == TWO] if self.settings.twos else []
        others = [c for c in sure if c % 9 != TWO]
        if live_twos and not others:
            return live_twos[0]
        losers = [c for c in hand if c not in sure]
        if others and (self.settings.cash == "early" or not losers):
            return max(others, key=lambda c: self._cash_order(info, c, opp))
        if others:
            return max(losers, key=lambda c: self._lead_value(info, c, opp))
        return max(hand, key=lambda c: self._lead_value(info, c, opp))

    def _cash_order(self, info: InfoState, card: int, opp: OpponentCards) -> tuple:
        declared_ace = card % 9 == ACE and ACES in info.declarations[info.seat]
        # Into a void the opponent must throw something away; else cash points.
        return (declared_ace, opp.suit_void(card // 9), CARD_POINTS[card], -card)

    def _lead_value(self, info: InfoState, card: int, opp: OpponentCards) -> float:
        """Rough value of leading ``card`` when no card is sure to win."""
        points = CARD_POINTS[card]
        if card % 9 == TWO:
            p_win = opp.p_none_of(SUIT_MASK[card // 9])
            if not self.settings.twos:
                return p_win - 0.5
            if info.trick == 0 and p_win < self.settings.first_two:
                return -1.0
            return p_win * (1 + _TWO_BONUS[info.trick]) - 0.5
        p_win = opp.p_none_of(opp.higher_in_suit(card))
        return p_win * (1 + points) - (1 - p_win) * points
