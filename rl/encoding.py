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

from collections.abc import Iterable
from typing import Final, assert_never

import numpy as np
import numpy.typing as npt

from chaodipi.engine import (
    SEATS,
    BidKind,
    BidsRevealed,
    Buried,
    BuriedCards,
    CardRules,
    DealerFixed,
    Dealt,
    Declared,
    Fried,
    HandBegun,
    HandOver,
    KittyTaken,
    KittyTurned,
    Passed,
    Phase,
    Played,
    Redealt,
    SeatView,
    Tally,
    TookKitty,
    TrickWon,
    TrumpFixed,
    other_team,
    same_team,
    team_of,
)

__all__ = ["LAYOUT", "LIMIT", "OBSERVATION_SIZE", "Vector", "ViewEncoder", "layout_of", "split"]

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


def layout_of(segments: Iterable[tuple[str, int]]) -> dict[str, slice]:
    """Each named segment's slice of a vector made of ``segments`` in order."""
    layout: dict[str, slice] = {}
    start = 0
    for name, size in segments:
        layout[name] = slice(start, start + size)
        start += size
    return layout


LAYOUT: Final = layout_of(_SEGMENTS)
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

    What the events say of every seat's cards (how many each holds, its voids) is the engine's
    :class:`~chaodipi.engine.knowledge.Tally`, which :func:`chaodipi.engine.knowledge.infer`
    reads too; the encoder keeps one for the hand in play.
    """

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self._hand = -1
        self._read = 0
        self._tally: Tally | None = None
        """What the hand's events said so far (made afresh for each hand)."""

    def __reduce__(self) -> tuple[type[ViewEncoder], tuple[int]]:
        """An encoder pickles (and copies) as a fresh one for its seat: what it learnt it reads
        again from the next view's events (its segments are views into one array, which a
        pickle would part)."""
        return (ViewEncoder, (self.seat,))

    def _reset(self, rules: CardRules) -> Tally:
        # what the events of this hand taught, kept in place in a vector that each encoding
        # starts from: the played, kitty, voids and bids segments
        self._base = base = np.zeros(OBSERVATION_SIZE, np.float32)
        self._played = base[_PLAYED : _PLAYED + 216].reshape(4, 54)
        self._kitty = base[_KITTY : _KITTY + 54]
        self._voids = base[_VOIDS : _VOIDS + 20].reshape(4, 5)
        self._bids = base[_BIDS : _BIDS + 48].reshape(4, 12)
        self._pending: list[int] = []
        """Cells of the vector that cards played since the last encoding add one to."""
        self._tally = Tally(rules)
        return self._tally

    def _rel(self, seat: int) -> int:
        return (seat - self.seat) % 4

    def _learn(self, view: SeatView) -> Tally:
        events = view.events
        tally = self._tally
        if tally is None or view.hand_number != self._hand or len(events) < self._read:
            self._hand, self._read = view.hand_number, 0
            tally = self._reset(view.preset.card)
        for event in events[self._read :]:
            payload = event.payload
            tally.see(payload)
            match payload:
                case Played(seat=seat, cards=cards):
                    row = _PLAYED + 54 * self._rel(seat)
                    self._pending.extend(row + c for c in cards)  # counted in at encoding
                case Declared(seat=seat, bid=bid) | Fried(seat=seat, bid=bid):
                    row = self._bids[self._rel(seat)]
                    row[0] += 1
                    if bid is not None:
                        self._show_bid(row, bid.kind, bid.suit)
                case BidsRevealed(bids=bids):
                    self._bids[:, 1:] = 0
                    for record in bids:
                        self._show_bid(
                            self._bids[self._rel(record.seat)], record.bid.kind, record.bid.suit
                        )
                case BuriedCards(cards=cards) | KittyTurned(cards=cards):
                    self._kitty[:] = np.bincount(cards, minlength=54)
                case Buried() | KittyTaken() | TookKitty():
                    self._kitty[:] = 0
                case (
                    TrickWon()
                    | HandBegun()
                    | Dealt()
                    | Passed()
                    | DealerFixed()
                    | Redealt()
                    | TrumpFixed()
                    | HandOver()
                ):
                    pass
                case _:
                    assert_never(payload)
        self._read = len(events)
        if self._pending:
            base = self._base
            for cell in self._pending:
                base[cell] += 1
            self._pending = []
        for seat, suits in enumerate(tally.voids):
            for suit in suits:
                self._voids[self._rel(seat), suit] = 1
        return tally

    @staticmethod
    def _show_bid(row: Vector, kind: BidKind, suit: int | None) -> None:
        row[1:] = 0
        row[1 + kind] = 1
        row[1 + _BID_KINDS + (4 if suit is None else suit)] = 1

    def encode(self, view: SeatView, building: npt.NDArray[np.int8] | None = None) -> Vector:
        """The vector of ``view`` (this encoder's seat's), with ``building`` (counts per kind)
        as the play being built."""
        if view.seat != self.seat:
            raise ValueError(f"this encoder encodes seat {self.seat}'s views, not {view.seat}'s")
        tally = self._learn(view)
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
        sizes = tally.sizes  # by seat (0-3), then the kitty and the undealt cards
        out[_HELD : _HELD + 4] = [sizes[(self.seat + r) % 4] / 33 for r in SEATS]
        out[_UNSEEN : _UNSEEN + 54] = 2 - hand - self._played.sum(axis=0) - self._kitty
        out[_LEVEL + (13 if view.level is None else view.level)] = 1
        if view.trump is not None:
            out[_TRUMP + (4 if view.trump.suit is None else view.trump.suit)] = 1
            out[_TRUMP + 5] = 1
        out[_PHASE + _PHASE_INDEX[view.phase]] = 1
        out[_DEALER + (4 if view.dealer is None else rel(view.dealer))] = 1
        out[_TO_ACT + (4 if view.to_act is None else rel(view.to_act))] = 1
        team = team_of(view.seat)
        dealer_side = view.dealer is not None and same_team(view.seat, view.dealer)
        out[_SCALARS : _SCALARS + 8] = (
            view.progress[team] / 13,  # at most 40 / 13 (three circuits and the 扛旗 hand)
            view.progress[other_team(team)] / 13,
            min(view.defenders_points, 200) / 100,
            max(-LIMIT, min(LIMIT, view.throw_penalties / 100)),
            view.tricks_done / 25,
            1.0 if dealer_side else 0.0,
            min(view.hand_number / 10, LIMIT),
            1.0 if view.over else 0.0,
        )
        return out


LIMIT: Final = 10.0
"""Every entry lies in ``[-LIMIT, LIMIT]`` (the observation space's bounds; scalars are clipped)."""
