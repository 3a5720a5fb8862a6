"""What a hostile or careless peer meets: one server per port, streams that never start ended
at their first-message deadline, caps on streams per connection and in all, and one answer for
a ticket or token whose games are over. Real gRPC against ``open_server``; each test waits for
the status the server sends (``HANG`` only bounds a hang)."""

from __future__ import annotations

import queue
from collections.abc import Iterator
from typing import Any

import anyio
import grpc
import pytest
from structlog.testing import capture_logs

import chaodipi.arena.serving.server
from chaodipi.arena.errors import AddressError
from chaodipi.arena.serving.server import SERVICE_NAME, ArenaServer, open_server
from chaodipi.arena.v2 import arena_pb2_grpc, convert

from .server_support import SPECTATOR_TOKEN, RawClient, config, status_of, until

HANG = 60.0
TOKEN = "a-session-token-for-tests"


def _raw(data: bytes) -> bytes:
    return data


class Silent:
    """A stream opened on ``channel`` that sends nothing until :meth:`close`."""

    def __init__(self, channel: grpc.Channel, method: str) -> None:
        self._outgoing: queue.Queue[bytes | None] = queue.Queue()
        call = channel.stream_stream(
            f"/{method}", request_serializer=_raw, response_deserializer=_raw
        )
        self.call: Any = call(self._requests(), timeout=HANG)

    def _requests(self) -> Iterator[bytes]:
        while (message := self._outgoing.get()) is not None:
            yield message

    def close(self) -> None:
        """Cancel the stream (it never half-closes: the server sees no end of requests)."""
        self.call.cancel()
        self._outgoing.put(None)


def own_connection(address: str) -> grpc.Channel:
    """A channel on a TCP connection of its own (grpc shares one among a process's channels
    to the same address by default)."""
    return grpc.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])


def first_to_end(calls: list[Any]) -> Any:
    """The first of ``calls`` to end (with a status)."""
    ended: queue.Queue[Any] = queue.Queue()
    for call in calls:
        call.add_done_callback(ended.put)
    return ended.get(timeout=HANG)


def enter(channel: grpc.Channel, token: str = TOKEN) -> Any:
    """An Enter (a session) on ``channel``."""
    request = convert.enter_request(token, bot_name="t", capacity=1, instance="")
    return arena_pb2_grpc.ArenaServiceStub(channel).Enter(request, timeout=HANG)


# -- one server per port ------------------------------------------------------------------------


def test_a_second_server_on_a_taken_port_fails_at_once_naming_the_address() -> None:
    async def main() -> None:
        async with open_server("127.0.0.1:0") as first:
            with pytest.raises(AddressError, match=rf"127\.0\.0\.1:{first.port}.*in use"):
                async with open_server(f"127.0.0.1:{first.port}"):
                    pass

    anyio.run(main, backend="asyncio")


def test_grpc_itself_never_shares_the_port(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the arena's own check of the address, grpc's bind fails too: SO_REUSEPORT is
    off (with it, both servers would take the port and split the bots between them)."""
    monkeypatch.setattr(chaodipi.arena.serving.server, "check_can_listen", lambda address: None)

    async def main() -> None:
        async with open_server("127.0.0.1:0") as first:
            with pytest.raises(AddressError, match=rf"cannot listen on 127\.0\.0\.1:{first.port}"):
                async with open_server(f"127.0.0.1:{first.port}"):
                    pass

    anyio.run(main, backend="asyncio")


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("nonsense", "is not HOST:PORT"),
        ("127.0.0.1:99999", "the port must be a number from 0 to 65535"),
        ("no-such-host.invalid:0", "no such host"),
    ],
)
def test_an_address_that_cannot_be_served_is_one_clear_error(address: str, why: str) -> None:
    async def main() -> None:
        async with open_server(address):
            pass

    with pytest.raises(AddressError, match=why):
        anyio.run(main, backend="asyncio")


# -- the first message's deadline ---------------------------------------------------------------

ARENA = SERVICE_NAME
NEVER_STARTED = [
    (f"{ARENA}/Enter", "no request within 0.5 s"),
    (f"{ARENA}/Watch", "no request within 0.5 s"),
    (f"{ARENA}/Play", "no Hello within 0.5 s"),
    ("grpc.health.v1.Health/Check", "no request within 0.5 s"),
    ("grpc.health.v1.Health/Watch", "no request within 0.5 s"),
    ("grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", "no message within 0.5 s"),
]


@pytest.mark.parametrize(("method", "reason"), NEVER_STARTED)
def test_a_stream_whose_first_message_never_comes_is_ended(method: str, reason: str) -> None:
    """Every rpc the server answers: grpc alone held an Enter or Watch whose request never
    came open for as long as the peer liked."""

    async def main() -> None:
        async with open_server("127.0.0.1:0", first_message_s=0.5) as server:

            def attempt() -> tuple[grpc.StatusCode, str]:
                with grpc.insecure_channel(server.address) as channel:
                    stream = Silent(channel, method)
                    return status_of(stream.call)

            code, details = await anyio.to_thread.run_sync(attempt)
            assert code == grpc.StatusCode.FAILED_PRECONDITION, (code, details)
            assert reason in details
            await until(lambda: server.admission.total == 0)  # nothing is left counted

    anyio.run(main, backend="asyncio")


# -- caps on streams ----------------------------------------------------------------------------


def test_a_connection_past_its_cap_is_refused_and_other_connections_go_on() -> None:
    async def main() -> None:
        async with open_server(
            "127.0.0.1:0", max_streams_per_connection=3, first_message_s=HANG
        ) as server:
            server.open_door(TOKEN, "tester")

            def attempt() -> None:
                with grpc.insecure_channel(server.address) as crowded:
                    streams = [Silent(crowded, f"{ARENA}/Enter") for _ in range(4)]
                    refused = first_to_end([s.call for s in streams])
                    assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                    assert "this connection has 3 streams open" in refused.details()
                    with own_connection(server.address) as other:
                        session = enter(other)
                        assert next(session).HasField("entered")
                        session.cancel()
                    for stream in streams:
                        stream.close()

            with capture_logs() as logs:
                await anyio.to_thread.run_sync(attempt)
                await until(lambda: server.admission.total == 0)
            refusals = [e for e in logs if e["event"] == "refused"]
            assert [e["code"] for e in refusals] == ["RESOURCE_EXHAUSTED"]
            assert refusals[0]["rpc"] == f"{ARENA}/Enter" and refusals[0]["peer"]

    anyio.run(main, backend="asyncio")


def test_the_server_past_its_cap_refuses_every_connection_until_streams_end() -> None:
    async def main() -> None:
        async with open_server("127.0.0.1:0", max_streams=2, first_message_s=HANG) as server:
            server.open_door(TOKEN, "tester")
            server.open_door(TOKEN + "-2", "tester-2")

            def fill() -> list[Any]:
                sessions = []
                for token in (TOKEN, TOKEN + "-2"):
                    sessions.append(enter(own_connection(server.address), token))
                    assert next(sessions[-1]).HasField("entered")  # held open, counted
                with own_connection(server.address) as late:
                    code, details = status_of(Silent(late, f"{ARENA}/Watch").call)
                assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert "the server has 2 streams open" in details
                return sessions

            sessions = await anyio.to_thread.run_sync(fill)
            for session in sessions:
                session.cancel()
            await until(lambda: server.admission.total == 0)

            def again() -> None:
                with own_connection(server.address) as channel:
                    session = enter(channel)
                    assert next(session).HasField("entered")
                    session.cancel()

            await anyio.to_thread.run_sync(again)

    anyio.run(main, backend="asyncio")


def test_a_hello_and_an_enter_of_another_protocol_version_get_the_same_refusal() -> None:
    """Play and Enter check the version with the one rule (convert.unsupported_version)."""

    async def main() -> None:
        async with open_server("127.0.0.1:0") as server:
            table = server.start_table(config())
            server.open_door(TOKEN, "tester")

            def both() -> tuple[tuple[grpc.StatusCode, str], tuple[grpc.StatusCode, str]]:
                client = RawClient(server.address)
                client.hello(table.ticket(0), version=1)
                try:
                    client.next()
                    play = (grpc.StatusCode.OK, "")
                except grpc.RpcError as err:
                    play = (err.code(), err.details() or "")
                finally:
                    client.close()
                request = convert.enter_request(TOKEN, bot_name="t", capacity=1, instance="")
                request.protocol_version = 1
                with own_connection(server.address) as channel:
                    stub = arena_pb2_grpc.ArenaServiceStub(channel)
                    return play, status_of(stub.Enter(request, timeout=HANG))

            play, enter_ = await anyio.to_thread.run_sync(both)
            table.stop("the test is over")
            await server.wait(table)
        refusal = (grpc.StatusCode.FAILED_PRECONDITION, convert.unsupported_version(1))
        assert play == refusal
        assert enter_ == refusal

    anyio.run(main, backend="asyncio")


# -- after the end: one answer ------------------------------------------------------------------


def _play_status(server: ArenaServer, ticket: str) -> tuple[grpc.StatusCode, str]:
    client = RawClient(server.address)
    client.hello(ticket)
    try:
        message = client.next()
    except grpc.RpcError as err:
        return err.code(), err.details() or ""
    finally:
        client.close()
    return grpc.StatusCode.OK, str(message.WhichOneof("response"))


def test_a_ticket_of_a_finished_match_gets_not_found_held_or_released() -> None:
    """`arena run` holds a finished table until its deal's other games end, `arena serve`
    releases it at once: a late Play gets the same answer from both."""

    async def main() -> None:
        async with open_server("127.0.0.1:0", spectator_token=SPECTATOR_TOKEN) as server:
            table = server.start_table(config())
            table.stop("over before it began")
            await server.wait(table)
            ticket = table.ticket(2)
            held = await anyio.to_thread.run_sync(_play_status, server, ticket)
            guessed = await anyio.to_thread.run_sync(_play_status, server, ticket[:-3] + "abc")
            server.release(table)
            released = await anyio.to_thread.run_sync(_play_status, server, ticket)
        assert held[0] == grpc.StatusCode.NOT_FOUND and "is over" in held[1], held
        assert guessed[0] == grpc.StatusCode.NOT_FOUND, guessed
        assert released[0] == grpc.StatusCode.NOT_FOUND and "is over" in released[1], released

    anyio.run(main, backend="asyncio")


def test_an_enter_once_its_door_closed_is_refused_with_the_reason() -> None:
    """A session open when the run ends is ended with status OK; an Enter with that token
    afterwards gets FAILED_PRECONDITION saying no more games come (it used to end OK without
    an Entered, which the docs did not describe)."""

    async def main() -> None:
        async with open_server("127.0.0.1:0") as server:
            door = server.open_door(TOKEN, "tester")

            def first() -> Any:
                session = enter(own_connection(server.address))
                assert next(session).HasField("entered")
                return session

            session = await anyio.to_thread.run_sync(first)
            server.close_door(door)
            assert await anyio.to_thread.run_sync(status_of, session) == (grpc.StatusCode.OK, "")

            def late() -> tuple[grpc.StatusCode, str]:
                with own_connection(server.address) as channel:
                    return status_of(enter(channel))

            code, details = await anyio.to_thread.run_sync(late)
        assert code == grpc.StatusCode.FAILED_PRECONDITION
        assert "no more games with this token" in details

    anyio.run(main, backend="asyncio")
