"""What a seat can do: pass, declare, fry, bury, play — values that print and parse.

>>> from chaodipi.engine.cards import Rank
>>> str(parse_action("play ♠9988", Rank.TWO)), str(parse_action("declare S7", Rank.SEVEN))
('play ♠9988', 'declare ♠7')
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from chaodipi.engine.bidding import Bid
from chaodipi.engine.cards import Card, Rank, format_cards, parse_cards
from chaodipi.engine.errors import ActionParseError
from chaodipi.engine.legal import LegalPlays
from chaodipi.engine.phase import Phase
from chaodipi.engine.rules import CardRules

__all__ = [
    "PASS",
    "Action",
    "ActionParseError",
    "Bury",
    "Declare",
    "Fry",
    "LegalActions",
    "Pass",
    "Play",
    "bid_action",
    "card_action",
    "parse_action",
    "phase_error",
]


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

PASS: Final = Pass()
"""The one pass (a ``Pass`` has no fields: every pass is equal), made once rather than per
action: a match keeps every action it took."""


def bid_action(phase: Phase, bid: Bid) -> Declare | Fry:
    """The action that shows ``bid`` in ``phase``: :class:`Declare` while dealing, :class:`Fry`
    after (the one place this choice is written).

    >>> from chaodipi.engine.cards import Rank
    >>> bid = Bid.parse("♠7", Rank.SEVEN)
    >>> str(bid_action(Phase.DECLARE, bid)), str(bid_action(Phase.FRY, bid))
    ('declare ♠7', 'fry ♠7')
    """
    return Declare(bid) if phase is Phase.DECLARE else Fry(bid)


def card_action(phase: Phase, cards: tuple[Card, ...]) -> Bury | Play:
    """The action that puts ``cards`` down in ``phase``: :class:`Bury` in the bury phase,
    :class:`Play` otherwise (the one place this choice is written).

    >>> cards = tuple(parse_cards("♠99"))
    >>> str(card_action(Phase.BURY, cards)), str(card_action(Phase.PLAY, cards))
    ('bury ♠99', 'play ♠99')
    """
    return Bury(cards) if phase is Phase.BURY else Play(cards)


def parse_action(text: str, level: Rank | None, card_rules: CardRules | None = None) -> Action:
    """Read an action as it prints: ``pass``, ``declare ♠7``, ``fry BJ BJ``, ``bury …``,
    ``play …``. Bids need the hand's level to be understood."""
    verb, _, rest = text.strip().partition(" ")
    verb = verb.lower()
    try:
        if verb == "pass" and not rest:
            return PASS
        if verb in ("declare", "fry"):  # each verb is the name of its phase
            return bid_action(Phase(verb), Bid.parse(rest, level, card_rules))
        if verb in ("bury", "play"):
            return card_action(Phase(verb), tuple(sorted(parse_cards(rest))))
    except ValueError as err:
        raise ActionParseError(f"{text!r}: {err}") from None
    raise ActionParseError(f"{text!r} is not an action: use pass, declare, fry, bury or play")


@dataclass(frozen=True, slots=True)
class LegalActions:
    """What one seat may do now: pass and/or some bids, or cards (bury or play).

    Iterate it for every legal action (bids included), test an action with ``in``, count them
    with :meth:`count` (python-chess's ``board.legal_moves``). Testing with ``in`` checks only
    this list: :meth:`chaodipi.engine.match.Match.apply` checks an action against the rules
    themselves.

    >>> from chaodipi.engine.cards import Rank
    >>> bid = Bid.parse("♠7", Rank.SEVEN)
    >>> legal = LegalActions(Phase.DECLARE, 1, can_pass=True, bids=(bid,))
    >>> [str(a) for a in legal], Declare(bid) in legal, Fry(bid) in legal, legal.count()
    (['pass', 'declare ♠7'], True, False, 2)
    """

    phase: Phase
    seat: int
    can_pass: bool = False
    bids: tuple[Bid, ...] = ()
    cards: LegalPlays | None = None

    def __iter__(self) -> Iterator[Action]:
        if self.can_pass:
            yield PASS
        for bid in self.bids:
            yield bid_action(self.phase, bid)
        if self.cards is not None:
            for cards in self.cards:
                yield card_action(self.phase, cards)

    def __contains__(self, action: object) -> bool:
        if isinstance(action, Pass):
            return self.can_pass
        if isinstance(action, Declare | Fry):
            return action == bid_action(self.phase, action.bid) and action.bid in self.bids
        if isinstance(action, Bury | Play) and self.cards is not None:
            return action == card_action(self.phase, action.cards) and action.cards in self.cards
        return False

    def count(self) -> int:
        """How many legal actions there are (without listing them)."""
        cards = 0 if self.cards is None else self.cards.count()
        return self.can_pass + len(self.bids) + cards

    def default(self) -> Action:
        """The action found at once, without choosing: pass if allowed, else the first cards
        the legal set lists (the first option's forced cards and its pool's first ``k_min``),
        else the first bid. The table plays it for a seat whose clock ran out.

        >>> from chaodipi.engine.cards import Rank
        >>> LegalActions(Phase.DECLARE, 1, can_pass=True).default()
        Pass()
        """
        if self.can_pass:
            return PASS
        if self.cards is not None:
            option = self.cards.options[0]
            cards = tuple(sorted(option.forced + option.pool[: option.k_min]))
            return card_action(self.phase, cards)
        return bid_action(self.phase, self.bids[0])

    def forced(self) -> Action | None:
        """The only legal action, if there is just one: a seat with nothing to choose is not
        asked (the table plays it, a record says ``"asked": false``); ``None`` otherwise.

        >>> LegalActions(Phase.FRY, 1, can_pass=True).forced()
        Pass()
        """
        if self.cards is None:
            return PASS if not self.bids and self.can_pass else None
        if len(self.cards.options) == 1 and self.cards.options[0].is_single:
            return self.default()
        return None

    def sample(self, rng: random.Random) -> Action:
        """A legal action at random: uniform over pass and the bids, or over the card plays."""
        if self.cards is not None:
            return card_action(self.phase, self.cards.sample(rng))
        choice = rng.randrange(len(self.bids) + self.can_pass)
        if choice == len(self.bids):
            return PASS
        return bid_action(self.phase, self.bids[choice])


def phase_error(action: Action, phase: Phase) -> str | None:
    """Why ``action`` cannot be taken in ``phase`` at all (``None``: it is the right phase).

    >>> phase_error(Pass(), Phase.PLAY), phase_error(Pass(), Phase.FRY)
    ('no passing now: it is the play phase', None)
    """
    if isinstance(action, Pass):
        if phase in (Phase.DECLARE, Phase.FRY):
            return None
        return f"no passing now: it is the {phase.value} phase"
    if isinstance(action, Declare | Fry):
        wanted = Phase.DECLARE if isinstance(action, Declare) else Phase.FRY
        return None if phase is wanted else f"cannot {wanted.value} in the {phase.value} phase"
    if isinstance(action, Bury):
        return None if phase is Phase.BURY else f"cannot bury in the {phase.value} phase"
    return None if phase is Phase.PLAY else f"cannot play cards in the {phase.value} phase"
