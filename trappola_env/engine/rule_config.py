"""Rule options that researchers may flip (docs/rules.md sections 3 and 7)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

ACE_DECLARATION_CHOICES = ("first_ace", "first_card")
ILLEGAL_ACTION_CHOICES = ("raise", "forfeit")


@dataclass(frozen=True)
class RuleConfig:
    """``ace_declaration``: "first_ace" (Art. 9.1.3, default) lets Aces be
    declared up to the turn of the first Ace played; "first_card" (Piatnik
    summary) only at the player's first card.
    ``illegal_action``: "raise" (default) raises ``ValueError`` and leaves the
    state unchanged; "forfeit" (Art. 12) loses the partie for the offender."""

    ace_declaration: str = "first_ace"
    illegal_action: str = "raise"

    def __post_init__(self) -> None:
        if self.ace_declaration not in ACE_DECLARATION_CHOICES:
            raise ValueError(f"ace_declaration must be one of {ACE_DECLARATION_CHOICES}, got {self.ace_declaration!r}")
        if self.illegal_action not in ILLEGAL_ACTION_CHOICES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_CHOICES}, got {self.illegal_action!r}")

    def to_dict(self) -> dict[str, str]:
        """The options as a dict of strings."""
        return asdict(self)


DEFAULT_CONFIG = RuleConfig()
