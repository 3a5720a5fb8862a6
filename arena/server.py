"""The table server: grpc.aio in its own thread, tables in trio, one process.

>>> # in a trio task:
>>> # async with open_server("127.0.0.1:0", plaintext=True) as server:
>>> #     table = server.start_table(TableConfig(PRESETS["classic"], seed=1))
>>> #     ... hand table.ticket(seat) to each bot, then: result = await server.wait(table)
>>> #     ... write what you keep of the result, then: server.release(table)

``open_server`` owns a nursery: every table it starts lives there, and leaving the block stops
the gRPC server and cancels what is still running. A failure inside one table is logged and
ends that table alone (its result says so); the others play on.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import itertools
import secrets
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn

import grpc
import trio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from arena.bridge import Bridge, Closing, Connection, FloodGuard
from arena.logs import get_logger
from arena.sessions import Door, Session
from arena.spectators import released_message
from arena.table import (
    FLOOD_BURST,
    FLOOD_REFILL_PER_S,
    Table,
    TableConfig,
    TableResult,
)
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import arena_pb2_grpc
from chaodipi_bot.wire import PROTOCOL_VERSION

__all__ = [
    "SERVICE_NAME",
    "ArenaServer",
    "ServerOptions",
    "new_spectator_token",
    "open_server",
    "tune_garbage_collector",
]

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["ArenaService"].full_name
HELLO_TIMEOUT_S = 10.0
OUTBOX_SIZE = 256
SPECTATOR_OUTBOX_SIZE = 1024
MAX_MESSAGE_BYTES = 64 * 1024
MAX_PENDING_STREAMS = 10_000
MAX_BACKLOG = 1000
"""Messages a bot may have sent that its table has not read yet; past this it is cut off (an
honest bot has one or two in flight: it waits for its next Decision)."""
MAX_SPECTATORS_PER_TABLE = 16
MAX_SPECTATORS = 256
RELEASED_NAMES_KEPT = 10_000
"""Released tables whose names are remembered, to tell a late Play or Watch what happened."""


GC_THRESHOLDS = (50_000, 20, 100)
"""Collector thresholds while serving (Python's defaults: 700, 10, 10)."""


def tune_garbage_collector() -> None:
    """Collect cyclic garbage far less often, and never rescan what exists at start-up.

    A server allocates many short-lived objects and almost no cycles: over 100 tables, 208
    collections at Python's default thresholds found 0 unreachable objects yet took 10 % of
    the run, and at 500 tables full collections (which scan every table's state) paused the
    whole server for up to 0.8 s, past the bots' deadlines. Call once per process, before
    serving (``arena serve`` and ``arena run`` do)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def new_spectator_token() -> str:
    """A fresh operator credential for Watch (give it to people, never to bots)."""
    return secrets.token_urlsafe(24)


@dataclass(frozen=True, slots=True)
class ServerOptions:
    """Where to listen and how."""

    address: str = "127.0.0.1:0"
    plaintext: bool = True
    tls_cert: bytes | None = None
    tls_key: bytes | None = None
    keepalive_ms: int = 20_000
    spectator_token: str | None = None
    """The operator's credential for Watch (None: nobody may watch)."""
    max_spectators_per_table: int = MAX_SPECTATORS_PER_TABLE
    max_spectators: int = MAX_SPECTATORS


@dataclass(slots=True)
class ArenaServer:
    """Tables by name, the bridge to the gRPC thread, and the port it listens on."""

    options: ServerOptions
    bridge: Bridge
    nursery: trio.Nursery
    tables: dict[str, Table] = field(default_factory=dict)
    port: int = 0
    doors: dict[str, Door] = field(default_factory=dict)
    """The session tokens accepted, by token (a copy owned by the gRPC thread)."""
    released: collections.OrderedDict[str, None] = field(default_factory=collections.OrderedDict)
    """The names of the last released tables (at most ``RELEASED_NAMES_KEPT``)."""
    watching: collections.Counter[str] = field(default_factory=collections.Counter)
    """Spectators per table name (owned by the gRPC thread)."""
    _names: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def open_door(
        self,
        token: str,
        label: str,
        *,
        single: bool = True,
        on_enter: Callable[[Session], None] | None = None,
        on_leave: Callable[[Session], None] | None = None,
    ) -> Door:
        """Accept sessions (``Enter``) presenting ``token``; see :class:`arena.sessions.Door`.
        :meth:`close_door` when the run wants no more games from them."""
        door = Door(token, label, single, on_enter, on_leave)
        self.bridge.to_asyncio(self.doors.__setitem__, token, door)
        return door

    def close_door(self, door: Door) -> None:
        """End the door's sessions (status OK). The token stays known: a process entering
        again with it later is told at once that no more games come (its stream ends OK)."""
        door.close()

    def start_table(
        self,
        config: TableConfig,
        name: str | None = None,
        *,
        start: trio.Event | None = None,
        spectators_after: trio.Event | None = None,
    ) -> Table:
        """Create a table and start it in the server's nursery. Its seats' tickets are
        ``table.ticket(seat)``; bots may connect as soon as this returns. With ``start``, play
        begins only once that event is set (``table.connected`` tells when its bots are in).
        With ``spectators_after``, spectators receive nothing of the table until that event is
        set (a tournament sets it once every game on the same deal is over); they then get
        the public events held back, and the rest live."""
        name = name or f"t{next(self._names)}"
        if name in self.tables:
            raise ValueError(f"a table named {name!r} exists already")
        self.released.pop(name, None)
        table = Table(name, config, start, spectators_after)
        self.tables[name] = table
        self.nursery.start_soon(self._run_table, table)
        if spectators_after is not None:
            self.nursery.start_soon(table.embargo)
        return table

    def release(self, table: Table) -> None:
        """Forget a finished table: call once its result (``wait``) and replay are kept. A
        later Play or Watch naming it gets NOT_FOUND ("… is over and released"), its
        spectators' streams end, and nothing of it stays in the server."""
        if table.result is None:
            raise ValueError(
                f"table {table.name!r} is still playing: await server.wait(table) (or "
                "table.stop(reason) first) before releasing it"
            )
        if self.tables.get(table.name) is table:
            del self.tables[table.name]
        table.release()
        self.released[table.name] = None
        while len(self.released) > RELEASED_NAMES_KEPT:
            self.released.popitem(last=False)

    def missing_table_message(self, name: str) -> str:
        """Why no table answers to ``name``: released, or never known."""
        if name in self.released:
            return released_message(name)
        return f"no table {name!r}"

    async def _run_table(self, table: Table) -> None:
        try:
            await table.run()
        except Exception:
            get_logger(table=table.name).exception("table_failed")

    async def wait(self, table: Table) -> TableResult:
        """Wait for a table's match to end."""
        await table.finished.wait()
        assert table.result is not None
        return table.result

    @property
    def address(self) -> str:
        host = self.options.address.rsplit(":", 1)[0]
        return f"{host}:{self.port}"


@dataclass(frozen=True, slots=True)
class Unparsable:
    """What the request deserializer gives for bytes that are not a message (so the handler,
    not grpc, decides the status: INVALID_ARGUMENT with the reason)."""

    error: str


def _parse(message_class: Any) -> Any:
    """A request deserializer that returns :class:`Unparsable` instead of raising."""

    def parse(data: bytes) -> Any:
        try:
            return message_class.FromString(data)
        except Exception as err:  # DecodeError, or invalid UTF-8 in a string field
            return Unparsable(f"{type(err).__name__}: {err}"[:200])

    return parse


class _Servicer(arena_pb2_grpc.ArenaServiceServicer):  # type: ignore[misc]
    """The gRPC side (asyncio thread): checks tickets and moves messages across the bridge."""

    def __init__(self, server: ArenaServer) -> None:
        self.server = server

    def _find_seat(self, ticket: str) -> tuple[Table, int] | None:
        table_name, _, rest = ticket.partition("/")
        seat_text, _, secret = rest.partition("/")
        table = self.server.tables.get(table_name)
        if table is None or seat_text not in ("0", "1", "2", "3"):
            return None
        seat = int(seat_text)
        return (table, seat) if table.check_secret(seat, secret) else None

    @staticmethod
    async def _refuse(
        context: grpc.aio.ServicerContext, code: grpc.StatusCode, reason: str, **bound: Any
    ) -> NoReturn:
        """End a call that is refused, and log it (the peer and the reason: never a ticket
        or a token)."""
        get_logger(**bound).warning("refused", peer=context.peer(), code=code.name, reason=reason)
        await context.abort(code, reason)
        raise AssertionError("context.abort returns only by raising")

    async def _hello(self, context: grpc.aio.ServicerContext) -> pb.Hello:
        """The first message, which must be a Hello of our protocol version."""
        try:
            first = await asyncio.wait_for(context.read(), HELLO_TIMEOUT_S)
        except TimeoutError:
            await self._refuse(
                context, grpc.StatusCode.FAILED_PRECONDITION, "no Hello within 10 s", rpc="Play"
            )
        if isinstance(first, Unparsable):
            await self._refuse(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"the first message does not parse as a PlayRequest ({first.error})",
                rpc="Play",
            )
        if first is grpc.aio.EOF or first.WhichOneof("request") != "hello":
            await self._refuse(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                "the first message must be a Hello",
                rpc="Play",
            )
        hello: pb.Hello = first.hello
        if hello.protocol_version != PROTOCOL_VERSION:
            await self._refuse(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"protocol version {hello.protocol_version} is not supported; "
                f"this server speaks {PROTOCOL_VERSION}",
                rpc="Play",
            )
        return hello

    async def _seat(self, context: grpc.aio.ServicerContext, ticket: str) -> tuple[Table, int]:
        """The seat a ticket names, or the call is refused."""
        found = self._find_seat(ticket)
        if found is not None:
            return found
        name = ticket.partition("/")[0]
        if name in self.server.released:
            await self._refuse(
                context, grpc.StatusCode.NOT_FOUND, released_message(name), rpc="Play", table=name
            )
        known = name if name in self.server.tables else None  # never log what a bot made up
        await self._refuse(
            context,
            grpc.StatusCode.UNAUTHENTICATED,
            "unknown or wrong ticket",
            rpc="Play",
            table=known,
        )

    async def Enter(
        self, request: pb.EnterRequest | Unparsable, context: grpc.aio.ServicerContext
    ) -> None:
        if isinstance(request, Unparsable):
            await self._refuse(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"the request does not parse as an EnterRequest ({request.error})",
                rpc="Enter",
            )
        if request.protocol_version != PROTOCOL_VERSION:
            await self._refuse(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"protocol version {request.protocol_version} is not supported; "
                f"this server speaks {PROTOCOL_VERSION}",
                rpc="Enter",
            )
        door = self._door(request.token)
        if door is None:
            await self._refuse(
                context, grpc.StatusCode.UNAUTHENTICATED, "unknown session token", rpc="Enter"
            )
        bridge = self.server.bridge
        connection = Connection(bridge, asyncio.Queue(OUTBOX_SIZE), peer=context.peer())
        bridge.to_trio(door.enter, connection, request)
        try:
            await self._write(context, connection)
        finally:
            bridge.to_trio(door.leave, connection)

    def _door(self, token: str) -> Door | None:
        for known, door in list(self.server.doors.items()):
            if secrets.compare_digest(known.encode(), token.encode()):
                return door
        return None

    async def Play(self, request_iterator: Any, context: grpc.aio.ServicerContext) -> None:
        hello = await self._hello(context)
        table, seat = await self._seat(context, hello.ticket)
        bridge = self.server.bridge
        connection = Connection(
            bridge,
            asyncio.Queue(OUTBOX_SIZE),
            peer=context.peer(),
            flood=FloodGuard(FLOOD_BURST, FLOOD_REFILL_PER_S),
        )
        bridge.to_trio(table.attach, seat, connection, hello.bot_name[:64])
        reader = asyncio.ensure_future(self._read(context, table, seat, connection))
        try:
            await self._write(context, connection)
        finally:
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)  # its end is not news
            bridge.to_trio(table.detach, seat, connection)

    async def _read(
        self, context: grpc.aio.ServicerContext, table: Table, seat: int, connection: Connection
    ) -> None:
        """Hand each message to the table; end the stream (with a status, and a log line) on
        bytes that do not parse, a backlog that shows a flood, or a read that fails."""
        log = get_logger(table=table.name, seat=seat)
        try:
            await self._read_messages(context, table, seat, connection, log)
        except Exception as err:  # the stream broke: say so instead of going quiet
            log.warning("read_failed", peer=connection.peer, error=f"{type(err).__name__}: {err}")
            connection._offer_close(
                Closing(
                    grpc.StatusCode.INTERNAL,
                    f"reading your stream failed ({type(err).__name__}); reconnect with your "
                    "ticket",
                )
            )

    async def _read_messages(
        self,
        context: grpc.aio.ServicerContext,
        table: Table,
        seat: int,
        connection: Connection,
        log: Any,
    ) -> None:
        bridge = self.server.bridge
        while True:
            message = await context.read()
            if message is grpc.aio.EOF:
                return
            if isinstance(message, Unparsable):
                log.warning("unparsable_message", peer=connection.peer, error=message.error)
                connection._offer_close(
                    Closing(
                        grpc.StatusCode.INVALID_ARGUMENT,
                        f"a message does not parse as a PlayRequest ({message.error}): this "
                        "stream is ended; reconnect with your ticket",
                    )
                )
                return
            connection.handed += 1
            if connection.handed - connection.handled > MAX_BACKLOG:
                log.warning("flood_cut_off", peer=connection.peer, backlog=MAX_BACKLOG)
                connection._offer_close(
                    Closing(
                        grpc.StatusCode.RESOURCE_EXHAUSTED,
                        f"flooding: {MAX_BACKLOG} messages sent that the table has not read "
                        "yet: cut off. Send one answer per Decision",
                    )
                )
                return
            bridge.to_trio(table.receive, seat, connection, message)

    async def _write(self, context: grpc.aio.ServicerContext, connection: Connection) -> None:
        while True:
            item = await connection.outbox.get()
            if isinstance(item, Closing):
                if item.code is not None:
                    await context.abort(item.code, item.details)
                return
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
                rpc="Watch",
            )
        if expected is None:
            await self._refuse(
                context,
                grpc.StatusCode.PERMISSION_DENIED,
                "watching is off on this server: start it with a spectator token "
                "(arena serve --spectator-token) and send that token in WatchRequest.token",
                rpc="Watch",
            )
        if not secrets.compare_digest(expected.encode(), request.token.encode()):
            await self._refuse(
                context,
                grpc.StatusCode.UNAUTHENTICATED,
                "wrong or missing spectator token (WatchRequest.token)",
                rpc="Watch",
            )
        table = server.tables.get(request.table)
        if table is None:
            await self._refuse(
                context,
                grpc.StatusCode.NOT_FOUND,
                server.missing_table_message(request.table),
                rpc="Watch",
            )
        if server.watching[table.name] >= server.options.max_spectators_per_table:
            await self._refuse(
                context,
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"table {table.name!r} has {server.options.max_spectators_per_table} "
                "spectators already, the most it takes",
                rpc="Watch",
                table=table.name,
            )
        if server.watching.total() >= server.options.max_spectators:
            await self._refuse(
                context,
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"the server has {server.options.max_spectators} spectators already, the "
                "most it takes",
                rpc="Watch",
                table=table.name,
            )
        return table

    async def Watch(
        self, request: pb.WatchRequest | Unparsable, context: grpc.aio.ServicerContext
    ) -> None:
        table = await self._spectated_table(request, context)
        server = self.server
        bridge = server.bridge
        connection = Connection(bridge, asyncio.Queue(SPECTATOR_OUTBOX_SIZE), peer=context.peer())
        server.watching[table.name] += 1
        bridge.to_trio(table.watch, connection)
        try:
            # the spectator may read these as "you are in": its stream is attached before any
            # bot's connection made after this
            await context.send_initial_metadata(())
            await self._write(context, connection)
        finally:
            server.watching[table.name] -= 1
            if server.watching[table.name] <= 0:
                del server.watching[table.name]
            bridge.to_trio(table.unwatch, connection)


def _add_servicer(servicer: _Servicer, grpc_server: grpc.aio.Server) -> None:
    """Register the service as the generated ``add_ArenaServiceServicer_to_server`` does,
    except that requests are read with :func:`_parse`: bytes that do not parse reach the
    handler, which ends the call with INVALID_ARGUMENT and the reason (the generated
    registration would let grpc end it with UNKNOWN, saying nothing)."""
    handlers = {
        "Enter": grpc.unary_stream_rpc_method_handler(
            servicer.Enter,
            request_deserializer=_parse(pb.EnterRequest),
            response_serializer=pb.EnterResponse.SerializeToString,
        ),
        "Play": grpc.stream_stream_rpc_method_handler(
            servicer.Play,
            request_deserializer=_parse(pb.PlayRequest),
            response_serializer=pb.PlayResponse.SerializeToString,
        ),
        "Watch": grpc.unary_stream_rpc_method_handler(
            servicer.Watch,
            request_deserializer=_parse(pb.WatchRequest),
            response_serializer=pb.WatchResponse.SerializeToString,
        ),
    }
    generic = grpc.method_handlers_generic_handler(SERVICE_NAME, handlers)
    grpc_server.add_generic_rpc_handlers((generic,))
    grpc_server.add_registered_method_handlers(SERVICE_NAME, handlers)


def _grpc_thread(
    server: ArenaServer,
    ready: threading.Event,
    stop: list[asyncio.Event],
    failure: list[BaseException],
) -> None:
    loop = asyncio.new_event_loop()
    server.bridge.loop = loop
    try:
        loop.run_until_complete(_grpc_main(server, ready, stop))
    except BaseException as err:  # reported to the trio side, which raises it
        failure.append(err)
        ready.set()
    finally:
        # streams still open when the server stopped (a run interrupted mid-game): end their
        # tasks here, or asyncio reports each as "destroyed but pending" on stderr
        pending = asyncio.all_tasks(loop)
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.close()


async def _grpc_main(
    server: ArenaServer, ready: threading.Event, stop: list[asyncio.Event]
) -> None:
    options = server.options
    channel_options = [
        ("grpc.keepalive_time_ms", options.keepalive_ms),
        ("grpc.keepalive_timeout_ms", 10_000),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
        ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
        # streams the server has not picked up yet: past 1,000 (grpc's default) core starts
        # cancelling new ones at random, and 500 tables connect 2,000 at once
        ("grpc.server.max_pending_requests", MAX_PENDING_STREAMS),
        ("grpc.server.max_pending_requests_hard_limit", 2 * MAX_PENDING_STREAMS),
    ]
    grpc_server = grpc.aio.server(options=channel_options)
    _add_servicer(_Servicer(server), grpc_server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, grpc_server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, reflection.SERVICE_NAME, health.SERVICE_NAME), grpc_server
    )
    if options.plaintext:
        port = grpc_server.add_insecure_port(options.address)
    else:
        assert options.tls_cert is not None and options.tls_key is not None
        credentials = grpc.ssl_server_credentials([(options.tls_key, options.tls_cert)])
        port = grpc_server.add_secure_port(options.address, credentials)
    await grpc_server.start()
    await health_servicer.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    server.port = port
    stop.append(asyncio.Event())
    ready.set()
    await stop[0].wait()
    await grpc_server.stop(grace=0.5)


@contextlib.asynccontextmanager
async def open_server(
    address: str = "127.0.0.1:0",
    *,
    plaintext: bool = True,
    tls_cert: bytes | None = None,
    tls_key: bytes | None = None,
    spectator_token: str | None = None,
    max_spectators_per_table: int = MAX_SPECTATORS_PER_TABLE,
    max_spectators: int = MAX_SPECTATORS,
) -> AsyncIterator[ArenaServer]:
    """Serve the Arena service on ``address`` for the duration of the block.

    ``spectator_token``: the credential a Watch must carry (``WatchRequest.token``); give it
    to operators, never to bots. None (the default) turns Watch off (PERMISSION_DENIED)."""
    if not plaintext and (tls_cert is None or tls_key is None):
        raise ValueError("TLS needs both a certificate and a key (or ask for plaintext)")
    if spectator_token is not None and len(spectator_token) < 16:
        raise ValueError(
            "a spectator token needs at least 16 characters: make one with secrets.token_urlsafe()"
        )
    options = ServerOptions(
        address,
        plaintext,
        tls_cert,
        tls_key,
        spectator_token=spectator_token,
        max_spectators_per_table=max_spectators_per_table,
        max_spectators=max_spectators,
    )
    bridge = Bridge(trio.lowlevel.current_trio_token())
    async with trio.open_nursery() as nursery:
        server = ArenaServer(options, bridge, nursery)
        ready = threading.Event()
        stop: list[asyncio.Event] = []
        failure: list[BaseException] = []
        thread = threading.Thread(
            target=_grpc_thread, args=(server, ready, stop, failure), name="grpc", daemon=True
        )
        thread.start()
        await trio.to_thread.run_sync(ready.wait)
        if failure:
            raise RuntimeError(f"the gRPC server did not start on {address}: {failure[0]}")
        if server.port == 0:
            raise RuntimeError(f"could not listen on {address}")
        log = get_logger()
        log.info("serving", address=server.address, tls=not plaintext)
        try:
            yield server
        finally:
            nursery.cancel_scope.cancel()
            if stop and bridge.loop is not None and not bridge.loop.is_closed():
                bridge.to_asyncio(stop[0].set)
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(thread.join, 5.0)
