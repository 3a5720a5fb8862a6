"""What one seat may know: ``observe(match, seat)``, a frozen, typed :class:`SeatView`.

A view is built only from the seat's own cards, the events whose audience includes the seat
and facts every seat sees (levels, the dealer, the trump once it is fixed, the trick on the
table, the points taken, finished hands). Nothing else of the state is read, so another hand,
the kitty another seat buried or a hidden bid cannot leak (OpenSpiel's observer, shengji's
``for_player``). ``cursor`` is where the view stands in the match's event log: what is new for
the seat later is ``match.events_since(view.cursor, view.seat)``.

>>> from chaodipi.engine.match import Match
>>> from chaodipi.engine.presets import PRESETS
>>> match = Match(PRESETS["anchao"], seed=3)
>>> view = observe(match, 0)
>>> view.seat, view.partner, view.phase.value, len(view.hand), view.to_act
(0, 2, 'declare', 5, 0)
>>> [e.kind.value for e in view.events], view.cursor    # the hand began; its own packet
(['hand_begun', 'deal'], 5)
>>> from chaodipi.engine.actions import Pass
>>> view.legal is not None and Pass() in view.legal
True
"""

from __future__ import annotations

from dataclasses import dataclass

from chaodipi.engine.actions import LegalActions
from chaodipi.engine.cards import Card, Rank
from chaodipi.engine.events import Event
from chaodipi.engine.match import HandRecord, Match
from chaodipi.engine.phase import Phase
from chaodipi.engine.presets import Preset
from chaodipi.engine.seats import partner, team_of
from chaodipi.engine.trump import Trump

__all__ = ["SeatView", "TableTrick", "observe"]


@dataclass(frozen=True, slots=True)
class TableTrick:
    """The trick on the table: who led, and each seat's play so far in order."""

    leader: int
    plays: tuple[tuple[int, tuple[Card, ...]], ...]

    def cards_of(self, seat: int) -> tuple[Card, ...] | None:
        """What ``seat`` played to this trick (``None``: not yet)."""
        return next((cards for s, cards in self.plays if s == seat), None)


@dataclass(frozen=True, slots=True)
class SeatView:
    """Everything one seat may know at one moment, and nothing else (see the module docs)."""

    seat: int
    preset: Preset
    hand_number: int
    """The hand in play (0 for the first)."""
    phase: Phase
    to_act: int | None
    """The seat to act (``None`` when nobody is: the match is over)."""
    dealer: int | None
    """``None`` until known in the first hand."""
    progress: tuple[int, int]
    """Each team's place: ``circuit * 13 + level`` (:mod:`chaodipi.engine.levels`)."""
    must_played: tuple[frozenset[int], frozenset[int]]
    """Each team's must-play levels (as progress) played (:attr:`Match.must_played`)."""
    level: Rank | None
    """The hand's level (``None`` in the 扛旗 hand)."""
    hand: tuple[Card, ...]
    """This seat's cards (arranged by suit, trumps last, once trump is fixed)."""
    trump: Trump | None
    """Trump, once the card play has begun."""
    trick: TableTrick | None
    """The trick on the table, once the card play has begun."""
    tricks_done: int
    defenders_points: int
    """Points the defenders have taken in tricks this hand."""
    throw_penalties: int
    """Signed change to the defenders' points from failed throws this hand."""
    history: tuple[HandRecord, ...]
    """The hands finished so far (all public once a hand is over)."""
    events: tuple[Event, ...]
    """This hand's events this seat may see, in order."""
    cursor: int
    """The sequence number of the last event the match had recorded when the view was taken:
    every event up to it that this seat may see is in the view (this hand's in ``events``)."""
    legal: LegalActions | None
    """What this seat may do, when it is its turn (else ``None``)."""
    over: bool = False
    winner: int | None = None
    """The winning team (0 or 1) once the match is over; ``None``: a draw or not over."""
    reward: int = 0

    @property
    def partner(self) -> int:
        return partner(self.seat)

    @property
    def team(self) -> int:
        return team_of(self.seat)

    @property
    def my_turn(self) -> bool:
        return self.to_act == self.seat


def observe(match: Match, seat: int) -> SeatView:
    """What ``seat`` may know now, and nothing else (see the module docstring)."""
    if seat not in range(4):
        raise ValueError(f"seat {seat!r} is not a seat: seats are 0, 1, 2 and 3")
    hand = match.hand
    play = hand.play if hand.phase in (Phase.PLAY, Phase.OVER) else None
    to_act = None if match.over else match.to_play
    return SeatView(
        seat=seat,
        preset=match.preset,
        hand_number=match.number,
        phase=hand.phase,
        to_act=to_act,
        dealer=hand.dealer,
        progress=(match.progress[0], match.progress[1]),
        must_played=(frozenset(match.must_played[0]), frozenset(match.must_played[1])),
        level=hand.level,
        hand=tuple(hand.hand(seat)),
        trump=None if play is None else play.trump,
        trick=None
        if play is None
        else TableTrick(play.trick.leader, tuple((s, tuple(c)) for s, c in play.trick.plays)),
        tricks_done=0 if play is None else len(play.tricks),
        defenders_points=0 if play is None else play.defender_points,
        throw_penalties=0 if play is None else play.penalty_points,
        history=tuple(match.records),
        events=tuple(e for e in hand.events if seat in e.audience),
        cursor=match.log.cursor,
        legal=match.legal_actions(seat) if to_act == seat else None,
        over=match.over,
        winner=match.winner,
        reward=match.reward,
    )
