"""A table's inbox: a small bounded queue that one task reads, for anyio code on either backend.

anyio's memory object stream would do, but its ``receive()`` always checkpoints
(``sleep(0)``) before it looks: one more turn of the event loop per message, which on
grpc.aio's loop cost 15–22 µs per decision in the measurements of docs/architecture.md ("One
event loop"). :class:`Mailbox` waits on an ``anyio.Event`` only when it is empty, and an
item already in the box is taken without waiting. So a message that arrives while its reader
is being cancelled (a deadline that meets an answer) stays in the box: nothing is lost, and
the reader's next look finds it.

>>> import anyio
>>> async def main() -> list[str]:
...     box: Mailbox[str] = Mailbox(2)
...     box.send_nowait("a")
...     box.send_nowait("b")
...     try:
...         box.send_nowait("c")
...     except anyio.WouldBlock:
...         pass  # full: the sender decides what to do (the table refuses the message)
...     return [await box.receive(), box.receive_nowait()]
>>> anyio.run(main)
['a', 'b']
"""

from __future__ import annotations

import collections
from typing import Generic, TypeVar

import anyio

__all__ = ["Mailbox"]

T = TypeVar("T")


class Mailbox(Generic[T]):
    """At most ``max_size`` items, in order, for one reader. ``send_nowait`` never waits:
    it raises ``anyio.WouldBlock`` when the box is full."""

    __slots__ = ("_event", "_items", "_waiter", "max_size")

    def __init__(self, max_size: int) -> None:
        self._items: collections.deque[T] = collections.deque()
        self._waiter: anyio.Event | None = None
        self._event: type[anyio.Event] | None = None
        """The running backend's Event class (``anyio.Event()`` looks it up on each call)."""
        self.max_size = max_size

    def __len__(self) -> int:
        return len(self._items)

    def send_nowait(self, item: T) -> None:
        if len(self._items) >= self.max_size:
            raise anyio.WouldBlock
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            waiter.set()

    def receive_nowait(self) -> T:
        """The first item; ``anyio.WouldBlock`` when there is none."""
        if not self._items:
            raise anyio.WouldBlock
        return self._items.popleft()

    async def receive(self) -> T:
        """The first item, waiting for one if the box is empty (cancellable while it waits;
        an item already here is returned without a checkpoint)."""
        while not self._items:
            kind = self._event
            if kind is None:  # the backend's Event class, found by anyio once
                waiter = anyio.Event()
                self._event = type(waiter)
            else:
                waiter = kind()
            self._waiter = waiter
            await waiter.wait()
        return self._items.popleft()
