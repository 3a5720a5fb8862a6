"""The table server: grpc.aio and the tables on one asyncio event loop, one thread.

>>> # in a task on the asyncio backend (``anyio.run(main, backend="asyncio")``):
>>> # async with open_server("127.0.0.1:0", plaintext=True) as server:
>>> #     table = server.start_table(TableConfig(PRESETS["classic"], seed=1))
>>> #     ... hand table.ticket(seat) to each bot, then: result = await server.wait(table)
>>> #     ... write what you keep of the result, then: server.release(table)

``open_server`` owns a task group: every table it starts lives there, and leaving the block stops
the gRPC server and cancels what is still running. A failure inside one table is logged and
ends that table alone (its result says so); the others play on. An address the server cannot
listen on (taken by another server, not this machine's, not ``HOST:PORT``) raises
:class:`chaodipi.arena.serving.addresses.AddressError` before anything starts: the server never
shares a port (grpc's ``SO_REUSEPORT`` is off), so a second server on a port fails instead of taking
half the bots.

The handlers are in :mod:`chaodipi.arena.serving.servicer`; the caps on streams (by kind: the
Arena service's, health checks, other streams that need no credential), the room kept for
credentials and the first-message deadline in :mod:`chaodipi.arena.serving.admission`. The
bot processes ``arena run`` starts may play over local links instead of gRPC
(:meth:`ArenaServer.open_link`, :mod:`chaodipi.arena.serving.local`): the same tables and
sessions, judged by the same checks (:mod:`chaodipi.arena.serving.gate`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import itertools
import secrets
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import anyio
import anyio.abc
import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from chaodipi.arena.errors import AddressError
from chaodipi.arena.logs import get_logger
from chaodipi.arena.serving.addresses import check_can_listen
from chaodipi.arena.serving.admission import (
    FIRST_MESSAGE_S,
    MAX_ANONYMOUS_STREAMS,
    MAX_ANONYMOUS_STREAMS_PER_CONNECTION,
    MAX_STREAMS,
    MAX_STREAMS_PER_CONNECTION,
    Admission,
    StreamLimits,
)
from chaodipi.arena.serving.local import LocalLink, open_link
from chaodipi.arena.serving.servicer import SERVICE_NAME, add_servicer
from chaodipi.arena.serving.sessions import Door, Session
from chaodipi.arena.serving.spectators import released_message
from chaodipi.arena.serving.table import Table, TableConfig, TableResult
from chaodipi.arena.v2 import arena_pb2 as pb

__all__ = [
    "SERVICE_NAME",
    "ArenaServer",
    "ServerOptions",
    "new_spectator_token",
    "open_server",
    "tune_garbage_collector",
]

MAX_MESSAGE_BYTES = 64 * 1024
MAX_PENDING_STREAMS = 10_000
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
    limits: StreamLimits = field(default_factory=StreamLimits)
    """The caps on open streams and the first-message deadline
    (:mod:`chaodipi.arena.serving.admission`)."""


@dataclass(slots=True)
class ArenaServer:
    """Tables by name, and the port it listens on. Everything here runs on the server's one
    event loop: the gRPC handlers call the tables directly."""

    options: ServerOptions
    nursery: anyio.abc.TaskGroup | None = None
    """Where the tables run (set by :func:`open_server` once the server listens)."""
    tables: dict[str, Table] = field(default_factory=dict)
    port: int = 0
    doors: dict[str, Door] = field(default_factory=dict)
    """The session tokens accepted, by their digest (:func:`token_digest`)."""
    released: collections.OrderedDict[str, None] = field(default_factory=collections.OrderedDict)
    """The names of the last released tables (at most ``RELEASED_NAMES_KEPT``)."""
    watching: collections.Counter[str] = field(default_factory=collections.Counter)
    """Spectators per table name."""
    admission: Admission = field(init=False)
    """The streams open now, by connection (read it for figures)."""
    links: set[LocalLink] = field(default_factory=set)
    """The local links open now (:mod:`chaodipi.arena.serving.local`), one per bot process
    started with one."""
    _names: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def __post_init__(self) -> None:
        self.admission = Admission(self.options.limits)

    def open_door(
        self,
        token: str | None,
        label: str,
        *,
        digest: str = "",
        single: bool = True,
        on_enter: Callable[[Session], None] | None = None,
        on_leave: Callable[[Session], None] | None = None,
        on_refuse: Callable[[pb.EnterRequest], str | None] | None = None,
    ) -> Door:
        """Accept sessions (``Enter``) presenting ``token`` (or the token whose
        :func:`~chaodipi.arena.serving.sessions.token_digest` is ``digest``); see
        :class:`chaodipi.arena.serving.sessions.Door`. :meth:`close_door` when the run wants no more
        games from them."""
        door = Door(
            token, label, single, on_enter, on_leave, digest=digest, on_refuse=on_refuse
        )
        self.doors[door.digest] = door
        return door

    async def open_link(self, label: str) -> socket.socket:
        """A local link for a bot process about to be started (``label`` names it in logs):
        the end the process inherits (:func:`chaodipi.arena.serving.local.open_link`)."""
        return await open_link(self, label)

    def close_door(self, door: Door) -> None:
        """End the door's sessions (status OK). The token stays known: a process entering
        again with it later is told at once that no more games come (FAILED_PRECONDITION)."""
        door.close()

    def start_table(
        self,
        config: TableConfig,
        name: str | None = None,
        *,
        start: anyio.Event | None = None,
        spectators_after: anyio.Event | None = None,
    ) -> Table:
        """Create a table and start it in the server's task group. Its seats' tickets are
        ``table.ticket(seat)``; bots may connect as soon as this returns. With ``start``, play
        begins only once that event is set (``table.connected`` tells when its bots are in).
        With ``spectators_after``, spectators receive nothing of the table until that event is
        set (a tournament sets it once every game on the same deal is over); they then get
        the public events held back, and the rest live."""
        assert self.nursery is not None, "start tables inside `async with open_server(...)`"
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
        later Watch naming it gets NOT_FOUND ("… is over and released"), as a Play has since
        the match ended; its spectators' streams end, and nothing of it stays in the
        server."""
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


async def _start_grpc(server: ArenaServer) -> grpc.aio.Server:
    """The gRPC server on this loop, listening and serving (``server.port`` set; 0 when grpc
    could not bind)."""
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
    channel_options += [
        # never share a port with another server: with SO_REUSEPORT (grpc's default) a second
        # server on the same port starts as if all were well, and takes half the bots
        ("grpc.so_reuseport", 0),
    ]
    grpc_server = grpc.aio.server(options=channel_options, interceptors=[server.admission])
    add_servicer(server, grpc_server)
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
    return grpc_server


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
    first_message_s: float = FIRST_MESSAGE_S,
    max_streams_per_connection: int = MAX_STREAMS_PER_CONNECTION,
    max_streams: int = MAX_STREAMS,
    max_anonymous_streams_per_connection: int = MAX_ANONYMOUS_STREAMS_PER_CONNECTION,
    max_anonymous_streams: int = MAX_ANONYMOUS_STREAMS,
) -> AsyncIterator[ArenaServer]:
    """Serve the Arena service on ``address`` for the duration of the block.

    ``spectator_token``: the credential a Watch must carry (``WatchRequest.token``); give it
    to operators, never to bots. None (the default) turns Watch off (PERMISSION_DENIED).
    ``first_message_s``: the deadline for every rpc's first message; ``max_streams_per_connection``
    and ``max_streams``: the caps on the Arena service's open streams;
    ``max_anonymous_streams_per_connection`` and ``max_anonymous_streams``: the caps on each kind
    of stream that needs no credential (health checks; health Watch and reflection)
    (:mod:`chaodipi.arena.serving.admission`).

    Raises :class:`~chaodipi.arena.serving.addresses.AddressError` (one line, naming the address)
    when the server cannot listen on ``address``: another server holds the port, the host is not
    this machine's, or it is not ``HOST:PORT``."""
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
        limits=StreamLimits(
            first_message_s,
            max_streams_per_connection,
            max_streams,
            max_anonymous_streams_per_connection,
            max_anonymous_streams,
        ),
    )
    check_can_listen(address)  # grpc alone would only say "Failed to bind"
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # trio, say
        raise RuntimeError(
            "the table server runs on grpc.aio's asyncio loop: run it with "
            'anyio.run(main, backend="asyncio")'
        ) from None
    server = ArenaServer(options)
    try:
        grpc_server = await _start_grpc(server)
    except RuntimeError as err:  # grpc: "Failed to bind", taken in the moment since the check
        raise AddressError(f"cannot listen on {address}: {err}") from None
    if server.port == 0:
        await grpc_server.stop(None)
        raise AddressError(f"cannot listen on {address}")
    try:
        async with anyio.create_task_group() as tasks:
            server.nursery = tasks
            get_logger().info("serving", address=server.address, tls=not plaintext)
            try:
                yield server
            finally:
                tasks.cancel_scope.cancel()
    finally:
        # the tables have ended (their last messages are in the outboxes): stop serving, and
        # let the streams write them in the grace period; shielded, or a cancelled caller
        # (SIGTERM, Ctrl-C) would leave the server running
        for link in list(server.links):
            link.close()  # what was written goes out first
        with anyio.CancelScope(shield=True):
            await grpc_server.stop(grace=0.5)
