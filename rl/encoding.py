"""The observation of one seat as a fixed-shape ``float32`` vector, built from its
:class:`~chaodipi.engine.view.SeatView` alone.

Nothing but the view is read (the view is what ``observe(match, seat)`` gives a seat, so nothing
hidden can reach the vector). Seats are *relative*: row 0 is the observing seat, 1 the next
seat (an opponent), 2 its partner, 3 the seat before it (the other opponent). Card kinds are
the engine's codes 0-53 (``suit * 13 + rank``, then the small and the big joker), so a row of
54 counts 0-2 per kind.

The layout, in order (:data:`LAYOUT` maps each name to its slice; :func:`split` cuts a vector
into named arrays; docs/rl-environment.md draws it):

=========== ====== ===========================================================================
name        size   what
=========== ====== ===========================================================================
hand        54     the seat's cards, counts per kind
building    54     the cards chosen so far of a play being built card by card
played      4×54   each seat's cards played this hand (relative seats)
trick       4×54   each seat's cards in the trick on the table
kitty       54     the kitty, while this seat knows it (it buried it last, or it was turned up)
unseen      54     copies of each kind this seat has not seen: 2 - hand - played - kitty
voids       4×5    each seat shown void in an effective suit (♠ ♥ ♣ ♦, trump)
bids        4×12   each seat's bids: how many made, then the last one shown: kind (6), suit
                   (♠ ♥ ♣ ♦ no-trump); zeros for a bid hidden from this seat (暗炒)
level       14     the hand's level, one-hot 2…A, or "none" (the 扛旗 hand)
trump       6      the trump suit ♠ ♥ ♣ ♦ no-trump, and "trump fixed" (the card play began)
phase       5      declare, bury, fry, play, over
dealer      5      the dealer (relative seat) or "not known yet"
to_act      5      the seat to act (relative) or "nobody" (the match is over)
leader      4      who led the trick on the table (relative; zeros outside the card play)
sizes       4      cards each seat holds, ÷ 33
scalars     8      own team's progress ÷ 13, the other's ÷ 13, defenders' points ÷ 100, throw
                   penalties ÷ 100, tricks done ÷ 25, on the dealer's side (0/1), hand number
                   ÷ 10, the match is over (0/1)
=========== ====== ===========================================================================

>>> from chaodipi.engine import Match, PRESETS, observe
>>> match = Match(PRESETS["classic"], seed=1)
>>> vector = ViewEncoder(0).encode(observe(match, 0))
>>> vector.shape, vector.dtype, OBSERVATION_SIZE
((767,), dtype('float32'), 767)
>>> parts = split(vector)
>>> int(parts["hand"].sum()), parts["phase"].tolist(), parts["to_act"].tolist()
(5, [1.0, 0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0, 0.0])
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from chaodipi.engine.bidding import BidKind
from chaodipi.engine.events import (
    BidsRevealed,
    Buried,
    BuriedCards,
    Declared,
    Fried,
    KittyTaken,
    KittyTurned,
    Played,
    TookKitty,
    TrickWon,
)
from chaodipi.engine.hand import KITTY_SIZE
from chaodipi.engine.phase import Phase
from chaodipi.engine.trump import TRUMP
from chaodipi.engine.view import SeatView

__all__ = ["LAYOUT", "LIMIT", "OBSERVATION_SIZE", "Vector", "ViewEncoder", "split"]

Vector = npt.NDArray[np.float32]


_SEGMENTS: Final = (
    ("hand", 54),
    ("building", 54),
    ("played", 4 * 54),
    ("trick", 4 * 54),
    ("kitty", 54),
    ("unseen", 54),
    ("voids", 4 * 5),
    ("bids", 4 * 12),
    ("level", 14),
    ("trump", 6),
    ("phase", 5),
    ("dealer", 5),
    ("to_act", 5),
    ("leader", 4),
    ("sizes", 4),
    ("scalars", 8),
)


def _layout() -> dict[str, slice]:
    layout: dict[str, slice] = {}
    start = 0
    for name, size in _SEGMENTS:
        layout[name] = slice(start, start + size)
        start += size
    return layout


LAYOUT: Final = _layout()
"""Each segment's slice of the vector."""
_HAND, _BUILDING, _PLAYED, _TRICK, _KITTY, _UNSEEN, _VOIDS, _BIDS = (
    LAYOUT[n].start for n in ("hand", "building", "played", "trick", "kitty", "unseen", "voids",
                              "bids")
)
_LEVEL, _TRUMP, _PHASE, _DEALER, _TO_ACT, _LEADER, _HELD, _SCALARS = (
    LAYOUT[n].start for n in ("level", "trump", "phase", "dealer", "to_act", "leader", "sizes",
                              "scalars")
)
_PHASE_INDEX: Final = {phase: i for i, phase in enumerate(Phase)}
OBSERVATION_SIZE: Final = sum(size for _, size in _SEGMENTS)
"""The vector's length."""
_SHAPES: Final = {"played": (4, 54), "trick": (4, 54), "voids": (4, 5), "bids": (4, 12)}
_BID_KINDS: Final = len(BidKind)


def split(vector: Vector) -> dict[str, Vector]:
    """The vector cut into its named segments (``played``, ``trick``, ``voids`` and ``bids``
    as one row per relative seat)."""
    return {
        name: vector[part].reshape(_SHAPES.get(name, (-1,))) for name, part in LAYOUT.items()
    }


class ViewEncoder:
    """Encodes one seat's views into the vector. It reads each hand's events once: an encoder
    remembers what it learnt from the events of the hand in play and reads only the new
    ones next time (a view of another hand, or an older one, starts it afresh). Use one per seat.
    """

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self._hand = -1
        self._read = 0
        self._reset()

    def _reset(self) -> None:
        # what the events of this hand taught, kept in place in a vector that each encoding
        # starts from: the played, kitty, voids and bids segments
        self._base = base = np.zeros(OBSERVATION_SIZE, np.float32)
        self._played = base[_PLAYED : _PLAYED + 216].reshape(4, 54)
        self._kitty = base[_KITTY : _KITTY + 54]
        self._voids = base[_VOIDS : _VOIDS + 20].reshape(4, 5)
        self._bids = base[_BIDS : _BIDS + 48].reshape(4, 12)
        self._pending: list[int] = []
        """Cells of the vector that cards played since the last encoding add one to."""
        self._count = [0, 0, 0, 0]
        """Cards each relative seat played this hand."""
        self._in_trick = 0
        self._lead_suit = -1
        self._lead_size = 0

    def _rel(self, seat: int) -> int:
        return (seat - self.seat) % 4

    def _learn(self, view: SeatView) -> None:
        events = view.events
        if view.hand_number != self._hand or len(events) < self._read:
            self._hand, self._read = view.hand_number, 0
            self._reset()
        for event in events[self._read :]:
            payload = event.payload
            if isinstance(payload, Played):
                self._see_play(view, payload)
            elif isinstance(payload, TrickWon):
                self._in_trick = 0
            elif isinstance(payload, Declared | Fried):
                row = self._bids[self._rel(payload.seat)]
                row[0] += 1
                if payload.bid is not None:
                    self._show_bid(row, payload.bid.kind, payload.bid.suit)
            elif isinstance(payload, BidsRevealed):
                self._bids[:, 1:] = 0
                for record in payload.bids:
                    self._show_bid(self._bids[self._rel(record.seat)], record.bid.kind,
                                   record.bid.suit)
            elif isinstance(payload, BuriedCards | KittyTurned):
                self._kitty[:] = np.bincount(payload.cards, minlength=54)
            elif isinstance(payload, Buried | KittyTaken | TookKitty):
                self._kitty[:] = 0
        self._read = len(events)
        if self._pending:
            base = self._base
            for cell in self._pending:
                base[cell] += 1
            self._pending = []

    @staticmethod
    def _show_bid(row: Vector, kind: BidKind, suit: int | None) -> None:
        row[1:] = 0
        row[1 + kind] = 1
        row[1 + _BID_KINDS + (4 if suit is None else suit)] = 1

    def _see_play(self, view: SeatView, payload: Played) -> None:
        trump = view.trump
        assert trump is not None, "cards are played only once trump is fixed"
        seat, cards = payload.seat, payload.cards
        r = (seat - self.seat) % 4
        row = _PLAYED + 54 * r
        self._pending.extend(row + c for c in cards)  # counted into the vector at encoding
        self._count[r] += len(cards)
        suit_of = trump.suit_of
        if self._in_trick == 0:
            # a lead is of one effective suit, but for the 5-10-K of hearts with the trump ♥5,
            # which leads hearts (chaodipi.engine.trick)
            suits = {suit_of[c] for c in cards}
            self._lead_suit = min(suits) if len(suits) == 1 else min(suits - {TRUMP})
            self._lead_size = len(cards)
        elif sum(1 for c in cards if suit_of[c] == self._lead_suit) < self._lead_size:
            self._voids[r, self._lead_suit] = 1
        self._in_trick = (self._in_trick + 1) % 4

    def encode(self, view: SeatView, building: npt.NDArray[np.int8] | None = None) -> Vector:
        """The vector of ``view`` (this encoder's seat's), with ``building`` (counts per kind)
        as the play being built."""
        if view.seat != self.seat:
            raise ValueError(f"this encoder encodes seat {self.seat}'s views, not {view.seat}'s")
        self._learn(view)
        out = self._base.copy()
        rel = self._rel
        hand = np.bincount(np.fromiter(view.hand, np.intp, len(view.hand)), minlength=54)
        out[_HAND : _HAND + 54] = hand
        if building is not None:
            out[_BUILDING : _BUILDING + 54] = building
        if view.trick is not None:
            out[_LEADER + rel(view.trick.leader)] = 1
            for seat, cards in view.trick.plays:
                row = _TRICK + 54 * rel(seat)
                for card in cards:
                    out[row + card] += 1
        self._sizes(view, out)
        out[_UNSEEN : _UNSEEN + 54] = 2 - hand - self._played.sum(axis=0) - self._kitty
        out[_LEVEL + (13 if view.level is None else view.level)] = 1
        if view.trump is not None:
            out[_TRUMP + (4 if view.trump.suit is None else view.trump.suit)] = 1
            out[_TRUMP + 5] = 1
        out[_PHASE + _PHASE_INDEX[view.phase]] = 1
        out[_DEALER + (4 if view.dealer is None else rel(view.dealer))] = 1
        out[_TO_ACT + (4 if view.to_act is None else rel(view.to_act))] = 1
        team = view.seat % 2
        dealer_side = view.dealer is not None and (view.seat - view.dealer) % 2 == 0
        out[_SCALARS : _SCALARS + 8] = (
            view.progress[team] / 13,  # at most 40 / 13 (three circuits and the 扛旗 hand)
            view.progress[1 - team] / 13,
            min(view.defenders_points, 200) / 100,
            max(-LIMIT, min(LIMIT, view.throw_penalties / 100)),
            view.tricks_done / 25,
            1.0 if dealer_side else 0.0,
            min(view.hand_number / 10, LIMIT),
            1.0 if view.over else 0.0,
        )
        return out

    def _sizes(self, view: SeatView, out: Vector) -> None:
        """Cards each seat holds: in the card play what every seat began it with (as many as
        this seat) less what it played; before, as many as this seat, but the seat burying
        holds the kitty's eight more."""
        held = len(view.hand)
        sizes = [held] * 4
        if view.phase is Phase.PLAY:
            start = held + self._count[0]
            sizes = [start - n for n in self._count]
        elif view.phase is Phase.BURY and view.to_act is not None:
            buryer = self._rel(view.to_act)
            if buryer == 0:
                sizes = [held] + [held - KITTY_SIZE] * 3
            else:
                sizes[buryer] = held + KITTY_SIZE
        out[_HELD : _HELD + 4] = [n / 33 for n in sizes]


LIMIT: Final = 10.0
"""Every entry lies in ``[-LIMIT, LIMIT]`` (the observation space's bounds; scalars are clipped)."""
