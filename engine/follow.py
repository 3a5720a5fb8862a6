"""A seat's view carried forward by the events it is sent: ``follow(view, events, ...)``.

The protocol sends a seat its whole view once (a snapshot of :func:`chaodipi.engine.view.observe`)
and then each event it may see once, in order. :func:`follow` is how a bot gets its view back
from those: the earlier view plus the events since give the view now, as the engine's own
values (:class:`~chaodipi.engine.view.SeatView`). It reads nothing but the view and the events, so
it can learn nothing the seat may not see; ``tests/test_follow.py`` checks that at every decision
of random matches of every preset it equals ``observe(match, seat)`` exactly.

>>> import random
>>> from chaodipi.engine.match import Match
>>> from chaodipi.engine.presets import PRESETS
>>> from chaodipi.engine.view import observe
>>> match, rng = Match(PRESETS["classic"], seed=2), random.Random(2)
>>> first = [observe(match, seat) for seat in range(4)]   # the snapshots
>>> for _ in range(40):
...     match.apply(match.to_play, match.legal_actions().sample(rng))
>>> seat = match.to_play                                   # its decision now
>>> new = match.events_since(first[seat].cursor, seat)     # what it was sent since
>>> view = follow(first[seat], new, cursor=match.log.cursor, legal=match.legal_actions(seat))
>>> view == observe(match, seat)
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import assert_never

from chaodipi.engine.actions import LegalActions
from chaodipi.engine.cards import Card
from chaodipi.engine.events import (
    BidsRevealed,
    Buried,
    BuriedCards,
    DealerFixed,
    Dealt,
    Declared,
    Event,
    Fried,
    HandBegun,
    HandOver,
    KittyTaken,
    KittyTurned,
    Passed,
    Played,
    Redealt,
    TookKitty,
    TrickWon,
    TrumpFixed,
)
from chaodipi.engine.match import HandRecord, must_play_dealt
from chaodipi.engine.phase import Phase
from chaodipi.engine.seats import same_team, team_of
from chaodipi.engine.trump import Trump
from chaodipi.engine.view import SeatView, TableTrick

__all__ = ["follow"]


def _without(hand: list[Card], cards: Iterable[Card]) -> list[Card]:
    """``hand`` less one copy of each of ``cards`` (the order of the rest kept)."""
    left = list(hand)
    for card in cards:
        left.remove(card)
    return left


def follow(
    view: SeatView,
    events: Iterable[Event],
    *,
    cursor: int,
    legal: LegalActions | None = None,
) -> SeatView:
    """The view after ``events`` (the seat's events since ``view``, in order), taken when the
    match's log stood at ``cursor``; ``legal`` is what the seat may do now, when it is its
    turn (the seat to act is then the seat itself; otherwise nobody is known to act).

    Raises ``ValueError`` on an event the seat could not have been sent after ``view`` (a card
    it does not hold played from its hand, say): the events are not this seat's, or not in
    order."""
    seat, preset = view.seat, view.preset
    hand_number, phase, dealer = view.hand_number, view.phase, view.dealer
    progress, level = view.progress, view.level
    must = view.must_played  # frozensets, remade only when a hand ends
    hand, trump = list(view.hand), view.trump
    leader = None if view.trick is None else view.trick.leader
    plays = [] if view.trick is None else list(view.trick.plays)
    tricks_done, points, penalties = view.tricks_done, view.defenders_points, view.throw_penalties
    history = view.history
    # this hand's events: the view's (until a hand begins), then the new ones
    earlier = view.events
    hand_events: list[Event] = []
    for event in events:
        match event.payload:  # the play's events first: most of a hand's events are those
            case Played(seat=who, cards=cards, penalty=penalty):
                if who == seat:
                    hand = _without(hand, cards)
                plays.append((who, cards))
                penalties += penalty
            case TrickWon(seat=who, points=won):
                tricks_done += 1
                if dealer is not None and not same_team(who, dealer):
                    points += won
                leader, plays = who, []
            case HandBegun(level=begun_at, dealer=begun_by):
                level, dealer = begun_at, begun_by
                phase, hand, trump, leader, plays = Phase.DECLARE, [], None, None, []
                tricks_done = points = penalties = 0
                earlier, hand_events = (), []
            case Dealt(seat=who, cards=cards) if who == seat:
                hand = sorted(hand + list(cards))
            case Redealt():
                hand, phase = [], Phase.DECLARE
            case DealerFixed(seat=who):
                dealer = who
            case KittyTaken(seat=who, cards=cards):
                hand = sorted(hand + list(cards))
                dealer = who if dealer is None else dealer  # a turned kitty goes to the dealer
                phase = Phase.BURY
            case TookKitty(seat=who):
                dealer = who if dealer is None else dealer
                phase = Phase.BURY
            case BuriedCards(cards=cards):
                hand, phase = _without(hand, cards), Phase.FRY
            case Buried():
                phase = Phase.FRY
            case TrumpFixed(level=trump_level, suit=suit, dealer=who):
                trump = Trump(trump_level, suit, preset.card)
                dealer = leader = who
                hand, plays, phase = trump.sort(hand), [], Phase.PLAY
            case HandOver() as over:
                history = (*history, _record(hand_number, over, trump, progress))
                played = must_play_dealt(preset, progress, over.result.dealer, level is None)
                if played is not None:
                    team = team_of(over.result.dealer)
                    grown = must[team] | {played}
                    must = (grown, must[1]) if team == 0 else (must[0], grown)
                progress, phase = over.progress, Phase.OVER
                hand_number += 1  # the match counts the next hand in play from now
            case Declared() | Fried() | Passed() | KittyTurned() | BidsRevealed() | Dealt():
                pass
            case _:
                assert_never(event.payload)
        hand_events.append(event)
    # every field by name (not dataclasses.replace, which costs a quarter of this function)
    return SeatView(
        seat=seat,
        preset=preset,
        over=view.over,
        winner=view.winner,
        reward=view.reward,
        hand_number=hand_number,
        phase=phase if legal is None else legal.phase,
        to_act=None if legal is None else legal.seat,
        dealer=dealer,
        progress=progress,
        must_played=must,
        level=level,
        hand=tuple(hand),
        trump=trump,
        trick=None if leader is None else TableTrick(leader, tuple(plays)),
        tricks_done=tricks_done,
        defenders_points=points,
        throw_penalties=penalties,
        history=history,
        events=earlier + tuple(hand_events) if hand_events else earlier,
        cursor=cursor,
        legal=legal,
    )


def _record(
    number: int, over: HandOver, trump: Trump | None, before: tuple[int, int]
) -> HandRecord:
    """The finished hand as the match records it, from its HandOver."""
    return HandRecord(
        number=number,
        dealer=over.result.dealer,
        level=None if trump is None else trump.level,
        trump=None if trump is None else trump.suit,
        result=over.result,
        total=over.total,
        progress_before=before,
        progress_after=over.progress,
        next_dealer=over.next_dealer,
        note=over.note,
    )
