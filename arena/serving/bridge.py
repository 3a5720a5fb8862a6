"""Where trio and grpc.aio meet: two event loops in one process, and the streams between.

trio owns the main thread: tables, clocks and tournaments run there. grpc.aio runs in a thread
of its own with an asyncio loop. Only two non-blocking calls cross (docs/architecture.md):

* asyncio → trio: :meth:`Bridge.to_trio` (``TrioToken.run_sync_soon``), used to hand a bot's
  message to its table, or to attach and detach a stream's port;
* trio → asyncio: :meth:`Bridge.to_asyncio` (``loop.call_soon_threadsafe``), used to put a
  message into a stream's bounded outbox.

Neither side ever waits for the other. A callback that raises is logged and dropped, never
propagated: an exception inside ``run_sync_soon`` would end the whole trio run.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import trio

from chaodipi.arena.logs import get_logger
from chaodipi.arena.serving.port import StreamEnd

__all__ = ["Bridge", "Closing", "StreamPort"]

_ids = itertools.count(1)


@dataclass(slots=True)
class _Calls:
    """Calls waiting to run on one loop, and whether a drain of them is scheduled there."""

    queue: collections.deque[tuple[Callable[..., Any], tuple[Any, ...]]] = field(
        default_factory=collections.deque
    )
    scheduled: bool = False


@dataclass(slots=True)
class Bridge:
    """The two loops: trio's token and the gRPC thread's asyncio loop.

    Calls in each direction are batched: the first call of a batch schedules one drain on the
    other loop, later ones only join the queue. A wake-up costs a write to a socket, and a table
    sends many small messages at once.
    """

    trio_token: trio.lowlevel.TrioToken
    loop: asyncio.AbstractEventLoop | None = None
    _to_trio: _Calls = field(default_factory=lambda: _Calls())
    _to_asyncio: _Calls = field(default_factory=lambda: _Calls())
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def to_trio(self, fn: Callable[..., Any], *args: Any) -> None:
        """From the gRPC thread: run ``fn(*args)`` soon in trio (never raises into trio)."""
        if self._queue(self._to_trio, fn, args):
            with contextlib.suppress(trio.RunFinishedError):
                self.trio_token.run_sync_soon(self._drain, self._to_trio)

    def to_asyncio(self, fn: Callable[..., Any], *args: Any) -> None:
        """From trio: run ``fn(*args)`` soon on the gRPC thread's loop (dropped once it stops)."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        if self._queue(self._to_asyncio, fn, args):
            # RuntimeError: the loop closed in between, as the server stops
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._drain, self._to_asyncio)

    def _queue(self, calls: _Calls, fn: Callable[..., Any], args: tuple[Any, ...]) -> bool:
        """Queue a call; True when it starts a batch, whose drain the caller must schedule."""
        with self._lock:
            calls.queue.append((fn, args))
            if calls.scheduled:
                return False
            calls.scheduled = True
            return True

    def _drain(self, calls: _Calls) -> None:
        """On the loop the calls are for: run the batch queued so far."""
        with self._lock:
            batch = list(calls.queue)
            calls.queue.clear()
            calls.scheduled = False
        for fn, args in batch:
            _guarded(fn, args)


def _guarded(fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    try:
        fn(*args)
    except Exception:
        get_logger().exception("bridge_callback_failed", callback=getattr(fn, "__name__", fn))


@dataclass(frozen=True, slots=True)
class Closing:
    """Put into an outbox to end its stream: how (the servicer gives it its status code), and
    why, to the peer."""

    end: StreamEnd = StreamEnd.DONE
    details: str = ""


@dataclass(eq=False, slots=True)
class StreamPort:
    """One gRPC stream to a bot or a spectator, as the trio side sees it: a
    :class:`~chaodipi.arena.serving.port.Port` whose outbox lives on the asyncio side.

    :meth:`send` and :meth:`close` are called from trio; the outbox is bounded: a peer that
    stops reading is cut off (:attr:`StreamEnd.NOT_READING`) instead of growing memory or
    slowing its table.
    """

    bridge: Bridge
    outbox: asyncio.Queue[Any]
    peer: str = ""
    id: int = field(default_factory=lambda: next(_ids))
    closed: bool = False
    handed: int = 0
    """Messages the gRPC side has handed to trio (written on the gRPC thread only)."""
    handled: int = 0
    """Of those, how many trio has taken (written in trio only, by :meth:`deliver`): the
    difference is the backlog a bot built by sending faster than its table reads."""

    def send(self, message: Any) -> None:
        self.bridge.to_asyncio(self._offer, message)

    def close(self, end: StreamEnd = StreamEnd.DONE, details: str = "") -> None:
        self.bridge.to_asyncio(self._offer_close, Closing(end, details))

    def deliver(self, receive: Callable[..., Any], *args: Any) -> None:
        """In trio: a message this stream handed over has arrived; count it taken, and give
        it to ``receive(*args)`` (the table's)."""
        self.handled += 1
        receive(*args)

    # -- on the asyncio side ------------------------------------------------------------------

    def _offer(self, message: Any) -> None:
        if self.closed:
            return
        try:
            self.outbox.put_nowait(message)
        except asyncio.QueueFull:
            self._offer_close(
                Closing(
                    StreamEnd.NOT_READING,
                    f"{self.outbox.maxsize} messages waiting unread: the stream is cut off",
                )
            )

    def _offer_close(self, closing: Closing) -> None:
        if self.closed:
            return
        self.closed = True
        # make room so the closing always gets through
        while self.outbox.full():
            self.outbox.get_nowait()
        self.outbox.put_nowait(closing)
