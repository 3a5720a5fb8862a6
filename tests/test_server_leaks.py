"""Every message the server sends a seat, over whole matches, carries nothing that seat may not
see: not another seat's cards, not a kitty it did not take, not another seat's hidden bid."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from arena.v1 import arena_pb2 as pb

from .server_support import config, events_in, run_tables

PRIVATE_KINDS = ("deal", "kitty", "bury")


def observation_in(message: pb.ServerMessage) -> pb.Observation | None:
    kind = message.WhichOneof("message")
    if kind == "decision":
        return message.decision.observation
    if kind == "snapshot":
        return message.snapshot
    return None


def check_seat(seat: int, messages: list[pb.ServerMessage], hidden_bids: bool) -> Counter[str]:
    """Walk one seat's messages and fail on anything it may not see; count what was checked."""
    checked: Counter[str] = Counter()
    # the full deal of each hand, from the public hand_over event
    deals: dict[int, list[list[str]]] = {}
    for message in messages:
        for event in events_in(message):
            if event.kind == "hand_over":
                deals[event.hand] = json.loads(event.details_json)["dealt"]
    revealed: set[int] = set()
    taken: dict[int, Counter[str]] = {}
    for message in messages:
        for event in events_in(message):
            if event.kind == "reveal":
                revealed.add(event.hand)
            if event.kind in PRIVATE_KINDS:
                assert event.seat == seat, f"seat {seat} was sent seat {event.seat}'s {event.kind}"
                checked["private events"] += 1
                if event.kind == "kitty":
                    taken.setdefault(event.hand, Counter()).update(event.cards)
            others_bid = event.kind in ("declare", "fry") and event.seat != seat
            if others_bid and hidden_bids and event.hand not in revealed:
                assert event.hidden and not event.bid, f"seat {seat} saw a hidden bid"
                checked["hidden bids"] += 1
        seen = observation_in(message)
        if seen is not None and seen.hand_number in deals:
            allowed = Counter(deals[seen.hand_number][seat]) + taken.get(
                seen.hand_number, Counter()
            )
            held = Counter(seen.hand)
            assert not held - allowed, (
                f"seat {seat} was shown cards it never held: {held - allowed}"
            )
            checked["hands"] += 1
    return checked


@pytest.mark.parametrize("preset", ["anchao", "classic", "hefei"])
def test_no_message_carries_what_the_seat_may_not_see(preset: str) -> None:
    results, recordings = run_tables([config(preset, seed=5, max_hands=2)])
    assert results[0].reason == "played to the end"
    hidden = preset in ("anchao", "hefei")
    totals: Counter[str] = Counter()
    for seat in range(4):
        totals += check_seat(seat, recordings[0][seat].messages, hidden)
    assert totals["private events"] > 0 and totals["hands"] > 0
    if hidden:
        assert totals["hidden bids"] > 0  # the check met hidden bids, so it could have failed


def test_the_check_catches_a_leak() -> None:
    """The control: a deal event meant for another seat is caught."""
    leak = pb.ServerMessage(event=pb.Event(kind="deal", seat=2, cards=["♠3"], hand=0))
    with pytest.raises(AssertionError, match="seat 0 was sent seat 2's deal"):
        check_seat(0, [leak], hidden_bids=False)
