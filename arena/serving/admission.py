"""Who may hold a stream on the server: caps per connection and in all, and a deadline for
each rpc's first message.

Every rpc the server answers (the Arena service's, health checks, reflection) passes through
:class:`Admission`, a grpc.aio server interceptor:

* a stream that would pass ``per_connection`` streams open on its connection (told apart by
  ``context.peer()``, one per TCP connection) or ``total`` on the whole server is refused at
  once: RESOURCE_EXHAUSTED, with the reason;
* an rpc whose request is one message (``Enter``, ``Watch``, the health checks) must send it
  within ``first_message_s``, or it ends with FAILED_PRECONDITION. grpc would hold such a
  stream open for ever waiting for its request, so the handler is served as a stream-stream
  one (the same frames on the wire: the proto's rpc shapes are unchanged) that reads the
  request with a timeout, then calls the real handler with it;
* a streaming rpc gets its requests through a guard with the same deadline on the first one
  (``Play`` reads its Hello itself, with the same deadline: :mod:`chaodipi.arena.serving.servicer`).

Everything here runs on the server's one asyncio loop, so the counts need no lock.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, NoReturn

import grpc

from chaodipi.arena.logs import get_logger

__all__ = [
    "FIRST_MESSAGE_S",
    "MAX_STREAMS",
    "MAX_STREAMS_PER_CONNECTION",
    "Admission",
    "StreamLimits",
]

FIRST_MESSAGE_S = 10.0
"""Seconds from opening a stream to its first message (a Hello, an EnterRequest, ...)."""
MAX_STREAMS_PER_CONNECTION = 1000
"""Streams one connection may hold open at once (a session of the largest capacity holds 65;
a test or benchmark running many bots in one process shares one connection among them)."""
MAX_STREAMS = 10_000
"""Streams the server holds open at once (500 tables are 2,000 Play streams; a stream costs
about 22 KB)."""


@dataclass(frozen=True, slots=True)
class StreamLimits:
    """The caps and the first-message deadline (:mod:`chaodipi.arena.serving.admission`)."""

    first_message_s: float = FIRST_MESSAGE_S
    per_connection: int = MAX_STREAMS_PER_CONNECTION
    total: int = MAX_STREAMS

    def __post_init__(self) -> None:
        if not self.first_message_s > 0 or self.per_connection < 1 or self.total < 1:
            raise ValueError(f"stream limits must be positive: {self}")


Behaviour = Callable[..., Any]


class Admission(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """The interceptor: counts the streams open by connection, refuses past the caps, and
    puts the first-message deadline on every rpc."""

    def __init__(self, limits: StreamLimits) -> None:
        self.limits = limits
        self.open: collections.Counter[str] = collections.Counter()
        """Streams open now, by connection (the peer's address)."""
        self.total = 0
        self.refused = 0
        """Streams refused so far because the server held ``total`` (RESOURCE_EXHAUSTED, "try
        again later"): a bot that failed to take its seat meanwhile is not blamed for it."""

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        handler = await continuation(details)
        if handler is None:
            return None  # grpc answers UNIMPLEMENTED
        rpc = str(details.method).rsplit("/", 1)[-1]
        if handler.request_streaming:
            return self._streaming(handler, rpc)
        return self._single_request(handler, rpc)

    # -- the caps -------------------------------------------------------------------------------

    def _refusal(self, peer: str) -> str | None:
        """Why one more stream from ``peer`` is refused now (None: it is let in)."""
        if self.open[peer] >= self.limits.per_connection:
            return (
                f"this connection has {self.limits.per_connection} streams open, the most one "
                "connection may hold: end some first"
            )
        if self.total >= self.limits.total:
            return (
                f"the server has {self.limits.total} streams open, the most it holds: try "
                "again later"
            )
        return None

    @contextlib.asynccontextmanager
    async def _held(self, context: grpc.aio.ServicerContext, rpc: str) -> AsyncIterator[None]:
        """Count the stream while its handler runs, or refuse it (RESOURCE_EXHAUSTED)."""
        peer = context.peer()
        refusal = self._refusal(peer)
        if refusal is not None:
            if self.total >= self.limits.total:
                self.refused += 1  # the server is full: whoever asked is not to blame
            await _refuse(context, grpc.StatusCode.RESOURCE_EXHAUSTED, refusal, rpc)
        self.open[peer] += 1
        self.total += 1
        try:
            yield
        finally:
            self.total -= 1
            self.open[peer] -= 1
            if self.open[peer] <= 0:
                del self.open[peer]

    # -- the first message ----------------------------------------------------------------------

    async def _request(self, context: grpc.aio.ServicerContext, rpc: str) -> Any:
        """The one request of a single-request rpc, read within the deadline."""
        deadline = self.limits.first_message_s
        try:
            request = await asyncio.wait_for(context.read(), deadline)
        except TimeoutError:
            await _refuse(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"no request within {deadline:g} s of opening the stream",
                rpc,
            )
        if request is grpc.aio.EOF:
            # not logged: a peer that cancels its call is seen so too, before the cancel
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, "the stream ended before its request"
            )
        return request

    async def _first_within(
        self, requests: Any, context: grpc.aio.ServicerContext, rpc: str
    ) -> AsyncIterator[Any]:
        """A streaming rpc's requests, the first within the deadline."""
        iterator = aiter(requests)
        deadline = self.limits.first_message_s
        try:
            first = await asyncio.wait_for(anext(iterator), deadline)
        except StopAsyncIteration:
            return
        except TimeoutError:
            await _refuse(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"no message within {deadline:g} s of opening the stream",
                rpc,
            )
        yield first
        async for request in iterator:
            yield request

    # -- the handlers, wrapped ------------------------------------------------------------------

    def _single_request(self, handler: grpc.RpcMethodHandler, rpc: str) -> grpc.RpcMethodHandler:
        """A unary-unary or unary-stream handler, served as stream-stream: admitted, its
        request read within the deadline, then the handler called with it."""
        original: Behaviour = handler.unary_unary or handler.unary_stream
        replies_once = handler.unary_unary is not None
        serve: Behaviour
        if inspect.isasyncgenfunction(original):

            async def serve_generator(_: Any, context: grpc.aio.ServicerContext) -> Any:
                async with self._held(context, rpc):
                    request = await self._request(context, rpc)
                    async for response in original(request, context):
                        yield response

            serve = serve_generator
        else:

            async def serve_coroutine(_: Any, context: grpc.aio.ServicerContext) -> None:
                async with self._held(context, rpc):
                    request = await self._request(context, rpc)
                    response = await original(request, context)
                    if replies_once and response is not None:
                        await context.write(response)

            serve = serve_coroutine
        return grpc.stream_stream_rpc_method_handler(
            serve,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )

    def _streaming(self, handler: grpc.RpcMethodHandler, rpc: str) -> grpc.RpcMethodHandler:
        """A stream-unary or stream-stream handler: admitted, its requests guarded."""
        original: Behaviour = handler.stream_stream or handler.stream_unary
        serve: Behaviour
        if inspect.isasyncgenfunction(original):

            async def serve_generator(requests: Any, context: grpc.aio.ServicerContext) -> Any:
                async with self._held(context, rpc):
                    guarded = self._first_within(requests, context, rpc)
                    async for response in original(guarded, context):
                        yield response

            serve = serve_generator
        else:

            async def serve_coroutine(requests: Any, context: grpc.aio.ServicerContext) -> Any:
                async with self._held(context, rpc):
                    return await original(self._first_within(requests, context, rpc), context)

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
    context: grpc.aio.ServicerContext, code: grpc.StatusCode, reason: str, rpc: str
) -> NoReturn:
    """End the call with ``code`` and the reason, and log it with the peer."""
    get_logger().warning("refused", rpc=rpc, peer=context.peer(), code=code.name, reason=reason)
    await context.abort(code, reason)
    raise AssertionError("context.abort returns only by raising")
