"""The local transport's bot side: the SDK's streams over the link the arena gave this process.

``arena run`` starts a command bot with one end of a socket pair as an inherited file
descriptor, named in ``$ARENA_LOCAL`` (``fd:N``; :mod:`chaodipi.arena.v2.frames` says what
travels on it). :func:`local_channel` turns it into a :class:`LocalChannel`: the part of
``grpc.aio.Channel`` the generated stub uses (``unary_stream``, ``stream_stream``), whose calls
read, write, end and fail as grpc.aio's do (``grpc.aio.EOF`` at a stream's normal end, a
``grpc.RpcError`` with the arena's status code otherwise). So the SDK's seats and sessions, their
retries and their errors, play over it unchanged: :func:`chaodipi.bot.seat.open_aio_channel`
hands it out whenever the environment names a link (to the first event loop of the process
that asks: :func:`local_channel`). The link is the process's for its whole
life: every stream of the process shares it, and when the arena closes it every stream ends
with ``UNAVAILABLE``.

A stream's reader may take messages as they come (:attr:`LocalCall.handler`): a message that
arrives while the reader waits for one, with none queued before it, is parsed and handed to the
handler right in the link's read callback, and read() never sees it if the handler takes it.
A seat decides a Decision that way (:meth:`chaodipi.bot.seat.Seat.take`): no task wakes up for
it. What the handler raises, read() raises, as if it had come from the reader's own work.
"""

from __future__ import annotations

import asyncio
import collections
import os
import socket
import threading
from collections.abc import Callable
from typing import Any

import grpc
import grpc.aio

from chaodipi.arena.v2.frames import (
    ENVIRONMENT,
    MAX_ARENA_FRAME,
    FrameError,
    FrameReader,
    Kind,
    decode_end,
    encode,
)
from chaodipi.bot.errors import BotError

__all__ = ["LocalCall", "LocalChannel", "LocalRpcError", "local_channel"]

_CODES = {code.value[0]: code for code in grpc.StatusCode}


class LocalRpcError(grpc.RpcError):  # type: ignore[misc]
    """A stream's end that is not OK, as grpc.aio's ``AioRpcError`` says it."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(f"{code.name}: {details}")
        self._code = code
        self._details = details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details


class _Ready:
    """A message parsed already (offered to the handler, which left it to read())."""

    __slots__ = ("message",)

    def __init__(self, message: Any) -> None:
        self.message = message


class _Raised:
    """What the handler raised, for read() to raise."""

    __slots__ = ("error",)

    def __init__(self, error: Exception) -> None:
        self.error = error


class LocalCall:
    """One stream on the link: what grpc.aio's stream calls offer that the SDK uses, and
    :attr:`handler`."""

    __slots__ = (
        "_ended",
        "_inbox",
        "_link",
        "_opening",
        "_parse",
        "_serialize",
        "_waiter",
        "handler",
        "id",
    )

    def __init__(
        self,
        link: _Link,
        opening: Kind,
        serialize: Callable[[Any], bytes],
        parse: Callable[[bytes], Any],
    ) -> None:
        self._link = link
        self._opening: Kind | None = opening
        self._serialize = serialize
        self._parse = parse
        self._inbox: collections.deque[Any] = collections.deque()
        """Messages (bytes, or :class:`_Ready`), what the handler raised (:class:`_Raised`)
        and the end (a :class:`LocalRpcError`, or ``grpc.aio.EOF``) not read yet."""
        self._waiter: asyncio.Future[None] | None = None
        self._ended: Any = None
        self.handler: Callable[[Any], bool] | None = None
        """Offered each message that comes while read() waits with nothing queued, in the
        link's read callback: True if it took the message (read() never sees it)."""
        self.id = link.new_id()

    # -- from the link --------------------------------------------------------------------------

    def deliver(self, item: Any) -> None:
        waiter = self._waiter
        waiting = waiter is not None and not waiter.done()  # and nothing is queued
        if waiting and self.handler is not None and type(item) is bytes:
            # the reader waits for this very message: its handler may take it now
            try:
                message = self._parse(item)
                if self.handler(message):
                    return
                item = _Ready(message)
            except Exception as err:  # read() raises it, in the reader's task
                item = _Raised(err)
        self._inbox.append(item)
        if waiting:
            assert waiter is not None
            waiter.set_result(None)

    # -- grpc.aio's surface ---------------------------------------------------------------------

    async def read(self) -> Any:
        """The next message, ``grpc.aio.EOF`` at a normal end; raises the end's status."""
        if self._ended is not None and not self._inbox:
            return self._end(self._ended)
        while not self._inbox:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        item = self._inbox.popleft()
        if type(item) is bytes:
            return self._parse(item)
        if type(item) is _Ready:
            return item.message
        if type(item) is _Raised:
            raise item.error
        self._ended = item
        self._link.calls.pop(self.id, None)
        return self._end(item)

    @staticmethod
    def _end(item: Any) -> Any:
        if isinstance(item, LocalRpcError):
            raise item
        return grpc.aio.EOF

    async def write(self, message: Any) -> None:
        self.write_now(message)

    def write_now(self, message: Any) -> None:
        """:meth:`write`, at once (nothing to wait for: the link's socket buffers it)."""
        if self._ended is not None or self._ending_waits():
            raise asyncio.InvalidStateError("the stream is over")
        payload = self._serialize(message)
        if self._opening is not None:
            kind, self._opening = self._opening, None
            self._link.send(encode(kind, self.id, payload))
        else:
            self._link.send(encode(Kind.MESSAGE, self.id, payload))

    def _ending_waits(self) -> bool:
        """The stream's end came and waits behind messages not read yet."""
        return any(type(item) not in _NOT_ENDS for item in self._inbox)

    async def done_writing(self) -> None:
        if self._ended is None and self._opening is None:
            self._link.send(encode(Kind.HALF_CLOSE, self.id))

    def done(self) -> bool:
        return self._ended is not None

    def cancel(self) -> bool:
        if self._ended is not None:
            return False
        self._ended = LocalRpcError(grpc.StatusCode.CANCELLED, "cancelled by the bot")
        if self._opening is None:
            self._link.send(encode(Kind.CANCEL, self.id))
        self._link.calls.pop(self.id, None)
        return True


_NOT_ENDS = (bytes, _Ready, _Raised)


class _Link(asyncio.BufferedProtocol):
    """The bot's end of the socket pair: its calls, by stream id. It reads into its frame
    reader's buffer (:attr:`FrameReader.chunk`)."""

    def __init__(self) -> None:
        self.calls: dict[int, LocalCall] = {}
        self.reader = FrameReader(MAX_ARENA_FRAME)
        self.transport: asyncio.Transport | None = None
        self.lost: str | None = None
        self._ids = 1

    def get_buffer(self, sizehint: int) -> memoryview:
        return self.reader.chunk

    def new_id(self) -> int:
        stream_id, self._ids = self._ids, self._ids + 2
        return stream_id

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        for key in [key for key, link in _links.items() if link is self]:
            del _links[key]
        self.lost = f"the arena closed the local link ({exc or 'end of file'})"
        self._end_all()

    def _end_all(self) -> None:
        assert self.lost is not None
        for call in list(self.calls.values()):
            call.deliver(LocalRpcError(grpc.StatusCode.UNAVAILABLE, self.lost))
        self.calls.clear()

    def send(self, data: bytes) -> None:
        if self.transport is None:
            raise LocalRpcError(grpc.StatusCode.UNAVAILABLE, self.lost or "no local link")
        self.transport.write(data)

    def buffer_updated(self, nbytes: int) -> None:
        try:
            frames = self.reader.feed_chunk(nbytes)
        except FrameError as err:
            self.lost = f"the local link broke ({err})"
            self._end_all()
            if self.transport is not None:
                self.transport.close()
            return
        calls = self.calls
        for kind, stream_id, payload in frames:
            call = calls.get(stream_id)
            if call is None:
                continue  # a stream the bot let go of
            if kind is Kind.MESSAGE:
                call.deliver(payload)
            elif kind is Kind.END:
                code, details = decode_end(payload)
                status = _CODES.get(code, grpc.StatusCode.UNKNOWN)
                ok = status is grpc.StatusCode.OK
                call.deliver(grpc.aio.EOF if ok else LocalRpcError(status, details))
                del calls[stream_id]

    def open(self, kind: Kind, serialize: Callable[[Any], bytes], parse: Any) -> LocalCall:
        if self.transport is None:
            call = LocalCall(self, kind, serialize, parse)
            call.deliver(LocalRpcError(grpc.StatusCode.UNAVAILABLE, self.lost or "no local link"))
            return call
        call = LocalCall(self, kind, serialize, parse)
        self.calls[call.id] = call
        return call


class LocalChannel:
    """The SDK's channel over the link ``spec`` names (``$ARENA_LOCAL``: ``fd:N``):
    ``grpc.aio.Channel``'s part that the stub uses, in ``async with`` (which opens the link
    once per event loop; :class:`~chaodipi.bot.errors.BotError` when it names none)."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self._link: _Link | None = None

    @property
    def link(self) -> _Link:
        assert self._link is not None, "use the channel in `async with`"
        return self._link

    def unary_stream(
        self,
        method: str,
        request_serializer: Callable[[Any], bytes],
        response_deserializer: Callable[[bytes], Any],
        **_: Any,
    ) -> Callable[[Any], LocalCall]:
        opening = _opening(method)

        def call(request: Any) -> LocalCall:
            if opening is None:
                return _not_here(self.link, method, request_serializer, response_deserializer)
            opened = self.link.open(opening, request_serializer, response_deserializer)
            if self.link.transport is None:
                return opened  # the link is lost: the call holds UNAVAILABLE for its reader
            self.link.send(encode(opening, opened.id, request_serializer(request)))
            opened._opening = None
            return opened

        return call

    def stream_stream(
        self,
        method: str,
        request_serializer: Callable[[Any], bytes],
        response_deserializer: Callable[[bytes], Any],
        **_: Any,
    ) -> Callable[[], LocalCall]:
        opening = _opening(method)

        def call() -> LocalCall:
            if opening is None:
                return _not_here(self.link, method, request_serializer, response_deserializer)
            # the stream opens with its first message (a Play's Hello)
            return self.link.open(opening, request_serializer, response_deserializer)

        return call

    async def __aenter__(self) -> LocalChannel:
        self._link = await _open_link(self.spec)
        return self

    async def __aexit__(self, *_: object) -> None:
        """The link stays open: it is the process's, for all its streams."""


def _opening(method: str) -> Kind | None:
    """The frame that opens a call of ``method`` (None: not on the link: Watch)."""
    rpc = method.rsplit("/", 1)[-1]
    return {"Play": Kind.PLAY, "Enter": Kind.ENTER}.get(rpc)


def _not_here(link: _Link, method: str, serialize: Any, parse: Any) -> LocalCall:
    call = LocalCall(link, Kind.MESSAGE, serialize, parse)
    call.deliver(
        LocalRpcError(grpc.StatusCode.UNIMPLEMENTED, f"{method} is not served on the local link")
    )
    return call


_links: dict[tuple[asyncio.AbstractEventLoop, str], _Link] = {}
"""The links open, by event loop and ``$ARENA_LOCAL`` (one in a bot process)."""


async def _open_link(spec: str) -> _Link:
    """The link ``spec`` names, opened once per event loop."""
    loop = asyncio.get_running_loop()
    link = _links.get((loop, spec))
    if link is not None and link.transport is not None:
        return link
    try:
        fd = int(spec.removeprefix("fd:")) if spec.startswith("fd:") else -1
        if fd < 0:
            raise ValueError(f"{ENVIRONMENT}={spec!r} is not fd:N")
        sock = socket.socket(fileno=fd)
        os.set_inheritable(fd, False)  # the link is this process's, not its children's
        _, link = await loop.connect_accepted_socket(_Link, sock)
    except (OSError, ValueError) as err:
        raise BotError(
            f"cannot open the arena's local link (${ENVIRONMENT}={spec!r}): {err}; unset "
            f"{ENVIRONMENT} to play over gRPC at --address"
        ) from None
    _links[(loop, spec)] = link
    return link


_owners: dict[str, asyncio.AbstractEventLoop] = {}
"""The event loop each link belongs to: the first that asked for it."""
_owning = threading.Lock()


def local_channel() -> LocalChannel | None:
    """The channel over the link the environment names (``$ARENA_LOCAL``), if it names one and
    this event loop may have it. A link is one byte stream: it belongs to the first event loop
    of the process that asks (``run_bot``'s), and another loop (a bot that calls ``run_bot`` in
    several threads at once) gets None, so that its streams go over gRPC at the address."""
    spec = os.environ.get(ENVIRONMENT)
    if not spec:
        return None
    loop = asyncio.get_running_loop()
    with _owning:
        if _owners.setdefault(spec, loop) is not loop:
            return None
    return LocalChannel(spec)
