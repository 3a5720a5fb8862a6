"""A hostile local client that holds every stream it may: health Watch streams and reflection
streams that send their request and stay open, and Play streams that never send a Hello, over
several connections of its own. The seats holding tickets still get in and play every game; an
operator's health check still answers; what needs no credential is refused past its own small
budget. Real gRPC against ``open_server`` with caps scaled down (a dozen streams for 10,000);
each step waits for a status or a response, never for a length of time."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from structlog.testing import capture_logs

from chaodipi.arena.serving.admission import EVICTED, EVICTIONS, Kind
from chaodipi.arena.serving.server import SERVICE_NAME, open_server
from chaodipi.arena.serving.table import TableResult
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import arena_pb2_grpc, convert
from chaodipi.engine.match import Ending

from .server_support import Recording, config, random_bot, until

HANG = 60.0
"""Only bounds a hang: every wait below ends on a status or a message."""
CONNECTIONS = 3
PER_CONNECTION = 6
"""Streams of each kind the attacker tries on each of its connections."""
CAPS: dict[str, Any] = {
    "max_streams": 12,  # the Arena service's streams on the server (10,000 by default)
    "max_streams_per_connection": 10,  # the test's 8 honest bots share one connection
    "max_anonymous_streams": 4,  # credential-less streams of one kind on the server
    "max_anonymous_streams_per_connection": 3,
    "first_message_s": HANG,  # the attacker's silent Play streams are never timed out here
}


def own_connection(address: str) -> grpc.Channel:
    """A channel on a TCP connection of its own."""
    return grpc.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])


class Outgoing:
    """Requests for a stream, sent as the test puts them; the stream never half-closes."""

    def __init__(self) -> None:
        self._queue: queue.Queue[Any] = queue.Queue()

    def put(self, message: Any) -> None:
        self._queue.put(message)

    def __iter__(self) -> Iterator[Any]:
        while (message := self._queue.get()) is not None:
            yield message

    def close(self) -> None:
        self._queue.put(None)


@dataclass
class Attack:
    """The attacker's connections and the streams the server let it hold."""

    channels: list[grpc.Channel] = field(default_factory=list)
    held: dict[str, int] = field(default_factory=dict)
    """Streams the server answered and keeps open, by kind."""
    refused: dict[str, set[grpc.StatusCode]] = field(default_factory=dict)
    """The statuses of the streams it refused, by kind."""
    calls: list[Any] = field(default_factory=list)
    outgoing: list[Outgoing] = field(default_factory=list)

    def _outcome(self, kind: str, first: Any) -> None:
        try:
            next(first)
        except grpc.RpcError as err:
            self.refused.setdefault(kind, set()).add(err.code())
        else:
            self.held[kind] = self.held.get(kind, 0) + 1

    def open(self, address: str) -> None:
        """Open every stream, each waited for until the server answers or refuses it; the
        silent Play streams are only opened (the server says nothing until their Hello)."""
        for _ in range(CONNECTIONS):
            channel = own_connection(address)
            self.channels.append(channel)
            health = health_pb2_grpc.HealthStub(channel)
            reflect = reflection_pb2_grpc.ServerReflectionStub(channel)
            play = channel.stream_stream(f"/{SERVICE_NAME}/Play")
            for _ in range(PER_CONNECTION):
                watch = health.Watch(health_pb2.HealthCheckRequest(), timeout=HANG)
                self.calls.append(watch)
                self._outcome("health watch", watch)
                requests = Outgoing()
                requests.put(reflection_pb2.ServerReflectionRequest(list_services=""))
                info = reflect.ServerReflectionInfo(iter(requests), timeout=HANG)
                self.calls.append(info)
                self.outgoing.append(requests)
                self._outcome("reflection", info)
                silent = Outgoing()
                self.outgoing.append(silent)
                self.calls.append(play(iter(silent), timeout=HANG))

    def stop(self) -> None:
        for call in self.calls:
            call.cancel()
        for requests in self.outgoing:
            requests.close()
        for channel in self.channels:
            channel.close()


def health_check(address: str) -> int:
    """An operator's check, on a connection of its own."""
    with own_connection(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        return int(stub.Check(health_pb2.HealthCheckRequest(), timeout=HANG).status)


def test_a_client_holding_every_stream_it_may_stops_no_seat_and_no_health_check() -> None:
    results: list[TableResult] = []
    recordings = [Recording() for _ in range(8)]
    attack = Attack()
    checks: list[int] = []

    async def main() -> None:
        async with open_server("127.0.0.1:0", **CAPS) as server:
            await anyio.to_thread.run_sync(attack.open, server.address)
            try:
                # the silent Play streams are in (counted) before any honest seat comes
                await until(lambda: server.admission.total >= 12)
                checks.append(await anyio.to_thread.run_sync(health_check, server.address))
                start = anyio.Event()  # play begins once every seat is in: no clock raced
                tables = [server.start_table(config(seed=s), start=start) for s in (1, 2)]
                threads = []
                for t, table in enumerate(tables):
                    for seat in range(4):
                        recording = recordings[4 * t + seat]

                        def bot(
                            ticket: str = table.ticket(seat),
                            s: int = seat,
                            rec: Recording = recording,
                        ) -> None:
                            try:
                                random_bot(server.address, ticket, s, rec)
                            except BaseException as err:  # kept for the test to inspect
                                rec.error = err

                        threads.append(threading.Thread(target=bot, daemon=True))
                for thread in threads:
                    thread.start()
                with anyio.fail_after(HANG):
                    for table in tables:
                        await table.connected.wait()
                    start.set()
                    for table in tables:
                        results.append(await server.wait(table))
                for thread in threads:
                    await anyio.to_thread.run_sync(thread.join, HANG)
                checks.append(await anyio.to_thread.run_sync(health_check, server.address))
            finally:
                attack.stop()
            await until(lambda: server.admission.total == 0)

    with capture_logs() as logs:
        anyio.run(main, backend="asyncio")
    assert [r.error for r in recordings] == [None] * 8
    assert [r.kinds()[-1] for r in recordings] == ["match_over"] * 8
    assert [(r.outcome.ending, r.outcome.forfeited_by) for r in results] == [(Ending.PLAYED_OUT, None)] * 2, [
        r.outcome.reason for r in results
    ]
    serving = health_pb2.HealthCheckResponse.SERVING
    assert checks == [serving, serving]
    # what needs no credential and stays open got its own budget (4 streams), and no more
    assert sum(attack.held.values()) == 4, attack.held
    # the silent Play streams gave their places up to the streams that came after them
    assert any(e["event"] == "refused" and e["reason"] == EVICTED for e in logs)
    assert attack.refused == {
        "health watch": {grpc.StatusCode.RESOURCE_EXHAUSTED},
        "reflection": {grpc.StatusCode.RESOURCE_EXHAUSTED},
    }


# -- "try again later" ------------------------------------------------------------------------

TOKENS = [f"a-session-token-for-tests-{i}" for i in range(4)]


def enter(address: str, token: str) -> Any:
    """An Enter (a session) on a connection of its own, once the server has taken it in."""
    request = convert.enter_request(token, bot_name="holder", capacity=1, instance="")
    call = arena_pb2_grpc.ArenaServiceStub(own_connection(address)).Enter(request, timeout=HANG)
    assert next(call).HasField("entered")
    return call


def test_a_bot_the_full_server_tells_to_try_again_later_comes_back_and_plays() -> None:
    """The server is full of honest streams (4 sessions, 4 streams at most): the SDK's seats
    are refused with RESOURCE_EXHAUSTED, try again with backoff, and play once room is made."""
    recordings = [Recording() for _ in range(4)]
    results: list[TableResult] = []

    async def main() -> None:
        async with open_server("127.0.0.1:0", max_streams=4, first_message_s=HANG) as server:
            for token in TOKENS:
                server.open_door(token, token)
            sessions = [await anyio.to_thread.run_sync(enter, server.address, t) for t in TOKENS]
            start = anyio.Event()
            table = server.start_table(config(), start=start)
            threads = []
            for seat, recording in enumerate(recordings):

                def bot(
                    ticket: str = table.ticket(seat), s: int = seat, rec: Recording = recording
                ) -> None:
                    try:
                        random_bot(server.address, ticket, s, rec)
                    except BaseException as err:  # kept for the test to inspect
                        rec.error = err

                threads.append(threading.Thread(target=bot, daemon=True))
            with capture_logs() as logs:
                for thread in threads:
                    thread.start()
                await until(lambda: sum(e["event"] == "refused" for e in logs) >= 4)
                for session in sessions:
                    session.cancel()
                with anyio.fail_after(HANG):
                    await table.connected.wait()
                    start.set()
                    results.append(await server.wait(table))
            for thread in threads:
                await anyio.to_thread.run_sync(thread.join, HANG)
        refusals = {(e["code"], e["reason"]) for e in logs if e["event"] == "refused"}
        assert refusals == {
            (
                "RESOURCE_EXHAUSTED",
                "the server has 4 streams open, the most it holds: try again later",
            )
        }

    anyio.run(main, backend="asyncio")
    assert [r.error for r in recordings] == [None] * 4
    assert [r.kinds()[-1] for r in recordings] == ["match_over"] * 4
    assert results[0].outcome.ending is Ending.PLAYED_OUT


# -- the log names the rpc --------------------------------------------------------------------


def test_a_refusal_is_logged_with_the_rpc_s_full_name() -> None:
    """Health/Watch and ArenaService/Watch are two rpcs: the log tells them apart."""

    async def main() -> None:
        async with open_server(
            "127.0.0.1:0", max_streams=1, max_anonymous_streams=1, first_message_s=HANG
        ) as server:
            server.open_door(TOKENS[0], "holder")
            session = await anyio.to_thread.run_sync(enter, server.address, TOKENS[0])

            def refused() -> list[grpc.StatusCode]:
                with own_connection(server.address) as channel:
                    health = health_pb2_grpc.HealthStub(channel)
                    held = health.Watch(health_pb2.HealthCheckRequest(), timeout=HANG)
                    next(held)
                    codes = []
                    for call in (
                        health.Watch(health_pb2.HealthCheckRequest(), timeout=HANG),
                        arena_pb2_grpc.ArenaServiceStub(channel).Watch(
                            pb.WatchRequest(table="t1"), timeout=HANG
                        ),
                    ):
                        with pytest.raises(grpc.RpcError) as raised:
                            next(call)
                        codes.append(raised.value.code())
                    held.cancel()
                    return codes

            with capture_logs() as logs:
                codes = await anyio.to_thread.run_sync(refused)
            session.cancel()
            await until(lambda: server.admission.total == 0)
        assert codes == [grpc.StatusCode.RESOURCE_EXHAUSTED] * 2
        assert sorted(e["rpc"] for e in logs if e["event"] == "refused") == [
            f"{SERVICE_NAME}/Watch",
            "grpc.health.v1.Health/Watch",
        ]

    anyio.run(main, backend="asyncio")


def test_a_seat_with_its_ticket_takes_the_place_of_a_stream_that_never_said_hello() -> None:
    """The server's room is full of Play streams that never send a Hello: a seat holding its
    ticket gets in, and the oldest of them is ended with the reason."""
    silent: list[tuple[Outgoing, Any]] = []

    def open_silent(address: str) -> None:
        requests = Outgoing()
        call = own_connection(address).stream_stream(f"/{SERVICE_NAME}/Play")
        silent.append((requests, call(iter(requests), timeout=HANG)))

    def seat(address: str, ticket: str) -> str:
        with own_connection(address) as channel:
            requests = Outgoing()
            requests.put(convert.hello(ticket).SerializeToString())
            call = channel.stream_stream(f"/{SERVICE_NAME}/Play")(iter(requests), timeout=HANG)
            first = pb.PlayResponse.FromString(next(call))
            call.cancel()
            requests.close()
        return str(first.WhichOneof("response"))

    def oldest_status() -> tuple[grpc.StatusCode, str]:
        try:
            next(silent[0][1])
        except grpc.RpcError as err:
            return err.code(), err.details() or ""
        return grpc.StatusCode.OK, ""

    async def main() -> None:
        async with open_server("127.0.0.1:0", max_streams=2, first_message_s=HANG) as server:
            table = server.start_table(config())
            for _ in range(2):
                await anyio.to_thread.run_sync(open_silent, server.address)
                await until(lambda: server.admission.open(Kind.CREDENTIALED) == len(silent))
            with capture_logs():
                first = await anyio.to_thread.run_sync(seat, server.address, table.ticket(0))
                oldest = await anyio.to_thread.run_sync(oldest_status)
            for requests, call in silent:
                call.cancel()
                requests.close()
            table.stop("the test is over")
            await server.wait(table)
            await until(lambda: server.admission.total == 0)
        assert first == "welcome"
        assert oldest == (grpc.StatusCode.RESOURCE_EXHAUSTED, EVICTED)

    anyio.run(main, backend="asyncio")


def test_silent_health_checks_on_many_connections_keep_no_operators_check_out() -> None:
    """Health/Check streams that never send their request, the most each connection may hold,
    on as many connections as fill the server's room for checks (40 on 10 connections fill
    the 32 of the default caps): an operator's check still answers, and the oldest silent
    stream gives up its place with the reason (the rule that keeps a seat's room from silent
    Play streams, for every kind)."""
    connections, per_connection, room = 2, 2, 4
    silent: list[tuple[Outgoing, Any]] = []

    def open_silent(channel: grpc.Channel) -> None:
        requests = Outgoing()
        call = channel.stream_stream("/grpc.health.v1.Health/Check")
        silent.append((requests, call(iter(requests), timeout=HANG)))

    def status_of(call: Any) -> tuple[grpc.StatusCode, str]:
        try:
            next(call)
        except grpc.RpcError as err:
            return err.code(), err.details() or ""
        return grpc.StatusCode.OK, ""

    async def main() -> None:
        caps = {"max_anonymous_streams": room, "max_anonymous_streams_per_connection": 2}
        assert connections * per_connection == room
        async with open_server("127.0.0.1:0", first_message_s=HANG, **caps) as server:
            channels = [own_connection(server.address) for _ in range(connections)]
            for channel in channels:
                for _ in range(per_connection):
                    await anyio.to_thread.run_sync(open_silent, channel)
                    opened = len(silent)  # in by the server before the next: silent[0] is oldest
                    await until(lambda: server.admission.open(Kind.CHECK) == opened)  # noqa: B023
            with capture_logs() as logs:
                checked = await anyio.to_thread.run_sync(health_check, server.address)
                oldest = await anyio.to_thread.run_sync(status_of, silent[0][1])
            for requests, call in silent:
                call.cancel()
                requests.close()
            for channel in channels:
                channel.close()
            await until(lambda: server.admission.total == 0)
        assert checked == health_pb2.HealthCheckResponse.SERVING
        evicted = EVICTIONS[Kind.CHECK]
        assert oldest == (grpc.StatusCode.RESOURCE_EXHAUSTED, evicted)
        assert [e["reason"] for e in logs if e["event"] == "refused"] == [evicted]

    anyio.run(main, backend="asyncio")
