"""What a match keeps in memory, and how: no reference cycles, and no more objects per action
than it needs (issue 22, the engine back to speed).

Everything a match keeps lives until the match ends: its actions and its event log. Python's
garbage collector walks every object that survives long enough, and a process holding much (a
server with many tables, a benchmark holding recorded positions, a bot's search tree) pays for
each walk in proportion to all it holds; so the engine keeps one object where it used to keep
two or three, and shares what is the same (a pass, an audience, the cards of a play)."""

from __future__ import annotations

import gc
import random
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from chaodipi.engine.actions import Pass, Play
from chaodipi.engine.events import EVERYONE, Played, all_but, only
from chaodipi.engine.match import Match
from chaodipi.engine.presets import PRESETS

KEPT_PER_ACTION = 5.5
"""The most objects the garbage collector tracks, per action, in a played-out match of three
hands: 8.7 on the commit before this bound (each action kept as a pair, each event as an event
and a payload, the cards of each play twice, a new frozenset per private event, a new ``Pass``
per pass), 5.8 before the typed log, about 4.8 now."""


def play_out(preset: str, seed: int, hands: int = 3) -> Match:
    """A match of random players, ``hands`` hands long."""
    rng = random.Random(seed)
    match = Match(PRESETS[preset], seed=seed, max_hands=hands)
    while not match.over:
        seat = match.to_play
        match.push(seat, match.legal_actions(seat).sample(rng))
    return match


@contextmanager
def collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_match_makes_no_reference_cycles(preset: str) -> None:
    """A finished hand (its tricks, its hands, its auction) is freed as soon as nothing refers
    to it, without waiting for the cycle collector: once a match is dropped, the collector
    finds nothing to free. (A hand that gave its auction a recorder bound to itself made one
    cycle per hand, which kept every hand of a match alive until a full collection.)"""
    play_out(preset, 0)  # anything made once per process (caches, first imports) is made now
    with collector_off():
        play_out(preset, 1)
        assert gc.collect() == 0


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_match_keeps_few_objects_per_action(preset: str) -> None:
    play_out(preset, 0)
    with collector_off():
        before = len(gc.get_objects())
        match = play_out(preset, 1)
        gc.collect()
        kept = len(gc.get_objects()) - before
    per_action = kept / len(match.actions)
    assert per_action <= KEPT_PER_ACTION, (
        f"{preset}: the match keeps {kept} objects for {len(match.actions)} actions "
        f"({per_action:.2f} each, at most {KEPT_PER_ACTION} expected)"
    )


def test_a_play_and_its_event_share_the_cards() -> None:
    """The cards of a play, as the action gave them, are the cards of its ``Played`` event
    (one tuple, not a copy per holder), unless a failed throw changed what was played."""
    match = play_out("classic", 2, hands=1)
    plays = iter(a for _, a in match.actions if isinstance(a, Play))
    shared = 0
    for event in match.log:
        if isinstance(event.payload, Played):
            action = next(plays)
            if event.payload.attempted is None:
                assert event.payload.cards == action.cards
                assert event.payload.cards is action.cards
                shared += 1
    assert shared > 0


def test_every_event_shares_one_of_nine_audiences() -> None:
    """Every event's audience is one of the nine there are (everyone, one seat, all but one
    seat), shared, not a new set per event."""
    match = play_out("anchao", 3, hands=2)
    audiences = {id(event.audience) for event in match.log}
    shared = {id(EVERYONE)} | {id(only(s)) for s in range(4)} | {id(all_but(s)) for s in range(4)}
    assert audiences <= shared
    assert only(2) == frozenset({2}) and all_but(2) == frozenset({0, 1, 3})


def test_every_pass_is_the_same_object() -> None:
    match = play_out("hefei", 4, hands=1)
    passes = {id(a) for _, a in match.actions if isinstance(a, Pass)}
    assert len(passes) == 1


def test_the_log_reads_the_same_events_later() -> None:
    """The log makes an event when it is read: what a seat read as it happened and what it
    reads again after the match (its earlier hands' events made anew) are equal, in order."""
    rng = random.Random(5)
    match = Match(PRESETS["anchao"], seed=5, max_hands=3)
    read: list[list[object]] = [[], [], [], []]
    cursors = [0, 0, 0, 0]
    while not match.over:
        seat = match.to_play
        match.push(seat, match.legal_actions(seat).sample(rng))
        for s in range(4):
            read[s].extend(match.events_since(cursors[s], s))
            cursors[s] = match.log.cursor
    assert len(match.records) == 3
    for s in range(4):
        again = match.events_since(0, s)
        assert again == read[s]
        assert [e.seq for e in again] == sorted({e.seq for e in again})
        assert all(s in e.audience for e in again)
    assert [e.seq for e in match.log] == list(range(1, len(match.log) + 1))
    assert list(match.log.all_since(0)) == list(match.log)
