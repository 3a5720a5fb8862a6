"""One trick: what a lead is, whether a follow is legal (and why not), and who wins.

The seed texts this module implements: 000 「出牌及牌大小原则」, 001 §3, 003 「基本玩法」. See
``docs/rules.md`` for the readings chosen where they are unclear.

>>> from chaodipi.engine.cards import Rank, Suit, parse_cards
>>> t = Trump(Rank.TWO, Suit.SPADES)
>>> lead = classify_lead(t, parse_cards("♣5 ♣44"))
>>> lead.kind.name, str(lead.fmt)
('THROW', 'Format(tractors=(), pairs=1, singles=1)')
>>> trick = Trick(t, leader=0)
>>> trick.add(0, parse_cards("♣5 ♣44")); trick.add(1, parse_cards("♠9 ♠77"))
>>> trick.add(2, parse_cards("♠8 ♠84")); trick.add(3, parse_cards("♣3 ♣6 ♣7"))
>>> trick.winner  # ♠88 over-ruffs ♠77 (000: 主牌977可毙副牌544，主牌884可盖毙)
2
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

from chaodipi.engine.cards import CARDS, Card, Rank, Suit, format_cards, points_of
from chaodipi.engine.errors import IllegalPlay
from chaodipi.engine.trump import TRUMP, Trump
from chaodipi.engine.units import (
    Format,
    Unit,
    count_cards,
    decompose,
    format_of,
    leading_key,
    pairs_of,
    ruff_holds,
    structure_score,
)

__all__ = [
    "Lead",
    "PlayKind",
    "Trick",
    "check_follow",
    "check_holds",
    "check_lead",
    "classify_lead",
    "five_ten_king_of",
    "holding",
    "suit_name",
]

_FIVE_TEN_KING_RANKS = (Rank.FIVE, Rank.TEN, Rank.KING)


class PlayKind(Enum):
    """What a lead is."""

    SINGLE = "single"
    PAIR = "pair"
    TRACTOR = "tractor"
    THROW = "throw"  # 甩牌: several units of one suit
    FIVE_TEN_KING = "5-10-K"  # same-suit 5, 10, K
    FIVE_TEN_KING_PAIRS = "paired 5-10-K"  # 55 1010 KK


def suit_name(suit: int) -> str:
    """How a message names an effective suit: ``♠`` … or ``trump``."""
    return "trump" if suit == TRUMP else Suit(suit).symbol


@dataclass(frozen=True, slots=True)
class Lead:
    """A classified lead: its effective suit, kind, units and format."""

    cards: tuple[Card, ...]
    suit: int
    kind: PlayKind
    units: tuple[Unit, ...]
    fmt: Format

    @property
    def is_trump_five_ten_king(self) -> bool:
        return self.kind is PlayKind.FIVE_TEN_KING and self.suit == TRUMP


def five_ten_king_of(trump: Trump, cards: Sequence[Card]) -> tuple[int, bool] | None:
    """If the cards are a 5-10-K (or a paired one), its effective suit and whether it is paired.

    Same natural suit, ranks exactly {5, 10, K} once each (or twice each), all of one effective
    suit, except that a hearts 5-10-K may use the ♥5 (a trump) when the rules allow it.
    """
    rules = trump.rules
    if not rules.five_ten_king or len(cards) not in (3, 6):
        return None
    first = cards[0]
    if first >= 52:
        return None
    natural = first // 13
    counts = count_cards(cards)
    copies = len(cards) // 3
    for rank in _FIVE_TEN_KING_RANKS:
        if counts.get(CARDS[natural * 13 + rank], 0) != copies:
            return None
    suits = {trump.suit_of[c] for c in counts}
    if len(suits) == 1:
        return (suits.pop(), copies == 2)
    five = natural * 13 + Rank.FIVE
    if (
        natural == Suit.HEARTS
        and rules.red_five
        and rules.red_five_in_hearts_ftk
        and trump.suit_of[five] == TRUMP
        and {trump.suit_of[c] for c in counts if c != five} == {Suit.HEARTS}
    ):
        return (Suit.HEARTS, copies == 2)
    return None


def classify_lead(trump: Trump, cards: Sequence[Card]) -> Lead:
    """Say what a lead is, or raise :class:`IllegalPlay` if it is not a lead at all."""
    if not cards:
        raise IllegalPlay("a lead needs at least one card")
    ordered = tuple(sorted(cards))
    five_ten_king = five_ten_king_of(trump, ordered)
    if five_ten_king is not None:
        suit, paired = five_ten_king
        if paired:
            fmt = Format(pairs=3)
            units = tuple(decompose_pairs(trump, ordered))
            return Lead(ordered, suit, PlayKind.FIVE_TEN_KING_PAIRS, units, fmt)
        units = tuple(Unit((c,), 0, trump.order[c], trump.order[c]) for c in ordered)
        return Lead(ordered, suit, PlayKind.FIVE_TEN_KING, units, Format(singles=3))
    suits = {trump.suit_of[c] for c in ordered}
    if len(suits) != 1:
        raise IllegalPlay(
            f"{format_cards(ordered)} mixes suits: a lead is cards of one suit "
            "(all trumps count as one suit), or a 5-10-K"
        )
    suit = suits.pop()
    units = tuple(decompose(trump, ordered))
    fmt = format_of(units)
    if len(units) > 1:
        kind = PlayKind.THROW
    elif units[0].length >= 2:
        kind = PlayKind.TRACTOR
    else:
        kind = PlayKind.PAIR if units[0].length == 1 else PlayKind.SINGLE
    return Lead(ordered, suit, kind, units, fmt)


def decompose_pairs(trump: Trump, cards: Sequence[Card]) -> list[Unit]:
    """A paired 5-10-K as three pairs (never a tractor)."""
    order = trump.order
    return [
        Unit((c, c), 1, order[c], order[c]) for c in sorted(set(cards), key=lambda c: -order[c])
    ]


def check_lead(trump: Trump, hand: dict[Card, int], cards: Sequence[Card]) -> Lead:
    """Classify a lead after checking the cards are in the hand."""
    check_holds(hand, cards)
    return classify_lead(trump, cards)


def check_holds(hand: dict[Card, int], cards: Sequence[Card], verb: str = "play") -> None:
    """Raise :class:`IllegalPlay` unless the hand holds every card (copies counted)."""
    for c, n in count_cards(cards).items():
        if hand.get(c, 0) < n:
            held = hand.get(c, 0)
            have = "none" if not held else "only one" if held == 1 else f"only {held}"
            raise IllegalPlay(f"you {verb} {c} ×{n} but hold {have}")


def holding(trump: Trump, hand: dict[Card, int], suit: int) -> list[Card]:
    """A hand's cards of one effective suit, weakest first, each copy listed."""
    return [c for c in trump.suit_cards[suit] if hand.get(c) for _ in range(hand[c])]


def trump_five_ten_king_in(trump: Trump, hand: dict[Card, int]) -> tuple[Card, ...] | None:
    """The trump 5-10-K a hand holds, if any (a seat must answer a trump 5-10-K with it)."""
    if trump.suit is None or not trump.rules.five_ten_king:
        return None
    cards = tuple(CARDS[trump.suit * 13 + r] for r in _FIVE_TEN_KING_RANKS)
    if all(hand.get(c) for c in cards) and five_ten_king_of(trump, cards) is not None:
        return tuple(sorted(cards))
    return None


def check_follow(trump: Trump, lead: Lead, hand: dict[Card, int], cards: Sequence[Card]) -> None:
    """Raise :class:`IllegalPlay` unless ``cards`` is a legal follow to ``lead`` from ``hand``."""
    check_holds(hand, cards)
    n = len(lead.cards)
    if len(cards) != n:
        raise IllegalPlay(
            f"play {n} card{'s' if n > 1 else ''}, as many as the lead, not {len(cards)}"
        )
    suit = lead.suit
    held = holding(trump, hand, suit)
    played = [c for c in cards if trump.suit_of[c] == suit]
    name = suit_name(suit)
    if lead.is_trump_five_ten_king:
        own = trump_five_ten_king_in(trump, hand)
        if own is not None and tuple(sorted(cards)) != own:
            raise IllegalPlay(f"answer the trump 5-10-K with yours: {format_cards(own)}")
    if len(held) >= n:
        if len(played) != n:
            raise IllegalPlay(
                f"must follow {name} with {n} {name} card{'s' if n > 1 else ''}: "
                f"you hold {format_cards(held)}"
            )
    elif len(played) != len(held):
        raise IllegalPlay(f"must play all your {name} first: {format_cards(held)}")
    if (
        lead.is_trump_five_ten_king
        and trump.rules.ftk_answer_highest
        and trump_five_ten_king_in(trump, hand) is None
    ):
        order = trump.order
        want = sorted((order[c] for c in held), reverse=True)[: len(played)]
        if sorted((order[c] for c in played), reverse=True) != want:
            top = sorted(held, key=lambda c: -order[c])[: len(played)]
            raise IllegalPlay(
                f"answer a trump 5-10-K with your highest trumps: {format_cards(top)}"
            )
    if lead.fmt.total_pairs and len(held) > n:
        need = structure_score(trump, pairs_of(held), lead.fmt)
        got = structure_score(trump, pairs_of(played), lead.fmt)
        if got != need:
            raise IllegalPlay(_structure_reason(trump, lead, held, need, got))


def _structure_reason(
    trump: Trump, lead: Lead, held: list[Card], need: tuple[int, int], got: tuple[int, int]
) -> str:
    name = suit_name(lead.suit)
    pairs = pairs_of(held)
    shown = format_cards(c for c in held if c in pairs)
    if got[0] < need[0]:
        return f"must follow {name} with a tractor: you hold {shown}"
    count = need[1]
    what = "a pair" if count == 1 else f"{count} pairs"
    return f"must follow {name} with {what}: you hold {shown}"


@dataclass(slots=True)
class Trick:
    """A trick in progress: the plays in turn order and who is winning so far.

    :meth:`add` records a play without checking it (the caller checks; see
    :mod:`chaodipi.engine.legal`), classifying the lead and keeping the current winner up to date.
    """

    trump: Trump
    leader: int
    plays: list[tuple[int, tuple[Card, ...]]] = field(default_factory=list)
    lead: Lead | None = field(default=None, init=False)
    winner: int = field(default=-1, init=False)
    _best: tuple[int, tuple[int, int]] = field(default=(-1, (-1, -1)), init=False, repr=False)

    def add(self, seat: int, cards: Sequence[Card], lead: Lead | None = None) -> None:
        """Record a play; a caller that already classified the lead may pass it."""
        played = tuple(sorted(cards))
        if self.lead is None:
            self.lead = lead if lead is not None else classify_lead(self.trump, played)
            self.winner = seat
            self._best = (2 if self.lead.is_trump_five_ten_king else 0, self._key(played))
        else:
            strength = self._strength(played)
            if strength is not None and strength > self._best:
                self._best = strength
                self.winner = seat
        self.plays.append((seat, played))

    def _key(self, cards: tuple[Card, ...]) -> tuple[int, int]:
        assert self.lead is not None
        if self.lead.kind is PlayKind.FIVE_TEN_KING:
            return (0, 0)
        return leading_key(self.trump, cards, self.lead.fmt)

    def _strength(self, cards: tuple[Card, ...]) -> tuple[int, tuple[int, int]] | None:
        """(tier, key) of a follow that can win, or None: tier 0 follows suit, 1 ruffs (毙),
        2 is a trump 5-10-K."""
        lead = self.lead
        assert lead is not None
        trump = self.trump
        if lead.kind is PlayKind.FIVE_TEN_KING:
            if lead.suit != TRUMP:
                five_ten_king = five_ten_king_of(trump, cards)
                if five_ten_king == (TRUMP, False):
                    return (2, (0, 0))
            return None
        suits = {trump.suit_of[c] for c in cards}
        if len(suits) != 1:
            return None
        suit = suits.pop()
        if suit == lead.suit:
            if lead.kind in (PlayKind.THROW, PlayKind.FIVE_TEN_KING_PAIRS):
                return None
            tier = 0
        elif suit == TRUMP:
            tier = 1
        else:
            return None
        fmt = lead.fmt
        if fmt.total_pairs:
            if tier == 1:
                if not ruff_holds(trump, cards, fmt):
                    return None  # 000 「…否则被视为垫牌」
            elif structure_score(trump, pairs_of(cards), fmt) != fmt.full_score:
                return None
        return (tier, leading_key(trump, cards, fmt))

    def would_win(self, cards: Sequence[Card]) -> bool:
        """Would these cards, played next, take the lead in this trick? (Nothing is changed.)"""
        if self.lead is None:
            return True
        strength = self._strength(tuple(sorted(cards)))
        return strength is not None and strength > self._best

    @property
    def done(self) -> bool:
        return len(self.plays) == 4

    @property
    def points(self) -> int:
        return sum(points_of(cards) for _, cards in self.plays)

    def cards(self) -> list[Card]:
        return [c for _, cards in self.plays for c in cards]

    def __str__(self) -> str:
        shown = ", ".join(f"{seat}: {format_cards(cards)}" for seat, cards in self.plays)
        return f"Trick({shown}; winner {self.winner})"
