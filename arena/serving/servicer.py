"""The Arena service's handlers: tickets and tokens checked, messages handed to the tables and
sessions, which run on the same event loop (one thread: docs/architecture.md "One event loop").

The handlers see a call only once :class:`chaodipi.arena.serving.admission.Admission` has let it in
(the caps on streams) and, for ``Enter`` and ``Watch``, once their request has come within the
first-message deadline; ``Play`` waits for its Hello with the same deadline itself. Each
handler tells the admission once the call's credential is checked
(:meth:`~chaodipi.arena.serving.admission.Admission.settled`), or as it begins to refuse it: from
then on a stream with a good credential keeps its place, however full the server.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import TYPE_CHECKING, Any, NoReturn

import grpc

from chaodipi.arena.logs import get_logger
from chaodipi.arena.serving.gate import (
    Refusal,
    Unparsable,
    door_of,
    hello_of,
    over_message,
    parser,
    seat_of,
    version_refusal,
)
from chaodipi.arena.serving.port import StreamEnd
from chaodipi.arena.serving.streams import Batch, Closing, StreamPort
from chaodipi.arena.serving.table import Table
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import arena_pb2_grpc

if TYPE_CHECKING:
    from chaodipi.arena.serving.server import ArenaServer

__all__ = ["SERVICE_NAME", "STATUS_OF_END", "Unparsable", "add_servicer", "over_message"]

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["ArenaService"].full_name
PLAY, ENTER, WATCH = (f"{SERVICE_NAME}/{rpc}" for rpc in ("Play", "Enter", "Watch"))
"""The rpcs' full names, as the log's ``rpc`` gives them."""
OUTBOX_SIZE = 256
SPECTATOR_OUTBOX_SIZE = 1024
STATUS_OF_END: dict[StreamEnd, grpc.StatusCode] = {
    StreamEnd.DONE: grpc.StatusCode.OK,
    StreamEnd.TAKEN_OVER: grpc.StatusCode.ABORTED,
    StreamEnd.FLOODING: grpc.StatusCode.RESOURCE_EXHAUSTED,
    StreamEnd.NOT_READING: grpc.StatusCode.RESOURCE_EXHAUSTED,
    StreamEnd.GONE: grpc.StatusCode.NOT_FOUND,
    StreamEnd.NO_MORE_GAMES: grpc.StatusCode.FAILED_PRECONDITION,
    StreamEnd.UNPARSABLE: grpc.StatusCode.INVALID_ARGUMENT,
    StreamEnd.BROKEN: grpc.StatusCode.INTERNAL,
}
"""The status a stream ends with, by how the arena ended it."""


class _Servicer(arena_pb2_grpc.ArenaServiceServicer):  # type: ignore[misc]
    """The gRPC side: checks tickets and hands messages to the tables and sessions."""

    def __init__(self, server: ArenaServer) -> None:
        self.server = server

    async def _refuse(
        self,
        context: grpc.aio.ServicerContext,
        code: grpc.StatusCode,
        reason: str,
        **bound: Any,
    ) -> NoReturn:
        """End a call that is refused, and log it (the peer and the reason: never a ticket
        or a token)."""
        self.server.admission.settled(context)
        get_logger(**bound).warning("refused", peer=context.peer(), code=code.name, reason=reason)
        await context.abort(code, reason)
        raise AssertionError("context.abort returns only by raising")

    async def _hello(self, context: grpc.aio.ServicerContext) -> pb.Hello:
        """The first message, which must be a Hello of our protocol version."""
        deadline = self.server.options.limits.first_message_s
        try:
            first = await asyncio.wait_for(context.read(), deadline)
        except TimeoutError:
            await self._refuse(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"no Hello within {deadline:g} s of opening the stream",
                rpc=PLAY,
            )
        hello = hello_of(first)
        if isinstance(hello, Refusal):
            await self._refuse(context, hello.code, hello.reason, rpc=PLAY)
        return hello

    async def _check_version(
        self, context: grpc.aio.ServicerContext, version: int, rpc: str
    ) -> None:
        """Refuse a Hello or EnterRequest of a protocol version this server does not speak."""
        refusal = version_refusal(version)
        if refusal is not None:
            await self._refuse(context, refusal.code, refusal.reason, rpc=rpc)

    async def _seat(self, context: grpc.aio.ServicerContext, ticket: str) -> tuple[Table, int]:
        """The seat a ticket names, or the call is refused. A table whose match is over gets
        NOT_FOUND whatever the rest of the ticket, held or released: its seats' MatchOver went
        out on the streams open at the end, and nothing more is played there."""
        found = seat_of(self.server, ticket)
        if isinstance(found, Refusal):
            await self._refuse(context, found.code, found.reason, rpc=PLAY, table=found.table)
        return found

    async def Enter(
        self, request: pb.EnterRequest | Unparsable, context: grpc.aio.ServicerContext
    ) -> None:
        if isinstance(request, Unparsable):
            await self._refuse(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"the request does not parse as an EnterRequest ({request.error})",
                rpc=ENTER,
            )
        await self._check_version(context, request.protocol_version, ENTER)
        door = door_of(self.server, request.token)
        if door is None:
            await self._refuse(
                context, grpc.StatusCode.UNAUTHENTICATED, "unknown session token", rpc=ENTER
            )
        self.server.admission.settled(context)
        connection = StreamPort(asyncio.Queue(OUTBOX_SIZE), peer=context.peer())
        door.enter(connection, request)
        try:
            await self._write(context, connection)
        finally:
            door.leave(connection)

    async def Play(self, request_iterator: Any, context: grpc.aio.ServicerContext) -> None:
        hello = await self._hello(context)
        table, seat = await self._seat(context, hello.ticket)
        self.server.admission.settled(context)
        connection = StreamPort(asyncio.Queue(OUTBOX_SIZE), peer=context.peer())
        table.attach(seat, connection, hello.bot_name[:64])
        reader = asyncio.ensure_future(self._read(context, table, seat, connection))
        try:
            await self._write(context, connection)
        finally:
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)  # its end is not news
            table.detach(seat, connection)

    async def _read(
        self, context: grpc.aio.ServicerContext, table: Table, seat: int, connection: StreamPort
    ) -> None:
        """Hand each message to the table; end the stream (with a status, and a log line) on
        bytes that do not parse, or a read that fails (a flood is the table's to cut off:
        each message reaches it as it is read)."""
        log = get_logger(table=table.name, seat=seat)
        try:
            await self._read_messages(context, table, seat, connection, log)
        except Exception as err:  # the stream broke: say so instead of going quiet
            if connection.closed:
                return  # the server ended the stream (a cut-off, logged as such): not news
            log.warning("read_failed", peer=connection.peer, error=f"{type(err).__name__}: {err}")
            connection.close(
                StreamEnd.BROKEN,
                f"reading your stream failed ({type(err).__name__}); reconnect with your ticket",
            )

    async def _read_messages(
        self,
        context: grpc.aio.ServicerContext,
        table: Table,
        seat: int,
        connection: StreamPort,
        log: Any,
    ) -> None:
        while True:
            message = await context.read()
            if message is grpc.aio.EOF:
                return
            if isinstance(message, Unparsable):
                log.warning("unparsable_message", peer=connection.peer, error=message.error)
                connection.close(
                    StreamEnd.UNPARSABLE,
                    f"a message does not parse as a PlayRequest ({message.error}): this "
                    "stream is ended; reconnect with your ticket",
                )
                return
            table.receive(seat, connection, message)

    async def _write(self, context: grpc.aio.ServicerContext, connection: StreamPort) -> None:
        while True:
            item = await connection.outbox.get()
            if isinstance(item, Closing):
                if item.end is not StreamEnd.DONE:
                    await context.abort(STATUS_OF_END[item.end], item.details)
                return
            if isinstance(item, Batch):
                for message in item.messages:
                    await context.write(message)
                continue
            await context.write(item)

    async def _spectated_table(
        self, request: pb.WatchRequest | Unparsable, context: grpc.aio.ServicerContext
    ) -> Table:
        """The table a Watch may follow: the spectator token checked, the caps kept."""
        server = self.server
        expected = server.options.spectator_token
        if isinstance(request, Unparsable):
            await self._refuse(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"the request does not parse as a WatchRequest ({request.error})",
                rpc=WATCH,
            )
        if expected is None:
            await self._refuse(
                context,
                grpc.StatusCode.PERMISSION_DENIED,
                "watching is off on this server: start it with a spectator token "
                "(arena serve --spectator-token) and send that token in WatchRequest.token",
                rpc=WATCH,
            )
        if not secrets.compare_digest(expected.encode(), request.token.encode()):
            await self._refuse(
                context,
                grpc.StatusCode.UNAUTHENTICATED,
                "wrong or missing spectator token (WatchRequest.token)",
                rpc=WATCH,
            )
        table = server.tables.get(request.table)
        if table is None:
            await self._refuse(
                context,
                grpc.StatusCode.NOT_FOUND,
                server.missing_table_message(request.table),
                rpc=WATCH,
            )
        if server.watching[table.name] >= server.options.max_spectators_per_table:
            await self._refuse(
                context,
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"table {table.name!r} has {server.options.max_spectators_per_table} "
                "spectators already, the most it takes",
                rpc=WATCH,
                table=table.name,
            )
        if server.watching.total() >= server.options.max_spectators:
            await self._refuse(
                context,
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"the server has {server.options.max_spectators} spectators already, the "
                "most it takes",
                rpc=WATCH,
                table=table.name,
            )
        return table

    async def Watch(
        self, request: pb.WatchRequest | Unparsable, context: grpc.aio.ServicerContext
    ) -> None:
        table = await self._spectated_table(request, context)
        server = self.server
        server.admission.settled(context)
        connection = StreamPort(asyncio.Queue(SPECTATOR_OUTBOX_SIZE), peer=context.peer())
        server.watching[table.name] += 1
        table.watch(connection)
        try:
            # the spectator may read these as "you are in": its stream is attached before any
            # bot's connection made after this
            await context.send_initial_metadata(())
            await self._write(context, connection)
        finally:
            server.watching[table.name] -= 1
            if server.watching[table.name] <= 0:
                del server.watching[table.name]
            table.unwatch(connection)


def add_servicer(server: ArenaServer, grpc_server: grpc.aio.Server) -> None:
    """Register the service as the generated ``add_ArenaServiceServicer_to_server`` does,
    except that requests are read with :func:`~chaodipi.arena.serving.gate.parser`: bytes
    that do not parse reach the handler, which ends the call with INVALID_ARGUMENT and the
    reason (the generated registration would let grpc end it with UNKNOWN, saying nothing)."""
    servicer = _Servicer(server)
    handlers = {
        "Enter": grpc.unary_stream_rpc_method_handler(
            servicer.Enter,
            request_deserializer=parser(pb.EnterRequest),
            response_serializer=pb.EnterResponse.SerializeToString,
        ),
        "Play": grpc.stream_stream_rpc_method_handler(
            servicer.Play,
            request_deserializer=parser(pb.PlayRequest),
            response_serializer=pb.PlayResponse.SerializeToString,
        ),
        "Watch": grpc.unary_stream_rpc_method_handler(
            servicer.Watch,
            request_deserializer=parser(pb.WatchRequest),
            response_serializer=pb.WatchResponse.SerializeToString,
        ),
    }
    generic = grpc.method_handlers_generic_handler(SERVICE_NAME, handlers)
    grpc_server.add_generic_rpc_handlers((generic,))
    grpc_server.add_registered_method_handlers(SERVICE_NAME, handlers)
