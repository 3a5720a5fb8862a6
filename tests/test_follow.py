"""A seat's view rebuilt from one snapshot and the events it is sent (``chaodipi.engine.follow``) is
exactly ``observe(match, seat)`` at every one of its decisions and at the end, over random
matches of every preset, whether it started at the first deal or mid-match (a reconnect)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from chaodipi.engine.cards import Card
from chaodipi.engine.events import EVERYONE, Event, Played
from chaodipi.engine.follow import follow
from chaodipi.engine.match import Match
from chaodipi.engine.presets import PRESETS
from chaodipi.engine.view import SeatView, observe


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("seed", [1, 2])
def test_snapshot_plus_events_is_the_view_at_every_decision(preset: str, seed: int) -> None:
    rng = random.Random(seed)
    match = Match(PRESETS[preset], seed=seed, max_hands=3)
    views: list[SeatView] = [observe(match, seat) for seat in range(4)]
    late = rng.randrange(50, 400)  # seat 3 reconnects here: a snapshot mid-match
    steps = checked = 0
    while not match.over:
        seat = match.to_play
        legal = match.legal_actions(seat)
        new = match.events_since(views[seat].cursor, seat)
        views[seat] = follow(views[seat], new, cursor=match.log.cursor, legal=legal)
        assert views[seat] == observe(match, seat), (preset, seed, steps, seat)
        checked += 1
        match.apply(seat, legal.sample(rng))
        steps += 1
        if steps == late:
            views[3] = observe(match, 3)
    for seat in range(4):
        new = match.events_since(views[seat].cursor, seat)
        end = follow(views[seat], new, cursor=match.log.cursor)
        end = replace(end, over=True, winner=match.winner, reward=match.reward)
        assert end == observe(match, seat), (preset, seed, "end", seat)
    assert checked > 100


def test_a_play_of_a_card_the_seat_does_not_hold_is_refused() -> None:
    """Events that cannot follow the view (this seat playing a card it does not hold) raise."""
    match = Match(PRESETS["classic"], seed=4, max_hands=1)
    view = replace(observe(match, 0), hand=())
    played = Event(99, 0, EVERYONE, Played(0, (Card.parse("♠3"),)))
    with pytest.raises(ValueError):
        follow(view, [played], cursor=99)
