"""The card play of one hand: tricks from four hands under one trump, until the hands are empty.

Owns whose turn it is, checking each play, failed throws and their penalty, trick winners and
the defenders' trick points. Dealing, declaring and the kitty belong to the hand (a later
module); this one starts when the first card is led. Seats are numbered in turn order, so the
seat after ``s`` is ``(s + 1) % 4``; seats ``s`` and ``s + 2`` are partners.

>>> from chaodipi.engine.cards import Rank, Suit, parse_cards
>>> hands = [parse_cards(h) for h in ("♣A ♣3", "♣K ♣4", "♣Q ♠2", "♥3 ♥4")]
>>> play = CardPlay(Trump(Rank.TWO, Suit.SPADES), hands, dealer=0)
>>> play.play(0, parse_cards("♣A ♣3")).throw_failure is not None   # ♣K beats the ♣3
True
>>> play.hand(0), play.penalty_points
([Card.parse('♣A')], 20)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from chaodipi.engine.cards import CARDS, Card, format_cards
from chaodipi.engine.errors import IllegalPlay
from chaodipi.engine.legal import LegalPlays, follow_options, lead_options
from chaodipi.engine.seats import same_team
from chaodipi.engine.throws import ThrowFailure, check_throw, throw_penalty
from chaodipi.engine.trick import (
    Lead,
    PlayKind,
    Trick,
    check_follow,
    check_lead,
    classify_lead,
)
from chaodipi.engine.trump import Trump
from chaodipi.engine.units import count_cards

__all__ = ["CardPlay", "PlayResult", "check_play", "legal_plays"]


@dataclass(frozen=True, slots=True)
class PlayResult:
    """What one play did. ``played`` differs from ``attempted`` only after a failed throw."""

    seat: int
    attempted: tuple[Card, ...]
    played: tuple[Card, ...]
    throw_failure: ThrowFailure | None
    penalty: int
    """Change to the defenders' points from a failed throw (signed)."""
    finished_trick: Trick | None
    """The trick this play completed, if it did."""


class CardPlay:
    """Tricks being played: the four hands, the trick in progress, the tricks taken."""

    __slots__ = (
        "dealer",
        "defender_points",
        "hands",
        "penalty_points",
        "trick",
        "tricks",
        "trump",
    )

    def __init__(
        self,
        trump: Trump,
        hands: Sequence[Iterable[Card]],
        dealer: int,
        leader: int | None = None,
    ) -> None:
        if len(hands) != 4:
            raise ValueError(f"four hands are needed, not {len(hands)}")
        self.trump = trump
        self.dealer = dealer
        self.hands: list[dict[Card, int]] = [count_cards(h) for h in hands]
        self.trick = Trick(trump, dealer if leader is None else leader)
        self.tricks: list[Trick] = []
        self.defender_points = 0
        """Points in tricks the defenders won."""
        self.penalty_points = 0
        """Signed change to the defenders' points from failed throws."""

    # -- reading the state -------------------------------------------------------------------

    @property
    def to_play(self) -> int:
        """The seat whose turn it is (-1 once every card is played)."""
        if self.is_over:
            return -1
        return (self.trick.leader + len(self.trick.plays)) % 4

    @property
    def is_over(self) -> bool:
        return not self.trick.plays and not any(self.hands[0].values())

    def is_dealer_side(self, seat: int) -> bool:
        return same_team(seat, self.dealer)

    def hand(self, seat: int) -> list[Card]:
        """A seat's cards, arranged by suit (trumps last), low to high."""
        cards = [CARDS[c] for c, n in self.hands[seat].items() for _ in range(n)]
        return self.trump.sort(cards)

    @property
    def last_trick(self) -> Trick | None:
        return self.tricks[-1] if self.tricks else None

    # -- legality ----------------------------------------------------------------------------

    def legal_plays(self, seat: int | None = None) -> LegalPlays:
        """The legal plays of the seat to play (see :mod:`chaodipi.engine.legal`)."""
        seat = self.to_play if seat is None else seat
        self._check_turn(seat)
        hand = self.hands[seat]
        lead = self.trick.lead
        if lead is None:
            return lead_options(self.trump, hand)
        return follow_options(self.trump, lead, hand)

    def check_play(self, seat: int, cards: Sequence[Card]) -> None:
        """Raise :class:`IllegalPlay`, saying why, unless the seat may play these cards now."""
        self._check_turn(seat)
        lead = self.trick.lead
        if lead is None:
            check_lead(self.trump, self.hands[seat], cards)
        else:
            check_follow(self.trump, lead, self.hands[seat], cards)

    def _check_turn(self, seat: int) -> None:
        if self.is_over:
            raise IllegalPlay("the hand is over: every card has been played")
        if seat != self.to_play:
            raise IllegalPlay(f"it is seat {self.to_play}'s turn, not seat {seat}'s")

    # -- acting ------------------------------------------------------------------------------

    def play(self, seat: int, cards: Sequence[Card]) -> PlayResult:
        """Check and make a play; a failed throw plays only its forced unit."""
        self.check_play(seat, cards)
        return self.push(seat, cards)

    def push(self, seat: int, cards: Sequence[Card]) -> PlayResult:
        """Make a play *without checking it* (for replays of checked logs and fast self-play)."""
        ordered = tuple(sorted(cards))
        # The caller's tuple when it is in order already (as actions' cards are): the action,
        # the trick and the match's log then share one object rather than keep three.
        attempted = cards if isinstance(cards, tuple) and ordered == cards else ordered
        played = attempted
        failure: ThrowFailure | None = None
        penalty = 0
        lead: Lead | None = None
        if not self.trick.plays:
            lead = classify_lead(self.trump, attempted)
            if lead.kind is PlayKind.THROW:
                others = [self.hands[(seat + i) % 4] for i in (1, 2, 3)]
                failure = check_throw(self.trump, lead, others)
                if failure is not None:
                    played = tuple(sorted(failure.forced.cards))
                    lead = None  # the unit actually played is classified by the trick
                    penalty = throw_penalty(self.trump, failure, self.is_dealer_side(seat))
                    self.penalty_points += penalty
        hand = self.hands[seat]
        for c in played:
            left = hand[c] - 1
            if left:
                hand[c] = left
            else:
                del hand[c]
        trick = self.trick
        trick.add(seat, played, lead)
        finished = None
        if trick.done:
            if not self.is_dealer_side(trick.winner):
                self.defender_points += trick.points
            self.tricks.append(trick)
            self.trick = Trick(self.trump, trick.winner)
            finished = trick
        return PlayResult(seat, attempted, played, failure, penalty, finished)

    def __str__(self) -> str:
        hands = "; ".join(f"{s}: {format_cards(self.hand(s))}" for s in range(4))
        return f"CardPlay({self.trump.describe()}; {hands}; {self.trick})"


def legal_plays(state: CardPlay, seat: int | None = None) -> LegalPlays:
    """The legal plays of ``seat`` (default: the seat to play)."""
    return state.legal_plays(seat)


def check_play(state: CardPlay, seat: int, cards: Sequence[Card]) -> None:
    """Raise :class:`IllegalPlay` with the reason unless ``seat`` may play ``cards`` now."""
    state.check_play(seat, cards)
