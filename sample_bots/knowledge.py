"""What a Python bot infers from its view, beyond what the view says outright.

The view (:class:`engine.view.SeatView`) already holds the seat's cards, the trump, the trick
and the hand's events as the engine's values. This module works out, from those typed events
alone (no hidden information): every card played so far, who has shown a void in which suit,
which cards each seat showed in its bids and still holds, the kitty this seat buried, how many
cards each seat holds, and so the cards this seat cannot see.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from engine.bidding import Bid
from engine.cards import DECK, Card
from engine.events import BidsRevealed, BuriedCards, Declared, Fried, Played, TookKitty
from engine.trick import Trick
from engine.trump import Trump
from engine.view import SeatView

__all__ = ["Knowledge", "read"]


@dataclass(slots=True)
class Knowledge:
    seat: int
    preset: str
    hand: list[Card]
    trump: Trump | None
    dealer: int
    trick: Trick | None
    """The trick on the table as the engine's :class:`Trick` (to ask who would win)."""
    played: Counter[Card] = field(default_factory=Counter)
    voids: dict[int, set[int]] = field(default_factory=dict)
    """Seat → effective suits it has shown it lacks."""
    shown: dict[int, Counter[Card]] = field(default_factory=dict)
    """Seat → cards it showed in its bids and has not played since (so it still holds them,
    unless it buried them)."""
    my_kitty: list[Card] = field(default_factory=list)
    """The cards this seat buried last (it knows them; nobody holds them)."""
    hand_sizes: dict[int, int] = field(default_factory=dict)
    tricks_done: int = 0
    defenders_points: int = 0

    @property
    def partner(self) -> int:
        return (self.seat + 2) % 4

    def defending(self) -> bool:
        return (self.seat - self.dealer) % 2 == 1

    def unseen(self) -> Counter[Card]:
        """Cards this seat has not seen: in other hands or in a kitty it did not bury."""
        left = Counter(DECK)
        left.subtract(self.hand)
        left.subtract(self.played)
        left.subtract(self.my_kitty)
        return +left


def read(view: SeatView) -> Knowledge:
    """What the seat knows and infers, from its view."""
    trump = view.trump
    knowledge = Knowledge(
        seat=view.seat,
        preset=view.preset.name,
        hand=list(view.hand),
        trump=trump,
        dealer=-1 if view.dealer is None else view.dealer,
        trick=None,
        tricks_done=view.tricks_done,
        defenders_points=view.defenders_points,
    )
    lead_suit: int | None = None
    in_trick = 0
    played_by: dict[int, Counter[Card]] = {s: Counter() for s in range(4)}
    for event in view.events:
        match event.payload:
            case Declared(seat=seat, bid=Bid() as bid) | Fried(seat=seat, bid=Bid() as bid):
                _show(knowledge, seat, bid)
            case BidsRevealed(bids=bids):
                for record in bids:
                    _show(knowledge, record.seat, record.bid)
            case BuriedCards(cards=cards):
                knowledge.my_kitty = list(cards)
            case TookKitty():  # another seat took the kitty this seat buried
                knowledge.my_kitty = []
            case Played(seat=seat, cards=cards) if trump is not None:
                knowledge.played.update(cards)
                played_by[seat].update(cards)
                suits = {trump.suit_of[c] for c in cards}
                if in_trick == 0:
                    lead_suit = trump.suit_of[cards[0]] if len(suits) == 1 else None
                elif lead_suit is not None and any(s != lead_suit for s in suits):
                    knowledge.voids.setdefault(seat, set()).add(lead_suit)
                in_trick = (in_trick + 1) % 4
    if trump is not None and view.trick is not None:
        trick = Trick(trump, view.trick.leader)
        for seat, cards in view.trick.plays:
            trick.add(seat, list(cards))
        knowledge.trick = trick
        start = len(knowledge.hand) + played_by[view.seat].total()
        knowledge.hand_sizes = {s: start - played_by[s].total() for s in range(4)}
    knowledge.shown = {
        s: +(shown - played_by[s]) for s, shown in knowledge.shown.items() if s != view.seat
    }
    return knowledge


def _show(knowledge: Knowledge, seat: int, bid: Bid) -> None:
    """Record the cards ``seat`` showed in a bid (as many of each as any one bid showed)."""
    shown = knowledge.shown.setdefault(seat, Counter())
    for card, count in Counter(bid.cards).items():
        shown[card] = max(shown[card], count)
