"""The trump context of a hand: which suit each card follows, how cards rank, which pairs chain.

Everything trump-dependent is precomputed here into flat tables indexed by card code, so the
hot paths (following, trick resolution, legal plays) are table look-ups:

* ``suit_of[c]``: the effective suit, 0-3 for the side suits and :data:`TRUMP` (4) for trumps;
* ``order[c]``: the strength inside that effective suit (equal numbers are equal cards);
* ``positions[c]``: the card's places on its suit's tractor chain (two for an A that may also
  count as 1, none for a card that never joins a tractor).

>>> from chaodipi.engine.cards import parse_cards
>>> t = Trump(Rank.SEVEN, Suit.SPADES)
>>> [str(c) for c in sorted(parse_cards("♠A ♥5 BJ ♠7 ♦7"), key=t.strength)]
['♠A', '♦7', '♠7', 'BJ', '♥5']
>>> t.is_trump(Card.parse("♥5")), t.is_trump(Card.parse("♥6"))
(True, False)
"""

from __future__ import annotations

from typing import Final

from chaodipi.engine.cards import BIG_JOKER, CARDS, SMALL_JOKER, Card, Rank, Suit
from chaodipi.engine.rules import CardRules

__all__ = ["RED_FIVE", "TRUMP", "Trump"]

TRUMP: Final = 4
"""The effective-suit index of all trumps (they are one suit for following)."""
RED_FIVE: Final = Card.of(Suit.HEARTS, Rank.FIVE)

# Strength numbers inside the trump suit, above any face rank (0-12).
_OTHER_LEVEL: Final = 20
_TRUMP_LEVEL: Final = 21
_SMALL_JOKER: Final = 22
_BIG_JOKER: Final = 23
_RED_FIVE: Final = 24
_JOKER_CHAIN_BASE: Final = 200


class Trump:
    """Trump for one hand: the level rank (``None`` in the 扛旗 hand), the trump suit (``None`` for
    no-trump) and the card-play rules of the preset."""

    __slots__ = ("level", "order", "positions", "rules", "suit", "suit_cards", "suit_of")

    level: Rank | None
    suit: Suit | None
    rules: CardRules
    suit_of: tuple[int, ...]
    order: tuple[int, ...]
    positions: tuple[tuple[int, ...], ...]
    suit_cards: tuple[tuple[Card, ...], ...]

    def __init__(
        self, level: Rank | None, suit: Suit | None, rules: CardRules | None = None
    ) -> None:
        self.level = level
        self.suit = suit
        self.rules = rules if rules is not None else CardRules()
        suit_of = [0] * 54
        order = [0] * 54
        for code in range(54):
            suit_of[code], order[code] = self._classify(code)
        self.suit_of = tuple(suit_of)
        self.order = tuple(order)
        self.positions = self._chain_positions()
        self.suit_cards = tuple(
            tuple(sorted((c for c in CARDS if suit_of[c] == s), key=lambda c: (order[c], c)))
            for s in range(5)
        )

    def _classify(self, code: int) -> tuple[int, int]:
        if code == BIG_JOKER:
            return TRUMP, _BIG_JOKER
        if code == SMALL_JOKER:
            return TRUMP, _SMALL_JOKER
        if code == RED_FIVE and self.rules.red_five:
            return TRUMP, _RED_FIVE
        suit, rank = divmod(code, 13)
        if rank == self.level:
            return TRUMP, _TRUMP_LEVEL if suit == self.suit else _OTHER_LEVEL
        if suit == self.suit:
            return TRUMP, rank
        return suit, rank

    def _chain_positions(self) -> tuple[tuple[int, ...], ...]:
        """Place every card that can join a tractor on its suit's chain."""
        rules = self.rules
        positions: list[tuple[int, ...]] = [()] * 54
        top_of_trump_suit = -1
        for suit in Suit:
            in_chain = []  # (face position, card), A-low first
            for rank in Rank:
                code = suit * 13 + rank
                if self.suit_of[code] == suit or (
                    suit == self.suit
                    and self.suit_of[code] == TRUMP
                    and (
                        self.order[code] < _OTHER_LEVEL
                        or (
                            self.order[code] == _TRUMP_LEVEL
                            and rules.trump_level_in_suit_tractor
                            and not rules.top_trump_tractors
                        )
                    )
                ):
                    in_chain.append((rank + 1, code))
            # Places are face ranks (000/003 「凡牌点数相邻」): a rank missing from the chain
            # leaves a hole, except the level rank where ``skip_level_rank`` closes it up.
            level = self.level
            level_face = -1
            if rules.skip_level_rank and level is not None:
                level_face = -1 if any(c % 13 == level for _f, c in in_chain) else level + 1
            if rules.ace_low_tractors and in_chain and in_chain[-1][1] % 13 == Rank.ACE:
                in_chain.insert(0, (0, in_chain[-1][1]))
            number = 0
            for face, code in in_chain:
                number = face - 1 if 0 <= level_face < face else face
                positions[code] = (*positions[code], number)
            if suit == self.suit:
                top_of_trump_suit = number
        if rules.top_trump_tractors:
            base = top_of_trump_suit + 1 if self.suit is not None else _JOKER_CHAIN_BASE
            for code in range(52):
                if self.order[code] == _OTHER_LEVEL and self.suit_of[code] == TRUMP:
                    positions[code] = (base,)
                elif self.order[code] == _TRUMP_LEVEL:
                    positions[code] = (base + 1,)
            joker_base = base + (2 if self.suit is not None else 1)
        else:
            joker_base = _JOKER_CHAIN_BASE
        positions[SMALL_JOKER] = (joker_base,)
        positions[BIG_JOKER] = (joker_base + 1,)
        return tuple(positions)

    # -- queries -----------------------------------------------------------------------------

    def is_trump(self, card: int) -> bool:
        return self.suit_of[card] == TRUMP

    def strength(self, card: int) -> tuple[int, int]:
        """A sort key: side suits below trumps, then by strength (for display and tests)."""
        s = self.suit_of[card]
        return (1 if s == TRUMP else 0, self.order[card])

    def sort(self, cards: list[Card]) -> list[Card]:
        """Cards sorted the way a player arranges a hand: by suit (trumps last), low to high."""
        return sorted(cards, key=lambda c: (self.suit_of[c], self.order[c], c))

    def describe(self) -> str:
        """Say the trump as players do: ``level 7, ♠ trump`` / ``level 7, no-trump``."""
        level = "no level" if self.level is None else f"level {self.level}"
        return f"{level}, {'no-trump' if self.suit is None else f'{self.suit} trump'}"

    def __repr__(self) -> str:
        return f"Trump({self.level!r}, {self.suit!r}, {self.rules!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Trump) and (self.level, self.suit, self.rules) == (
            other.level,
            other.suit,
            other.rules,
        )

    def __hash__(self) -> int:
        return hash((self.level, self.suit, self.rules))
