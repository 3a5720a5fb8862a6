"""The table server over real gRPC on localhost, for what only the wire shows: tickets and
versions refused with their status codes, a takeover seen as ABORTED by the old stream, a
spectator over the wire (one that never reads stalls nothing), grpc's message-size limit,
and each way the arena ends a stream mapped to its status. A table's own behaviour (clocks,
refusals, floods, spectators) is tested without gRPC (tests/test_table*.py)."""

from __future__ import annotations

import random

import anyio
import grpc
import pytest

from chaodipi.arena.serving.port import StreamEnd
from chaodipi.arena.serving.server import open_server
from chaodipi.arena.serving.servicer import STATUS_OF_END
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.bot import MatchResult, run_bot

from .server_support import (
    SPECTATOR_TOKEN,
    RawClient,
    Recording,
    Running,
    config,
    random_bot,
    random_decide,
    run_tables,
    until,
    watch,
)


def test_every_way_the_arena_ends_a_stream_has_its_status_code() -> None:
    assert set(STATUS_OF_END) == set(StreamEnd)
    assert STATUS_OF_END[StreamEnd.DONE] == grpc.StatusCode.OK
    assert STATUS_OF_END[StreamEnd.TAKEN_OVER] == grpc.StatusCode.ABORTED
    assert STATUS_OF_END[StreamEnd.GONE] == grpc.StatusCode.NOT_FOUND


def test_wrong_ticket_version_and_first_message() -> None:
    async def main() -> None:
        async with open_server("127.0.0.1:0") as server:
            table = server.start_table(config(connect_timeout_s=0.5, decision_ms=50, bank_ms=0))
            good = table.ticket(0)

            def attempt(send: list[pb.PlayRequest]) -> grpc.RpcError:
                client = RawClient(server.address)
                for message in send:
                    client.send(message)
                with pytest.raises(grpc.RpcError) as err:
                    client.next()
                client.close()
                return err.value

            def hello(ticket: str, version: int = 2) -> pb.PlayRequest:
                return pb.PlayRequest(hello=pb.Hello(ticket=ticket, protocol_version=version))

            def checks() -> None:
                wrong = attempt([hello(good[:-3] + "xyz")])
                assert wrong.code() == grpc.StatusCode.UNAUTHENTICATED
                assert "ticket" in (wrong.details() or "")
                assert attempt([hello("nonsense")]).code() == grpc.StatusCode.UNAUTHENTICATED
                old = attempt([hello(good, version=99)])
                assert old.code() == grpc.StatusCode.FAILED_PRECONDITION
                assert "protocol version 99" in (old.details() or "")
                first = attempt([pb.PlayRequest(answer=pb.Answer(decision_id=1))])
                assert first.code() == grpc.StatusCode.FAILED_PRECONDITION
                assert "first message must be a Hello" in (first.details() or "")

            await anyio.to_thread.run_sync(checks)
            table.stop("the test is over")

    anyio.run(main, backend="asyncio")


def test_newest_connection_wins_and_the_clock_keeps_running() -> None:
    """A second connection with the same ticket takes the seat over; the first is told why."""

    def twice(address: str, ticket: str, seat: int, recording: Recording) -> MatchResult:
        first = RawClient(address)
        first.hello(ticket)
        assert first.next("welcome").welcome.resumed is False
        second_recording = Recording()
        rng = random.Random(7)
        outcome: list[MatchResult] = []
        import threading

        def second() -> None:
            outcome.append(
                run_bot(
                    random_decide(rng),
                    address=address,
                    ticket=ticket,
                    name="second",
                    on_message=second_recording.messages.append,
                )
            )

        thread = threading.Thread(target=second)
        thread.start()
        with pytest.raises(grpc.RpcError) as err:
            while True:
                first.next()
        assert err.value.code() == grpc.StatusCode.ABORTED
        assert "newer connection" in (err.value.details() or "")
        first.close()
        thread.join(60)
        assert second_recording.messages[0].welcome.resumed is True
        assert second_recording.kinds()[1] == "snapshot"
        recording.messages.extend(second_recording.messages)
        return outcome[0]

    results, recordings = run_tables([config()], [[twice, random_bot, random_bot, random_bot]])
    assert recordings[0][0].error is None
    assert results[0].seats[0].connects == 2 and results[0].outcome.forfeited_by is None


def test_spectators_over_the_wire_and_one_that_never_reads_stalls_nothing() -> None:
    """Two spectators join before the first move: one is told it is in (``Attached``), reads
    every public event and its stream ends OK after the match's end; the other never reads,
    and the match plays on to its end regardless."""
    calls = []
    received: list[pb.WatchResponse] = []

    async def spectate(running: Running) -> None:
        table = running.tables[0]
        calls.append(watch(running.server.address, table.name))  # never iterated
        reading = watch(running.server.address, table.name)
        await until(lambda: len(table.spectators) == 2)
        assert running.start is not None
        running.start.set()
        await anyio.to_thread.run_sync(lambda: received.extend(reading))  # raises unless OK

    results, _ = run_tables(
        [config(max_hands=2)], in_loop=spectate, hold=True, spectator_token=SPECTATOR_TOKEN
    )
    assert results[0].outcome.reason == "played to the end"
    assert received[-1].match_over.reason == "played to the end"
    assert received[0].HasField("attached") and not received[0].attached.held_back
    kinds = {r.event.WhichOneof("payload") for r in received[1:-1]}
    assert {"played", "hand_over"} <= kinds and all(r.event.audience == 15 for r in received[1:-1])
    calls[0].cancel()


def test_an_oversized_message_is_refused_by_grpc() -> None:
    async def main() -> None:
        async with open_server("127.0.0.1:0") as server:
            table = server.start_table(config(connect_timeout_s=0.5, decision_ms=50, bank_ms=0))

            def oversized() -> None:
                client = RawClient(server.address)
                client.send(
                    pb.PlayRequest(hello=pb.Hello(ticket=table.ticket(0), bot_name="x" * 100_000))
                )
                with pytest.raises(grpc.RpcError) as err:
                    client.next()
                client.close()
                assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED

            await anyio.to_thread.run_sync(oversized)
            table.stop("the test is over")

    anyio.run(main, backend="asyncio")
