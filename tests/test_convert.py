"""The contract's one conversion (chaodipi.arena.v2.convert), which the server and the SDK both
use: every event, view, legal set, action and Decision of whole matches of every preset comes
back from its message equal; every frame of every stream has its builder; bad messages say
why."""

from __future__ import annotations

import ast
import doctest
import random
from dataclasses import replace
from pathlib import Path

import pytest

from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import convert
from chaodipi.arena.v2.convert import (
    PROTOCOL_VERSION,
    OpenDecision,
    WireError,
    action_from_message,
    action_message,
    decision_from_message,
    event_from_message,
    event_message,
    legal_from_message,
    legal_message,
    outcome_from_message,
    snapshot_message,
    view_from_snapshot,
)
from chaodipi.engine.actions import Pass, Play
from chaodipi.engine.cards import parse_cards
from chaodipi.engine.match import Ending, Match, Outcome
from chaodipi.engine.presets import PRESETS
from chaodipi.engine.view import observe


def _again(message: pb.PlayResponse) -> pb.PlayResponse:
    """``message`` as the other side gets it: serialized and parsed."""
    return pb.PlayResponse.FromString(message.SerializeToString())


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_everything_of_whole_matches_round_trips(preset: str) -> None:
    rng = random.Random(preset)
    match = Match(PRESETS[preset], seed=3, max_hands=2)
    sent = [0, 0, 0, 0]
    kinds = set()
    decisions = 0
    while not match.over:
        seat = match.to_play
        legal = match.legal_actions(seat)
        assert legal_from_message(legal_message(legal)) == legal
        view = observe(match, seat)
        again = view_from_snapshot(_again(convert.snapshot(view)).snapshot)
        assert again == replace(view, legal=None)
        news = match.events_since(sent[seat], seat)
        sent[seat] = match.log.cursor
        decisions += 1
        frame = convert.decision(
            decisions,
            events=[event_message(e) for e in news],
            legal=legal_message(legal),
            deadline_s=0.9996,  # cut down to whole milliseconds, never rounded up
            bank_s=12.5,
            strikes=decisions % 3,
            cursor=match.log.cursor,
        )
        read = decision_from_message(_again(frame).decision)
        assert read == OpenDecision(
            decisions, tuple(news), legal, 0.999, 12.5, decisions % 3, match.log.cursor
        )
        action = legal.sample(rng)
        back = action_from_message(action_message(action))
        cards = getattr(action, "cards", None)  # the wire's cards come back sorted
        assert back == (action if cards is None else type(action)(tuple(sorted(cards))))
        struck = _again(convert.strike(decisions, action, 2, 3)).strike
        assert (struck.decision_id, struck.strikes, struck.max_strikes) == (decisions, 2, 3)
        assert action_from_message(struck.played) == back
        assert convert.answer(decisions, action).answer.action == action_message(action)
        match.apply(seat, action)
    for event in match.log:
        kinds.add(event.kind)
        assert event_from_message(event_message(event)) == event
    assert len(kinds) >= 12
    final = observe(match, 0)
    assert view_from_snapshot(snapshot_message(final)) == final


@pytest.mark.parametrize("ending", list(Ending))
@pytest.mark.parametrize(("winner", "forfeited_by"), [(None, None), (0, None), (1, 2)])
def test_a_match_over_reads_back_as_it_was_built(
    ending: Ending, winner: int | None, forfeited_by: int | None
) -> None:
    match = Match(PRESETS["classic"], seed=5, max_hands=1)
    rng = random.Random(5)
    while not match.over:
        match.apply(match.to_play, match.legal_actions().sample(rng))
    news = match.events_since(0, 3)
    outcome = Outcome(ending, "why it ended", winner, 1, (3, 0), forfeited_by, 2)
    frame = _again(convert.match_over(outcome, [event_message(e) for e in news]))
    assert outcome_from_message(frame.match_over) == (outcome, tuple(news))
    watched = convert.watched(convert.outcome_message(outcome))
    assert outcome_from_message(watched.match_over) == (outcome, ())


def test_an_ending_this_side_does_not_know_reads_as_stopped() -> None:
    outcome, events = outcome_from_message(pb.MatchOver(ending=99, reason="from the future"))
    assert (outcome.ending, outcome.reason, outcome.winner, events) == (
        Ending.STOPPED,
        "from the future",
        None,
        (),
    )


def test_the_stream_openings_carry_this_protocol_version() -> None:
    request = convert.enter_request("tok", bot_name="b", capacity=3, instance="i1")
    assert request == pb.EnterRequest(
        token="tok", protocol_version=PROTOCOL_VERSION, bot_name="b", capacity=3, instance="i1"
    )
    hello = pb.Hello(ticket="t/1/s", protocol_version=PROTOCOL_VERSION, bot_name="b")
    assert convert.hello("t/1/s", "b") == pb.PlayRequest(hello=hello)
    entered = pb.Entered(session="s/2", capacity=3, protocol_version=PROTOCOL_VERSION)
    assert convert.entered("s/2", 3) == pb.EnterResponse(entered=entered)
    offer = pb.SeatOffer(ticket="t/1/s", seat=1, preset="anchao")
    assert convert.seat_offer("t/1/s", 1, "anchao") == pb.EnterResponse(seat=offer)
    assert convert.unsupported_version(PROTOCOL_VERSION) is None
    assert convert.unsupported_version(7) == (
        f"protocol version 7 is not supported; this server speaks {PROTOCOL_VERSION}"
    )


@pytest.mark.parametrize(("seat", "partner"), [(0, 2), (1, 3), (2, 0), (3, 1)])
def test_a_welcome_names_the_partner_and_says_no_cap_as_zero(seat: int, partner: int) -> None:
    welcome = convert.welcome(
        seat,
        table="t",
        preset="classic",
        decision_ms=1000,
        bank_s=29.9996,
        max_strikes=3,
        max_hands=None,
        resumed=True,
    ).welcome
    assert (welcome.seat, welcome.partner, welcome.table, welcome.preset) == (
        seat,
        partner,
        "t",
        "classic",
    )
    assert (welcome.decision_ms, welcome.bank_ms, welcome.max_hands) == (1000, 29_999, 0)
    assert (welcome.protocol_version, welcome.max_strikes, welcome.resumed) == (2, 3, True)


def test_every_frame_of_every_stream_has_its_builder() -> None:
    """Each kind a stream's oneof can carry comes out of a builder here, so neither side needs
    to put one together field by field (a kind added to the .proto fails this until it has
    one)."""
    match = Match(PRESETS["classic"], seed=1, max_hands=1)
    view = observe(match, 0)
    outcome = Outcome(Ending.PLAYED_OUT, "played", 0, 1, (2, 0), None, 1)
    event = event_message(match.log.all_since(0)[0])
    legal = legal_message(match.legal_actions())
    built = {
        "PlayRequest": [convert.hello("t"), convert.answer(1, Pass())],
        "PlayResponse": [
            convert.welcome(
                0,
                table="t",
                preset="classic",
                decision_ms=1,
                bank_s=1,
                max_strikes=1,
                max_hands=1,
                resumed=False,
            ),
            convert.snapshot(view),
            convert.decision(
                1, events=[event], legal=legal, deadline_s=1, bank_s=1, strikes=0, cursor=1
            ),
            convert.refused(1, pb.REFUSAL_CODE_STALE, "late"),
            convert.strike(1, Play(tuple(parse_cards("♠3"))), 1, 3),
            convert.match_over(outcome, []),
        ],
        "EnterResponse": [convert.entered("s", 1), convert.seat_offer("t", 0, "classic")],
        "WatchResponse": [
            convert.watched(event),
            convert.watched(convert.outcome_message(outcome)),
            convert.attached(convert.Spectating(held_back=True, bots=("a", "b", "a", "b"))),
        ],
    }
    for name, frames in built.items():
        oneof = getattr(pb, name).DESCRIPTOR.oneofs[0]
        assert {frame.WhichOneof(oneof.name) for frame in frames} == {f.name for f in oneof.fields}, name
    refused = built["PlayResponse"][3].refused
    assert (refused.decision_id, refused.code, refused.reason) == (1, pb.REFUSAL_CODE_STALE, "late")


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


def test_a_decision_with_a_bad_legal_set_says_what_is_wrong() -> None:
    bad = pb.Decision(decision_id=4, legal=pb.LegalActions(phase=9))
    with pytest.raises(WireError, match="phase 9 is not a phase"):
        decision_from_message(bad)


def test_the_modules_examples_hold() -> None:
    """Its docstring's examples (the contract's package is outside pytest's doctest paths)."""
    failed, attempted = doctest.testmod(convert)
    assert (failed, attempted > 0) == (0, True)


def test_no_message_is_built_anywhere_else() -> None:
    """The server, the SDK, the sample bots and the benchmarks build no message of the
    generated code themselves (``pb.Decision(...)``, say): they call the builders here."""
    root = Path(__file__).resolve().parent.parent
    found = []
    for folder in ("arena", "chaodipi.bot", "sample_bots", "examples", "benchmarks"):
        for path in sorted((root / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                called = node.func if isinstance(node, ast.Call) else None
                if (
                    isinstance(called, ast.Attribute)
                    and isinstance(called.value, ast.Name)
                    and called.value.id == "pb"
                    and called.attr[0].isupper()
                ):
                    found.append(f"{path.relative_to(root)}:{node.lineno} pb.{called.attr}")
    assert found == []
