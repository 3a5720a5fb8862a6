"""The table server over real gRPC on localhost: whole matches, clocks, refusals, reconnects."""

from __future__ import annotations

import random
import time

import grpc
import pytest
import trio

from arena.server import open_server
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi_bot import MatchResult, Play, run_bot
from chaodipi_bot.wire import legal_from_message
from engine.cards import parse_cards
from engine.replay import replay

from .server_support import (
    SPECTATOR_TOKEN,
    RawClient,
    Recording,
    Running,
    answer,
    config,
    random_bot,
    random_decide,
    run_tables,
    safe_answer,
    silent_bot,
    until,
    watch,
)


def winner_of(over: pb.MatchOver) -> int | None:
    return over.winner if over.HasField("winner") else None


def test_whole_matches_on_two_tables_at_once(tmp_path) -> None:  # type: ignore[no-untyped-def]
    configs = [
        config("classic", max_hands=2, replay_dir=tmp_path),
        config("anchao", seed=2, replay_dir=tmp_path),
    ]
    results, recordings = run_tables(configs)
    for result, seats in zip(results, recordings, strict=True):
        assert result.forfeited_by is None and result.reason == "played to the end"
        assert all(s.strikes == 0 and s.illegal == 0 for s in result.seats)
        for recording in seats:
            assert recording.error is None
            assert recording.kinds()[:2] == ["welcome", "snapshot"]
            assert recording.kinds()[-1] == "match_over"
            over = recording.messages[-1].match_over
            assert winner_of(over) == result.winner and over.ending == pb.ENDING_PLAYED_OUT
        # the replay the table wrote reproduces the match, checked step by step
        assert result.replay is not None
        again = replay(result.replay.read_text(encoding="utf-8").splitlines())
        assert len(again.records) == result.hands
        assert "ticket" not in result.replay.read_text(encoding="utf-8")


def test_timeouts_default_moves_strikes_forfeit() -> None:
    """A bot that never answers: each decision times out, the server plays for it and says
    so, and after max_strikes its team forfeits the match."""
    cfg = config("classic", decision_ms=1000, bank_ms=0, max_strikes=2)
    results, recordings = run_tables([cfg], [[silent_bot, random_bot, random_bot, random_bot]])
    result = results[0]
    strikes = recordings[0][0].of("strike")
    assert [s.strikes for s in strikes] == [1, 2]
    assert all(s.max_strikes == 2 and s.played.WhichOneof("action") for s in strikes)
    assert result.forfeited_by == 0 and result.winner == 1
    assert result.seats[0].strikes == 2
    over = recordings[0][1].messages[-1].match_over
    assert over.HasField("forfeited_by") and over.forfeited_by == 0 and winner_of(over) == 1
    assert "timed out" in over.reason and over.ending == pb.ENDING_FORFEIT


def test_illegal_move_is_refused_with_the_reason_and_may_be_retried() -> None:
    def stubborn(address: str, ticket: str, seat: int, recording: Recording) -> None:
        client = RawClient(address)
        client.hello(ticket)
        decision: pb.Decision | None = None
        for message in client.responses:
            recording.messages.append(message)
            kind = message.WhichOneof("response")
            if kind == "decision":
                decision = message.decision
                if decision.legal.phase == pb.PHASE_PLAY:
                    # two cards of different suits: refused, whatever the position
                    client.send(answer(decision.decision_id, Play(tuple(parse_cards("♥3 ♣4")))))
                else:
                    client.send(safe_answer(decision))
            elif kind == "refused" and decision is not None:
                client.send(safe_answer(decision))  # answer again, legally
            elif kind == "match_over":
                break
        client.close()

    results, recordings = run_tables([config()], [[stubborn, random_bot, random_bot, random_bot]])
    refused = recordings[0][0].of("refused")
    assert refused and all(r.code == pb.REFUSAL_CODE_ILLEGAL for r in refused)
    assert any(
        "you play ♥3" in r.reason or "mixes suits" in r.reason or "must" in r.reason
        for r in refused
    )
    assert results[0].seats[0].illegal == len(refused) and results[0].forfeited_by is None


def test_malformed_stale_and_out_of_turn_messages_are_refused() -> None:
    def prankster(address: str, ticket: str, seat: int, recording: Recording) -> None:
        client = RawClient(address)
        client.hello(ticket)
        rng = random.Random(seat)
        pranked = False
        for message in client.responses:
            recording.messages.append(message)
            kind = message.WhichOneof("response")
            if kind == "snapshot" and not pranked:
                # not our turn yet (or not a decision we know): out of turn / stale
                client.send(pb.PlayRequest(answer=pb.Answer(decision_id=999)))
                client.send(pb.PlayRequest(hello=pb.Hello(ticket=ticket)))  # a second Hello
                pranked = True
            elif kind == "decision":
                decision = message.decision
                if not any(
                    r.code == pb.REFUSAL_CODE_MALFORMED and r.decision_id == decision.decision_id
                    for r in recording.of("refused")
                ):
                    client.send(pb.PlayRequest(answer=pb.Answer(decision_id=decision.decision_id)))
                legal = legal_from_message(decision.legal)
                client.send(answer(decision.decision_id, legal.sample(rng)))
            elif kind == "match_over":
                client.close()
                return

    results, recordings = run_tables([config()], [[prankster, random_bot, random_bot, random_bot]])
    codes = [r.code for r in recordings[0][0].of("refused")]
    reasons = [r.reason for r in recordings[0][0].of("refused")]
    assert pb.REFUSAL_CODE_MALFORMED in codes
    assert pb.REFUSAL_CODE_NOT_YOUR_TURN in codes or pb.REFUSAL_CODE_STALE in codes
    assert any("sets none of pass_turn, declare, fry, bury, play" in r for r in reasons)
    assert any("only Answer messages" in r for r in reasons)
    assert results[0].forfeited_by is None and results[0].reason == "played to the end"


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

            await trio.to_thread.run_sync(checks)
            await server.wait(table)

    trio.run(main)


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
    assert results[0].seats[0].connects == 2 and results[0].forfeited_by is None


def test_disconnect_and_reconnect_mid_hand() -> None:
    def flaky(address: str, ticket: str, seat: int, recording: Recording) -> MatchResult:
        rng = random.Random(3)
        client = RawClient(address)
        client.hello(ticket)
        answered = 0
        for message in client.responses:
            recording.messages.append(message)
            if message.WhichOneof("response") == "decision":
                legal = legal_from_message(message.decision.legal)
                client.send(answer(message.decision.decision_id, legal.sample(rng)))
                answered += 1
                if answered == 5:
                    break
        client.close()
        time.sleep(0.3)  # away for a while; the clock keeps running
        return run_bot(
            random_decide(rng),
            address=address,
            ticket=ticket,
            name="flaky",
            on_message=recording.messages.append,
        )

    results, recordings = run_tables(
        [config(decision_ms=2000)], [[flaky, random_bot, random_bot, random_bot]]
    )
    assert recordings[0][0].error is None
    assert results[0].forfeited_by is None and results[0].seats[0].connects == 2
    assert [w.resumed for w in recordings[0][0].of("welcome")] == [False, True]


def test_a_slow_spectator_does_not_stall_the_table() -> None:
    """A spectator that never reads: the match plays on to its end regardless."""
    calls = []

    async def watch_and_never_read(running: Running) -> None:
        calls.append(watch(running.server.address, running.tables[0].name))  # never iterated
        await until(lambda: bool(running.tables[0].spectators))
        assert running.start is not None
        running.start.set()

    results, _ = run_tables(
        [config(max_hands=2)],
        in_trio=watch_and_never_read,
        hold=True,
        spectator_token=SPECTATOR_TOKEN,
    )
    assert results[0].reason == "played to the end"
    calls[0].cancel()


def test_a_spectator_sees_public_events_and_the_deal_at_the_end() -> None:
    """From the first move (the table waits for the spectator), public events only, and the
    stream ends when the match does, with a match_over event last."""
    received: list[pb.WatchResponse] = []

    async def spectate(running: Running) -> None:
        call = watch(running.server.address, running.tables[0].name)
        await until(lambda: bool(running.tables[0].spectators))
        assert running.start is not None
        running.start.set()
        await trio.to_thread.run_sync(lambda: received.extend(call))

    results, _ = run_tables(
        [config("anchao", seed=3)], in_trio=spectate, hold=True, spectator_token=SPECTATOR_TOKEN
    )
    events = [r.event for r in received[:-1]]
    kinds = {e.WhichOneof("payload") for e in events}
    assert "played" in kinds and "hand_over" in kinds and "bids_revealed" in kinds
    assert not kinds & {"dealt", "kitty_taken", "buried_cards"}
    assert all(e.audience == 15 for e in events)
    assert not any(e.declared.HasField("bid") or e.fried.HasField("bid") for e in events)
    assert received[-1].match_over.reason == results[0].reason
    assert not received[-1].match_over.events
    assert [e.seq for e in events] == sorted({e.seq for e in events})


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

            await trio.to_thread.run_sync(oversized)
            await server.wait(table)

    trio.run(main)
