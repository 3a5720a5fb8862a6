"""What a Python bot can work out from a Decision: the engine's view of its own seat.

Rebuilds, from the observation alone (no hidden information), the trump, the trick on the
table, every card played so far, who has shown a void in which suit, which cards each seat
showed in its bids, and the cards this seat cannot see. Bots use it with the engine in-process
to judge plays.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from arena.v1 import arena_pb2 as pb
from engine.bidding import Bid
from engine.cards import DECK, Card, Rank, Suit, parse_cards
from engine.events import EventKind
from engine.presets import PRESETS
from engine.rules import CardRules
from engine.trick import Trick
from engine.trump import Trump

__all__ = ["Knowledge", "read"]

# the protocol's names of the event kinds this bot reads
_DECLARE, _FRY, _REVEAL = EventKind.DECLARE.value, EventKind.FRY.value, EventKind.REVEAL.value
_BURY, _TOOK_KITTY, _PLAY = EventKind.BURY.value, EventKind.TOOK_KITTY.value, EventKind.PLAY.value


def _card(text: str) -> Card:
    return parse_cards(text)[0]


@dataclass(slots=True)
class Knowledge:
    seat: int
    preset: str
    hand: list[Card]
    trump: Trump | None
    dealer: int
    trick: Trick | None
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


def read(decision: pb.Decision) -> Knowledge:
    """The seat's knowledge from its Decision message."""
    seen = decision.observation
    preset = PRESETS[seen.preset]
    trump = None
    if seen.trump_known:
        level = Rank.parse(seen.trump_level) if seen.trump_level else None
        suit = Suit.parse(seen.trump_suit) if seen.trump_suit else None
        trump = Trump(level, suit, preset.card)
    knowledge = Knowledge(
        seat=seen.seat,
        preset=seen.preset,
        hand=[_card(c) for c in seen.hand],
        trump=trump,
        dealer=seen.dealer,
        trick=None,
        tricks_done=seen.tricks_done,
        defenders_points=seen.defenders_points,
    )
    lead_suit: int | None = None
    in_trick = 0
    played_by: dict[int, Counter[Card]] = {s: Counter() for s in range(4)}
    for event in seen.events:
        if event.bid and event.kind in (_DECLARE, _FRY):
            _show(knowledge, event.seat, event.bid, seen.level, preset.card)
        elif event.kind == _REVEAL and event.details_json:
            for bid in json.loads(event.details_json).get("bids", []):
                _show(knowledge, int(bid["seat"]), str(bid["bid"]), seen.level, preset.card)
        if event.kind == _BURY and event.seat == seen.seat:
            knowledge.my_kitty = [_card(c) for c in event.cards]
        elif event.kind == _TOOK_KITTY:  # another seat took the kitty this seat buried
            knowledge.my_kitty = []
        elif event.kind == _PLAY and trump is not None:
            cards = [_card(c) for c in event.cards]
            knowledge.played.update(cards)
            played_by[event.seat].update(cards)
            suits = {trump.suit_of[c] for c in cards}
            if in_trick == 0:
                lead_suit = trump.suit_of[cards[0]] if len(suits) == 1 else None
            elif lead_suit is not None and any(s != lead_suit for s in suits):
                knowledge.voids.setdefault(event.seat, set()).add(lead_suit)
            in_trick = (in_trick + 1) % 4
    if trump is not None:
        trick = Trick(trump, seen.trick_leader if seen.trick_leader >= 0 else seen.seat)
        for play in seen.trick:
            trick.add(play.seat, [_card(c) for c in play.cards])
        knowledge.trick = trick
        start = len(knowledge.hand) + played_by[seen.seat].total()
        knowledge.hand_sizes = {s: start - played_by[s].total() for s in range(4)}
    knowledge.shown = {
        s: +(shown - played_by[s]) for s, shown in knowledge.shown.items() if s != seen.seat
    }
    return knowledge


def _show(knowledge: Knowledge, seat: int, text: str, level: str, rules: CardRules) -> None:
    """Record the cards ``seat`` showed in a bid (as many of each as any one bid showed)."""
    try:
        bid = Bid.parse(text, Rank.parse(level) if level else None, rules)
    except ValueError:
        return  # not a bid this bot understands: it learns nothing from it
    shown = knowledge.shown.setdefault(seat, Counter())
    for card, count in Counter(bid.cards).items():
        shown[card] = max(shown[card], count)
