"""Messages assembled from pre-serialized pieces (arena.wire) parse to exactly the messages the
plain protobuf way builds, at every decision of whole hands."""

from __future__ import annotations

import random

import pytest

from arena import wire
from arena.protocol import event_message, legal_message, observation_message
from arena.v1 import arena_pb2 as pb
from engine.match import Match
from engine.presets import PRESETS
from engine.view import observe


def test_a_long_length_is_encoded_as_a_varint() -> None:
    payload = b"x" * 300  # 300 = 0b10_0101100: two length bytes, 0xAC 0x02
    assert wire.length_delimited(2, payload)[:3] == bytes([0x12, 0xAC, 0x02])
    assert pb.ServerMessage.FromString(wire.length_delimited(7, b"")).HasField("snapshot")


def test_bytes_are_sent_as_they_are_and_messages_are_encoded() -> None:
    message = pb.ServerMessage(refused=pb.Refused(decision_id=4, reason="r", code="stale"))
    assert wire.serialize(message) == message.SerializeToString()
    assert wire.serialize(b"\x01\x02") == b"\x01\x02"


@pytest.mark.parametrize("preset", ["anchao", "hefei"])
def test_assembled_messages_equal_the_plain_ones_over_a_whole_hand(preset: str) -> None:
    rng = random.Random(7)
    match = Match(PRESETS[preset], seed=7, max_hands=1)
    checked = 0
    while not match.over:
        seat = match.to_play
        view = observe(match, seat)
        mine = [event_message(e) for e in view.events]
        mine_encoded = [wire.EncodedEvent.of(m) for m in mine]
        plain_observation = observation_message(view)
        fixed = observation_message(view, ())
        assembled = wire.observation_bytes(fixed, [e.in_observation for e in mine_encoded])
        assert pb.Observation.FromString(assembled) == plain_observation

        legal = match.legal_actions(seat)
        decision = pb.Decision(decision_id=checked + 1, legal=legal_message(legal), deadline_ms=9)
        plain = pb.ServerMessage(decision=pb.Decision(observation=plain_observation))
        plain.decision.MergeFrom(decision)
        assert pb.ServerMessage.FromString(wire.decision_bytes(decision, assembled)) == plain
        snapshot = pb.ServerMessage.FromString(wire.snapshot_bytes(assembled))
        assert snapshot == pb.ServerMessage(snapshot=plain_observation)

        batch = mine_encoded[-3:]
        if batch:
            sent = pb.ServerMessage.FromString(wire.event_batch_bytes(batch))
            if len(batch) == 1:
                assert sent == pb.ServerMessage(event=batch[0].message)
            else:
                expected = pb.EventBatch(events=[e.message for e in batch])
                assert sent == pb.ServerMessage(events=expected)
            assert pb.Event.FromString(batch[-1].raw) == batch[-1].message
        match.apply(seat, legal.sample(rng))
        checked += 1
    assert checked > 50
