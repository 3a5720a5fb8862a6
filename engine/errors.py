"""Every error the engine raises, by kind: text that does not parse, an action the rules refuse
here, a replay the engine does not reproduce. All are :class:`ValueError` subclasses, and each
message quotes the input and says what would be legal.

>>> from chaodipi.engine.cards import parse_cards
>>> try:
...     parse_cards("♠X")
... except ParseError as err:
...     print(type(err).__name__, err)
CardParseError '♠X': 'X' is not a rank (use 2-10, J, Q, K, A)
>>> issubclass(IllegalPlay, IllegalAction), issubclass(IllegalAction, ValueError)
(True, True)
"""

from __future__ import annotations

__all__ = [
    "ActionParseError",
    "BidParseError",
    "CardParseError",
    "IllegalAction",
    "IllegalPlay",
    "ParseError",
    "ReplayError",
]


class ParseError(ValueError):
    """Text that does not spell what it should (bad syntax, whatever the state of the game)."""


class CardParseError(ParseError):
    """Text that does not spell a card (or a list of cards)."""


class BidParseError(ParseError):
    """Text that does not spell a bid."""


class ActionParseError(ParseError):
    """Text that does not spell an action."""


class IllegalAction(ValueError):
    """An action the rules refuse here; the message says why, as a player would, and what
    would be legal."""


class IllegalPlay(IllegalAction):
    """Cards that may not be played (or led, or buried) here."""


class ReplayError(ValueError):
    """A replay that does not parse, or whose recorded outcome the engine does not reproduce."""
