"""What one seat knows about the cards it cannot see: ``infer(view)``, a frozen :class:`Knowledge`.

Built from a :class:`~chaodipi.engine.view.SeatView` alone (so from nothing the seat may not see),
it says where the unseen cards may be. A *place* is a seat (0-3), the kitty (:data:`KITTY`) or,
while the deal is still coming, the cards not yet dealt (:data:`UNDEALT`). It holds:

* every card played this hand, by whom (:attr:`Knowledge.played`), and how many cards each
  place holds now (:attr:`Knowledge.sizes`: 25 a seat in the play, 27 in the 扛旗 hand, which
  has no kitty; 33 while a seat buries);
* the kitty, when this seat knows it (:attr:`Knowledge.kitty`: it buried it last);
* **voids**: a seat that did not follow the led effective suit with as many cards as were led
  has none of it left (trump voids included; the 5-10-K lead of hearts with the ♥5 leads
  hearts);
* **bounds** (:class:`Bound`): at least or at most so many of the unseen copies of a card kind
  are in some places. They come from
  - cards shown in bids (declared, fried; in hidden, 暗炒, presets only this seat's own until
    the bids are revealed after frying) and the kitty turned up when nobody declared: the seat
    held them then, so they are in its hand now, or were buried and are in the kitty, or in the
    hand of a seat that took the kitty since (and so on), less the copies those seats played;
  - the kitty this seat buried, when a later fry took it up;
  - a failed throw (甩牌): the thrower still holds the cards it tried to throw and did not play;
  - a throw that stood: no other seat held a higher single of that suit (none of those cards is
    in another seat), nor a higher pair (at most one copy in each other seat);
  - answering a trump 5-10-K with the highest trumps (``CardRules.ftk_answer_highest``): a seat
    that did so holds no stronger trump.

What it does not use: what a follow's shape says about pairs and tractors (a seat that did not
follow a pair with a pair has none), which units could beat a failed throw, a stood throw's
tractors, a seat not answering a trump 5-10-K with one, and anything about how seats chose
their plays. :mod:`chaodipi.engine.sampling` draws deals uniformly among those these facts allow.

>>> import random
>>> from chaodipi.engine.match import Match
>>> from chaodipi.engine.presets import PRESETS
>>> from chaodipi.engine.view import observe
>>> match, rng = Match(PRESETS["classic"], seed=3), random.Random(3)
>>> while match.hand.phase.value != "play" or len(match.hand.play.tricks) < 2:
...     match.apply(match.to_play, match.legal_actions().sample(rng))
>>> known = infer(observe(match, 3))
>>> known.sizes, sum(known.unseen().values())    # seats 0-3, kitty, undealt
((23, 23, 23, 23, 8, 0), 77)
>>> for bound in known.bounds:  # failed throws by seats 2 and 1; seat 2 declared, then buried
...     print(bound)
at least 1 ♠9 in seat 1
at least 1 ♠K in seat 1
at least 2 ♥9 in seat 2
at least 1 ♥K in seat 2
at least 1 ♦2 in seat 0
at least 2 LJ in seat 2 or the kitty
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, assert_never

from chaodipi.engine.bidding import Bid, BidRecord
from chaodipi.engine.cards import CARDS, DECK, Card
from chaodipi.engine.events import (
    BidsRevealed,
    Buried,
    BuriedCards,
    DealerFixed,
    Dealt,
    Declared,
    Fried,
    HandBegun,
    HandOver,
    KittyTaken,
    KittyTurned,
    Passed,
    Payload,
    Played,
    Redealt,
    TookKitty,
    TrickWon,
    TrumpFixed,
)
from chaodipi.engine.hand import KITTY_SIZE
from chaodipi.engine.phase import Phase
from chaodipi.engine.presets import Preset
from chaodipi.engine.rules import CardRules
from chaodipi.engine.seats import next_seat, partner, same_team
from chaodipi.engine.trick import Lead, PlayKind, Trick, classify_lead, trump_five_ten_king_in
from chaodipi.engine.trump import TRUMP, Trump
from chaodipi.engine.view import SeatView, TableTrick

__all__ = [
    "KITTY", "PLACES", "UNDEALT", "Bound", "Inference", "Knowledge", "Tally", "infer",
    "place_name",
]

KITTY: Final = 4
"""The place of the kitty."""
UNDEALT: Final = 5
"""The place of the cards not dealt yet (only while declaring)."""
PLACES: Final = 6
"""How many places there are: seats 0-3, the kitty, the undealt cards."""


def place_name(place: int) -> str:
    """``seat 2``, ``the kitty``, ``the undealt cards``."""
    return {KITTY: "the kitty", UNDEALT: "the undealt cards"}.get(place, f"seat {place}")


@dataclass(frozen=True, slots=True)
class Bound:
    """Between ``low`` and ``high`` of the unseen copies of ``card`` are in ``places``
    (places whose cards the seat cannot see)."""

    card: Card
    places: frozenset[int]
    low: int
    high: int

    def allows(self, count: int) -> bool:
        return self.low <= count <= self.high

    def __str__(self) -> str:
        where = " or ".join(place_name(p) for p in sorted(self.places))
        if self.high == 0:
            return f"no {self.card} in {where}"
        if self.low == 0:
            return f"at most {self.high} {self.card} in {where}"
        return f"at least {self.low} {self.card} in {where}"


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What ``seat`` knows of the cards it cannot see (see the module docs)."""

    seat: int
    preset: Preset
    phase: Phase
    dealer: int | None
    trump: Trump | None
    """The trump once the card play has begun (voids need it)."""
    hand: tuple[Card, ...]
    played: tuple[tuple[Card, ...], ...]
    """Each seat's cards played this hand, in order."""
    plays: tuple[tuple[int, tuple[Card, ...]], ...]
    """Every play of this hand in order: (seat, cards as played)."""
    sizes: tuple[int, ...]
    """How many cards each place holds now (indexed by place)."""
    kitty: tuple[Card, ...] | None
    """The kitty, when this seat knows it (it buried it last, or it is empty)."""
    voids: tuple[frozenset[int], ...]
    """Each seat's effective suits (0-3, :data:`~chaodipi.engine.trump.TRUMP`) it has none of."""
    bounds: tuple[Bound, ...]
    table: TableTrick | None
    """The trick on the table (as the view has it)."""
    defenders_points: int = 0
    throw_penalties: int = 0
    fry_penalty: int = 0
    """Signed change to the defenders' points from failed fries (public once bids are
    revealed)."""

    @property
    def partner(self) -> int:
        return partner(self.seat)

    def defending(self) -> bool:
        """Is this seat on the defenders' side (the dealer's opponents)?"""
        return self.dealer is not None and not same_team(self.seat, self.dealer)

    def hidden_places(self) -> tuple[int, ...]:
        """The places holding cards this seat cannot see, in order."""
        return tuple(
            p
            for p in range(PLACES)
            if p != self.seat and self.sizes[p] and not (p == KITTY and self.kitty is not None)
        )

    def unseen(self) -> Counter[Card]:
        """Copies of each card kind this seat has not seen (in the hidden places)."""
        left = Counter(DECK)
        left.subtract(self.hand)
        for cards in self.played:
            left.subtract(cards)
        left.subtract(self.kitty or ())
        return +left

    def allowed(self, card: Card) -> tuple[int, ...]:
        """The hidden places an unseen ``card`` may be in, by the voids and the bounds that
        rule out a place altogether."""
        suit = None if self.trump is None else self.trump.suit_of[card]
        shut = {p for b in self.bounds if b.card == card and b.high == 0 for p in b.places}
        return tuple(
            p
            for p in self.hidden_places()
            if p not in shut and not (p < 4 and suit is not None and suit in self.voids[p])
        )

    def trick(self) -> Trick | None:
        """The trick on the table as a fresh engine :class:`~chaodipi.engine.trick.Trick` (to ask
        who would win), or ``None`` before the card play."""
        if self.trump is None or self.table is None:
            return None
        trick = Trick(self.trump, self.table.leader)
        for seat, cards in self.table.plays:
            trick.add(seat, cards)
        return trick


class _Fact:
    """While reading: ``count`` copies of ``card`` were in ``places`` (``at_least``) or at most
    there, when the fact was learnt; ``places`` follows the kitty as it moves; ``played`` counts
    the copies those places have played since."""

    __slots__ = ("at_least", "card", "count", "places", "played")

    def __init__(self, card: Card, count: int, places: Iterable[int], *, at_least: bool) -> None:
        self.card = card
        self.count = count
        self.places = set(places)
        self.at_least = at_least
        self.played = 0


class Tally:
    """What one hand's events say of every seat's cards, read one event at a time (:meth:`see`,
    in order): how many cards each place holds (:attr:`sizes`), what each seat played
    (:attr:`played`, :attr:`plays`), and each seat's voids (:attr:`voids`: the effective suits
    it did not follow with as many cards as were led, the seat's own included; the 5-10-K lead
    of hearts with the ♥5 leads hearts, :func:`~chaodipi.engine.trick.classify_lead`).

    It needs nothing but the events: the hand's level comes with
    :class:`~chaodipi.engine.events.HandBegun` (the 扛旗 hand has no kitty), the trump with
    :class:`~chaodipi.engine.events.TrumpFixed`. :func:`infer` reads a view's events through
    one; a reader that keeps one across the views of a hand gives it only the new events.
    Its lists are its own: read them, do not change them.

    >>> from chaodipi.engine.match import Match
    >>> from chaodipi.engine.presets import PRESETS
    >>> match = Match(PRESETS["classic"], seed=1)
    >>> tally = Tally(match.preset.card)
    >>> for event in match.log.since(0, seat=0):
    ...     tally.see(event.payload)
    >>> tally.sizes, tally.voids     # seats 0-3, kitty, undealt
    ([5, 5, 5, 5, 8, 80], [set(), set(), set(), set()])
    """

    __slots__ = (
        "dealt",
        "in_trick",
        "kangqi",
        "lead",
        "played",
        "plays",
        "rules",
        "sizes",
        "trump",
        "voids",
    )

    def __init__(self, rules: CardRules) -> None:
        self.rules = rules
        self.kangqi = False
        """The hand is the 扛旗 hand (no level, no kitty)."""
        self.trump: Trump | None = None
        """The trump, once the card play has begun."""
        self.sizes: list[int] = []
        """How many cards each place holds now (indexed by place)."""
        self.dealt = 0
        """Cards dealt to each seat so far."""
        self.played: list[list[Card]] = []
        """Each seat's cards played this hand, in order."""
        self.plays: list[tuple[int, tuple[Card, ...]]] = []
        """Every play of this hand in order: (seat, cards as played)."""
        self.voids: list[set[int]] = []
        """Each seat's effective suits (0-3, :data:`~chaodipi.engine.trump.TRUMP`) it has none
        of."""
        self.lead: Lead | None = None
        """The lead of the trick on the table (or of the last one)."""
        self.in_trick = 0
        """How many seats have played to the trick on the table."""
        self._forget()

    def _forget(self) -> None:
        """No card seen yet: the hand begins, or is dealt again."""
        self.sizes = [0] * PLACES
        self.dealt = 0
        self.played = [[] for _ in range(4)]
        self.plays = []
        self.voids = [set() for _ in range(4)]
        self.lead = None
        self.in_trick = 0

    def see(self, payload: Payload) -> None:
        """Read the hand's next event."""
        sizes = self.sizes
        match payload:
            case Played(seat=seat, cards=cards):
                self._played(seat, cards)
            case HandBegun(level=level):
                self.kangqi, self.trump = level is None, None
                self._forget()
            case Redealt():
                self._forget()
            case Dealt(cards=cards):
                self.dealt += len(cards)
                for seat in range(4):
                    sizes[seat] += len(cards)
                rest = len(DECK) - 4 * self.dealt
                sizes[KITTY] = 0 if self.kangqi else min(KITTY_SIZE, rest)
                sizes[UNDEALT] = rest - sizes[KITTY]
            case KittyTaken(seat=seat) | TookKitty(seat=seat):
                sizes[seat] += sizes[KITTY]
                sizes[KITTY] = 0
            case BuriedCards(seat=seat) | Buried(seat=seat):
                sizes[seat] -= KITTY_SIZE
                sizes[KITTY] = KITTY_SIZE
            case TrumpFixed(level=level, suit=suit):
                self.trump = Trump(level, suit, self.rules)
            case HandOver(kitty=kitty):
                sizes[KITTY] = len(kitty)
            case (
                TrickWon()
                | Declared()
                | Fried()
                | Passed()
                | DealerFixed()
                | KittyTurned()
                | BidsRevealed()
            ):
                pass
            case _:
                assert_never(payload)

    def _played(self, seat: int, cards: tuple[Card, ...]) -> None:
        trump = self.trump
        if trump is None:
            raise ValueError(
                f"seat {seat} played before trump was fixed: the events are not in order"
            )
        self.sizes[seat] -= len(cards)
        self.played[seat].extend(cards)
        self.plays.append((seat, cards))
        if self.in_trick == 0:
            self.lead = classify_lead(trump, cards)
        else:
            lead = self.lead
            assert lead is not None
            if sum(1 for c in cards if trump.suit_of[c] == lead.suit) < len(lead.cards):
                self.voids[seat].add(lead.suit)
        self.in_trick = next_seat(self.in_trick)


class _Reader:
    """Reads a view's events in order: a :class:`Tally` of sizes, plays and voids, and the
    facts that make the bounds."""

    def __init__(self, view: SeatView) -> None:
        self.view = view
        self.seat = view.seat
        self.tally = Tally(view.preset.card)
        self._reset()
        self.revealed = self._revealed_bids()

    def _reset(self) -> None:
        self.kitty: list[Card] | None = None
        self.facts: list[_Fact] = []
        self.bid_events = 0
        self.fry_penalty = 0

    def _revealed_bids(self) -> list[BidRecord]:
        """The bids as revealed after frying (hidden presets), after the last redeal."""
        bids: list[BidRecord] = []
        for event in self.view.events:
            match event.payload:
                case Redealt():
                    bids = []
                case BidsRevealed(bids=revealed):
                    bids = list(revealed)
                case (
                    HandBegun()
                    | Dealt()
                    | Declared()
                    | Fried()
                    | Passed()
                    | DealerFixed()
                    | KittyTaken()
                    | TookKitty()
                    | BuriedCards()
                    | Buried()
                    | KittyTurned()
                    | TrumpFixed()
                    | Played()
                    | TrickWon()
                    | HandOver()
                ):
                    pass
                case _:
                    assert_never(event.payload)
        return bids

    def _learn(self, cards: Iterable[Card], places: Iterable[int]) -> None:
        """These cards (copies counted) are in ``places`` now."""
        for card, count in Counter(cards).items():
            self.facts.append(_Fact(card, count, places, at_least=True))

    def _rule_out(self, cards: Iterable[Card], seat: int, most: int) -> None:
        """``seat`` holds at most ``most`` copies of each of these card kinds now."""
        for card in cards:
            self.facts.append(_Fact(card, most, (seat,), at_least=False))

    def _kitty_taken(self, seat: int) -> None:
        self.kitty = []
        for fact in self.facts:
            if KITTY in fact.places:
                fact.places.discard(KITTY)
                fact.places.add(seat)

    def _buried(self, seat: int, cards: tuple[Card, ...] | None) -> None:
        self.kitty = None if cards is None else list(cards)
        for fact in self.facts:
            if seat in fact.places:
                fact.places.add(KITTY)
        if cards is not None:  # this seat's own bury: known to be in the kitty, for now
            self._learn(cards, (KITTY,))

    def _bid(self, seat: int, bid: Bid | None) -> None:
        index = self.bid_events
        self.bid_events += 1
        if bid is None and index < len(self.revealed) and self.revealed[index].seat == seat:
            bid = self.revealed[index].bid
        if bid is not None and seat != self.seat:
            self._learn(bid.cards, (seat,))

    def see(self, payload: Payload) -> None:
        leading = self.tally.in_trick == 0
        self.tally.see(payload)
        match payload:
            case Played():
                self._played(payload, leading)
            case Redealt():
                self._reset()
            case Declared(seat=seat, bid=bid) | Fried(seat=seat, bid=bid):
                self._bid(seat, bid)
            case KittyTurned(cards=cards):
                self.kitty = list(cards)
                self._learn(cards, (KITTY,))
            case KittyTaken(seat=seat) | TookKitty(seat=seat):
                self._kitty_taken(seat)
            case BuriedCards(seat=seat, cards=cards):
                self._buried(seat, cards)
            case Buried(seat=seat):
                self._buried(seat, None)
            case BidsRevealed(bids=bids):
                self._fry_penalty(bids)
            case HandOver(kitty=kitty):
                self.kitty = list(kitty)
            case HandBegun() | Dealt() | Passed() | DealerFixed() | TrumpFixed() | TrickWon():
                pass
            case _:
                assert_never(payload)

    def _fry_penalty(self, bids: tuple[BidRecord, ...]) -> None:
        rules = self.view.preset.bid
        dealer = self.view.dealer
        if not rules.failed_fry_penalty or rules.fry_by_order or dealer is None:
            return
        for record in bids:
            if record.stage is Phase.FRY and not record.stood:
                amount = rules.failed_fry_penalty
                dealers = same_team(record.seat, dealer)
                self.fry_penalty += amount if dealers else -amount

    def _played(self, event: Played, leading: bool) -> None:
        """The facts a play adds (the :class:`Tally` has read it already)."""
        seat, cards = event.seat, event.cards
        if event.attempted is not None:  # a failed throw: the rest of it is still held
            self._learn(event.attempted, (seat,))
        for fact in self.facts:
            if seat in fact.places:
                fact.played += cards.count(fact.card)
        lead = self.tally.lead
        assert lead is not None
        if leading:
            if event.attempted is None and lead.kind is PlayKind.THROW:
                self._throw_stood(seat, lead)
        else:
            self._followed(seat, cards, lead)

    def _throw_stood(self, thrower: int, lead: Lead) -> None:
        """No other seat held a higher single of the suit, nor a higher pair
        (chaodipi.engine.throws)."""
        trump = self.tally.trump
        assert trump is not None
        order = trump.order
        others = [s for s in range(4) if s not in (thrower, self.seat)]
        for unit in lead.units:
            if unit.length > 1:
                continue  # a stood tractor says nothing card by card
            higher = [c for c in trump.suit_cards[lead.suit] if order[c] > unit.key]
            for seat in others:  # a higher single: none of them; a higher pair: one at most
                self._rule_out(higher, seat, unit.length)

    def _followed(self, seat: int, cards: tuple[Card, ...], lead: Lead) -> None:
        trump = self.tally.trump
        assert trump is not None
        in_suit = [c for c in cards if trump.suit_of[c] == lead.suit]
        if (
            lead.is_trump_five_ten_king
            and trump.rules.ftk_answer_highest
            and in_suit
            and seat != self.seat
            and tuple(sorted(cards)) != trump_five_ten_king_in(trump, Counter(cards))
        ):
            # it held no trump 5-10-K, so it answered with its highest trumps
            lowest = min(trump.order[c] for c in in_suit)
            stronger = [c for c in trump.suit_cards[TRUMP] if trump.order[c] > lowest]
            self._rule_out(stronger, seat, 0)

    def knowledge(self) -> Knowledge:
        view, tally = self.view, self.tally
        hidden = {
            p
            for p in range(PLACES)
            if p != self.seat and tally.sizes[p] and not (p == KITTY and self.kitty is not None)
        }
        own = Counter(view.hand)
        kitty = Counter(self.kitty or ())
        unseen = [2] * len(CARDS)
        for cards in (*tally.played, view.hand, self.kitty or ()):
            for card in cards:
                unseen[card] -= 1
        if tally.sizes[self.seat] != len(view.hand) or any(n < 0 for n in unseen):
            raise ValueError(f"seat {self.seat}'s view does not add up: its events disagree")
        bounds: dict[tuple[Card, frozenset[int]], tuple[int, int]] = {}
        for fact in self.facts:
            known = fact.played
            if self.seat in fact.places:
                known += own[fact.card]
            if KITTY in fact.places and self.kitty is not None:
                known += kitty[fact.card]
            places = frozenset(fact.places & hidden)
            total = unseen[fact.card]
            low, high = (fact.count - known, total) if fact.at_least else (0, fact.count - known)
            if not places or (low <= 0 and high >= total):
                continue
            was_low, was_high = bounds.get((fact.card, places), (0, total))
            bounds[(fact.card, places)] = (max(low, was_low), min(high, was_high))
        return Knowledge(
            seat=self.seat,
            preset=view.preset,
            phase=view.phase,
            dealer=view.dealer,
            trump=view.trump,
            hand=view.hand,
            played=tuple(tuple(cards) for cards in tally.played),
            plays=tuple(tally.plays),
            sizes=tuple(tally.sizes),
            kitty=None if self.kitty is None else tuple(self.kitty),
            voids=tuple(
                frozenset(v) if s != self.seat else frozenset() for s, v in enumerate(tally.voids)
            ),
            bounds=tuple(
                Bound(card, places, max(0, low), high)
                for (card, places), (low, high) in sorted(
                    bounds.items(), key=lambda item: (item[0][0], sorted(item[0][1]))
                )
            ),
            table=view.trick,
            defenders_points=view.defenders_points,
            throw_penalties=view.throw_penalties,
            fry_penalty=self.fry_penalty,
        )


def infer(view: SeatView) -> Knowledge:
    """What ``view``'s seat knows of the cards it cannot see (see the module docs)."""
    reader = _Reader(view)
    for event in view.events:
        reader.see(event.payload)
    return reader.knowledge()


class Inference:
    """:func:`infer` for one seat's decisions in a game, the events already read kept: each
    view's new events are read on top of them (:meth:`knowledge` is ``infer(view)``, at a
    fraction of its cost late in a hand). A new hand, a redeal, bids revealed or a dealer fixed
    since (facts that change how earlier events read) read the hand's events again."""

    def __init__(self) -> None:
        self._reader: _Reader | None = None
        self._hand = -1
        self._read = 0

    def knowledge(self, view: SeatView) -> Knowledge:
        """What ``view``'s seat knows now: ``infer(view)``."""
        reader, events = self._reader, view.events
        if (
            reader is None
            or view.hand_number != self._hand
            or view.seat != reader.seat
            or view.dealer != reader.view.dealer
            or len(events) < self._read
            or any(isinstance(e.payload, BidsRevealed | Redealt) for e in events[self._read :])
        ):
            reader = self._reader = _Reader(view)
            self._hand, self._read = view.hand_number, 0
        reader.view = view
        for event in events[self._read :]:
            reader.see(event.payload)
        self._read = len(events)
        return reader.knowledge()
