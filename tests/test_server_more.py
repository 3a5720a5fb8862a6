"""The server as generic gRPC tools, TLS, isolation between tables, and a bot killed mid-match."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from functools import partial

import grpc
import trio
import trustme
from google.protobuf import descriptor_pool, message_factory
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from arena.server import SERVICE_NAME, open_server
from engine.actions import Action
from engine.match import Match
from engine.presets import PRESETS
from sample_bots.sdk import play, random_action

from .server_support import (
    config,
    delivered_events,
    events_in,
    random_bot,
    run_tables,
    streaming_random_bot,
)


def test_reflection_lists_describes_and_calls_the_service() -> None:
    async def main() -> None:
        async with open_server("127.0.0.1:0") as server:

            def generic_client() -> None:
                channel = grpc.insecure_channel(server.address)
                database = ProtoReflectionDescriptorDatabase(channel)
                services = set(database.get_services())
                assert SERVICE_NAME == "chaodipi.arena.v1.Arena"
                assert {SERVICE_NAME, "grpc.health.v1.Health"} <= services
                pool = descriptor_pool.DescriptorPool(database)
                service = pool.FindServiceByName(SERVICE_NAME)
                assert {m.name for m in service.methods} == {"Play", "Watch"}
                watch = service.FindMethodByName("Watch")
                request_class = message_factory.GetMessageClass(watch.input_type)
                reply_class = message_factory.GetMessageClass(watch.output_type)
                call = channel.unary_stream(
                    f"/{SERVICE_NAME}/Watch",
                    request_serializer=request_class.SerializeToString,
                    response_deserializer=reply_class.FromString,
                )
                try:
                    list(call(request_class(table="no-such-table")))
                except grpc.RpcError as err:
                    assert err.code() == grpc.StatusCode.NOT_FOUND
                    assert "no table 'no-such-table'" in (err.details() or "")
                else:
                    raise AssertionError("watching an unknown table should fail")
                health = health_pb2_grpc.HealthStub(channel)
                reply = health.Check(health_pb2.HealthCheckRequest(service=SERVICE_NAME))
                assert reply.status == health_pb2.HealthCheckResponse.SERVING
                channel.close()

            await trio.to_thread.run_sync(generic_client)

    trio.run(main)


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
                    play(
                        server.address,
                        table.ticket(seat),
                        lambda t: random_action(t, rng),
                        root_certificate=ca.cert_pem.bytes(),
                    )
                )

            threads = [threading.Thread(target=bot, args=(s,)) for s in range(4)]
            for thread in threads:
                thread.start()
            result = await server.wait(table)
            for thread in threads:
                await trio.to_thread.run_sync(thread.join)
            assert result.reason == "played to the end" and len(results) == 4

    trio.run(main)


def test_a_failing_table_does_not_disturb_another() -> None:
    class Broken(Match):
        __slots__ = ()

        def apply(self, seat: int, action: Action) -> None:
            if len(self.actions) >= 20:
                raise RuntimeError("simulated engine failure")
            super().apply(seat, action)

    def sabotage(server, tables) -> None:  # type: ignore[no-untyped-def]
        tables[0].match.__class__ = Broken

    results, recordings = run_tables(
        [config(max_hands=2), config(max_hands=2, seed=9)], during=sabotage
    )
    assert results[0].reason.startswith("the table failed: RuntimeError: simulated engine failure")
    assert results[0].winner is None
    assert results[1].reason == "played to the end"
    # the broken table's bots were told, not left hanging
    assert all(r.messages[-1].WhichOneof("message") == "match_over" for r in recordings[0])


def test_a_bot_process_killed_mid_match() -> None:
    """A bot process is SIGKILLed: its seat times out, strikes out and forfeits; the other bots
    get the result and nothing hangs."""
    processes: list[subprocess.Popen[bytes]] = []

    def killed_bot(address: str, ticket: str, seat: int, recording) -> None:  # type: ignore[no-untyped-def]
        process = subprocess.Popen(
            [sys.executable, "-m", "sample_bots.random_bot", "--address", address, "--seed", "1"],
            env={**os.environ, "ARENA_TICKET": ticket},
            stderr=subprocess.DEVNULL,
        )
        processes.append(process)
        time.sleep(1.5)
        process.send_signal(signal.SIGKILL)
        process.wait()

    cfg = config(max_hands=30, decision_ms=1000, bank_ms=0, max_strikes=2)
    started = time.perf_counter()
    results, recordings = run_tables([cfg], [[killed_bot, random_bot, random_bot, random_bot]])
    assert processes and processes[0].returncode == -signal.SIGKILL
    result = results[0]
    assert result.forfeited_by == 0 and result.winner == 1, result.reason
    assert all(r.messages[-1].match_over.forfeited_by == 0 for r in recordings[0][1:])
    assert time.perf_counter() - started < 30
    assert PRESETS["classic"].name == "classic"


def test_tables_given_a_start_event_begin_together_once_it_is_set() -> None:
    async def main() -> None:
        async with open_server("127.0.0.1:0") as server:
            start = trio.Event()
            tables = [server.start_table(config(max_hands=1), start=start) for _ in range(2)]
            threads = []
            for table in tables:
                for seat in range(4):
                    rng = random.Random(seat)
                    thread = threading.Thread(
                        target=play,
                        args=(server.address, table.ticket(seat), partial(random_action, rng=rng)),
                        daemon=True,
                    )
                    thread.start()
                    threads.append(thread)
            for table in tables:
                await table.connected.wait()
            await trio.sleep(0.3)
            # every bot is in, yet nobody has been asked anything: the tables wait for the start
            assert all(s.stats.decisions == 0 for t in tables for s in t.seats)
            start.set()
            results = [await server.wait(t) for t in tables]
            assert [r.reason for r in results] == ["played to the end"] * 2
            assert all(t.latencies for t in tables)
            for thread in threads:
                await trio.to_thread.run_sync(thread.join, 10.0)

    trio.run(main)


def test_events_in_decisions_reach_the_seat_once_each_with_one_message_per_decision() -> None:
    """Hello.events_in_decisions (seat 0) against the streaming default (seats 1-3), over two
    hands: each seat gets every event it may see exactly once and in order; seat 0 is sent no
    separate events except the batch that closes each hand, and seats 1-3 get new_events 0."""
    bots = [[random_bot, streaming_random_bot, streaming_random_bot, streaming_random_bot]]
    results, recordings = run_tables([config(max_hands=2, seed=5)], bots)
    assert results[0].reason == "played to the end" and results[0].hands == 2
    for seat, recording in enumerate(recordings[0]):
        delivered = [e.sequence for e in delivered_events(recording.messages)]
        everything = {e.sequence for m in recording.messages for e in events_in(m)}
        assert delivered == sorted(everything), f"seat {seat}: an event lost or sent twice"
        decisions = [
            m.decision for m in recording.messages if m.WhichOneof("message") == "decision"
        ]
        streamed = [m for m in recording.messages if m.WhichOneof("message") in ("event", "events")]
        if seat == 0:
            assert sum(d.new_events for d in decisions) > 100
            # only each hand's closing batch, which ends with that hand's result
            assert len(streamed) == 2
            assert all(m.events.events[-1].kind == "hand_over" for m in streamed)
        else:
            assert all(d.new_events == 0 for d in decisions)
            assert len(streamed) >= len(decisions)
