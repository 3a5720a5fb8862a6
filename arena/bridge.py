"""Where trio and grpc.aio meet: two event loops in one process, and the connections between.

trio owns the main thread: tables, clocks and tournaments run there. grpc.aio runs in a thread
of its own with an asyncio loop. Only two non-blocking calls cross (docs/architecture.md):

* asyncio → trio: :meth:`Bridge.to_trio` (``TrioToken.run_sync_soon``), used to hand a bot's
  message to its table, or to attach and detach a connection;
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

import grpc
import trio

from arena.logs import get_logger

__all__ = ["Bridge", "Closing", "Connection", "FloodGuard"]

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
    """Put into an outbox to end its stream: normally (``code`` None) or with a status."""

    code: grpc.StatusCode | None = None
    details: str = ""


@dataclass(slots=True)
class FloodGuard:
    """A token bucket for what a bot sends unasked (messages that get a Refused).

    Answers to open decisions cost nothing, so a bot answering at any speed is never cut off.
    Each unasked message takes a token; tokens come back at ``refill_per_s`` up to ``burst``.
    A bot that runs out has sent ``burst`` unasked messages faster than the refill: it floods.
    """

    burst: float
    refill_per_s: float
    tokens: float = -1.0
    last: float = 0.0
    tripped: bool = False
    """The bot ran out and was cut off: what it still sends is ignored."""

    def take(self, now: float) -> bool:
        """Spend one token at time ``now``; False once the bucket is empty (cut the bot off)."""
        if self.tokens < 0:
            self.tokens, self.last = self.burst, now
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.refill_per_s)
        self.last = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


@dataclass(eq=False, slots=True)
class Connection:
    """One stream to a bot or a spectator, as the trio side sees it.

    :meth:`send` and :meth:`close` may be called from trio; the outbox lives on the asyncio
    side and is bounded: a peer that stops reading is cut off instead of growing memory or
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
    """Of those, how many trio has looked at (written in trio only): the difference is the
    backlog a bot built by sending faster than its table reads."""
    flood: FloodGuard | None = None
    """The bot's allowance of unasked messages (trio side; None for spectators)."""

    def send(self, message: Any) -> None:
        self.bridge.to_asyncio(self._offer, message)

    def close(self, code: grpc.StatusCode | None = None, details: str = "") -> None:
        self.bridge.to_asyncio(self._offer_close, Closing(code, details))

    # -- on the asyncio side ------------------------------------------------------------------

    def _offer(self, message: Any) -> None:
        if self.closed:
            return
        try:
            self.outbox.put_nowait(message)
        except asyncio.QueueFull:
            self._offer_close(
                Closing(
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
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
