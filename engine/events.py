"""What happens in a match, as typed values, each with the seats that may see it.

An :class:`Event` is one entry of the match's log (:class:`EventLog`): a match-wide sequence
number (``seq``, from 1: the unit of a seat's cursor), the hand it belongs to, its ``audience``
(the seats that may see it, decided where it is made) and a typed ``payload``, one frozen class
per :class:`EventKind` holding cards, bids, seats and numbers, never text. Turning events into
wire messages is the protocol's business (``chaodipi.arena.v2.convert``), not the engine's; a seat's
view is carried forward by the events it sees with :func:`chaodipi.engine.follow.follow`.

Private facts come as pairs: the seat concerned gets the cards (``KITTY``, ``BURY``, its own
hidden bid), the others a payload without them (``TOOK_KITTY``, ``BURIED``, a bid of ``None``).

>>> from chaodipi.engine.cards import parse_cards
>>> log = EventLog()
>>> log.record(0, Dealt(2, tuple(parse_cards("♠3 BJ"))), only(2))
1
>>> log.record(0, Played(1, tuple(parse_cards("♥9"))))
2
>>> dealt, played = log.since(0, seat=2)
>>> dealt.seq, dealt.kind, played.kind.value, played.seat
(1, <EventKind.DEAL: 'deal'>, 'play', 1)
>>> [e.seq for e in log.since(0, seat=0)], [e.seq for e in log.since(1, seat=2)]
([2], [2])
>>> log.cursor
2
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import ClassVar

from chaodipi.engine.bidding import Bid, BidRecord
from chaodipi.engine.cards import Card, Rank, Suit
from chaodipi.engine.phase import Phase
from chaodipi.engine.scoring import HandResult

__all__ = [
    "EVERYONE",
    "BidsRevealed",
    "Buried",
    "BuriedCards",
    "DealerFixed",
    "Dealt",
    "Declared",
    "Event",
    "EventKind",
    "EventLog",
    "Fried",
    "HandBegun",
    "HandOver",
    "KittyTaken",
    "KittyTurned",
    "Passed",
    "Payload",
    "Played",
    "Redealt",
    "TookKitty",
    "TrickWon",
    "TrumpFixed",
    "all_but",
    "only",
]

EVERYONE: frozenset[int] = frozenset(range(4))
"""The audience of a public event."""


# One frozenset per audience, shared by every event that has it (not one per event).
_ONLY = tuple(frozenset((seat,)) for seat in range(4))
_ALL_BUT = tuple(EVERYONE - {seat} for seat in range(4))


def only(seat: int) -> frozenset[int]:
    """The audience of a private event: one seat."""
    return _ONLY[seat] if 0 <= seat < 4 else frozenset((seat,))


def all_but(seat: int) -> frozenset[int]:
    """Every seat but one (the public half of a private fact)."""
    return _ALL_BUT[seat] if 0 <= seat < 4 else EVERYONE - {seat}


class EventKind(Enum):
    """The kinds of event a match records (the values are the protocol's names)."""

    HAND_BEGUN = "hand_begun"
    DEAL = "deal"
    DECLARE = "declare"
    FRY = "fry"
    PASS = "pass"
    DEALER = "dealer"
    KITTY = "kitty"
    TOOK_KITTY = "took_kitty"
    BURY = "bury"
    BURIED = "buried"
    REDEAL = "redeal"
    KITTY_TURNED = "kitty_turned"
    REVEAL = "reveal"
    TRUMP = "trump"
    PLAY = "play"
    TRICK = "trick"
    HAND_OVER = "hand_over"


# -- payloads, one per kind; ``seat`` is who acted (None: the table) --------------------------


@dataclass(frozen=True, slots=True)
class HandBegun:
    """A hand begins (every hand's first event, before its first packet is dealt): it is
    played at ``level`` (``None``: the 扛旗 hand, which has none), dealt by ``dealer``
    (``None``: the first hand's dealer is decided by declaring), from the teams' ``progress``."""

    kind: ClassVar[EventKind] = EventKind.HAND_BEGUN
    seat: ClassVar[None] = None
    level: Rank | None
    dealer: int | None
    progress: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Dealt:
    """A packet of cards dealt to ``seat``, in the order dealt (seen by that seat only)."""

    kind: ClassVar[EventKind] = EventKind.DEAL
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Declared:
    """A declaration during the deal (亮主, 反主, 回头望). ``bid`` is ``None`` in the copy the
    other seats see while bids are hidden (暗炒)."""

    kind: ClassVar[EventKind] = EventKind.DECLARE
    seat: int
    bid: Bid | None


@dataclass(frozen=True, slots=True)
class Fried:
    """A fry (炒底): a bid, then ``seat`` takes the kitty. ``bid`` as in :class:`Declared`."""

    kind: ClassVar[EventKind] = EventKind.FRY
    seat: int
    bid: Bid | None


@dataclass(frozen=True, slots=True)
class Passed:
    """``seat`` passed in the declaring or the frying ``stage``."""

    kind: ClassVar[EventKind] = EventKind.PASS
    seat: int
    stage: Phase


@dataclass(frozen=True, slots=True)
class DealerFixed:
    """Declaring is over and ``seat`` deals this hand."""

    kind: ClassVar[EventKind] = EventKind.DEALER
    seat: int


@dataclass(frozen=True, slots=True)
class KittyTaken:
    """``seat`` picked up the kitty: these ``cards`` (seen by that seat only)."""

    kind: ClassVar[EventKind] = EventKind.KITTY
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class TookKitty:
    """``seat`` picked up the kitty (what the other seats see)."""

    kind: ClassVar[EventKind] = EventKind.TOOK_KITTY
    seat: int


@dataclass(frozen=True, slots=True)
class BuriedCards:
    """``seat`` buried these ``cards`` (seen by that seat only)."""

    kind: ClassVar[EventKind] = EventKind.BURY
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Buried:
    """``seat`` buried eight cards (what the other seats see)."""

    kind: ClassVar[EventKind] = EventKind.BURIED
    seat: int


@dataclass(frozen=True, slots=True)
class Redealt:
    """Nobody declared in the first hand: the cards are dealt again (``redeals`` so far)."""

    kind: ClassVar[EventKind] = EventKind.REDEAL
    seat: ClassVar[None] = None
    redeals: int


@dataclass(frozen=True, slots=True)
class KittyTurned:
    """Nobody declared: the kitty is shown and its third card names ``suit`` trump (``None``:
    no-trump)."""

    kind: ClassVar[EventKind] = EventKind.KITTY_TURNED
    seat: ClassVar[None] = None
    cards: tuple[Card, ...]
    suit: Suit | None


@dataclass(frozen=True, slots=True)
class BidsRevealed:
    """Frying is over in a hidden (暗炒) hand: every bid as made, and whether it stood."""

    kind: ClassVar[EventKind] = EventKind.REVEAL
    seat: ClassVar[None] = None
    bids: tuple[BidRecord, ...]


@dataclass(frozen=True, slots=True)
class TrumpFixed:
    """The card play begins: the trump (``level`` ``None`` in the 扛旗 hand, ``suit`` ``None``
    for no-trump) and the dealer, who leads."""

    kind: ClassVar[EventKind] = EventKind.TRUMP
    seat: ClassVar[None] = None
    level: Rank | None
    suit: Suit | None
    dealer: int


@dataclass(frozen=True, slots=True)
class Played:
    """``seat`` played ``cards``. After a failed throw (甩牌), ``attempted`` is the throw and
    ``penalty`` the signed change to the defenders' points."""

    kind: ClassVar[EventKind] = EventKind.PLAY
    seat: int
    cards: tuple[Card, ...]
    attempted: tuple[Card, ...] | None = None
    penalty: int = 0


@dataclass(frozen=True, slots=True)
class TrickWon:
    """A trick is complete: ``seat`` won it, with ``points`` in it."""

    kind: ClassVar[EventKind] = EventKind.TRICK
    seat: int
    points: int


@dataclass(frozen=True, slots=True)
class HandOver:
    """The hand is scored, and everything is shown: the defenders' ``total``, the ``kitty``,
    every seat's ``dealt`` cards, the teams' ``progress`` after it, who deals next, a
    ``note`` on what moved the levels, and the score in detail (``result``)."""

    kind: ClassVar[EventKind] = EventKind.HAND_OVER
    seat: ClassVar[None] = None
    total: int
    kitty: tuple[Card, ...]
    dealt: tuple[tuple[Card, ...], ...]
    progress: tuple[int, int]
    next_dealer: int
    note: str
    result: HandResult


Payload = (
    HandBegun
    | Dealt
    | Declared
    | Fried
    | Passed
    | DealerFixed
    | KittyTaken
    | TookKitty
    | BuriedCards
    | Buried
    | Redealt
    | KittyTurned
    | BidsRevealed
    | TrumpFixed
    | Played
    | TrickWon
    | HandOver
)
"""What an event says: one class per :class:`EventKind`, a closed union. A switch on it is a
``match`` whose last arm is ``case _: assert_never(payload)``, so that mypy fails wherever a
kind is not handled, and an object that is no payload raises rather than passes in silence."""


@dataclass(frozen=True, slots=True)
class Event:
    """One entry of a match's log: ``payload`` happened in hand ``hand``, for ``audience``."""

    seq: int
    """The match-wide sequence number, from 1 (a seat's cursor counts these)."""
    hand: int
    """The number of the hand it belongs to (0 for the first)."""
    audience: frozenset[int]
    """The seats that may see it."""
    payload: Payload

    @property
    def kind(self) -> EventKind:
        return self.payload.kind

    @property
    def seat(self) -> int | None:
        """Who acted (``None``: the table)."""
        return self.payload.seat

    @property
    def public(self) -> bool:
        """Every seat (and every spectator) may see it."""
        return self.audience == EVERYONE


class EventLog:
    """A match's events, append-only, numbered from 1 in the order they happened.

    Recording is cheap, for it happens at every action whether anyone reads or not: the log
    keeps what it is given (the hand, the audience, the payload) and makes an :class:`Event`
    when one is first read. The events of the latest hand are kept once made (every seat reads
    them); those of earlier hands are made again when read, which is rare, so a long match
    keeps one object per event (its payload) rather than two.
    """

    __slots__ = ("_audiences", "_hands", "_made", "_made_from", "_payloads")

    def __init__(self) -> None:
        self._hands: list[int] = []
        self._audiences: list[frozenset[int]] = []
        self._payloads: list[Payload] = []
        self._made: dict[int, Event] = {}
        """The events made so far from index ``_made_from`` (the latest hand's first) on."""
        self._made_from = 0

    def record(self, hand: int, payload: Payload, audience: frozenset[int] = EVERYONE) -> int:
        """Append what happened in hand ``hand`` for ``audience``; return its ``seq``."""
        hands = self._hands
        if hands and hands[-1] != hand:
            self._made = {}
            self._made_from = len(hands)
        hands.append(hand)
        self._audiences.append(audience)
        self._payloads.append(payload)
        return len(hands)

    def _event(self, index: int) -> Event:
        """The event at ``index`` (its ``seq`` less one)."""
        event = self._made.get(index) if index >= self._made_from else None
        if event is None:
            hand, audience = self._hands[index], self._audiences[index]
            event = Event(index + 1, hand, audience, self._payloads[index])
            if index >= self._made_from:
                self._made[index] = event
        return event

    @property
    def cursor(self) -> int:
        """The sequence number of the last event recorded (0 before any)."""
        return len(self._hands)

    def since(self, cursor: int, seat: int) -> list[Event]:
        """The events after ``cursor`` that ``seat`` may see, in order."""
        audiences = self._audiences
        return [
            self._event(i) for i in range(max(0, cursor), len(audiences)) if seat in audiences[i]
        ]

    def all_since(self, cursor: int) -> Sequence[Event]:
        """Every event after ``cursor``, whoever may see it (for the referee, not a seat)."""
        return [self._event(i) for i in range(max(0, cursor), len(self._hands))]

    def __len__(self) -> int:
        return len(self._hands)

    def __iter__(self) -> Iterator[Event]:
        return iter(self.all_since(0))
