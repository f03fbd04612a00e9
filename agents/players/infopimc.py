"""``infopimc``: ``pimc`` that prices what its declarations tell the opponent.

PIMC's model gives the opponent every card from the start, so a declaration costs nothing but is worth its points
(free information). Wisser (2015, "An expert-level card playing agent based on a variant of perfect information
Monte Carlo sampling", IJCAI) attacks the same overestimate of the opponent's knowledge in Schnapsen with
Presumed Value PIMC, a change to how PIMC values positions. This player is not that method: it changes no value
inside the card search (card play is plain ``pimc``, clairvoyant opponent and all) and only prices its own
declarations. It values each declaration it may make or hold back (Figura and Blans at the first
card, Aces, Bianka) by playing the partie out: for ``rollouts`` of its own layouts (the
seat's consistent layouts, belief-weighted as ``pimc``'s), it rebuilds the partie from the public record with
that layout, makes the declaration or not, and lets two ``pimc:samples=rollout_samples`` players finish it,
each reading only its own information state. The opponent's searcher so learns from a declaration exactly what
the rules tell it (a Figura's rank, the Manko answer, a Blans), and the outcome (``pimc``'s objective) prices
it. Both arms use the same layouts and seeds (common random numbers); the declaration is made unless holding it
back scores higher by more than ``margin``. Card play is ``pimc``'s.
"""

from __future__ import annotations

import numpy as np

from trappola.agents.players.pimc import PimcPlayer
from trappola.agents.settings import Setting
from trappola_env.engine.actions import ACES, BIANKA, BLANS, FIGURA_RE, FIGURA_TWOS
from trappola_env.engine.cards import cards_of
from trappola_env.engine.deal import Deal
from trappola_env.engine.infostate import InfoState
from trappola_env.engine.partie import Partie
from trappola_env.engine.rule_config import RuleConfig
from trappola_env.referee import Referee

_PRICED = frozenset(range(FIGURA_RE, FIGURA_TWOS + 1)) | {BLANS, ACES, BIANKA}


class InfoPimcPlayer(PimcPlayer):
    """The ``infopimc`` player (see the module docstring)."""

    kind = "infopimc"
    HELP = (
        "pimc that prices what its declarations tell the opponent by playing the partie out both ways "
        "(not Wisser's Presumed Value PIMC)"
    )
    ENDGAME = {"infopimc": {}}
    SETTINGS = {
        **PimcPlayer.SETTINGS,
        "rollouts": Setting(int, 8, "layouts played out per declaration priced", low=1, high=256),
        "rollout_samples": Setting(int, 8, "layouts of each pimc searcher in a play-out", low=1, high=256),
        "margin": Setting(float, 0.0, "hold a declaration back only when that scores more by this", low=0, high=10),
    }

    def _declaration(self, info: InfoState, mask: int, cards: int) -> int | None:
        choice = super()._declaration(info, mask, cards)
        if choice is None or choice not in _PRICED:
            return choice
        declare, hold = self.declaration_values(info, choice)
        return choice if declare + self.settings.margin >= hold else self._after_holding(info, mask, cards, choice)

    def _after_holding(self, info: InfoState, mask: int, cards: int, held: int) -> int | None:
        """The next declaration ``pimc`` would make with ``held`` left out (None: play the card)."""
        rest = super()._declaration(info, mask & ~(1 << held), cards)
        return rest if rest is not None and rest != held else None

    def declaration_values(self, info: InfoState, decl: int) -> tuple[float, float]:
        """Mean objective (this seat's) of declaring ``decl`` now and of never declaring it, each over the same
        play-outs of ``rollouts`` layouts by two ``pimc`` searchers with their own information only."""
        from trappola.agents.search.sampling import constraints_of

        hands = constraints_of(info).sample(self.rng, self.settings.rollouts)
        seeds = [self.rng.getrandbits(32) for _ in hands]
        out = []
        for declare in (True, False):
            total = 0.0
            for opp_hand, seed in zip(hands, seeds, strict=True):
                total += self._play_out(info, int(opp_hand), decl, declare, seed)
            out.append(total / len(hands))
        return out[0], out[1]

    def _play_out(self, info: InfoState, opp_hand: int, decl: int, declare: bool, seed: int) -> float:
        me = info.seat
        partie = rebuild_partie(info, opp_hand)
        if declare:
            partie.apply(decl)
        n = self.settings.rollout_samples
        players = [PimcPlayer(samples=n), PimcPlayer(samples=n)]
        if not declare:
            # The seat that holds the declaration back does not count it in its own search either.
            key = "declare_aces" if decl == ACES else "declare_bianka" if decl == BIANKA else "declare"
            players[me] = PimcPlayer(samples=n, **{key: "never"})
        for s, p in enumerate(players):
            p.reset(seed + s)
        Referee.for_partie(players, partie).run()
        scores = partie.result().scores
        diff = scores[me].total - scores[1 - me].total
        return float(self._score(np.array([diff]))[0])


def rebuild_partie(info: InfoState, opp_hand: int) -> Partie:
    """The partie of ``info`` with the opponent holding ``opp_hand`` (its unplayed cards), replayed from the
    public record; the stock is the rest, its face-up card where it was."""
    me = info.seat
    opp_dealt = opp_hand
    for c in info.played_by(1 - me):
        opp_dealt |= 1 << c
    hands = [0, 0]
    hands[me], hands[1 - me] = info.dealt, opp_dealt
    rest = ((1 << 36) - 1) & ~(hands[0] | hands[1] | (1 << info.bottom))
    deal = Deal(tuple(cards_of(hands[0])), tuple(cards_of(hands[1])), tuple(cards_of(rest)) + (info.bottom,))
    partie = Partie(deal, RuleConfig(ace_declaration=info.ace_declaration))
    for _, action in info.history:
        partie.apply(action)
    return partie


__all__ = ["InfoPimcPlayer", "rebuild_partie"]
