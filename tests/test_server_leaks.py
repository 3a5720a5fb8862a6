"""Every message the server sends a seat, over whole matches, carries nothing that seat may not
see: not another seat's cards, not a kitty it did not take, not another seat's hidden bid, in
the first snapshot, in the snapshots of reconnects mid-hand, or in any Decision or MatchOver."""

from __future__ import annotations

import random
import time
from collections import Counter

import pytest

from chaodipi.arena.serving.record import table_record
from chaodipi.arena.serving.table import Table
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2.convert import answer, event_message, legal_from_message
from chaodipi.bot import MatchResult, run_bot
from chaodipi.engine.events import Event
from chaodipi.records import replay_record

from .server_support import (
    RawClient,
    Recording,
    config,
    random_decide,
    run_tables,
)
from .table_support import events_in

PRIVATE = ("dealt", "kitty_taken", "buried_cards")


def check_seat(
    seat: int, messages: list[pb.PlayResponse], hidden_bids: bool, log: dict[int, Event]
) -> Counter[str]:
    """Walk one seat's messages and fail on anything it may not see; count what was checked.
    ``log``: the match's true events by sequence number (from its replay)."""
    checked: Counter[str] = Counter()
    deals: dict[int, list[Counter[int]]] = {}  # each hand's full deal, from its HandOver
    for message in messages:
        for event in events_in(message):
            if event.WhichOneof("payload") == "hand_over":
                deals[event.hand] = [Counter(d.cards) for d in event.hand_over.dealt]
    revealed: set[int] = set()
    taken: dict[int, Counter[int]] = {}
    for message in messages:
        for event in events_in(message):
            kind = event.WhichOneof("payload")
            true = log.get(event.seq)
            assert true is not None and seat in true.audience, (
                f"seat {seat} was sent event {event.seq} ({kind}), which is not for it"
            )
            assert event == event_message(true), f"event {event.seq} is not what happened"
            checked["events"] += 1
            if kind == "bids_revealed":
                revealed.add(event.hand)
            if kind in PRIVATE:
                payload = getattr(event, kind)
                assert payload.seat == seat, f"seat {seat} was sent seat {payload.seat}'s {kind}"
                checked["private events"] += 1
                if kind == "kitty_taken":
                    taken.setdefault(event.hand, Counter()).update(payload.cards)
            if kind in ("declared", "fried"):
                bid = getattr(event, kind)
                if bid.seat != seat and hidden_bids and event.hand not in revealed:
                    assert not bid.HasField("bid"), f"seat {seat} saw a hidden bid"
                    checked["hidden bids"] += 1
        if message.WhichOneof("response") == "snapshot":
            snapshot = message.snapshot
            if snapshot.hand_number in deals:
                allowed = deals[snapshot.hand_number][seat] + taken.get(
                    snapshot.hand_number, Counter()
                )
                held = Counter(snapshot.hand)
                assert not held - allowed, f"seat {seat} was shown cards it never held"
                checked["snapshot hands"] += 1
    return checked


def reconnecting_bot(address: str, ticket: str, seat: int, recording: Recording) -> MatchResult:
    """Answers a few decisions, drops its stream mid-hand and comes back (a new snapshot)."""
    rng = random.Random(seat)
    client = RawClient(address)
    client.hello(ticket)
    answered = 0
    for message in client.responses:
        recording.messages.append(message)
        if message.WhichOneof("response") == "decision":
            legal = legal_from_message(message.decision.legal)
            client.send(answer(message.decision.decision_id, legal.sample(rng)))
            answered += 1
            if answered == 8 + 3 * seat:
                break
    client.close()
    time.sleep(0.05)
    return run_bot(
        random_decide(rng),
        address=address,
        ticket=ticket,
        name=f"back-{seat}",
        on_message=recording.messages.append,
    )


@pytest.mark.parametrize("preset", ["anchao", "classic", "hefei"])
def test_no_message_carries_what_the_seat_may_not_see(preset: str) -> None:
    cfg = config(preset, seed=5, max_hands=2, decision_ms=5000)
    tables: list[Table] = []
    results, recordings = run_tables(
        [cfg], [[reconnecting_bot] * 4], during=lambda server, started: tables.extend(started)
    )
    result = results[0]
    assert result.outcome.reason == "played to the end"
    assert all(s.connects == 2 for s in result.seats)
    match = replay_record(table_record(tables[0]))
    log = {e.seq: e for e in match.log}
    hidden = preset in ("anchao", "hefei")
    totals: Counter[str] = Counter()
    for seat in range(4):
        messages = recordings[0][seat].messages
        assert [m.WhichOneof("response") for m in messages].count("snapshot") == 2
        totals += check_seat(seat, messages, hidden, log)
    assert totals["private events"] > 0 and totals["snapshot hands"] >= 4
    if hidden:
        assert totals["hidden bids"] > 0  # the check met hidden bids, so it could have failed


def test_the_check_catches_a_leak() -> None:
    """The control: a deal event meant for another seat is caught."""
    from chaodipi.engine.cards import Card
    from chaodipi.engine.events import Dealt, only

    true = Event(1, 0, only(2), Dealt(2, (Card.parse("♠3"),)))
    leak = pb.PlayResponse(decision=pb.Decision(events=[event_message(true)]))
    with pytest.raises(AssertionError, match="not for it"):
        check_seat(0, [leak], hidden_bids=False, log={1: true})
