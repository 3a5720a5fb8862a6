"""A gRPC stream as the arena's tables see it: a port over a bounded outbox.

Tables, sessions and spectators run on the same event loop as grpc.aio (one thread,
docs/architecture.md "One event loop"), so a :class:`StreamPort` hands a message to its
stream's outbox directly; the servicer's writer (:mod:`chaodipi.arena.serving.servicer`) takes
it from there to ``context.write``. The outbox is bounded: a peer that stops reading is cut
off (:attr:`StreamEnd.NOT_READING`) instead of growing memory or slowing its table.

>>> import asyncio
>>> async def main() -> list[object]:
...     port = StreamPort(asyncio.Queue(2), peer="ipv4:127.0.0.1:5")
...     port.send("a")
...     port.send("b")
...     port.send("c")  # the third message finds the outbox full: the stream is cut off
...     # the closing takes the oldest message's place (the peer reads no further anyway)
...     return [port.outbox.get_nowait(), port.outbox.get_nowait().end.name, port.closed]
>>> asyncio.run(main())
['b', 'NOT_READING', True]
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from chaodipi.arena.serving.port import StreamEnd

__all__ = ["Batch", "Closing", "StreamPort"]

_ids = itertools.count(1)


@dataclass(frozen=True, slots=True)
class Closing:
    """Put into an outbox to end its stream: how (the servicer gives it its status code), and
    why, to the peer."""

    end: StreamEnd = StreamEnd.DONE
    details: str = ""


@dataclass(frozen=True, slots=True)
class Batch:
    """Messages put into an outbox as one item (:meth:`StreamPort.send_all`: a spectator's
    history); the writer writes each, in order."""

    messages: tuple[Any, ...]


@dataclass(eq=False, slots=True)
class StreamPort:
    """One gRPC stream to a bot or a spectator: a :class:`~chaodipi.arena.serving.port.Port`
    whose messages wait in ``outbox`` for the stream's writer. Neither call waits."""

    outbox: asyncio.Queue[Any]
    peer: str = ""
    id: int = field(default_factory=lambda: next(_ids))
    closed: bool = False

    def send(self, message: Any) -> None:
        if self.closed:
            return
        try:
            self.outbox.put_nowait(message)
        except asyncio.QueueFull:
            self.close(
                StreamEnd.NOT_READING,
                f"{self.outbox.maxsize} messages waiting unread: the stream is cut off",
            )

    def send_all(self, messages: Sequence[Any]) -> None:
        """Messages the arena holds anyway (a table's history for a spectator who joins), as
        one item of the outbox: a long history does not count as a peer that does not read."""
        if messages:
            self.send(Batch(tuple(messages)))

    def close(self, end: StreamEnd = StreamEnd.DONE, details: str = "") -> None:
        if self.closed:
            return
        self.closed = True
        # make room so the closing always gets through
        while self.outbox.full():
            self.outbox.get_nowait()
        self.outbox.put_nowait(Closing(end, details))
