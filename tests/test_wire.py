"""The conversion both sides use (chaodipi_bot.wire): every event, view, legal set and action
of whole matches of every preset comes back from its message equal; bad messages say why."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi_bot.wire import (
    WireError,
    action_from_message,
    action_message,
    event_from_message,
    event_message,
    legal_from_message,
    legal_message,
    snapshot_message,
    view_from_snapshot,
)
from engine.match import Match
from engine.presets import PRESETS
from engine.view import observe


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_everything_of_whole_matches_round_trips(preset: str) -> None:
    rng = random.Random(preset)
    match = Match(PRESETS[preset], seed=3, max_hands=2)
    kinds = set()
    while not match.over:
        seat = match.to_play
        legal = match.legal_actions(seat)
        assert legal_from_message(legal_message(legal)) == legal
        view = observe(match, seat)
        again = view_from_snapshot(
            pb.Snapshot.FromString(snapshot_message(view).SerializeToString())
        )
        assert again == replace(view, legal=None)
        action = legal.sample(rng)
        back = action_from_message(action_message(action))
        cards = getattr(action, "cards", None)  # the wire's cards come back sorted
        assert back == (action if cards is None else type(action)(tuple(sorted(cards))))
        match.apply(seat, action)
    for event in match.log:
        kinds.add(event.kind)
        assert event_from_message(event_message(event)) == event
    assert len(kinds) >= 12
    final = observe(match, 0)
    assert view_from_snapshot(snapshot_message(final)) == final


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        (pb.Action(), "sets none of pass_turn, declare, fry, bury, play"),
        (pb.Action(play=pb.Cards(cards=[0])), "CARD_UNSPECIFIED|0 is not a card"),
        (pb.Action(play=pb.Cards(cards=[77])), "card 77 is not a card"),
        (pb.Action(declare=pb.Bid(cards=[1])), "bid kind 0 is not a kind of bid"),
        (pb.Action(fry=pb.Bid(kind=1, cards=[1], suit=9)), "suit 9 is not a suit"),
    ],
)
def test_malformed_actions_say_what_is_wrong(message: pb.Action, reason: str) -> None:
    with pytest.raises(WireError, match=reason):
        action_from_message(message)
