"""Who may hold a stream on the server: caps by kind of stream, per connection and in all, room
kept for the streams that carry a credential, and a deadline for each rpc's first message.

Every rpc the server answers (the Arena service's, health checks, reflection) passes through
:class:`Admission`, a grpc.aio server interceptor. Each stream is of one :class:`Kind`, and
each kind has its own budget, so no kind can take another's room:

* ``CREDENTIALED``, the Arena service (``Play``, ``Enter``, ``Watch``: a ticket, a session
  token, the spectator token): at most ``per_connection`` on one connection (told apart by
  ``context.peer()``, one per TCP connection) and ``total`` on the server;
* ``CHECK``, ``Health/Check`` (no credential, one answer), and ``HELD``, every other rpc that
  needs no credential and may stay open (``Health/Watch``, reflection): each at most
  ``anonymous_per_connection`` on one connection and ``anonymous`` on the server. A local
  client holding all it may of these leaves the Arena service's room untouched, and an
  operator's health checks keep their own.

A stream past its connection's cap is refused at once: RESOURCE_EXHAUSTED, with the reason.
The server's cap of a kind is kept by one rule for every kind: a stream is *pending* from its
opening until it has shown what it came for (:meth:`Admission.settled`): a credentialed stream
until its handler has checked its credential, or begins to refuse it; any other until its first
request has come. When a kind's room on the server is full and a stream of that kind comes, the
oldest pending stream of the kind gives up its place (RESOURCE_EXHAUSTED, :data:`EVICTED`):
streams that send nothing, over any number of connections, can never keep out a seat holding a
valid ticket or token, nor an operator's health check, which send their first message at once.
Only a server full of settled streams of the kind refuses a new one ("try again later"; the SDK
does, with backoff).

An rpc whose request is one message (``Enter``, ``Watch``, the health checks) must send it
within ``first_message_s``, or it ends with FAILED_PRECONDITION. grpc would hold such a stream
open for ever waiting for its request, so the handler is served as a stream-stream one (the
same frames on the wire: the proto's rpc shapes are unchanged) that reads the request with a
timeout, then calls the real handler with it. A streaming rpc gets its requests through a guard
with the same deadline on the first one (``Play`` reads its Hello itself, with the same
deadline: :mod:`chaodipi.arena.serving.servicer`).

Refusals are logged as ``refused`` with the rpc's full name (``grpc.health.v1.Health/Watch``)
and the peer. Everything here runs on the server's one asyncio loop, so the counts need no
lock.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import enum
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn, assert_never

import grpc

from chaodipi.arena.logs import get_logger
from chaodipi.arena.serving.servicer import SERVICE_NAME

__all__ = [
    "EVICTED",
    "EVICTIONS",
    "FIRST_MESSAGE_S",
    "MAX_ANONYMOUS_STREAMS",
    "MAX_ANONYMOUS_STREAMS_PER_CONNECTION",
    "MAX_STREAMS",
    "MAX_STREAMS_PER_CONNECTION",
    "Admission",
    "Kind",
    "StreamLimits",
    "kind_of",
]

FIRST_MESSAGE_S = 10.0
"""Seconds from opening a stream to its first message (a Hello, an EnterRequest, ...)."""
MAX_STREAMS_PER_CONNECTION = 1000
"""Arena-service streams one connection may hold open at once (a session of the largest
capacity holds 65; a test or benchmark running many bots in one process shares one connection
among them)."""
MAX_STREAMS = 10_000
"""Arena-service streams the server holds open at once (500 tables are 2,000 Play streams; a
stream costs about 22 KB)."""
MAX_ANONYMOUS_STREAMS_PER_CONNECTION = 4
"""Streams of one credential-less kind (health checks; health Watch and reflection) one
connection may hold open at once."""
MAX_ANONYMOUS_STREAMS = 32
"""Streams of one credential-less kind the server holds open at once."""

HEALTH_CHECK = "/grpc.health.v1.Health/Check"


class Kind(enum.Enum):
    """Which budget a stream counts against."""

    CREDENTIALED = "credentialed"
    """The Arena service's rpcs: each carries a ticket, a session token or the spectator
    token."""
    CHECK = "check"
    """A health check: no credential, one request and one answer."""
    HELD = "held"
    """Any other rpc needing no credential (health Watch, reflection): it may stay open."""


def kind_of(method: str) -> Kind:
    """The kind of the rpc named ``method`` (``/package.Service/Rpc``).

    >>> kind_of("/grpc.health.v1.Health/Watch").name, kind_of(HEALTH_CHECK).name
    ('HELD', 'CHECK')
    """
    if method.startswith(f"/{SERVICE_NAME}/"):
        return Kind.CREDENTIALED
    if method == HEALTH_CHECK:
        return Kind.CHECK
    return Kind.HELD


@dataclass(frozen=True, slots=True)
class StreamLimits:
    """The caps and the first-message deadline (:mod:`chaodipi.arena.serving.admission`)."""

    first_message_s: float = FIRST_MESSAGE_S
    per_connection: int = MAX_STREAMS_PER_CONNECTION
    total: int = MAX_STREAMS
    anonymous_per_connection: int = MAX_ANONYMOUS_STREAMS_PER_CONNECTION
    anonymous: int = MAX_ANONYMOUS_STREAMS

    def __post_init__(self) -> None:
        caps = (self.per_connection, self.total, self.anonymous_per_connection, self.anonymous)
        if not self.first_message_s > 0 or min(caps) < 1:
            raise ValueError(f"stream limits must be positive: {self}")

    def caps(self, kind: Kind) -> tuple[int, int]:
        """The streams of ``kind`` one connection, and the server, may hold."""
        match kind:
            case Kind.CREDENTIALED:
                return self.per_connection, self.total
            case Kind.CHECK | Kind.HELD:
                return self.anonymous_per_connection, self.anonymous
            case _:
                assert_never(kind)


_WHAT = {
    Kind.CREDENTIALED: "streams",
    Kind.CHECK: "health checks",
    Kind.HELD: "streams that need no credential (health Watch, reflection)",
}

EVICTED = (
    "the server is full, and this stream sent no ticket or token in time to keep its place: "
    "try again"
)
"""Why a pending credentialed stream gave up its place (:data:`EVICTIONS` by kind)."""
EVICTIONS = {
    Kind.CREDENTIALED: EVICTED,
    Kind.CHECK: "the server is full, and this stream sent no request in time to keep its place: "
    "try again",
    Kind.HELD: "the server is full, and this stream sent no request in time to keep its place: "
    "try again",
}
"""Why a pending stream of each kind gave up its place to a newcomer."""


Behaviour = Callable[..., Any]


@dataclass(eq=False, slots=True)
class _Slot:
    """One stream's place in the counts."""

    kind: Kind
    peer: str
    task: asyncio.Task[Any] | None
    evicted: bool = False
    released: bool = False


@dataclass(slots=True)
class _Counts:
    """The streams of one kind open now: by connection, and in all."""

    by_peer: collections.Counter[str] = field(default_factory=collections.Counter)
    total: int = 0


class Admission(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """The interceptor: counts the streams open by kind and connection, refuses past the caps,
    makes room for credentials, and puts the first-message deadline on every rpc."""

    def __init__(self, limits: StreamLimits) -> None:
        self.limits = limits
        self.counts = {kind: _Counts() for kind in Kind}
        """Streams open now, by kind."""
        self.pending: dict[Kind, dict[Any, _Slot]] = {kind: {} for kind in Kind}
        """By kind, the streams that have not shown what they came for yet (a credential
        checked, a first request), by their context, oldest first."""
        self.refused = 0
        """Arena-service streams refused so far because the server held ``total`` streams
        whose credentials were checked (RESOURCE_EXHAUSTED, "try again later"): a bot that
        failed to take its seat meanwhile is not blamed for it."""

    @property
    def total(self) -> int:
        """Streams open now, of every kind."""
        return sum(counts.total for counts in self.counts.values())

    def open(self, kind: Kind) -> int:
        """Streams of ``kind`` open now."""
        return self.counts[kind].total

    def settled(self, context: grpc.aio.ServicerContext) -> None:
        """The stream has shown what it came for: its credential is checked (good, and it
        keeps its place until it ends; or wanting, and the handler is ending the call), or its
        first request has come. Either way it is no longer pending (an eviction would cancel
        its handler in the middle of its work)."""
        for pending in self.pending.values():
            if pending.pop(context, None) is not None:
                return

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        handler = await continuation(details)
        if handler is None:
            return None  # grpc answers UNIMPLEMENTED
        method = str(details.method)
        if handler.request_streaming:
            return self._streaming(handler, method)
        return self._single_request(handler, method)

    # -- the caps -------------------------------------------------------------------------------

    def _refusal(self, kind: Kind, peer: str) -> str | None:
        """Why one more stream of ``kind`` from ``peer`` is refused now (None: it is let in,
        the kind's oldest pending stream evicted if it needs the room; a credentialed one
        counted in ``refused`` when the server is full of checked streams)."""
        per_connection, total = self.limits.caps(kind)
        counts = self.counts[kind]
        if counts.by_peer[peer] >= per_connection:
            return (
                f"this connection has {per_connection} {_WHAT[kind]} open, the most one "
                "connection may hold: end some first"
            )
        if counts.total < total:
            return None
        pending = self.pending[kind]
        if pending:
            self._evict(pending, next(iter(pending)))
            return None
        if kind is Kind.CREDENTIALED:
            self.refused += 1  # the server is full: whoever asked is not to blame
        return f"the server has {total} {_WHAT[kind]} open, the most it holds: try again later"

    def _evict(self, pending: dict[Any, _Slot], context: Any) -> None:
        """End a pending stream to make room: its place is free at once, its handler is
        cancelled and ends the stream (:meth:`_held`)."""
        slot = pending.pop(context)
        self._release(slot)
        slot.evicted = True
        if slot.task is not None:
            slot.task.cancel()

    def _release(self, slot: _Slot) -> None:
        if slot.released:
            return
        slot.released = True
        counts = self.counts[slot.kind]
        counts.total -= 1
        counts.by_peer[slot.peer] -= 1
        if counts.by_peer[slot.peer] <= 0:
            del counts.by_peer[slot.peer]

    @contextlib.asynccontextmanager
    async def _held(self, context: grpc.aio.ServicerContext, method: str) -> AsyncIterator[None]:
        """Count the stream while its handler runs, or refuse it (RESOURCE_EXHAUSTED)."""
        kind, peer = kind_of(method), context.peer()
        refusal = self._refusal(kind, peer)
        if refusal is not None:
            await _refuse(context, grpc.StatusCode.RESOURCE_EXHAUSTED, refusal, method)
        counts = self.counts[kind]
        counts.by_peer[peer] += 1
        counts.total += 1
        task = asyncio.current_task()
        slot = _Slot(kind, peer, task)
        pending = self.pending[kind]
        pending[context] = slot
        try:
            yield
        except asyncio.CancelledError:
            if not slot.evicted or task is None:
                raise
            task.uncancel()
            await _refuse(context, grpc.StatusCode.RESOURCE_EXHAUSTED, EVICTIONS[kind], method)
        finally:
            if pending.get(context) is slot:
                del pending[context]
            self._release(slot)

    # -- the first message ----------------------------------------------------------------------

    async def _request(self, context: grpc.aio.ServicerContext, method: str) -> Any:
        """The one request of a single-request rpc, read within the deadline."""
        deadline = self.limits.first_message_s
        try:
            request = await asyncio.wait_for(context.read(), deadline)
        except TimeoutError:
            self.settled(context)
            await _refuse(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"no request within {deadline:g} s of opening the stream",
                method,
            )
        if request is grpc.aio.EOF:
            # not logged: a peer that cancels its call is seen so too, before the cancel
            self.settled(context)
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, "the stream ended before its request"
            )
        if kind_of(method) is not Kind.CREDENTIALED:
            self.settled(context)  # (a credentialed one: once its handler checks it)
        return request

    async def _first_within(
        self, requests: Any, context: grpc.aio.ServicerContext, method: str
    ) -> AsyncIterator[Any]:
        """A streaming rpc's requests, the first within the deadline."""
        iterator = aiter(requests)
        deadline = self.limits.first_message_s
        try:
            first = await asyncio.wait_for(anext(iterator), deadline)
        except StopAsyncIteration:
            return
        except TimeoutError:
            self.settled(context)
            await _refuse(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"no message within {deadline:g} s of opening the stream",
                method,
            )
        if kind_of(method) is not Kind.CREDENTIALED:
            self.settled(context)  # (a credentialed one: once its handler checks it)
        yield first
        async for request in iterator:
            yield request

    # -- the handlers, wrapped ------------------------------------------------------------------

    def _single_request(self, handler: grpc.RpcMethodHandler, method: str) -> grpc.RpcMethodHandler:
        """A unary-unary or unary-stream handler, served as stream-stream: admitted, its
        request read within the deadline, then the handler called with it."""
        original: Behaviour = handler.unary_unary or handler.unary_stream
        replies_once = handler.unary_unary is not None
        serve: Behaviour
        if inspect.isasyncgenfunction(original):

            async def serve_generator(_: Any, context: grpc.aio.ServicerContext) -> Any:
                async with self._held(context, method):
                    request = await self._request(context, method)
                    async for response in original(request, context):
                        yield response

            serve = serve_generator
        else:

            async def serve_coroutine(_: Any, context: grpc.aio.ServicerContext) -> None:
                async with self._held(context, method):
                    request = await self._request(context, method)
                    response = await original(request, context)
                    if replies_once and response is not None:
                        await context.write(response)

            serve = serve_coroutine
        return grpc.stream_stream_rpc_method_handler(
            serve,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )

    def _streaming(self, handler: grpc.RpcMethodHandler, method: str) -> grpc.RpcMethodHandler:
        """A stream-unary or stream-stream handler: admitted, its requests guarded."""
        original: Behaviour = handler.stream_stream or handler.stream_unary
        serve: Behaviour
        if inspect.isasyncgenfunction(original):

            async def serve_generator(requests: Any, context: grpc.aio.ServicerContext) -> Any:
                async with self._held(context, method):
                    guarded = self._first_within(requests, context, method)
                    async for response in original(guarded, context):
                        yield response

            serve = serve_generator
        else:

            async def serve_coroutine(requests: Any, context: grpc.aio.ServicerContext) -> Any:
                async with self._held(context, method):
                    return await original(self._first_within(requests, context, method), context)

            serve = serve_coroutine
        make = (
            grpc.stream_stream_rpc_method_handler
            if handler.response_streaming
            else grpc.stream_unary_rpc_method_handler
        )
        return make(
            serve,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )


async def _refuse(
    context: grpc.aio.ServicerContext, code: grpc.StatusCode, reason: str, method: str
) -> NoReturn:
    """End the call with ``code`` and the reason, and log it with the peer."""
    rpc = method.removeprefix("/")
    get_logger().warning("refused", rpc=rpc, peer=context.peer(), code=code.name, reason=reason)
    await context.abort(code, reason)
    raise AssertionError("context.abort returns only by raising")
