"""``human``: a person playing in a terminal.

At each turn it prints only what its seat may know (the ``InfoState``: own
hand grouped by suit, the face-up stock card, the tricks so far,
declarations and Manko answers, points so far, the card on the table) and
the legal actions numbered, with readable names (``AS`` = "Asso of
Spade"). The answer may be the number, a card name (``AS``) or an action
name (``declare aces``); anything else is explained and asked again.
``q``, the end of input or an input that cannot be read (closed, or no
stdin at all) raises ``HumanQuit``. The Pro question is asked the same
way (y/n).

The streams are injectable for tests: ``HumanPlayer(stdin=..., stdout=...)``
or ``make_player("human", stdin=..., stdout=...)``.
"""

from __future__ import annotations

import sys

from trappola.agents.base import Player, ProView, TurnView
from trappola.agents.search.knowledge import public_points
from trappola.agents.settings import Setting
from trappola_env.engine.actions import ACCEPT_ALIFER, ACTION_NAMES, action_id
from trappola_env.engine.cards import CARD_NAMES, RANK_NAMES, SUIT_MASK, SUIT_NAMES, SUITS, cards_of
from trappola_env.engine.infostate import InfoState

ROLES = ("challenger", "dealer")


class HumanQuit(Exception):
    """The person asked to stop (``q``) or the input ended."""


def long_card_name(card: int) -> str:
    """``"Asso of Spade"`` for ``AS``."""
    return f"{RANK_NAMES[card % 9]} of {SUIT_NAMES[card // 9]}"


def action_label(action: int) -> str:
    """``"play AS (Asso of Spade)"``, or the action's table name."""
    if action < 36:
        return f"play {CARD_NAMES[action]}  ({long_card_name(action)})"
    return ACTION_NAMES[action]


class HumanPlayer(Player):
    """A person at the terminal: prints what its seat may know and asks for a move
    (settings: ``history``). ``stdin``/``stdout`` default to the process's."""

    kind = "human"
    HELP = "you, in the terminal"
    interactive = True
    SETTINGS = {
        "history": Setting(bool, True, "print the tricks played so far at every turn"),
    }

    def __init__(self, stdin=None, stdout=None, **settings):
        super().__init__(**settings)
        self.stdin = stdin if stdin is not None else sys.stdin
        self.stdout = stdout if stdout is not None else sys.stdout

    # Streams are not picklable; a human never leaves the main process.
    def __getstate__(self):
        raise TypeError("a human player cannot be sent to another process")

    def _print(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def _ask(self, prompt: str) -> str:
        self.stdout.write(prompt)
        self.stdout.flush()
        if self.stdin is None:  # Python's sys.stdin when the process has no standard input
            raise HumanQuit("no input: standard input is closed")
        try:
            line = self.stdin.readline()
        except (OSError, ValueError) as exc:  # ValueError: the stream was closed
            raise HumanQuit(f"cannot read input ({exc})") from None
        if not line:
            raise HumanQuit("end of input")
        line = line.strip()
        if line.lower() in ("q", "quit", "exit"):
            raise HumanQuit("quit")
        return line

    # ----------------------------------------------------------------- turns
    def act(self, view: TurnView) -> int:
        """Show the seat's view and the numbered legal actions, and read the choice."""
        self._print(render_view(view.info, view.opponent, show_history=self.settings.history))
        actions = view.legal_actions
        self._print("Your moves:")
        for i, a in enumerate(actions, 1):
            self._print(f"  {i:>2}) {action_label(a)}")
        while True:
            answer = self._ask("Choose (number, card like AS, or action name; q quits): ")
            choice = parse_choice(answer, actions)
            if choice is not None:
                return choice
            self._print(
                f"  '{answer}' is not one of your moves: type 1..{len(actions)}, a card you may play "
                "(e.g. " + (CARD_NAMES[actions[0]] if actions[0] < 36 else "1") + ") or an action name."
            )

    def decide_pro(self, view: ProView) -> bool:
        """Show the streak, the Bulka and the cost, and ask whether to declare Pro (y/n)."""
        self._print(
            f"\nYou have won {view.streak} parties in a row. Bulka: {view.bulka:g} tokens; "
            f"your balance {view.balance:g}; next opponent {view.opponent}; "
            f"parties left {view.parties_left}."
        )
        self._print(
            f"Declaring Pro costs {view.pro_cost} extra tokens; win the next partie and you take the whole Bulka."
        )
        while True:
            answer = self._ask("Declare Pro? (y/n): ").lower()
            if answer in ("y", "yes"):
                return True
            if answer in ("n", "no"):
                return False
            self._print("  please answer y or n")

    def observe_result(self, info: InfoState, result) -> None:
        me = info.seat
        if self.settings.history:
            self._print(render_tricks(info))
        who = {None: "nobody", me: "you", 1 - me: "your opponent"}[result.winner]
        self._print(f"\nPartie over: {result.outcome}, winner {who}.")
        self._print(f"  points: you {result.scores[me].total}, opponent {result.scores[1 - me].total}")
        for seat, name, pts, pay in result.details:
            self._print(
                f"    {'you' if seat == me else 'opponent'}: {name} {pts} points" + (f", {pay} tokens" if pay else "")
            )
        self._print(f"  your tokens this partie: {result.tokens[me]:+d} (stake {result.stake} included)")


def parse_choice(answer: str, actions: list[int]) -> int | None:
    """The legal action an answer names, or None."""
    text = answer.strip()
    if not text:
        return None
    if text.isdigit():
        i = int(text)
        return actions[i - 1] if 1 <= i <= len(actions) else None
    key = text.lower().removeprefix("play ").strip()
    try:
        a = action_id(key)
    except ValueError:
        return None
    return a if a in actions else None


def render_tricks(info: InfoState) -> str:
    """The tricks played so far, one line each: who led what, who followed with what, who won."""
    me = info.seat
    lines = []
    for i, (leader, lead, follow, winner) in enumerate(info.tricks, 1):
        first = "you" if leader == me else "opponent"
        second = "opponent" if leader == me else "you"
        lines.append(
            f"  trick {i}: {first} {CARD_NAMES[lead]}, {second} {CARD_NAMES[follow]}"
            f" -> {'you' if winner == me else 'opponent'}"
        )
    return "\n".join(lines) if lines else "  (no tricks yet)"


def render_view(info: InfoState, opponent: str | None = None, show_history: bool = True) -> str:
    """The seat's view as text: nothing beyond its ``InfoState``."""
    me = info.seat
    opp_name = f"opponent ({opponent})" if opponent else "opponent"
    lines = [
        "",
        f"=== trick {min(info.trick + 1, 9)}/9 - you are the {ROLES[me]}, playing {opp_name}"
        f" - multiplier {info.multiplier} ===",
    ]
    lines.append(f"Stock bottom (face up): {CARD_NAMES[info.bottom]} ({long_card_name(info.bottom)})")
    if show_history:
        lines.append("Tricks so far:")
        lines.append(render_tricks(info))
    for seat, who in ((me, "you"), (1 - me, "opponent")):
        decl = info.declarations[seat]
        if decl:
            parts = [
                ACTION_NAMES[a].replace("declare ", "") + (f" ({n})" if a <= 40 else "")
                for a, n in sorted(decl.items())
            ]
            lines.append(f"Declared by {who}: {', '.join(parts)}")
        answer = info.manko_answer[seat]
        if answer:
            lines.append(
                f"Manko: {who} lack"
                + ("" if who == "you" else "s")
                + " "
                + ", ".join(f"{RANK_NAMES[r]} of {SUIT_NAMES[s]}" for r, s in answer)
            )
    lines.append(
        f"Points so far (cards won + declarations): you {public_points(info, me)}, "
        f"opponent {public_points(info, 1 - me)}"
    )
    if info.lead >= 0:
        who = "you" if info.leader == me else "opponent"
        lines.append(f"On the table: {who} led {CARD_NAMES[info.lead]} ({long_card_name(info.lead)})")
    if info.to_act == me and info.legal_mask >> ACCEPT_ALIFER & 1:
        lines.append(
            "Your opponent proposes Alifer: accept to abandon this partie (it is replayed with the "
            "stakes doubled), or decline to play on."
        )
    groups = []
    for s in range(4):
        cards = cards_of(info.hand & SUIT_MASK[s])
        if cards:
            groups.append(f"{SUITS[s]}: " + " ".join(CARD_NAMES[c] for c in cards))
    lines.append("Your hand: " + "   ".join(groups))
    return "\n".join(lines)
