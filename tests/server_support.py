"""Running real servers and bots in tests: a server on an asyncio loop in the test's thread, bots in threads.

For what only gRPC shows (status codes, the wire, TLS, reflection, caps); a table's own
behaviour is tested without gRPC (:mod:`tests.table_support`)."""

from __future__ import annotations

import queue
import random
import threading
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import grpc

from chaodipi.arena.serving.server import SERVICE_NAME, ArenaServer, open_server
from chaodipi.arena.serving.table import Table, TableConfig, TableResult
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import arena_pb2_grpc, convert
from chaodipi.arena.v2.convert import PROTOCOL_VERSION, legal_from_message
from chaodipi.bot import Action, MatchResult, SeatView, run_bot
from chaodipi.engine.presets import PRESETS

SPECTATOR_TOKEN = "spectator-token-for-tests-only"

Bot = Callable[[str, str, int, "Recording"], Any]
"""A bot: (address, ticket, seat, recording) -> anything; runs in its own thread."""


@dataclass
class Recording:
    """Every message one seat received, in order."""

    messages: list[pb.PlayResponse] = field(default_factory=list)
    error: BaseException | None = None

    def kinds(self) -> list[str]:
        return [str(m.WhichOneof("response")) for m in self.messages]

    def of(self, kind: str) -> list[Any]:
        """The messages of one kind (``"decision"``, ...), as that message."""
        return [getattr(m, kind) for m in self.messages if m.WhichOneof("response") == kind]


def random_decide(rng: random.Random) -> Callable[[SeatView], Action]:
    def decide(view: SeatView) -> Action:
        assert view.legal is not None
        return view.legal.sample(rng)

    return decide


def random_bot(address: str, ticket: str, seat: int, recording: Recording) -> MatchResult:
    return run_bot(
        random_decide(random.Random(seat)),
        address=address,
        ticket=ticket,
        name=f"random-{seat}",
        on_message=recording.messages.append,
        exit_on_error=False,  # a test sees the SeatError itself
    )


def safe_answer(decision: pb.Decision) -> pb.PlayRequest:
    """The Answer a bot finds at once: the legal set's default action."""
    return convert.answer(decision.decision_id, legal_from_message(decision.legal).default())


def instant_bot(address: str, ticket: str, seat: int, recording: Recording) -> None:
    """Answers each Decision at once (0 ms of thought) with its first legal move: the fastest
    honest bot there is."""
    client = RawClient(address)
    client.hello(ticket)
    try:
        for message in client.responses:
            recording.messages.append(message)
            kind = message.WhichOneof("response")
            if kind == "decision":
                client.send(safe_answer(message.decision))
            elif kind == "match_over":
                return
    finally:
        client.close()


def config(preset: str = "classic", **overrides: Any) -> TableConfig:
    settings: dict[str, Any] = {"seed": 1, "max_hands": 1, "decision_ms": 3000, "bank_ms": 5000}
    settings.update(overrides)
    return TableConfig(PRESETS[preset], **settings)


@dataclass
class Running:
    """What a test's hook on the server's loop may look at and act on while the tables play."""

    server: ArenaServer
    tables: list[Table]
    start: anyio.Event | None
    """Set it to let the tables begin (only with ``run_tables(..., hold=True)``)."""


async def until(condition: Callable[[], bool]) -> None:
    """Wait (on the server's loop) until ``condition()`` holds: the check runs between the table's steps,
    so a test waits for a point of the game, never for a length of time."""
    while not condition():
        await anyio.sleep(0.005)


def run_tables(
    configs: list[TableConfig],
    bots: list[list[Bot]] | None = None,
    *,
    during: Callable[[ArenaServer, list[Table]], Any] | None = None,
    in_loop: Callable[[Running], Awaitable[Any]] | None = None,
    hold: bool = False,
    timeout: float = 120.0,
    **server_options: Any,
) -> tuple[list[TableResult], list[list[Recording]]]:
    """Serve the tables, run each seat's bot in a thread, wait for every table to end.

    ``during`` runs in a thread once the bots are started; ``in_loop`` runs as a task
    beside the tables; with ``hold``, the tables begin only once ``in_loop`` sets
    ``running.start``. ``server_options`` go to :func:`open_server`. ``timeout`` only
    guards against a hang: nothing should come near it."""
    bots = bots or [[random_bot] * 4 for _ in configs]
    recordings = [[Recording() for _ in range(4)] for _ in configs]
    results: list[TableResult] = []

    async def main() -> None:
        async with open_server("127.0.0.1:0", **server_options) as server:
            start = anyio.Event() if hold else None
            tables = [server.start_table(c, start=start) for c in configs]
            threads = []
            for t, table in enumerate(tables):
                for seat in range(4):
                    bot, recording = bots[t][seat], recordings[t][seat]

                    def target(
                        bot: Bot = bot,
                        rec: Recording = recording,
                        ticket: str = table.ticket(seat),
                        s: int = seat,
                    ) -> None:
                        try:
                            bot(server.address, ticket, s, rec)
                        except BaseException as err:  # kept for the test to inspect
                            rec.error = err

                    thread = threading.Thread(target=target, daemon=True)
                    thread.start()
                    threads.append(thread)
            async with anyio.create_task_group() as nursery:
                if in_loop is not None:
                    nursery.start_soon(in_loop, Running(server, tables, start))
                if during is not None:
                    await anyio.to_thread.run_sync(during, server, tables)
                with anyio.fail_after(timeout):
                    for table in tables:
                        results.append(await server.wait(table))
            for thread in threads:
                await anyio.to_thread.run_sync(thread.join, 30.0)

    anyio.run(main, backend="asyncio")
    return results, recordings


def _encode(message: pb.PlayRequest | bytes) -> bytes:
    return message if isinstance(message, bytes) else message.SerializeToString()


class RawClient:
    """A hand-driven stream: send what you like (messages, or any bytes), read what comes
    back."""

    def __init__(self, address: str) -> None:
        self.channel = grpc.insecure_channel(address)
        self.outgoing: queue.Queue[pb.PlayRequest | bytes | None] = queue.Queue()
        play_call = self.channel.stream_stream(
            f"/{SERVICE_NAME}/Play",
            request_serializer=_encode,
            response_deserializer=pb.PlayResponse.FromString,
        )
        self.responses: Iterator[pb.PlayResponse] = play_call(self._requests())

    def _requests(self) -> Iterator[pb.PlayRequest | bytes]:
        while (message := self.outgoing.get()) is not None:
            yield message

    def hello(self, ticket: str, version: int = PROTOCOL_VERSION) -> None:
        """Send a Hello (of another protocol version when told: to see it refused)."""
        hello = convert.hello(ticket)
        hello.hello.protocol_version = version
        self.send(hello)

    def send(self, message: pb.PlayRequest | bytes) -> None:
        self.outgoing.put(message)

    def next(self, kind: str | None = None) -> pb.PlayResponse:
        """The next message (of this kind, skipping others)."""
        for message in self.responses:
            if kind is None or message.WhichOneof("response") == kind:
                return message
        raise EOFError("the stream ended")

    def close(self) -> None:
        self.outgoing.put(None)
        self.channel.close()


def silent_bot(address: str, ticket: str, seat: int, recording: Recording) -> None:
    """Connects and reads, but never answers."""
    client = RawClient(address)
    client.hello(ticket)
    try:
        for message in client.responses:
            recording.messages.append(message)
            if message.WhichOneof("response") == "match_over":
                return
    finally:
        client.close()


def watch(address: str, table: str, token: str = SPECTATOR_TOKEN) -> Any:
    """Start watching a table: iterate the result for its WatchResponses (it raises
    grpc.RpcError when the server refuses or ends the stream with a status). Cancel it with
    ``.cancel()``."""
    channel = grpc.insecure_channel(address)
    stub = arena_pb2_grpc.ArenaServiceStub(channel)
    return stub.Watch(pb.WatchRequest(table=table, token=token))


def status_of(call: Any) -> tuple[grpc.StatusCode, str]:
    """Read a stream to its end: the status it ended with, and the details."""
    try:
        for _ in call:
            pass
    except grpc.RpcError as err:
        return err.code(), err.details() or ""
    return grpc.StatusCode.OK, ""
