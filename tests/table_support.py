"""Driving a table without gRPC: connections that keep what they are sent, in trio, on a clock
the test controls (``trio.testing.MockClock``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import grpc
import trio

from arena.bridge import FloodGuard
from arena.table import FLOOD_BURST, FLOOD_REFILL_PER_S
from chaodipi.arena.v2 import arena_pb2 as pb


@dataclass(eq=False)
class ListConnection:
    """A seat's stream as the table sees it, keeping every message sent to it."""

    peer: str = "test"
    sent: list[Any] = field(default_factory=list)
    closed: tuple[grpc.StatusCode | None, str] | None = None
    flood: FloodGuard | None = field(
        default_factory=lambda: FloodGuard(FLOOD_BURST, FLOOD_REFILL_PER_S)
    )
    handled: int = 0
    _changed: trio.Event = field(default_factory=trio.Event)

    def send(self, message: Any) -> None:
        if self.closed is None:
            self.sent.append(message)
            self._changed.set()
            self._changed = trio.Event()

    def close(self, code: grpc.StatusCode | None = None, details: str = "") -> None:
        if self.closed is None:
            self.closed = (code, details)
            self._changed.set()

    def of(self, kind: str) -> list[Any]:
        """The PlayResponses of one kind (``"decision"``, ...), as that message."""
        return [
            getattr(m, kind)
            for m in self.sent
            if isinstance(m, pb.PlayResponse) and m.WhichOneof("response") == kind
        ]

    async def wait_for(self, kind: str, count: int = 1) -> Any:
        """Wait until ``count`` messages of ``kind`` have come; the last of them."""
        while len(self.of(kind)) < count:
            if self.closed is not None:
                raise AssertionError(f"closed {self.closed} before {count} {kind}")
            await self._changed.wait()
        return self.of(kind)[count - 1]
