"""Sessions: a bot process's ``Enter`` stream, on which it is offered seats game after game.

The arena opens a :class:`Door` for each session token it accepts (one per command bot
process, or an external bot's ``token``). A process that presents the token gets a
:class:`Session`: ``Entered`` first, then one ``SeatOffer`` per seat the runner gives it. A
reconnect (the same token, and the same instance id for an external bot) is the same session:
it replaces the old stream and is offered the seats still open again, as Lichess resends the
games in progress on a new event stream.

Everything here runs on the server's event loop and knows a stream only as a port
(:mod:`chaodipi.arena.serving.port`; the gRPC side forwards the request and the stream);
which session plays which seat is the runner's business
(:mod:`chaodipi.arena.tournament.pools`).

>>> # in a task, with a server:
>>> # door = server.open_door(token, "random", on_enter=print)
>>> # ... a bot enters; on_enter(session) runs; then: session.offer(table, seat)
>>> # ... once the game is over: session.seat_over(table, seat); at the end: door.close()
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field

import anyio

from chaodipi.arena.logs import get_logger
from chaodipi.arena.serving.port import Port, StreamEnd
from chaodipi.arena.serving.table import Table
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import convert

__all__ = ["CLOSED_MESSAGE", "MAX_CAPACITY", "Door", "Session", "token_digest"]

MAX_CAPACITY = 64
"""The most seats one session is given at once, whatever it asks for."""
CLOSED_MESSAGE = (
    "the arena wants no more games with this token (its run, or this process's part in it, "
    "is over): exit"
)
"""What an Enter is told once its token's door has closed (``StreamEnd.NO_MORE_GAMES``, on the
wire FAILED_PRECONDITION)."""


def token_digest(token: str) -> str:
    """What the arena keeps of a session token it need not hand out again: its SHA-256, in hex
    (a standing ladder stores only this). A token is 24 random bytes or more, so a plain hash
    is enough: no one finds a token from its digest by trying.

    >>> token_digest("a-token-for-tests-only")[:16]
    '5c04d359142cbf6a'
    """
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(eq=False, slots=True)
class Session:
    """One bot process, as the lobby knows it: its stream (while connected) and its open seats."""

    door: Door
    name: str
    instance: str
    capacity: int = 1
    bot_name: str = ""
    bot_version: str = ""
    """The version its Enter named (``EnterRequest.bot_version``, at most 64 characters)."""
    connection: Port | None = None
    offers: dict[tuple[str, int], pb.EnterResponse] = field(default_factory=dict)
    """The seats it holds, by (table name, seat): sent again on a reconnect."""
    entered: anyio.Event = field(default_factory=anyio.Event)
    """Set on its first Enter."""
    over: bool = False

    @property
    def connected(self) -> bool:
        return self.connection is not None

    def offer(self, table: Table, seat: int) -> None:
        """Give it a seat: sent now, or when it (re)enters."""
        offer = convert.seat_offer(table.ticket(seat), seat, table.config.preset.name)
        self.offers[(table.name, seat)] = offer
        if self.connection is not None:
            self.connection.send(offer)

    def seat_over(self, table: Table, seat: int) -> None:
        """The seat's game is over: it is not offered again on a reconnect."""
        self.offers.pop((table.name, seat), None)

    def end(self) -> None:
        """No more seats for this process: its stream ends normally (status OK; it should exit
        once its games in hand are over)."""
        self.over = True
        if self.connection is not None:
            self.connection.close()

    # -- from the gRPC layer ------------------------------------------------------------------

    def _attach(
        self, connection: Port, capacity: int, bot_name: str, bot_version: str = ""
    ) -> None:
        old, self.connection = self.connection, connection
        if old is not None:
            old.close(StreamEnd.TAKEN_OVER, "a newer Enter took this session over")
        self.capacity = capacity
        self.bot_name = bot_name
        self.bot_version = bot_version
        log = get_logger(session=self.name)
        resumed = self.entered.is_set()
        log.info("session_entered", bot=bot_name, peer=connection.peer, resumed=resumed)
        if self.over:
            connection.close(StreamEnd.NO_MORE_GAMES, CLOSED_MESSAGE)
            return
        connection.send(convert.entered(self.name, capacity))
        for offer in self.offers.values():
            connection.send(offer)
        self.entered.set()

    def _detach(self, connection: Port) -> None:
        if self.connection is connection:
            self.connection = None
            get_logger(session=self.name).info("session_left", open_seats=len(self.offers))
            self.door.left(self)


@dataclass(eq=False, slots=True)
class Door:
    """A session token the arena accepts, and the sessions that entered with it. The door
    knows the token's :func:`token_digest` (what an Enter is looked up by); ``token`` itself
    only when the arena hands it to a process it starts (None: a standing ladder's bot, whose
    token is stored as its digest alone).

    ``single``: the token belongs to one process (a command bot the runner started): every
    Enter is that process (re)connecting, whatever its instance id. Otherwise (an external bot,
    which may run several processes) each instance id is a session of its own.
    ``on_enter(session)`` runs on a session's first Enter; ``on_leave(session)`` whenever its
    stream ends."""

    token: str | None
    label: str
    single: bool = True
    on_enter: Callable[[Session], None] | None = None
    on_leave: Callable[[Session], None] | None = None
    sessions: dict[str, Session] = field(default_factory=dict)
    closed: bool = False
    digest: str = ""
    """The token's :func:`token_digest` (from ``token`` when not given)."""
    on_refuse: Callable[[pb.EnterRequest], str | None] | None = None
    """Asked before a new session is opened: a reason to refuse it (its stream ends
    ``FAILED_PRECONDITION`` with that reason), or None to let it in (a ladder's caps per bot,
    a season closed to new versions)."""
    _count: int = 0

    def __post_init__(self) -> None:
        if not self.digest:
            if self.token is None:
                raise ValueError("a door needs its token or the token's digest")
            self.digest = token_digest(self.token)

    def session(self, instance: str = "") -> Session:
        """The session for ``instance`` (made now if new; a single door has one)."""
        key = "" if self.single else instance
        found = self.sessions.get(key)
        if found is None:
            self._count += 1
            name = self.label if self.single else f"{self.label}/{self._count}"
            found = self.sessions[key] = Session(self, name, key)
        return found

    def close(self) -> None:
        """No more sessions through this door: every open one ends (status OK), and a later
        Enter with its token is refused (``StreamEnd.NO_MORE_GAMES``, :data:`CLOSED_MESSAGE`)."""
        self.closed = True
        for session in self.sessions.values():
            session.end()

    def enter(self, connection: Port, request: pb.EnterRequest) -> None:
        """From the gRPC layer: a process presented this door's token."""
        if self.closed:
            # the run wants no more games with this token: a session open then ended OK, and
            # one that comes now is told why it is turned away
            get_logger(session=self.label).info("session_refused", peer=connection.peer)
            connection.close(StreamEnd.NO_MORE_GAMES, CLOSED_MESSAGE)
            return
        key = "" if self.single else request.instance[:64]
        if key not in self.sessions and self.on_refuse is not None:
            refusal = self.on_refuse(request)
            if refusal is not None:
                get_logger(session=self.label).info(
                    "session_refused", peer=connection.peer, why=refusal
                )
                connection.close(StreamEnd.NO_MORE_GAMES, refusal)
                return
        session = self.session(request.instance[:64])
        first = not session.entered.is_set()
        capacity = min(MAX_CAPACITY, max(1, request.capacity))
        session._attach(connection, capacity, request.bot_name[:64], request.bot_version[:64])
        if first and self.on_enter is not None:
            self.on_enter(session)

    def leave(self, connection: Port) -> None:
        """From the gRPC layer: a session's stream ended."""
        for session in self.sessions.values():
            if session.connection is connection:
                session._detach(connection)
                return

    def left(self, session: Session) -> None:
        if self.on_leave is not None:
            self.on_leave(session)
