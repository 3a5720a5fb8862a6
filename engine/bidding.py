"""Bids: declaring trump (亮主), overriding it (反主), 回头望, and frying the kitty (炒底).

A bid shows cards and names the trump it would make. Bids rank by the room's order
(:class:`chaodipi.engine.rules.BidRules`): a single level card (亮主) lowest, then level pairs by
suit, the small-joker pair, the big-joker pair, the ♥5 pair and, where allowed, 回头望.

>>> from chaodipi.engine.cards import Rank
>>> from chaodipi.engine.units import count_cards
>>> rules = BidRules(pair_order=(3, 2, 1, 0))
>>> [str(b) for b in bids_from(count_cards(parse_cards("♠77 ♥7 BJ BJ")), Rank.SEVEN, rules)]
['♠7', '♥7', '♠77', 'BJ BJ']
>>> bid_rank(Bid.parse("♠77", Rank.SEVEN), rules) > bid_rank(Bid.parse("♥77", Rank.SEVEN), rules)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from chaodipi.engine.cards import (
    BIG_JOKER,
    CARDS,
    SMALL_JOKER,
    Card,
    Rank,
    Suit,
    format_cards,
    parse_cards,
)
from chaodipi.engine.errors import BidParseError
from chaodipi.engine.phase import Phase
from chaodipi.engine.rules import BidRules, CardRules
from chaodipi.engine.trump import RED_FIVE

__all__ = ["Bid", "BidKind", "BidParseError", "BidRecord", "bid_rank", "bids_from"]


class BidKind(IntEnum):
    SINGLE = 0  # 亮主: one level card
    SUIT_PAIR = 1  # a pair of level cards of one suit
    SMALL_JOKERS = 2  # 小王对: no-trump
    BIG_JOKERS = 3  # 大王对: no-trump
    RED_FIVES = 4  # 红5对: its owner names the trump (a suit, or no-trump)
    HUITOUWANG = 5  # 回头望: the first declarer's pair of the card they showed


@dataclass(frozen=True, slots=True)
class Bid:
    """A bid: what it is, the cards it shows, and the trump suit it makes (``None``: no-trump)."""

    kind: BidKind
    cards: tuple[Card, ...]
    suit: Suit | None

    def __str__(self) -> str:
        shown = " ".join(str(c) for c in self.cards)
        if self.kind in (BidKind.SINGLE, BidKind.SUIT_PAIR):
            return format_cards(self.cards)
        if self.kind is BidKind.RED_FIVES:
            return f"♥55={'NT' if self.suit is None else self.suit.symbol}"
        if self.kind is BidKind.HUITOUWANG:
            return f"回头望 {format_cards(self.cards)}"
        return shown

    @classmethod
    def parse(cls, text: str, level: Rank | None, card_rules: CardRules | None = None) -> Bid:
        """Read a bid as :meth:`__str__` prints it: ``♠7``, ``♠77``, ``LJ LJ``, ``BJ BJ``,
        ``♥55=♠``, ``♥55=NT``, ``回头望 ♠77`` (ASCII: ``S7``, ``H55=S``, ``HTW S77``)."""
        text = text.strip()
        try:
            if text.startswith(("回头望", "HTW")):
                cards = parse_cards(text.split(maxsplit=1)[1])
                if len(cards) != 2 or cards[0] != cards[1]:
                    raise BidParseError(f"{text!r}: 回头望 shows a pair")
                return Bid(BidKind.HUITOUWANG, tuple(cards), cards[0].suit)
            if "=" in text:
                shown, chosen = text.split("=", 1)
                if sorted(parse_cards(shown)) != [RED_FIVE, RED_FIVE]:
                    raise BidParseError(f"{text!r}: only the ♥5 pair names a trump (♥55=♠)")
                suit = None if chosen.strip().upper() == "NT" else Suit.parse(chosen.strip())
                return Bid(BidKind.RED_FIVES, (RED_FIVE, RED_FIVE), suit)
            cards = sorted(parse_cards(text))
        except (ValueError, IndexError) as err:
            raise BidParseError(f"{text!r} is not a bid: {err}") from None
        return _classify(tuple(cards), level, card_rules or CardRules(), text)


@dataclass(frozen=True, slots=True)
class BidRecord:
    """A declaration or fry as made: ``stood`` is whether it beat the bid in force then."""

    seat: int
    bid: Bid
    stage: Phase
    stood: bool


def _classify(cards: tuple[Card, ...], level: Rank | None, rules: CardRules, text: str) -> Bid:
    if cards == (SMALL_JOKER, SMALL_JOKER):
        return Bid(BidKind.SMALL_JOKERS, cards, None)
    if cards == (BIG_JOKER, BIG_JOKER):
        return Bid(BidKind.BIG_JOKERS, cards, None)
    if cards == (RED_FIVE, RED_FIVE) and rules.red_five:
        raise BidParseError(f"{text!r}: the ♥5 pair names its trump: ♥55=♠ … ♥55=NT")
    if len(cards) in (1, 2) and len(set(cards)) == 1 and cards[0].rank == level:
        kind = BidKind.SINGLE if len(cards) == 1 else BidKind.SUIT_PAIR
        return Bid(kind, cards, cards[0].suit)
    raise BidParseError(
        f"{text!r} is not a bid at level {level}: show one or two level cards of a suit, "
        "a joker pair, or the ♥5 pair"
    )


def bid_rank(bid: Bid, rules: BidRules) -> int:
    """Strength of a bid in this room (higher overrides lower; equal does not)."""
    if bid.kind is BidKind.SUIT_PAIR:
        order = rules.pair_order or (0, 1, 2, 3)
        assert bid.suit is not None
        return 10 + order.index(bid.suit)
    return {
        BidKind.SINGLE: 0,
        BidKind.SMALL_JOKERS: 20,
        BidKind.BIG_JOKERS: 21,
        BidKind.RED_FIVES: 22,
        BidKind.HUITOUWANG: 23,
    }[bid.kind]


def bids_from(
    hand: dict[Card, int],
    level: Rank | None,
    rules: BidRules,
    card_rules: CardRules | None = None,
    *,
    singles: bool = True,
    first_declared: Card | None = None,
) -> list[Bid]:
    """Every bid these cards can show, weakest first.

    ``singles``: whether a single level card may still be shown (only as the first declaration).
    ``first_declared``: the card this seat showed as the first declaration, for 回头望.
    """
    card_rules = card_rules or CardRules()
    found: list[Bid] = []
    if level is None:
        return found
    red_five_rule = card_rules.red_five and not rules.fry_by_order
    for suit in Suit:
        card = CARDS[suit * 13 + level]
        copies = hand.get(card, 0)
        if singles and copies:
            found.append(Bid(BidKind.SINGLE, (card,), suit))
    for suit in Suit:
        card = CARDS[suit * 13 + level]
        if hand.get(card, 0) >= 2 and not (card == RED_FIVE and red_five_rule):
            found.append(Bid(BidKind.SUIT_PAIR, (card, card), suit))
    for joker, kind in ((SMALL_JOKER, BidKind.SMALL_JOKERS), (BIG_JOKER, BidKind.BIG_JOKERS)):
        if hand.get(joker, 0) >= 2:
            found.append(Bid(kind, (joker, joker), None))
    if red_five_rule and hand.get(RED_FIVE, 0) >= 2:
        found.extend(Bid(BidKind.RED_FIVES, (RED_FIVE, RED_FIVE), s) for s in (*Suit, None))
    if rules.huitouwang and first_declared is not None and hand.get(first_declared, 0) >= 2:
        pair = (first_declared, first_declared)
        found.append(Bid(BidKind.HUITOUWANG, pair, first_declared.suit))
    if rules.pair_order is not None:
        found.sort(key=lambda b: bid_rank(b, rules))
    return found
