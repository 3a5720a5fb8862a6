"""The server over real gRPC, for what only the wire shows: generic gRPC tools (reflection,
health), TLS, a flood cut off with its status, no stream dying silently (bytes that do not
parse), refused logins logged, spectators only with the operator's token and within the
caps, released tables forgotten. A table's own behaviour: tests/test_table*.py."""

from __future__ import annotations

import gc
import random
import threading
import weakref

import anyio
import grpc
import pytest
import trustme
from google.protobuf import descriptor_pool, message_factory
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)
from structlog.testing import capture_logs

from chaodipi.arena.serving.server import SERVICE_NAME, open_server
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.bot import run_bot

from .server_support import (
    SPECTATOR_TOKEN,
    RawClient,
    Recording,
    Running,
    config,
    instant_bot,
    random_bot,
    random_decide,
    run_tables,
    safe_answer,
    status_of,
    until,
    watch,
)


def test_reflection_lists_describes_and_calls_the_service() -> None:
    async def main() -> None:
        async with open_server("127.0.0.1:0", spectator_token=SPECTATOR_TOKEN) as server:

            def generic_client() -> None:
                channel = grpc.insecure_channel(server.address)
                database = ProtoReflectionDescriptorDatabase(channel)
                services = set(database.get_services())
                assert SERVICE_NAME == "chaodipi.arena.v2.ArenaService"
                assert {SERVICE_NAME, "grpc.health.v1.Health"} <= services
                pool = descriptor_pool.DescriptorPool(database)
                service = pool.FindServiceByName(SERVICE_NAME)
                assert {m.name for m in service.methods} == {"Enter", "Play", "Watch"}
                watch = service.FindMethodByName("Watch")
                request_class = message_factory.GetMessageClass(watch.input_type)
                reply_class = message_factory.GetMessageClass(watch.output_type)
                call = channel.unary_stream(
                    f"/{SERVICE_NAME}/Watch",
                    request_serializer=request_class.SerializeToString,
                    response_deserializer=reply_class.FromString,
                )
                try:
                    list(call(request_class(table="no-such-table", token=SPECTATOR_TOKEN)))
                except grpc.RpcError as err:
                    assert err.code() == grpc.StatusCode.NOT_FOUND
                    assert "no table 'no-such-table'" in (err.details() or "")
                else:
                    raise AssertionError("watching an unknown table should fail")
                health = health_pb2_grpc.HealthStub(channel)
                reply = health.Check(health_pb2.HealthCheckRequest(service=SERVICE_NAME))
                assert reply.status == health_pb2.HealthCheckResponse.SERVING
                channel.close()

            await anyio.to_thread.run_sync(generic_client)

    anyio.run(main, backend="asyncio")


def test_tls() -> None:
    ca = trustme.CA()
    cert = ca.issue_cert("localhost")
    key = cert.private_key_pem.bytes()
    chain = b"".join(blob.bytes() for blob in cert.cert_chain_pems)

    async def main() -> None:
        async with open_server(
            "localhost:0", plaintext=False, tls_cert=chain, tls_key=key
        ) as server:
            table = server.start_table(config())
            results = []

            def bot(seat: int) -> None:
                import random

                rng = random.Random(seat)
                results.append(
                    run_bot(
                        random_decide(rng),
                        address=server.address,
                        ticket=table.ticket(seat),
                        name="tls",
                        root_certificate=ca.cert_pem.bytes(),
                    )
                )

            threads = [threading.Thread(target=bot, args=(s,)) for s in range(4)]
            for thread in threads:
                thread.start()
            result = await server.wait(table)
            for thread in threads:
                await anyio.to_thread.run_sync(thread.join)
            assert result.outcome.reason == "played to the end" and len(results) == 4

    anyio.run(main, backend="asyncio")


# -- a flood, on the wire -----------------------------------------------------------------------


def test_a_flood_of_unasked_messages_is_cut_off_and_logged() -> None:
    """Thousands of stale actions over the wire: once the bot's allowance is gone (or its
    outbox of Refused is full, unread) the stream ends with RESOURCE_EXHAUSTED saying why, and one log line
    says so, bound to the table and seat; the read the server's own cut-off then ends is no
    failure to report. (What the table does, exactly: tests/test_table.py.)"""
    outcome: list[grpc.RpcError] = []

    def flooder(address: str, ticket: str, seat: int, recording: Recording) -> None:
        client = RawClient(address)
        client.hello(ticket)
        client.next("welcome")
        junk = pb.PlayRequest(answer=pb.Answer(decision_id=424242))
        for _ in range(5000):
            client.send(junk)
        with pytest.raises(grpc.RpcError) as err:
            while True:
                recording.messages.append(client.next())
        outcome.append(err.value)
        client.close()

    async def stop_once_cut_off(running: Running) -> None:
        await until(lambda: bool(outcome))
        running.tables[0].stop("the test is over")

    with capture_logs() as logs:
        results, recordings = run_tables(
            [config()],
            [[flooder, random_bot, random_bot, random_bot]],
            in_loop=stop_once_cut_off,
        )
    assert recordings[0][0].error is None, recordings[0][0].error
    assert outcome[0].code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "flooding" in (outcome[0].details() or "")
    assert all(r.messages[-1].WhichOneof("response") == "match_over" for r in recordings[0][1:])
    cut = [e for e in logs if e["event"] == "flood_cut_off"]
    assert cut and cut[0]["seat"] == 0 and cut[0]["log_level"] == "warning"
    assert cut[0].get("table") == results[0].table
    assert [e for e in logs if e["event"] == "read_failed"] == []


# -- a stream never dies silently -------------------------------------------------------------

GARBAGE = b"\xff\xff\xff\xff\xff"
"""Not a PlayRequest: a field number past protobuf's range."""


def test_garbage_mid_stream_ends_it_with_invalid_argument_and_the_seat_reconnects() -> None:
    outcome: list[grpc.RpcError] = []

    def garbler(address: str, ticket: str, seat: int, recording: Recording) -> object:
        client = RawClient(address)
        client.hello(ticket)
        answered = 0
        with pytest.raises(grpc.RpcError) as err:
            for message in client.responses:
                if message.HasField("decision"):
                    answered += 1
                    if answered == 3:
                        client.send(GARBAGE)
                    else:
                        client.send(safe_answer(message.decision))
        outcome.append(err.value)
        client.close()
        rng = random.Random(seat)
        return run_bot(random_decide(rng), address=address, ticket=ticket, name="garbler")

    with capture_logs() as logs:
        results, recordings = run_tables(
            [config(decision_ms=5000)], [[garbler, random_bot, random_bot, random_bot]]
        )
    assert recordings[0][0].error is None, recordings[0][0].error
    assert outcome[0].code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "does not parse as a PlayRequest" in (outcome[0].details() or "")
    assert "reconnect" in (outcome[0].details() or "")
    result = results[0]
    assert result.outcome.reason == "played to the end" and result.seats[0].connects == 2
    logged = [e for e in logs if e["event"] == "unparsable_message"]
    assert logged and logged[0]["seat"] == 0 and logged[0]["table"] == result.table


def test_a_first_message_that_does_not_parse_gets_invalid_argument() -> None:
    """A Hello whose ticket is not UTF-8: INVALID_ARGUMENT with the reason (grpc alone said
    UNKNOWN)."""
    ticket = b"\x0a\x04\xff\xfe\xfd\xfc"  # Hello.ticket = 4 bytes that are not UTF-8
    hello = b"\x0a" + bytes([len(ticket) + 2]) + ticket + b"\x10\x01"  # + protocol_version 1

    async def main() -> None:
        async with open_server("127.0.0.1:0") as server:

            def attempt() -> None:
                client = RawClient(server.address)
                client.send(hello)
                with pytest.raises(grpc.RpcError) as err:
                    client.next()
                client.close()
                assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
                assert "does not parse as a PlayRequest" in (err.value.details() or "")

            await anyio.to_thread.run_sync(attempt)

    anyio.run(main, backend="asyncio")


def test_refused_logins_are_logged_with_the_peer_and_never_the_ticket() -> None:
    async def main() -> list[dict[str, object]]:
        with capture_logs() as logs:
            async with open_server("127.0.0.1:0") as server:
                table = server.start_table(config(connect_timeout_s=0.5, decision_ms=50))
                wrong = table.ticket(0)[:-4] + "abcd"

                def attempt() -> None:
                    client = RawClient(server.address)
                    client.hello(wrong)
                    with pytest.raises(grpc.RpcError):
                        client.next()
                    client.close()

                await anyio.to_thread.run_sync(attempt)
                table.stop("the test is over")
                secrets = [table.ticket(s).rsplit("/", 1)[1] for s in range(4)]
        text = repr(logs)
        assert not any(secret in text for secret in [*secrets, "abcd"])
        return logs

    logs = anyio.run(main, backend="asyncio")
    refused = [e for e in logs if e["event"] == "refused"]
    assert refused and refused[0]["code"] == "UNAUTHENTICATED"
    assert refused[0]["peer"] and refused[0]["reason"] == "unknown or wrong ticket"
    assert refused[0]["table"] == "t1"


# -- spectators ---------------------------------------------------------------------------------


def _watch_status(address: str, table: str, token: str) -> tuple[grpc.StatusCode, str]:
    return status_of(watch(address, table, token))


def test_watch_is_off_without_a_spectator_token_and_needs_the_right_one() -> None:
    async def main() -> None:
        for token in (None, SPECTATOR_TOKEN):
            async with open_server("127.0.0.1:0", spectator_token=token) as server:
                table = server.start_table(config(connect_timeout_s=0.2, decision_ms=50))
                status = await anyio.to_thread.run_sync(
                    _watch_status, server.address, table.name, "a guess"
                )
                if token is None:
                    assert status[0] == grpc.StatusCode.PERMISSION_DENIED
                    assert "--spectator-token" in status[1]
                else:
                    assert status[0] == grpc.StatusCode.UNAUTHENTICATED
                    assert "spectator token" in status[1]
                table.stop("the test is over")

    anyio.run(main, backend="asyncio")


def test_spectators_are_capped_per_table_and_in_all() -> None:
    async def main() -> None:
        async with open_server(
            "127.0.0.1:0",
            spectator_token=SPECTATOR_TOKEN,
            max_spectators_per_table=2,
            max_spectators=3,
        ) as server:
            start = anyio.Event()  # never set: the tables wait, their spectators stay
            one = server.start_table(config(), start=start)
            two = server.start_table(config(), start=start)
            calls = [watch(server.address, one.name) for _ in range(2)]
            await until(lambda: len(one.spectators) == 2)
            per_table = await anyio.to_thread.run_sync(
                _watch_status, server.address, one.name, SPECTATOR_TOKEN
            )
            assert per_table[0] == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "2 spectators already" in per_table[1]
            calls.append(watch(server.address, two.name))
            await until(lambda: len(two.spectators) == 1)
            in_all = await anyio.to_thread.run_sync(
                _watch_status, server.address, two.name, SPECTATOR_TOKEN
            )
            assert in_all[0] == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "the server has 3 spectators" in in_all[1]
            for call in calls:
                call.cancel()
            for table in (one, two):
                table.stop("the test is over")

    anyio.run(main, backend="asyncio")


# -- released tables ----------------------------------------------------------------------------


def test_a_released_table_is_forgotten_and_a_late_play_or_watch_is_told() -> None:
    """After release nothing of the table stays alive (not a session's offer of its seat,
    connections or spectators), and a Play or Watch naming it gets NOT_FOUND saying it is over."""

    async def main() -> None:
        async with open_server("127.0.0.1:0", spectator_token=SPECTATOR_TOKEN) as server:
            table = server.start_table(config(max_hands=1))
            # a seat offered to a session that never enters
            server.open_door("external-bot-token", "outside").session().offer(table, 3)
            threads = [
                threading.Thread(
                    target=instant_bot,
                    args=(server.address, table.ticket(s), s, Recording()),
                    daemon=True,
                )
                for s in range(3)
            ]
            for thread in threads:
                thread.start()
            call = watch(server.address, table.name)
            watching, seats = table.spectators, table.seats
            # every bot in before the stop: one that came after would be refused, and the
            # refusal's traceback, kept by grpc, would hold the table
            await until(lambda: bool(watching) and all(s.connection for s in seats[:3]))
            with pytest.raises(ValueError, match="still playing"):
                server.release(table)
            table.stop("seat 3 never came")  # (its connect timeout would do the same)
            await server.wait(table)
            for thread in threads:
                await anyio.to_thread.run_sync(thread.join)
            ticket, name = table.ticket(0), table.name
            server.release(table)
            gone = weakref.ref(table)
            del table
            await anyio.to_thread.run_sync(lambda: status_of(call))
            await anyio.sleep(0)  # let the bridge run what was queued
            gc.collect()
            assert gone() is None, gc.get_referrers(gone())
            assert name not in server.tables

            def late() -> None:
                client = RawClient(server.address)
                client.hello(ticket)
                with pytest.raises(grpc.RpcError) as err:
                    client.next()
                client.close()
                assert err.value.code() == grpc.StatusCode.NOT_FOUND
                assert "over and released" in (err.value.details() or "")
                code, details = status_of(watch(server.address, name))
                assert code == grpc.StatusCode.NOT_FOUND and "over and released" in details

            await anyio.to_thread.run_sync(late)

    anyio.run(main, backend="asyncio")
