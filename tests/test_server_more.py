"""The server as generic gRPC tools, TLS, isolation between tables, a bot killed mid-match, and
what keeps results trustworthy: no honest bot cut off, no stream dying silently, spectators
only with the operator's token (and not during an embargo), released tables forgotten."""

from __future__ import annotations

import gc
import os
import random
import signal
import subprocess
import sys
import threading
import weakref
from functools import partial

import grpc
import pytest
import trio
import trustme
from google.protobuf import descriptor_pool, message_factory
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)
from structlog.testing import capture_logs

from arena.server import SERVICE_NAME, open_server
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi_bot import run_bot
from engine.actions import Action
from engine.match import Match
from engine.presets import PRESETS
from engine.replay import replay

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
from .table_support import delivered_events


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
    assert all(r.messages[-1].WhichOneof("response") == "match_over" for r in recordings[0])


def test_a_bot_process_killed_mid_match() -> None:
    """A bot process is SIGKILLed once it has made three decisions (a point of the game, not a
    moment): its seat times out, strikes out and forfeits; the other bots get the result and
    nothing hangs."""
    processes: list[subprocess.Popen[bytes]] = []
    launched = threading.Event()

    def killed_bot(address: str, ticket: str, seat: int, recording) -> None:  # type: ignore[no-untyped-def]
        process = subprocess.Popen(
            [sys.executable, "-m", "sample_bots.random_bot", "--address", address, "--seed", "1"],
            env={**os.environ, "ARENA_TICKET": ticket},
            stderr=subprocess.DEVNULL,
        )
        processes.append(process)
        launched.set()
        process.wait()

    async def kill_after_three_decisions(running: Running) -> None:
        seat = running.tables[0].seats[0]
        await until(lambda: seat.stats.decisions >= 3)
        await trio.to_thread.run_sync(launched.wait)
        processes[0].send_signal(signal.SIGKILL)

    cfg = config(max_hands=30, decision_ms=2000, bank_ms=0, max_strikes=2)
    results, recordings = run_tables(
        [cfg],
        [[killed_bot, random_bot, random_bot, random_bot]],
        in_trio=kill_after_three_decisions,
    )
    assert processes and processes[0].returncode == -signal.SIGKILL
    result = results[0]
    assert result.forfeited_by == 0 and result.winner == 1, result.reason
    assert result.seats[0].decisions >= 3 and result.seats[0].strikes == 2
    assert all(r.messages[-1].match_over.forfeited_by == 0 for r in recordings[0][1:])


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
                        target=partial(
                            run_bot,
                            random_decide(rng),
                            address=server.address,
                            ticket=table.ticket(seat),
                            name="waiting",
                        ),
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


def test_every_event_reaches_its_seat_once_in_order_one_message_per_decision(
    tmp_path,  # type: ignore[no-untyped-def]
) -> None:
    """Over two hands, each seat is sent exactly the events it may see (the match's log, read
    back from the replay, by audience), each once and in order, riding on its Snapshot, its
    Decisions and its MatchOver: nothing else carries events, and nothing else is sent."""
    results, recordings = run_tables([config(max_hands=2, seed=5, replay_dir=tmp_path)])
    result = results[0]
    assert result.reason == "played to the end" and result.hands == 2
    assert result.replay is not None
    match = replay(result.replay.read_text(encoding="utf-8").splitlines())
    for seat, recording in enumerate(recordings[0]):
        delivered = [e.seq for e in delivered_events(recording.messages)]
        assert delivered == [e.seq for e in match.log.since(0, seat)], f"seat {seat}"
        kinds = recording.kinds()
        assert set(kinds) == {"welcome", "snapshot", "decision", "match_over"}
        assert kinds.count("decision") == result.seats[seat].decisions


# -- a fast honest bot is never cut off; a flood is ------------------------------------------


@pytest.mark.parametrize("preset", list(PRESETS))
def test_an_instant_bot_plays_a_whole_match_with_no_strike(preset: str) -> None:
    """Four bots that answer each Decision the moment it arrives (0 ms), over a whole match:
    answers are never counted as a flood, so nobody is cut off, struck or refused."""
    cfg = config(preset, max_hands=None, decision_ms=10_000, bank_ms=60_000)
    results, recordings = run_tables([cfg], [[instant_bot] * 4], timeout=600)
    result = results[0]
    assert result.reason == "played to the end" and result.winner is not None
    assert all(s.strikes == 0 and s.connects == 1 for s in result.seats), result.seats
    for recording in recordings[0]:
        assert recording.error is None, recording.error
        assert "refused" not in recording.kinds() and "strike" not in recording.kinds()
        assert recording.kinds()[-1] == "match_over"


def test_a_flood_of_unasked_messages_is_cut_off_and_logged() -> None:
    """Thousands of stale actions: each takes a token of the bot's allowance of unasked
    messages; once it is gone the stream ends with RESOURCE_EXHAUSTED and one log line says
    so. The table plays on (the seat then times out and forfeits)."""
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

    cfg = config(decision_ms=2000, bank_ms=0, max_strikes=2)
    with capture_logs() as logs:
        results, recordings = run_tables([cfg], [[flooder, random_bot, random_bot, random_bot]])
    assert recordings[0][0].error is None, recordings[0][0].error
    assert outcome[0].code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "flooding" in (outcome[0].details() or "")
    assert results[0].forfeited_by == 0  # cut off, it then timed out; the others finished
    assert all(r.messages[-1].WhichOneof("response") == "match_over" for r in recordings[0][1:])
    cut = [e for e in logs if e["event"] == "flood_cut_off"]
    assert cut and cut[0]["seat"] == 0 and cut[0]["log_level"] == "warning"
    assert cut[0].get("table") == results[0].table
    # the cut-off only: the read the server's own abort then ends is not a failure to report
    assert [e for e in logs if e["event"] == "read_failed"] == []


def repeating_bot(address: str, ticket: str, seat: int, recording: Recording) -> None:
    """Answers each Decision at once, and sends its previous answer again just before: the
    copy is on the stream ahead of the answer the table waits for, so it always reaches the
    table while the match is on (however slow the machine)."""
    client = RawClient(address)
    client.hello(ticket)
    previous = None
    try:
        for message in client.responses:
            recording.messages.append(message)
            kind = message.WhichOneof("response")
            if kind == "decision":
                if previous is not None:
                    client.send(previous)
                previous = safe_answer(message.decision)
                client.send(previous)
            elif kind == "match_over":
                return
    finally:
        client.close()


def test_an_answer_sent_twice_is_refused_every_time() -> None:
    """Every seat sends each answer a second time over a whole hand: the copy is refused as
    stale, every time (an answer that reached the table while its decision was still open
    used to be dropped without a word). A seat's last answer is sent once: nothing follows it
    for the copy to go before."""
    results, recordings = run_tables([config(max_hands=1)], [[repeating_bot] * 4])
    assert results[0].reason == "played to the end"
    for seat, recording in enumerate(recordings[0]):
        asked = [m.decision.decision_id for m in recording.messages if m.HasField("decision")]
        refused = [m.refused for m in recording.messages if m.HasField("refused")]
        assert sorted(r.decision_id for r in refused) == sorted(asked[:-1]), f"seat {seat}"
        assert len(refused) > 10 and {r.code for r in refused} == {pb.REFUSAL_CODE_STALE}
    assert all(s.strikes == 0 for s in results[0].seats)


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
    assert result.reason == "played to the end" and result.seats[0].connects == 2
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

            await trio.to_thread.run_sync(attempt)

    trio.run(main)


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

                await trio.to_thread.run_sync(attempt)
                table.stop("the test is over")
                secrets = [table.ticket(s).rsplit("/", 1)[1] for s in range(4)]
        text = repr(logs)
        assert not any(secret in text for secret in [*secrets, "abcd"])
        return logs

    logs = trio.run(main)
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
                status = await trio.to_thread.run_sync(
                    _watch_status, server.address, table.name, "a guess"
                )
                if token is None:
                    assert status[0] == grpc.StatusCode.PERMISSION_DENIED
                    assert "--spectator-token" in status[1]
                else:
                    assert status[0] == grpc.StatusCode.UNAUTHENTICATED
                    assert "spectator token" in status[1]
                table.stop("the test is over")

    trio.run(main)


def test_watching_a_finished_table_ends_at_once_with_its_last_events() -> None:
    async def late_spectator(running: Running) -> None:
        table = running.tables[0]
        await running.server.wait(table)
        call = watch(running.server.address, table.name)
        received = await trio.to_thread.run_sync(lambda: list(call))
        assert [r.WhichOneof("response") for r in received] == ["event", "match_over"]
        assert received[0].event.WhichOneof("payload") == "hand_over"
        over = received[-1].match_over
        assert over.reason == "played to the end" and over.hands == 1

    results, _ = run_tables(
        [config(max_hands=1)], in_trio=late_spectator, spectator_token=SPECTATOR_TOKEN
    )
    assert results[0].reason == "played to the end"


def test_spectators_are_capped_per_table_and_in_all() -> None:
    async def main() -> None:
        async with open_server(
            "127.0.0.1:0",
            spectator_token=SPECTATOR_TOKEN,
            max_spectators_per_table=2,
            max_spectators=3,
        ) as server:
            start = trio.Event()  # never set: the tables wait, their spectators stay
            one = server.start_table(config(), start=start)
            two = server.start_table(config(), start=start)
            calls = [watch(server.address, one.name) for _ in range(2)]
            await until(lambda: len(one.spectators) == 2)
            per_table = await trio.to_thread.run_sync(
                _watch_status, server.address, one.name, SPECTATOR_TOKEN
            )
            assert per_table[0] == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "2 spectators already" in per_table[1]
            calls.append(watch(server.address, two.name))
            await until(lambda: len(two.spectators) == 1)
            in_all = await trio.to_thread.run_sync(
                _watch_status, server.address, two.name, SPECTATOR_TOKEN
            )
            assert in_all[0] == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "the server has 3 spectators" in in_all[1]
            for call in calls:
                call.cancel()
            for table in (one, two):
                table.stop("the test is over")

    trio.run(main)


def test_an_embargo_holds_back_every_event_until_it_is_lifted() -> None:
    """A spectator of a table under embargo receives nothing while it plays, not even public
    plays; once the embargo is lifted it gets the whole match's public events, then the end."""
    received: list[pb.WatchResponse] = []
    lifted = trio.Event()

    async def spectate(running: Running) -> None:
        table = running.tables[0]
        call = watch(running.server.address, table.name)
        reader = threading.Thread(target=lambda: received.extend(call), daemon=True)
        reader.start()
        await until(lambda: bool(table.spectators))
        assert running.start is not None
        running.start.set()
        await running.server.wait(table)
        # the table is over and the spectator is still there, having had nothing
        assert table.spectators and not received
        lifted.set()
        await trio.to_thread.run_sync(reader.join)

    async def main() -> None:
        async with open_server("127.0.0.1:0", spectator_token=SPECTATOR_TOKEN) as server:
            start = trio.Event()
            table = server.start_table(config(max_hands=1), start=start, spectators_after=lifted)
            bots = [
                threading.Thread(
                    target=instant_bot,
                    args=(server.address, table.ticket(s), s, Recording()),
                    daemon=True,
                )
                for s in range(4)
            ]
            for bot in bots:
                bot.start()
            await spectate(Running(server, [table], start))

    trio.run(main)
    kinds = [r.event.WhichOneof("payload") or r.WhichOneof("response") for r in received]
    assert "played" in kinds and kinds.count("hand_over") == 1 and kinds[-1] == "match_over"


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
            watching = table.spectators
            await until(lambda: bool(watching))
            with pytest.raises(ValueError, match="still playing"):
                server.release(table)
            table.stop("seat 3 never came")  # (its connect timeout would do the same)
            await server.wait(table)
            for thread in threads:
                await trio.to_thread.run_sync(thread.join)
            ticket, name = table.ticket(0), table.name
            server.release(table)
            gone = weakref.ref(table)
            del table
            await trio.to_thread.run_sync(lambda: status_of(call))
            await trio.sleep(0)  # let the bridge run what was queued
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

            await trio.to_thread.run_sync(late)

    trio.run(main)
