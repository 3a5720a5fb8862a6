"""What a seat can do: pass, declare, fry, bury, play — values that print and parse.

>>> from engine.cards import Rank
>>> str(parse_action("play ♠9988", Rank.TWO)), str(parse_action("declare S7", Rank.SEVEN))
('play ♠9988', 'declare ♠7')
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.bidding import Bid
from engine.cards import Card, Rank, format_cards, parse_cards
from engine.errors import ActionParseError
from engine.rules import CardRules

__all__ = ["Action", "ActionParseError", "Bury", "Declare", "Fry", "Pass", "Play", "parse_action"]


@dataclass(frozen=True, slots=True)
class Pass:
    """Decline to declare or to fry."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class Declare:
    """Show a bid during the deal (亮主, 反主, 回头望)."""

    bid: Bid

    def __str__(self) -> str:
        return f"declare {self.bid}"


@dataclass(frozen=True, slots=True)
class Fry:
    """Show a bid after the kitty is buried, take the kitty and bury again (炒底)."""

    bid: Bid

    def __str__(self) -> str:
        return f"fry {self.bid}"


@dataclass(frozen=True, slots=True)
class Bury:
    """Put eight cards into the kitty."""

    cards: tuple[Card, ...]

    def __str__(self) -> str:
        return f"bury {format_cards(self.cards)}"


@dataclass(frozen=True, slots=True)
class Play:
    """Play cards to the trick."""

    cards: tuple[Card, ...]

    def __str__(self) -> str:
        return f"play {format_cards(self.cards)}"


Action = Pass | Declare | Fry | Bury | Play


def parse_action(text: str, level: Rank | None, card_rules: CardRules | None = None) -> Action:
    """Read an action as it prints: ``pass``, ``declare ♠7``, ``fry BJ BJ``, ``bury …``,
    ``play …``. Bids need the hand's level to be understood."""
    verb, _, rest = text.strip().partition(" ")
    verb = verb.lower()
    try:
        if verb == "pass" and not rest:
            return Pass()
        if verb in ("declare", "fry"):
            bid = Bid.parse(rest, level, card_rules)
            return Declare(bid) if verb == "declare" else Fry(bid)
        if verb in ("bury", "play"):
            cards = tuple(sorted(parse_cards(rest)))
            return Bury(cards) if verb == "bury" else Play(cards)
    except ValueError as err:
        raise ActionParseError(f"{text!r}: {err}") from None
    raise ActionParseError(f"{text!r} is not an action: use pass, declare, fry, bury or play")
