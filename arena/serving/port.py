"""What a table, a session or a spectator gallery knows of a stream: a port.

A port is one open stream to a bot or a spectator, seen from the arena's side: messages go
out with :meth:`Port.send`, and the arena ends it with :meth:`Port.close`, saying how
(:class:`StreamEnd`). Nothing here knows of gRPC: the gRPC layer
(:mod:`chaodipi.arena.serving.servicer`) implements ports over its streams and gives each way of
ending its status code. Tests implement them over a list (``tests/table_support.py``), so that a
table plays without a network, under a clock the test controls.

>>> class Printed:
...     peer = "printed"
...     def send(self, message: object) -> None:
...         print("sent", message)
...     def close(self, end: StreamEnd = StreamEnd.DONE, details: str = "") -> None:
...         print("closed", end.name, details)
>>> port: Port = Printed()
>>> port.send("hello")
sent hello
>>> port.close(StreamEnd.TAKEN_OVER, "a newer connection took the seat")
closed TAKEN_OVER a newer connection took the seat
"""

from __future__ import annotations

import enum
from typing import Any, Protocol

__all__ = ["Port", "StreamEnd"]


class StreamEnd(enum.Enum):
    """How the arena ends a stream. Each has its status code on the wire
    (:data:`chaodipi.arena.serving.servicer.STATUS_OF_END`); the value says it in words."""

    DONE = "its match, session or watch is over"
    """Normally: what the stream was for is over (gRPC: OK)."""
    TAKEN_OVER = "a newer stream took its place"
    """A newer connection with the same ticket, or a newer Enter of the session (ABORTED)."""
    FLOODING = "its peer sent too much the arena did not ask for"
    """Cut off: past the seat's allowance of unasked messages (RESOURCE_EXHAUSTED)."""
    NOT_READING = "its peer did not read what it was sent"
    """Cut off: the stream's outbox is full (RESOURCE_EXHAUSTED)."""
    GONE = "what it names is over and released"
    """The table is over and released (NOT_FOUND)."""
    NO_MORE_GAMES = "the arena wants no more games with its token"
    """The session's door is closed (FAILED_PRECONDITION)."""
    UNPARSABLE = "its peer sent bytes that are not a message"
    """A message that does not parse (INVALID_ARGUMENT)."""
    BROKEN = "reading it failed"
    """The stream broke under the server (INTERNAL)."""


class Port(Protocol):
    """One open stream, as the arena sees it. Neither call ever waits or raises: a port
    that cannot deliver (its peer is gone, or does not read) ends itself, and what is sent
    after :meth:`close` is dropped."""

    @property
    def peer(self) -> str:
        """Who is at the other end (an address, for logs)."""
        ...

    def send(self, message: Any) -> None:
        """Send one message (a ``PlayResponse``, ``EnterResponse`` or ``WatchResponse``)."""
        ...

    def close(self, end: StreamEnd = StreamEnd.DONE, details: str = "") -> None:
        """End the stream after what was sent so far; ``details`` say why, to the peer."""
        ...
