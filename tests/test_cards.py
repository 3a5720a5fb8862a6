"""Cards print the way players write them and parse back; the shoe holds 108 cards and 200 points."""

from __future__ import annotations

import re

import pytest

from chaodipi.engine import DECK, Card, CardParseError, Rank, Suit, format_cards, parse_cards
from chaodipi.engine.cards import CARDS, points_of


def test_every_card_prints_and_parses_back() -> None:
    for card in CARDS:
        assert Card.parse(str(card)) == card
        assert eval(repr(card)) == card  # repr is runnable, as python-chess does


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("♥5", "♥5"),
        ("H5", "♥5"),
        ("h5", "♥5"),
        ("♠10", "♠10"),
        ("S10", "♠10"),
        ("ST", "♠10"),
        ("♦A", "♦A"),
        ("DA", "♦A"),
        ("BJ", "BJ"),
        ("大王", "BJ"),
        ("LJ", "LJ"),
        ("小王", "LJ"),
        ("SJ", "♠J"),  # the jack of spades, never the small joker
        ("sj", "♠J"),
        ("CQ", "♣Q"),
    ],
)
def test_spellings(text: str, expected: str) -> None:
    assert str(Card.parse(text)) == expected


def test_no_spelling_means_two_cards() -> None:
    spellings: dict[str, Card] = {}
    for card in CARDS:
        names = {str(card)}
        if not card.is_joker:
            assert card.suit is not None and card.rank is not None
            names |= {card.suit.letter + str(card.rank), card.suit.letter.lower() + str(card.rank)}
        for name in names:
            assert spellings.setdefault(name, card) == card, name


@pytest.mark.parametrize("bad", ["X5", "♠1", "♠", "S11", "J", "SJJX", "B"])
def test_bad_spellings_say_what_is_wrong(bad: str) -> None:
    with pytest.raises(CardParseError, match=re.escape(repr(bad))):
        parse_cards(bad)


def test_card_parse_wants_exactly_one() -> None:
    with pytest.raises(CardParseError, match="2 cards, not one"):
        Card.parse("♠99")


def test_suit_groups() -> None:
    assert [str(c) for c in parse_cards("♠9988 ♠1010")] == ["♠9", "♠9", "♠8", "♠8", "♠10", "♠10"]
    assert format_cards(parse_cards("♠8 ♠9 ♠8 ♠9 BJ ♥5")) == "♠9988 BJ ♥5"
    assert sorted(parse_cards(format_cards(DECK))) == sorted(DECK)


def test_suit_and_rank_of_a_card() -> None:
    card = Card.parse("♦Q")
    assert (card.suit, card.rank) == (Suit.DIAMONDS, Rank.QUEEN)
    assert Card.parse("BJ").suit is None and Card.parse("LJ").rank is None


def test_the_shoe() -> None:
    """003 「2副牌，共108張」; 「5代表5分，10、K都代表10分」: two decks hold 200 points."""
    assert len(DECK) == 108
    assert all(DECK.count(c) == 2 for c in CARDS)
    assert points_of(DECK) == 200
    assert [Card.parse(t).points for t in ("♠5", "♥10", "♣K", "♦Q", "BJ")] == [5, 10, 10, 0, 0]
