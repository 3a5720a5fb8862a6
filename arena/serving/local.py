"""The local transport's arena side: a bot process the arena started plays over a socket pair.

``arena run`` gives each command bot process one end of a Unix socket pair (inherited as a file
descriptor, named in ``$ARENA_LOCAL``: :mod:`chaodipi.arena.v2.frames`) and keeps the other as
a :class:`LocalLink`. Over it travel the same rpcs as over gRPC (``Enter``, ``Play``), many at
once, each message a frame: the same contract, judged by the same code. A stream opened here
is checked by :mod:`chaodipi.arena.serving.gate` (the servicer's checks: tickets, tokens,
versions, the same refusals and log lines), and is a :class:`LocalStream`, a
:class:`~chaodipi.arena.serving.port.Port` that tables and sessions use as they use a gRPC
stream: the deadlines, strikes, refusals, floods, sessions and seats are theirs, untouched.

What the link spares is the transport's work: a message a table sends is serialized and
written to the socket at once (no outbox, no writer task, no HTTP/2), and a bot's answer reaches
:meth:`~chaodipi.arena.serving.table.Table.receive` from the loop's read callback. The socket
pair is private to the process that inherited it: nobody else can open a stream on it, and no
credential crosses a command line. Spectators (``Watch``) stay on gRPC.

A link whose bytes are not frames is broken: every stream on it ends (``INVALID_ARGUMENT``), a
line is logged, and the link closes. So is a link that sends :data:`MAX_REFUSED_FRAMES` frames
refused for what they hold (a payload that does not parse, a first message that is not a Hello,
a wrong ticket or token, a stream id in use): its first are refused as over gRPC, each with its
line, and the last breaks the link with one ``link_broken`` line naming the bot and the last
reason, so a bot that writes such frames without reading makes a few lines, not a flood. A bot
that does not read what it is sent is cut off when :data:`MAX_BUFFERED` bytes wait unread
(``StreamEnd.NOT_READING``), as a full gRPC outbox is. When the process exits its end closes, and
every stream on the link ends with it.
"""

from __future__ import annotations

import asyncio
import socket
from typing import TYPE_CHECKING, Any, assert_never

import grpc

from chaodipi.arena.logs import get_logger
from chaodipi.arena.serving.gate import (
    Refusal,
    Unparsable,
    door_of,
    hello_of,
    parser,
    seat_of,
    version_refusal,
)
from chaodipi.arena.serving.port import StreamEnd
from chaodipi.arena.serving.servicer import ENTER, PLAY, STATUS_OF_END
from chaodipi.arena.serving.sessions import Door
from chaodipi.arena.serving.table import Table
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2.frames import FrameError, FrameReader, Kind, encode, encode_end

if TYPE_CHECKING:
    from chaodipi.arena.serving.server import ArenaServer

__all__ = ["MAX_BUFFERED", "MAX_REFUSED_FRAMES", "LocalLink", "LocalStream", "open_link"]

MAX_BUFFERED = 4 * 1024 * 1024
"""Bytes a link may hold unread by its bot before the stream sending more is cut off."""
MAX_REFUSED_FRAMES = 3
"""Frames refused for what they hold that break a link: the SDK sends none (a stale ticket's
NOT_FOUND is the arena's state, not the frame's, and is not counted)."""

_parse_play = parser(pb.PlayRequest)
_parse_enter = parser(pb.EnterRequest)


class LocalStream:
    """One rpc on a link, as the arena's tables and sessions see it (a port)."""

    __slots__ = ("closed", "door", "id", "link", "seat", "table")

    def __init__(
        self,
        link: LocalLink,
        id: int,
        *,
        table: Table | None = None,
        seat: int = 0,
        door: Door | None = None,
    ) -> None:
        self.link = link
        self.id = id
        self.table = table
        self.seat = seat
        self.door = door
        self.closed = False

    @property
    def peer(self) -> str:
        return self.link.peer

    def send(self, message: Any) -> None:
        if self.closed:
            return
        link = self.link
        link.write(encode(Kind.MESSAGE, self.id, message.SerializeToString()))
        if link.buffered() > MAX_BUFFERED:
            self.close(
                StreamEnd.NOT_READING,
                f"{MAX_BUFFERED} bytes waiting unread: the stream is cut off",
            )

    def close(self, end: StreamEnd = StreamEnd.DONE, details: str = "") -> None:
        if self.closed:
            return
        self.closed = True
        code: grpc.StatusCode = STATUS_OF_END[end]
        self.link.write(encode(Kind.END, self.id, encode_end(code.value[0], details)))
        self.link.ended(self)


class LocalLink(asyncio.BufferedProtocol):
    """The arena's end of one bot process's socket pair: its streams, by id. It reads into its
    frame reader's buffer (:attr:`FrameReader.chunk`)."""

    def __init__(self, server: ArenaServer, label: str) -> None:
        self.server = server
        self.label = label
        self.peer = f"local:{label}"
        self.streams: dict[int, LocalStream] = {}
        self.reader = FrameReader()
        self.transport: asyncio.Transport | None = None
        self.refused_frames = 0
        """Frames refused for what they hold (:data:`MAX_REFUSED_FRAMES` break the link)."""
        self.broken = False
        """The link is broken: what else it read is not looked at."""
        self._log = get_logger(session=label)

    # -- the socket -----------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.server.links.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.server.links.discard(self)
        self.transport = None
        for stream in list(self.streams.values()):
            stream.closed = True
            self._detach(stream)
        self.streams.clear()

    def write(self, data: bytes) -> None:
        if self.transport is not None:
            self.transport.write(data)

    def buffered(self) -> int:
        return 0 if self.transport is None else self.transport.get_write_buffer_size()

    def close(self) -> None:
        """End the link (what was written goes out first)."""
        if self.transport is not None:
            self.transport.close()

    def get_buffer(self, sizehint: int) -> memoryview:
        return self.reader.chunk

    def buffer_updated(self, nbytes: int) -> None:
        if self.broken:
            return
        try:
            frames = self.reader.feed_chunk(nbytes)
        except FrameError as err:
            self._break(str(err))
            return
        for kind, stream_id, payload in frames:
            self._frame(kind, stream_id, payload)
            if self.broken:
                return

    def _frame(self, kind: Kind, stream_id: int, payload: bytes) -> None:
        match kind:
            case Kind.MESSAGE:
                stream = self.streams.get(stream_id)
                if stream is not None and not stream.closed and stream.table is not None:
                    self._message(stream, stream.table, payload)
            case Kind.PLAY:
                if self._new(stream_id, PLAY):
                    self._play(stream_id, payload)
            case Kind.ENTER:
                if self._new(stream_id, ENTER):
                    self._enter(stream_id, payload)
            case Kind.HALF_CLOSE:
                pass  # the bot sends no more: what the arena sends still goes
            case Kind.CANCEL:
                stream = self.streams.pop(stream_id, None)
                if stream is not None and not stream.closed:
                    stream.closed = True
                    self._detach(stream)
            case Kind.END:
                self._break("a bot sent an END frame (only the arena ends streams)")
            case _:
                assert_never(kind)

    def _break(self, why: str) -> None:
        """Bytes that are not frames, or too many frames refused: every stream ends, the link
        closes."""
        self.broken = True
        self._log.warning("link_broken", peer=self.peer, error=why)
        for stream in list(self.streams.values()):
            stream.close(StreamEnd.UNPARSABLE, f"the local link broke ({why})")
        if self.transport is not None and self.buffered() > MAX_BUFFERED:
            self.transport.abort()  # its bot does not read: what waits would never go
        else:
            self.close()

    def _refused_frame(self, why: str) -> bool:
        """Count a frame refused for what it holds; True when it is the one that breaks the
        link (which is then broken, with ``why`` as the last reason)."""
        self.refused_frames += 1
        if self.refused_frames < MAX_REFUSED_FRAMES:
            return False
        self._break(f"{self.refused_frames} frames refused, the last: {why}")
        return True

    # -- streams --------------------------------------------------------------------------------

    def _new(self, stream_id: int, rpc: str) -> bool:
        """A stream may open with this id (else it is refused)."""
        if stream_id in self.streams:
            self._refuse(
                stream_id,
                Refusal(grpc.StatusCode.INVALID_ARGUMENT, f"stream {stream_id} is open already"),
                rpc,
            )
            return False
        most = self.server.options.limits.per_connection
        if len(self.streams) >= most:
            reason = f"this link has {most} streams open, the most one connection may hold"
            self._refuse(stream_id, Refusal(grpc.StatusCode.RESOURCE_EXHAUSTED, reason), rpc)
            return False
        return True

    def _refuse(self, stream_id: int, refusal: Refusal, rpc: str) -> None:
        """End a stream that is refused, and log it (never a ticket or a token); one refused
        for what its frame holds counts towards :data:`MAX_REFUSED_FRAMES`."""
        self.write(encode(Kind.END, stream_id, encode_end(refusal.code.value[0], refusal.reason)))
        if refusal.code is not grpc.StatusCode.NOT_FOUND and self._refused_frame(refusal.reason):
            return
        get_logger(rpc=rpc, table=refusal.table).warning(
            "refused", peer=self.peer, code=refusal.code.name, reason=refusal.reason
        )
        if self.buffered() > MAX_BUFFERED:
            self._break(f"{MAX_BUFFERED} bytes of refusals waiting unread")

    def _play(self, stream_id: int, payload: bytes) -> None:
        hello = hello_of(_parse_play(payload))
        if isinstance(hello, Refusal):
            self._refuse(stream_id, hello, PLAY)
            return
        found = seat_of(self.server, hello.ticket)
        if isinstance(found, Refusal):
            self._refuse(stream_id, found, PLAY)
            return
        table, seat = found
        stream = self.streams[stream_id] = LocalStream(self, stream_id, table=table, seat=seat)
        table.attach(seat, stream, hello.bot_name[:64])

    def _enter(self, stream_id: int, payload: bytes) -> None:
        request = _parse_enter(payload)
        if isinstance(request, Unparsable):
            reason = f"the request does not parse as an EnterRequest ({request.error})"
            self._refuse(stream_id, Refusal(grpc.StatusCode.INVALID_ARGUMENT, reason), ENTER)
            return
        refusal = version_refusal(request.protocol_version)
        door = door_of(self.server, request.token)
        if refusal is None and door is None:
            refusal = Refusal(grpc.StatusCode.UNAUTHENTICATED, "unknown session token")
        if refusal is not None or door is None:
            assert refusal is not None
            self._refuse(stream_id, refusal, ENTER)
            return
        stream = self.streams[stream_id] = LocalStream(self, stream_id, door=door)
        door.enter(stream, request)

    def _message(self, stream: LocalStream, table: Table, payload: bytes) -> None:
        message = _parse_play(payload)
        if isinstance(message, Unparsable):
            why = f"a message does not parse as a PlayRequest ({message.error})"
            if self._refused_frame(why):
                return
            get_logger(table=table.name, seat=stream.seat).warning(
                "unparsable_message", peer=self.peer, error=message.error
            )
            stream.close(
                StreamEnd.UNPARSABLE, f"{why}: this stream is ended; reconnect with your ticket"
            )
            return
        table.receive(stream.seat, stream, message)

    def ended(self, stream: LocalStream) -> None:
        """The arena ended ``stream``: the table or session lets go of it once the call that
        ended it is over (as a gRPC stream's handler does once its writer returns)."""
        if self.streams.get(stream.id) is stream:
            del self.streams[stream.id]
        asyncio.get_running_loop().call_soon(self._detach, stream)

    def _detach(self, stream: LocalStream) -> None:
        if stream.table is not None:
            stream.table.detach(stream.seat, stream)
        elif stream.door is not None:
            stream.door.leave(stream)


async def open_link(server: ArenaServer, label: str) -> socket.socket:
    """A new link of ``server``'s for a bot process to be started: the arena keeps one end
    (a :class:`LocalLink` on the running loop), and the other, returned, is the process's to
    inherit (close it here once the process has started)."""
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    loop = asyncio.get_running_loop()
    await loop.connect_accepted_socket(lambda: LocalLink(server, label), mine)
    return theirs
