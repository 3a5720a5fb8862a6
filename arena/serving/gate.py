"""What a stream's first message opens, whichever transport carries it: the Hello's seat, the
EnterRequest's door, or the refusal (a status code and its reason).

The gRPC servicer (:mod:`chaodipi.arena.serving.servicer`) and the local links
(:mod:`chaodipi.arena.serving.local`) both ask here, so a ticket or a token is judged one way:
the same codes, the same reasons, the same log fields (never a ticket or a token).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import grpc

from chaodipi.arena.serving.sessions import Door, token_digest
from chaodipi.arena.serving.spectators import released_message
from chaodipi.arena.serving.table import Table
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2.convert import unsupported_version

if TYPE_CHECKING:
    from chaodipi.arena.serving.server import ArenaServer

__all__ = [
    "Refusal",
    "Unparsable",
    "door_of",
    "hello_of",
    "over_message",
    "parser",
    "seat_of",
    "version_refusal",
]


@dataclass(frozen=True, slots=True)
class Unparsable:
    """What :func:`parser` gives for bytes that are not a message (so the handler, not the
    transport, decides the status: INVALID_ARGUMENT with the reason)."""

    error: str


@dataclass(frozen=True, slots=True)
class Refusal:
    """A stream refused: its status code, the reason told to the peer, and the table to name in
    the log (only one that exists: never what a bot made up)."""

    code: grpc.StatusCode
    reason: str
    table: str | None = None


def parser(message_class: Any) -> Any:
    """A function from bytes to a ``message_class`` message, or :class:`Unparsable`."""

    def parse(data: bytes) -> Any:
        try:
            return message_class.FromString(data)
        except Exception as err:  # DecodeError, or invalid UTF-8 in a string field
            return Unparsable(f"{type(err).__name__}: {err}"[:200])

    return parse


def over_message(table: str) -> str:
    """What a Play naming a table whose match is over is told (NOT_FOUND)."""
    return (
        f"table {table!r} is over: its match has ended (the MatchOver went out on the seat's "
        "stream open at the end), and nothing more is played there"
    )


def version_refusal(version: int) -> Refusal | None:
    """The refusal of a Hello or EnterRequest of a protocol version this server does not
    speak."""
    refusal = unsupported_version(version)
    return None if refusal is None else Refusal(grpc.StatusCode.FAILED_PRECONDITION, refusal)


def hello_of(first: Any) -> pb.Hello | Refusal:
    """A Play stream's first message (a ``PlayRequest``, :class:`Unparsable`, or anything else
    for a stream that ended) as its Hello, or the refusal."""
    if isinstance(first, Unparsable):
        return Refusal(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"the first message does not parse as a PlayRequest ({first.error})",
        )
    if not isinstance(first, pb.PlayRequest) or first.WhichOneof("request") != "hello":
        return Refusal(grpc.StatusCode.FAILED_PRECONDITION, "the first message must be a Hello")
    hello: pb.Hello = first.hello
    return version_refusal(hello.protocol_version) or hello


def seat_of(server: ArenaServer, ticket: str) -> tuple[Table, int] | Refusal:
    """The seat a ticket names, or the refusal. A table whose match is over gets NOT_FOUND
    whatever the rest of the ticket, held or released: its seats' MatchOver went out on the
    streams open at the end, and nothing more is played there."""
    name, _, rest = ticket.partition("/")
    table = server.tables.get(name)
    if table is not None and table.result is not None:
        return Refusal(grpc.StatusCode.NOT_FOUND, over_message(name), name)
    if name in server.released:
        return Refusal(grpc.StatusCode.NOT_FOUND, released_message(name), name)
    seat_text, _, secret = rest.partition("/")
    if table is not None and seat_text in ("0", "1", "2", "3"):
        seat = int(seat_text)
        if table.check_secret(seat, secret):
            return table, seat
    known = name if table is not None else None  # never log what a bot made up
    return Refusal(grpc.StatusCode.UNAUTHENTICATED, "unknown or wrong ticket", known)


def door_of(server: ArenaServer, token: str) -> Door | None:
    """The door whose token this is, if any: found by the token's digest (a lookup by a hash
    of the token tells nothing of the tokens the arena holds), then compared in constant
    time."""
    digest = token_digest(token)
    door = server.doors.get(digest)
    if door is None or not secrets.compare_digest(door.digest, digest):
        return None
    return door
