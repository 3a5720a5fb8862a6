"""Cards: the 54 card kinds of a two-deck 炒地皮 shoe, and how they print and parse.

A card is a small integer (``suit * 13 + rank``; 52 is the small joker, 53 the big joker) wrapped
in :class:`Card` so that it prints the way players write it. Two decks make 108 cards, so every
kind appears twice; hands are multisets.

>>> Card.parse("♥5"), Card.parse("H10"), Card.parse("BJ"), Card.parse("SJ")
(Card.parse('♥5'), Card.parse('♥10'), Card.parse('BJ'), Card.parse('♠J'))
>>> format_cards(parse_cards("♠9988 ♥5 BJ LJ"))
'♠9988 ♥5 BJ LJ'

Parsing and printing live here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum
from typing import Final

from chaodipi.engine.errors import CardParseError

__all__ = [
    "BIG_JOKER",
    "CARDS",
    "DECK",
    "JOKERS",
    "RANK_NAMES",
    "SMALL_JOKER",
    "Card",
    "CardParseError",
    "Rank",
    "Suit",
    "format_cards",
    "parse_cards",
    "points_of",
    "print_order",
]


class Suit(IntEnum):
    """The four suits, in the order used for card codes."""

    SPADES = 0
    HEARTS = 1
    CLUBS = 2
    DIAMONDS = 3

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self]

    @property
    def letter(self) -> str:
        return _SUIT_LETTERS[self]

    def __str__(self) -> str:
        return self.symbol

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Read ``♠``/``S``/``s`` (and the other suits) into a suit."""
        try:
            return _SUIT_BY_TEXT[text]
        except KeyError:
            raise CardParseError(f"{text!r} is not a suit (use ♠ ♥ ♣ ♦ or S H C D)") from None


class Rank(IntEnum):
    """Face ranks, 2 (lowest) to A (highest in a suit)."""

    TWO = 0
    THREE = 1
    FOUR = 2
    FIVE = 3
    SIX = 4
    SEVEN = 5
    EIGHT = 6
    NINE = 7
    TEN = 8
    JACK = 9
    QUEEN = 10
    KING = 11
    ACE = 12

    def __str__(self) -> str:
        return RANK_NAMES[self]

    @classmethod
    def parse(cls, text: str) -> Rank:
        """Read ``2``…``10``, ``J``, ``Q``, ``K``, ``A`` (``T`` also means 10)."""
        try:
            return _RANK_BY_TEXT[text.upper()]
        except KeyError:
            raise CardParseError(f"{text!r} is not a rank (use 2-10, J, Q, K, A)") from None


_SUIT_SYMBOLS: Final = ("♠", "♥", "♣", "♦")
_SUIT_LETTERS: Final = ("S", "H", "C", "D")
_SUIT_BY_TEXT: Final = {
    **{sym: Suit(i) for i, sym in enumerate(_SUIT_SYMBOLS)},
    **{let: Suit(i) for i, let in enumerate(_SUIT_LETTERS)},
    **{let.lower(): Suit(i) for i, let in enumerate(_SUIT_LETTERS)},
    "♡": Suit.HEARTS,
    "♢": Suit.DIAMONDS,
    "♤": Suit.SPADES,
    "♧": Suit.CLUBS,
}
RANK_NAMES: Final = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
_RANK_BY_TEXT: Final = {name: Rank(i) for i, name in enumerate(RANK_NAMES)} | {"T": Rank.TEN}

SMALL_JOKER_CODE: Final = 52
BIG_JOKER_CODE: Final = 53
_JOKER_NAMES: Final = {SMALL_JOKER_CODE: "LJ", BIG_JOKER_CODE: "BJ"}
_JOKER_BY_TEXT: Final = {
    "LJ": SMALL_JOKER_CODE,
    "小王": SMALL_JOKER_CODE,
    "BJ": BIG_JOKER_CODE,
    "大王": BIG_JOKER_CODE,
}
_POINTS_BY_RANK: Final = {Rank.FIVE: 5, Rank.TEN: 10, Rank.KING: 10}


class Card(int):
    """One card kind: an ``int`` in 0..53 that prints as players write it.

    Cards compare and hash as their codes; the order of play depends on trump and lives in
    :mod:`chaodipi.engine.trump`, not here.

    >>> Card.of(Suit.HEARTS, Rank.FIVE)
    Card.parse('♥5')
    >>> Card.parse("♥5").points, Card.parse("♠K").points, Card.parse("BJ").points
    (5, 10, 0)
    """

    __slots__ = ()

    @classmethod
    def of(cls, suit: Suit, rank: Rank) -> Card:
        """The card of this suit and rank."""
        return CARDS[suit * 13 + rank]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read one card: ``♥5``, ``H5``, ``h5``, ``♠10``, ``S10``, ``ST``, ``BJ``, ``LJ``.

        ``SJ`` is the jack of spades; the small joker is ``LJ`` (or ``小王``).
        """
        cards = parse_cards(text)
        if len(cards) != 1:
            raise CardParseError(f"{text!r} is {len(cards)} cards, not one")
        return cards[0]

    @property
    def is_joker(self) -> bool:
        return self >= SMALL_JOKER_CODE

    @property
    def suit(self) -> Suit | None:
        """The printed suit, or ``None`` for a joker."""
        return None if self >= SMALL_JOKER_CODE else Suit(self // 13)

    @property
    def rank(self) -> Rank | None:
        """The face rank, or ``None`` for a joker."""
        return None if self >= SMALL_JOKER_CODE else Rank(self % 13)

    @property
    def points(self) -> int:
        """Counting value: 5 for a five, 10 for a ten or a king, else 0."""
        return POINTS[self]

    def __str__(self) -> str:
        return _NAMES[self]

    def __repr__(self) -> str:
        return f"Card.parse({_NAMES[self]!r})"


def _name(code: int) -> str:
    if code >= SMALL_JOKER_CODE:
        return _JOKER_NAMES[code]
    return _SUIT_SYMBOLS[code // 13] + RANK_NAMES[code % 13]


_NAMES: Final = tuple(_name(code) for code in range(54))
CARDS: Final = tuple(Card(code) for code in range(54))
"""The 54 card kinds, indexed by code."""
SMALL_JOKER: Final = CARDS[SMALL_JOKER_CODE]
BIG_JOKER: Final = CARDS[BIG_JOKER_CODE]
JOKERS: Final = (SMALL_JOKER, BIG_JOKER)
POINTS: Final = tuple(
    0 if code >= SMALL_JOKER_CODE else _POINTS_BY_RANK.get(Rank(code % 13), 0) for code in range(54)
)
"""Counting value of each card code."""
DECK: Final = tuple(card for card in CARDS for _copy in range(2))
"""The 108-card shoe: every kind twice, in code order."""


def points_of(cards: Iterable[int]) -> int:
    """Total counting value of some cards (the shoe holds 200)."""
    return sum(POINTS[c] for c in cards)


def parse_cards(text: str) -> list[Card]:
    """Read cards written the way players write them, in any mix of styles.

    Tokens are separated by spaces or commas. A suit may be followed by several ranks, so
    ``♠9988`` is four cards; ``♠1010`` is two tens.

    >>> [str(c) for c in parse_cards("♠9988 H5,BJ sj")]
    ['♠9', '♠9', '♠8', '♠8', '♥5', 'BJ', '♠J']
    """
    single = _BY_NAME.get(text)
    if single is not None:  # one card as printed: the common case on the wire
        return [single]
    cards: list[Card] = []
    for token in text.replace(",", " ").split():
        cards.extend(_parse_token(token))
    return cards


_BY_NAME: Final = {name: CARDS[code] for code, name in enumerate(_NAMES)}


def _parse_token(token: str) -> list[Card]:
    joker = _JOKER_BY_TEXT.get(token.upper())
    if joker is not None:
        return [CARDS[joker]]
    suit = _SUIT_BY_TEXT.get(token[0])
    if suit is None:
        raise CardParseError(
            f"{token!r} does not start with a suit (♠ ♥ ♣ ♦ or S H C D) or name a joker (BJ, LJ)"
        )
    rest = token[1:]
    if not rest:
        raise CardParseError(f"{token!r} names a suit but no rank")
    cards = []
    i = 0
    while i < len(rest):
        width = 2 if rest.startswith("10", i) else 1
        piece = rest[i : i + width]
        rank = _RANK_BY_TEXT.get(piece.upper())
        if rank is None:
            raise CardParseError(f"{token!r}: {piece!r} is not a rank (use 2-10, J, Q, K, A)")
        cards.append(CARDS[suit * 13 + rank])
        i += width
    return cards


def print_order(cards: Iterable[int]) -> list[Card]:
    """The cards in the order :func:`format_cards` prints them: one group per suit, in the order
    suits first appear, ranks high to low inside a group; jokers where they appear.

    >>> [str(c) for c in print_order(parse_cards("♠8 ♥5 ♠9 BJ ♠8"))]
    ['♠9', '♠8', '♠8', '♥5', 'BJ']
    """
    groups: dict[int, list[int]] = {}
    for code in cards:
        key = -1 - code if code >= SMALL_JOKER_CODE else code // 13
        groups.setdefault(key, []).append(code)
    ordered: list[Card] = []
    for key, codes in groups.items():
        if key < 0:
            ordered.extend(CARDS[c] for c in codes)
        else:
            ranks = sorted((c % 13 for c in codes), reverse=True)
            ordered.extend(CARDS[key * 13 + r] for r in ranks)
    return ordered


def format_cards(cards: Iterable[int]) -> str:
    """Print cards compactly, one group per suit, highest rank first: ``♠9988 ♥5 BJ``.

    The groups keep the order in which suits first appear; ranks inside a group are sorted from
    high to low. ``parse_cards`` reads the result back to the same multiset.
    """
    groups: dict[int, list[int]] = {}
    for code in cards:
        key = -1 - code if code >= SMALL_JOKER_CODE else code // 13
        groups.setdefault(key, []).append(code)
    parts: list[str] = []
    for key, codes in groups.items():
        if key < 0:
            parts.extend(_NAMES[c] for c in codes)
        else:
            ranks = sorted((c % 13 for c in codes), reverse=True)
            parts.append(_SUIT_SYMBOLS[key] + "".join(RANK_NAMES[r] for r in ranks))
    return " ".join(parts)
