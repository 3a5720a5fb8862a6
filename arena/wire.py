"""Server messages as bytes, assembled from pieces serialized once.

A decision carries the seat's whole observation, and most of an observation is the hand's
events: copying ~100 ``Event`` messages into every Decision cost more than everything else the
table does per decision. Protobuf's wire format lets us avoid it: a message is the
concatenation of its encoded fields, and a length-delimited field is ``tag, length, bytes``. So
each event is serialized once when it happens (:class:`EncodedEvent`), and a seat's
Observation is its small fixed part followed by the stored encodings of the events it may
see. Parsing the result gives exactly the message the slow way would build
(``tests/test_wire.py`` checks it field for field).

The gRPC handlers send these bytes as they are (:func:`serialize` passes ``bytes`` through).

>>> event = pb.Event(sequence=3, kind="play", seat=1, cards=["♠10"])
>>> wrapped = length_delimited(2, event.SerializeToString())  # ServerMessage.event is field 2
>>> pb.ServerMessage.FromString(wrapped).event == event
True
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.v1 import arena_pb2 as pb

__all__ = [
    "EncodedEvent",
    "decision_bytes",
    "event_batch_bytes",
    "length_delimited",
    "observation_bytes",
    "serialize",
    "snapshot_bytes",
]

_WIRE_LENGTH_DELIMITED = 2

# Field numbers, read from the generated descriptors (so a renumbering could never go unseen).
_SERVER = pb.ServerMessage.DESCRIPTOR.fields_by_name
_EVENT_IN_SERVER = _SERVER["event"].number
_DECISION_IN_SERVER = _SERVER["decision"].number
_SNAPSHOT_IN_SERVER = _SERVER["snapshot"].number
_BATCH_IN_SERVER = _SERVER["events"].number
_EVENT_IN_BATCH = pb.EventBatch.DESCRIPTOR.fields_by_name["events"].number
_EVENT_IN_OBSERVATION = pb.Observation.DESCRIPTOR.fields_by_name["events"].number
_OBSERVATION_IN_DECISION = pb.Decision.DESCRIPTOR.fields_by_name["observation"].number


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_SHORT_LENGTHS = tuple(bytes([n]) for n in range(128))
_TAGS = {number: _varint(number << 3 | _WIRE_LENGTH_DELIMITED) for number in range(1, 64)}


def length_delimited(number: int, payload: bytes) -> bytes:
    """One length-delimited field (a sub-message) with its tag, as protobuf encodes it."""
    size = len(payload)
    length = _SHORT_LENGTHS[size] if size < 128 else _varint(size)
    tag = _TAGS.get(number) or _varint(number << 3 | _WIRE_LENGTH_DELIMITED)
    return tag + length + payload


@dataclass(frozen=True, slots=True)
class EncodedEvent:
    """An event and its encodings: alone, inside an EventBatch, inside an Observation."""

    message: pb.Event
    raw: bytes
    alone: bytes
    in_batch: bytes
    in_observation: bytes

    @classmethod
    def of(cls, message: pb.Event) -> EncodedEvent:
        raw = message.SerializeToString()
        return cls(
            message,
            raw,
            length_delimited(_EVENT_IN_SERVER, raw),
            length_delimited(_EVENT_IN_BATCH, raw),
            length_delimited(_EVENT_IN_OBSERVATION, raw),
        )


def event_batch_bytes(events: list[EncodedEvent]) -> bytes:
    """A ServerMessage with these events: a single ``event``, or an ``events`` batch."""
    if len(events) == 1:
        return events[0].alone
    return length_delimited(_BATCH_IN_SERVER, b"".join(e.in_batch for e in events))


def observation_bytes(fixed: pb.Observation, events: list[bytes]) -> bytes:
    """An Observation: ``fixed`` (without events) followed by encoded events
    (:attr:`EncodedEvent.in_observation`)."""
    return fixed.SerializeToString() + b"".join(events)


def snapshot_bytes(observation: bytes) -> bytes:
    """A ServerMessage whose ``snapshot`` is this encoded Observation."""
    return length_delimited(_SNAPSHOT_IN_SERVER, observation)


def decision_bytes(decision: pb.Decision, observation: bytes) -> bytes:
    """A ServerMessage whose ``decision`` is ``decision`` (without its observation) with this
    encoded Observation."""
    payload = decision.SerializeToString() + length_delimited(_OBSERVATION_IN_DECISION, observation)
    return length_delimited(_DECISION_IN_SERVER, payload)


def serialize(message: bytes | pb.ServerMessage | pb.Event) -> bytes:
    """The gRPC response serializer: bytes built here go out unchanged, messages are encoded."""
    if isinstance(message, bytes):
        return message
    return message.SerializeToString()
