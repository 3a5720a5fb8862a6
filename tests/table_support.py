"""Driving tables, spectators and sessions without gRPC: ports that keep what they are sent,
bots that are trio tasks of the test's own process, all on a clock the test controls
(``trio.testing.MockClock(autojump_threshold=0)``: time stands still while anything can run,
and jumps to the next deadline the moment every task waits).

>>> result, players = play_table(config("classic", seed=3))
>>> result.outcome.reason, [p.kinds()[:2] for p in players][0]
('played to the end', ['welcome', 'snapshot'])
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import trio
import trio.testing

from chaodipi.arena.serving.port import StreamEnd
from chaodipi.arena.serving.server import ArenaServer, ServerOptions
from chaodipi.arena.serving.table import Table, TableConfig, TableResult
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import convert
from chaodipi.arena.v2.convert import legal_from_message
from chaodipi.engine.actions import Action
from chaodipi.engine.presets import PRESETS


def kind_of(message: Any) -> str:
    """Which of its oneof a PlayResponse, WatchResponse or EnterResponse carries."""
    return str(message.WhichOneof(message.DESCRIPTOR.oneofs[0].name))


@dataclass(eq=False)
class ListPort:
    """A stream as the arena sees it (:class:`chaodipi.arena.serving.port.Port`), keeping every message it is
    sent; what comes after :meth:`close` is dropped, as on the wire."""

    peer: str = "test"
    sent: list[Any] = field(default_factory=list)
    at: list[float] = field(default_factory=list)
    """When each message was sent (``trio.current_time()``, the test's clock)."""
    closed: tuple[StreamEnd, str] | None = None
    """How the arena ended the stream, and why (None while it is open)."""
    closed_at: float | None = None
    _read: int = 0
    _changed: trio.Event = field(default_factory=trio.Event)

    def send(self, message: Any) -> None:
        if self.closed is None:
            self.sent.append(message)
            self.at.append(trio.current_time())
            self._notify()

    def send_all(self, messages: Sequence[Any]) -> None:
        """A history (:class:`chaodipi.arena.serving.spectators.Watcher`): each message, in order."""
        for message in messages:
            self.send(message)

    def close(self, end: StreamEnd = StreamEnd.DONE, details: str = "") -> None:
        if self.closed is None:
            self.closed = (end, details)
            self.closed_at = trio.current_time()
            self._notify()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    def kinds(self) -> list[str]:
        return [kind_of(m) for m in self.sent]

    def of(self, kind: str) -> list[Any]:
        """The messages of one kind (``"decision"``, ``"event"``, ...), as that message."""
        return [getattr(m, kind) for m in self.sent if kind_of(m) == kind]

    def timed(self, kind: str) -> list[tuple[float, Any]]:
        """The messages of one kind with the time each was sent."""
        return [
            (t, getattr(m, kind))
            for t, m in zip(self.at, self.sent, strict=True)
            if kind_of(m) == kind
        ]

    async def wait_for(self, kind: str, count: int = 1) -> Any:
        """Wait until ``count`` messages of ``kind`` have come; the last of them."""
        while len(self.of(kind)) < count:
            if self.closed is not None:
                raise AssertionError(f"closed {self.closed} before {count} {kind}")
            await self._changed.wait()
        return self.of(kind)[count - 1]

    async def wait_closed(self) -> tuple[StreamEnd, str]:
        while self.closed is None:
            await self._changed.wait()
        return self.closed

    def __aiter__(self) -> ListPort:
        """Each message as it comes, once, in order (a second loop goes on where the first
        stopped), until the stream is closed and everything sent was read."""
        return self

    async def __anext__(self) -> Any:
        while self._read == len(self.sent):
            if self.closed is not None:
                raise StopAsyncIteration
            await self._changed.wait()
        self._read += 1
        return self.sent[self._read - 1]


@dataclass(eq=False)
class Player:
    """One seat's bot in the test's process: it connects ports to the seat (the newest is
    the seat's stream) and sends what a bot would send on them."""

    table: Table
    seat: int
    ports: list[ListPort] = field(default_factory=list)
    rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seat)

    @property
    def port(self) -> ListPort:
        return self.ports[-1]

    def connect(self, name: str | None = None) -> ListPort:
        """Open a new stream to the seat (a connect, or a reconnect)."""
        self.ports.append(ListPort(peer=f"seat{self.seat}/{len(self.ports) + 1}"))
        self.table.attach(self.seat, self.port, name or f"bot{self.seat}")
        return self.port

    def leave(self) -> None:
        """The stream ends from the bot's side (it disconnects)."""
        self.table.detach(self.seat, self.port)

    def send(self, request: pb.PlayRequest) -> None:
        self.table.receive(self.seat, self.port, request)

    def answer(self, decision_id: int, action: Action) -> None:
        self.send(convert.answer(decision_id, action))

    @property
    def sent(self) -> list[Any]:
        """Every message the seat was sent, over all its streams, in order."""
        return [m for port in self.ports for m in port.sent]

    def kinds(self) -> list[str]:
        return [kind_of(m) for m in self.sent]

    def of(self, kind: str) -> list[Any]:
        return [getattr(m, kind) for m in self.sent if kind_of(m) == kind]

    def timed(self, kind: str) -> list[tuple[float, Any]]:
        return [pair for port in self.ports for pair in port.timed(kind)]


def events_in(message: pb.PlayResponse) -> Iterator[pb.Event]:
    """The events a message carries: a Snapshot's (the hand so far), a Decision's or a
    MatchOver's (the news)."""
    kind = message.WhichOneof("response")
    if kind in ("snapshot", "decision", "match_over"):
        yield from getattr(message, kind).events


def delivered_events(messages: list[pb.PlayResponse]) -> Iterator[pb.Event]:
    """The events as they reached a seat as news, in order (every event once: a snapshot's,
    then each Decision's and the MatchOver's)."""
    for message in messages:
        yield from events_in(message)


Bot = Callable[[Player], Awaitable[Any]]
"""What plays a seat: given its player, connects (or not) and answers (or not)."""


def legal_of(decision: pb.Decision) -> Any:
    return legal_from_message(decision.legal)


async def random_bot(player: Player) -> None:
    """Answers each Decision at once with a random legal move (seeded by its seat)."""
    async for message in player.connect():
        if kind_of(message) == "decision":
            decision = message.decision
            player.answer(decision.decision_id, legal_of(decision).sample(player.rng))


async def instant_bot(player: Player) -> None:
    """Answers each Decision at once (0 s of thought) with its legal set's default move."""
    async for message in player.connect():
        if kind_of(message) == "decision":
            decision = message.decision
            player.answer(decision.decision_id, legal_of(decision).default())


async def silent_bot(player: Player) -> None:
    """Connects and reads, but never answers."""
    async for _ in player.connect():
        pass


async def absent_bot(player: Player) -> None:
    """Never connects."""


def config(preset: str = "classic", **overrides: Any) -> TableConfig:
    settings: dict[str, Any] = {"seed": 1, "max_hands": 1, "decision_ms": 3000, "bank_ms": 5000}
    settings.update(overrides)
    return TableConfig(PRESETS[preset], **settings)


def seat_bots(nursery: trio.Nursery, table: Table, bots: list[Bot]) -> list[Player]:
    """Start each seat's bot as a task; their players."""
    players = [Player(table, seat) for seat in range(4)]
    for player, bot in zip(players, bots, strict=True):
        nursery.start_soon(bot, player)
    return players


def in_process_server(nursery: trio.Nursery) -> ArenaServer:
    """An :class:`ArenaServer` whose tables run in ``nursery``, with no gRPC at all: tables,
    their failures and their release as the server handles them (and no gRPC
    server behind them)."""
    server = ArenaServer(ServerOptions())
    server.nursery = nursery
    return server


During = Callable[[Table, list[Player]], Awaitable[Any]]


def play_table(
    table_config: TableConfig,
    bots: list[Bot] | None = None,
    *,
    during: During | None = None,
    start: trio.Event | None = None,
    spectators_after: trio.Event | None = None,
) -> tuple[TableResult, list[Player]]:
    """Play one table (``Table("t", ...)``) to its end with a bot task per seat (random bots
    by default), under MockClock. ``during(table, players)`` runs beside them, and may go
    on after the match (the table is left once both are over); ``start`` and
    ``spectators_after`` are the table's (:class:`chaodipi.arena.serving.table.Table`)."""

    async def main() -> tuple[TableResult, list[Player]]:
        table = Table("t", table_config, start, spectators_after)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(table.run)
            if spectators_after is not None:
                nursery.start_soon(table.embargo)
            players = seat_bots(nursery, table, bots or [random_bot] * 4)
            if during is not None:
                await during(table, players)
            await table.finished.wait()
            nursery.cancel_scope.cancel()  # bots that never read to the end
        assert table.result is not None
        return table.result, players

    return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
