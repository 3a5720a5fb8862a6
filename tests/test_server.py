"""The table server over real gRPC on localhost: whole matches, clocks, refusals, reconnects."""

from __future__ import annotations

import json
import random
import time

import grpc
import pytest
import trio

from arena.server import open_server
from arena.v1 import arena_pb2 as pb
from engine.replay import replay
from sample_bots.sdk import Turn, cards_action, play, random_action

from .server_support import (
    SPECTATOR_TOKEN,
    RawClient,
    Recording,
    Running,
    config,
    random_bot,
    run_tables,
    silent_bot,
    until,
    watch,
)


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
            assert over.winner == (-1 if result.winner is None else result.winner)
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
    strikes = [m.strike for m in recordings[0][0].messages if m.WhichOneof("message") == "strike"]
    assert [s.strikes for s in strikes] == [1, 2]
    assert all(s.max_strikes == 2 and s.played for s in strikes)
    assert result.forfeited_by == 0 and result.winner == 1
    assert result.seats[0].strikes == 2
    over = recordings[0][1].messages[-1].match_over
    assert over.forfeited_by == 0 and over.winner == 1 and "timed out" in over.reason


def test_illegal_move_is_refused_with_the_reason_and_may_be_retried() -> None:
    def stubborn(address: str, ticket: str, seat: int, recording: Recording) -> pb.MatchOver:
        rng = random.Random(seat)

        def decide(turn: Turn) -> pb.Action:
            legal = turn.decision.legal
            if legal.phase == "play" and not turn.refusals and legal.card_options:
                # two cards of different suits: refused, whatever the position
                return cards_action(turn.decision.decision_id, ["♥3", "♣4"])
            return random_action(turn, rng)

        return play(address, ticket, decide, on_message=recording.messages.append)

    results, recordings = run_tables([config()], [[stubborn, random_bot, random_bot, random_bot]])
    refused = [m.refused for m in recordings[0][0].messages if m.WhichOneof("message") == "refused"]
    assert refused and all(r.code == "illegal" for r in refused)
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
            kind = message.WhichOneof("message")
            if kind == "snapshot" and not pranked:
                # not our turn yet (or not a decision we know): out of turn / stale
                client.send(pb.BotMessage(action=pb.Action(decision_id=999, bid="♠2")))
                client.send(pb.BotMessage(hello=pb.Hello(ticket=ticket)))  # a second Hello
                pranked = True
            elif kind == "decision":
                decision = message.decision
                if not any(
                    m.WhichOneof("message") == "refused"
                    and m.refused.code == "malformed"
                    and m.refused.decision_id == decision.decision_id
                    for m in recording.messages
                ):
                    client.send(pb.BotMessage(action=pb.Action(decision_id=decision.decision_id)))
                client.send(pb.BotMessage(action=random_action(Turn(decision), rng)))
            elif kind == "match_over":
                client.close()
                return

    results, recordings = run_tables([config()], [[prankster, random_bot, random_bot, random_bot]])
    codes = [
        m.refused.code for m in recordings[0][0].messages if m.WhichOneof("message") == "refused"
    ]
    reasons = [
        m.refused.reason for m in recordings[0][0].messages if m.WhichOneof("message") == "refused"
    ]
    assert "malformed" in codes
    assert "not_your_turn" in codes or "stale" in codes
    assert any("none of pass, bid, cards" in r for r in reasons)
    assert any("only Action messages" in r for r in reasons)
    assert results[0].forfeited_by is None and results[0].reason == "played to the end"


def test_wrong_ticket_version_and_first_message() -> None:
    async def main() -> None:
        async with open_server("127.0.0.1:0") as server:
            table = server.start_table(config(connect_timeout_s=0.5, decision_ms=50, bank_ms=0))
            good = table.ticket(0)

            def attempt(send: list[pb.BotMessage]) -> grpc.RpcError:
                client = RawClient(server.address)
                for message in send:
                    client.send(message)
                with pytest.raises(grpc.RpcError) as err:
                    client.next()
                client.close()
                return err.value

            def hello(ticket: str, version: int = 1) -> pb.BotMessage:
                return pb.BotMessage(hello=pb.Hello(ticket=ticket, protocol_version=version))

            def checks() -> None:
                wrong = attempt([hello(good[:-3] + "xyz")])
                assert wrong.code() == grpc.StatusCode.UNAUTHENTICATED
                assert "ticket" in (wrong.details() or "")
                assert attempt([hello("nonsense")]).code() == grpc.StatusCode.UNAUTHENTICATED
                old = attempt([hello(good, version=99)])
                assert old.code() == grpc.StatusCode.FAILED_PRECONDITION
                assert "protocol version 99" in (old.details() or "")
                first = attempt([pb.BotMessage(action=pb.Action(decision_id=1))])
                assert first.code() == grpc.StatusCode.FAILED_PRECONDITION
                assert "first message must be a Hello" in (first.details() or "")

            await trio.to_thread.run_sync(checks)
            await server.wait(table)

    trio.run(main)


def test_newest_connection_wins_and_the_clock_keeps_running() -> None:
    """A second connection with the same ticket takes the seat over; the first is told why."""

    def twice(address: str, ticket: str, seat: int, recording: Recording) -> pb.MatchOver:
        first = RawClient(address)
        first.hello(ticket)
        assert first.next("welcome").welcome.resumed is False
        second_recording = Recording()
        rng = random.Random(7)
        outcome: list[pb.MatchOver] = []
        import threading

        def second() -> None:
            outcome.append(
                play(
                    address,
                    ticket,
                    lambda t: random_action(t, rng),
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
    def flaky(address: str, ticket: str, seat: int, recording: Recording) -> pb.MatchOver:
        rng = random.Random(3)
        client = RawClient(address)
        client.hello(ticket)
        answered = 0
        for message in client.responses:
            recording.messages.append(message)
            if message.WhichOneof("message") == "decision":
                client.send(pb.BotMessage(action=random_action(Turn(message.decision), rng)))
                answered += 1
                if answered == 5:
                    break
        client.close()
        time.sleep(0.3)  # away for a while; the clock keeps running
        return play(
            address, ticket, lambda t: random_action(t, rng), on_message=recording.messages.append
        )

    results, recordings = run_tables(
        [config(decision_ms=2000)], [[flaky, random_bot, random_bot, random_bot]]
    )
    assert recordings[0][0].error is None
    assert results[0].forfeited_by is None and results[0].seats[0].connects == 2
    welcomes = [
        m.welcome for m in recordings[0][0].messages if m.WhichOneof("message") == "welcome"
    ]
    assert [w.resumed for w in welcomes] == [False, True]


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
    events: list[pb.Event] = []

    async def spectate(running: Running) -> None:
        call = watch(running.server.address, running.tables[0].name)
        await until(lambda: bool(running.tables[0].spectators))
        assert running.start is not None
        running.start.set()
        await trio.to_thread.run_sync(lambda: events.extend(call))

    results, _ = run_tables(
        [config("anchao", seed=3)], in_trio=spectate, hold=True, spectator_token=SPECTATOR_TOKEN
    )
    kinds = {e.kind for e in events}
    assert "play" in kinds and "hand_over" in kinds
    assert "deal" not in kinds and "kitty" not in kinds and "bury" not in kinds
    assert all(e.hidden or not e.bid for e in events if e.kind in ("declare", "fry"))
    assert events[-1].kind == "match_over"
    assert json.loads(events[-1].details_json)["reason"] == results[0].reason
    assert [e.sequence for e in events] == sorted({e.sequence for e in events})


def test_an_oversized_message_is_refused_by_grpc() -> None:
    async def main() -> None:
        async with open_server("127.0.0.1:0") as server:
            table = server.start_table(config(connect_timeout_s=0.5, decision_ms=50, bank_ms=0))

            def oversized() -> None:
                client = RawClient(server.address)
                client.send(
                    pb.BotMessage(hello=pb.Hello(ticket=table.ticket(0), bot_name="x" * 100_000))
                )
                with pytest.raises(grpc.RpcError) as err:
                    client.next()
                client.close()
                assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED

            await trio.to_thread.run_sync(oversized)
            await server.wait(table)

    trio.run(main)
