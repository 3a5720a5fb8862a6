"""The local transport (:mod:`chaodipi.arena.serving.local`, :mod:`chaodipi.bot.local`): the same
contract and the same rules as over gRPC, over a socket pair.

The server and the bots' side share the test's asyncio loop: each "process" is a link of the
server's (:meth:`ArenaServer.open_link`) and a :class:`~chaodipi.bot.local.LocalChannel` over
its other end. The tests wait for points of the game (a message, a seat detached), never for
lengths of time. ``arena run``'s behaviour over both transports is in test_run_faults.py and
test_sessions_run.py (their ``transport`` parameter)."""

from __future__ import annotations

import asyncio
import random
import socket
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import grpc
import grpc.aio
import pytest
from structlog.testing import capture_logs

from chaodipi.arena.serving.local import LocalStream
from chaodipi.arena.serving.server import ArenaServer, open_server
from chaodipi.arena.tournament.processes import bot_environment
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import arena_pb2_grpc, convert
from chaodipi.arena.v2.frames import Kind, encode
from chaodipi.bot.errors import BotError
from chaodipi.bot.local import LocalChannel, LocalRpcError
from chaodipi.bot.seat import Retries, Seat, play_seat
from chaodipi.bot.thinking import Placement
from chaodipi.engine import Action, Ending, Pass, SeatView
from tests.process_support import children, ends

from .server_support import config, random_decide, until

HANG = 60.0


async def channel_of(server: ArenaServer, label: str) -> tuple[LocalChannel, socket.socket]:
    """A bot "process": the server's link ``label``, and a channel over its other end (with a
    duplicate of that end, for tests that write raw bytes)."""
    theirs = await server.open_link(label)
    raw = theirs.dup()
    channel = LocalChannel(f"fd:{theirs.detach()}")
    await channel.__aenter__()
    _opened.append((channel, raw))
    return channel, raw


_opened: list[tuple[LocalChannel, socket.socket]] = []
"""The test's bot ends, closed when it ends (a bot process's close with it)."""


def run(main: Callable[[], Awaitable[None]]) -> None:
    """``main`` on an asyncio loop, bounded by ``HANG`` (a hang fails instead of stalling)."""

    async def bounded() -> None:
        try:
            with anyio.fail_after(HANG):
                await main()
        finally:
            for channel, raw in _opened:
                if channel.link.transport is not None:
                    channel.link.transport.close()
                raw.close()
            _opened.clear()
            await anyio.sleep(0)  # the transports close on the loop's next turn

    anyio.run(bounded, backend="asyncio")


def play(channel: LocalChannel) -> Any:
    return arena_pb2_grpc.ArenaServiceStub(channel).Play()


def test_four_seats_play_a_match_over_local_links_through_the_sdk() -> None:
    """Each seat on a link of its own (four processes), played by the SDK's Seat unchanged:
    the match is played out, and the seats were connected over the links."""
    results: list[Any] = []

    async def main() -> None:
        async with open_server() as server:
            table = server.start_table(config())
            async with anyio.create_task_group() as tasks:
                for seat in range(4):
                    channel, _ = await channel_of(server, f"bot#{seat}")
                    hello = convert.hello(table.ticket(seat), f"bot{seat}")
                    player = Seat(random_decide(random.Random(seat)), 0.05, None)

                    async def one(
                        player: Seat = player, channel: Any = channel, hello: Any = hello
                    ) -> None:
                        results.append(await player.play_once(channel, hello))

                    tasks.start_soon(one)
            assert table.result is not None and table.result.outcome.ending is Ending.PLAYED_OUT
            assert [s.connects for s in table.result.seats] == [1, 1, 1, 1]
            assert not server.links or all(link.peer.startswith("local:") for link in server.links)

    run(main)
    assert len(results) == 4 and all(r.ending is Ending.PLAYED_OUT for r in results)


def test_an_inline_decision_is_answered_in_the_links_read_callback_as_play_once_would() -> None:
    """A seat deciding inline over a link answers each Decision as it comes, in the link's read
    callback (no task of the seat's runs for it: ``LocalCall.handler``), and nothing else
    changes: every message still reaches ``on_message`` and is counted, and what ``decide``
    raises comes out of ``play_once`` (the stream let go, the table strikes the silent seat)."""
    seen: list[str] = []
    tasks_seen: list[asyncio.Task[Any] | None] = []
    rng = random.Random(0)

    def decide(view: SeatView) -> Action:
        tasks_seen.append(asyncio.current_task())
        if len(tasks_seen) == 3:
            raise ValueError("a bug in the bot")
        assert view.legal is not None
        return view.legal.sample(rng)

    def on_message(message: pb.PlayResponse) -> None:
        seen.append(message.WhichOneof("response"))

    raised: list[BaseException] = []
    first = Seat(decide, 0.05, on_message, Placement(False))

    async def main() -> None:
        async with open_server() as server:
            table = server.start_table(config(decision_ms=200, bank_ms=0, max_strikes=1))
            async with anyio.create_task_group() as tasks:
                for seat in range(4):
                    channel, _ = await channel_of(server, f"bot#{seat}")
                    hello = convert.hello(table.ticket(seat), f"bot{seat}")
                    player = (
                        first if seat == 0 else Seat(random_decide(random.Random(seat)), 0.05, None)
                    )

                    async def one(
                        player: Seat = player, channel: Any = channel, hello: Any = hello
                    ) -> None:
                        try:
                            await player.play_once(channel, hello)
                        except ValueError as err:
                            raised.append(err)

                    tasks.start_soon(one)
            result = await server.wait(table)
            assert result.outcome.ending is Ending.FORFEIT and result.outcome.forfeited_by in (0, 2)

    run(main)
    assert [str(err) for err in raised] == ["a bug in the bot"]
    assert seen[:2] == ["welcome", "snapshot"] and seen.count("decision") == 3
    assert first.messages == len(seen)
    assert tasks_seen[1:] == [None, None]  # decided in the read callback, not in a task


@pytest.mark.parametrize(
    ("ticket", "code", "reason"),
    [
        ("nope/0/secret", grpc.StatusCode.UNAUTHENTICATED, "unknown or wrong ticket"),
        ("TABLE/5/secret", grpc.StatusCode.UNAUTHENTICATED, "unknown or wrong ticket"),
    ],
)
def test_a_wrong_ticket_is_refused_as_the_grpc_server_refuses_it(
    ticket: str, code: grpc.StatusCode, reason: str
) -> None:
    async def main() -> None:
        async with open_server() as server:
            table = server.start_table(config())
            channel, _ = await channel_of(server, "bot")
            call = play(channel)
            await call.write(convert.hello(ticket.replace("TABLE", table.name), "x"))
            with pytest.raises(LocalRpcError) as refused:
                await call.read()
            assert (refused.value.code(), refused.value.details()) == (code, reason)
            table.stop("test over")

    run(main)


def test_a_first_message_that_is_not_a_hello_is_refused() -> None:
    async def main() -> None:
        async with open_server() as server:
            table = server.start_table(config())
            channel, _ = await channel_of(server, "bot")
            call = play(channel)
            await call.write(convert.answer(1, Pass()))
            with pytest.raises(LocalRpcError) as refused:
                await call.read()
            assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert refused.value.details() == "the first message must be a Hello"
            table.stop("test over")

    run(main)


def test_a_seat_that_does_not_answer_is_struck_and_forfeits_as_over_grpc() -> None:
    """The table's clock, strikes and forfeit are the table's: over a link a silent seat is
    sent its Strike and the match's end (forfeit), as over gRPC."""

    async def main() -> None:
        async with open_server() as server:
            table = server.start_table(config(decision_ms=20, bank_ms=0, max_strikes=1))
            calls = []
            for seat in range(4):
                channel, _ = await channel_of(server, f"bot#{seat}")
                call = play(channel)
                await call.write(convert.hello(table.ticket(seat), "silent"))
                calls.append(call)
            kinds = []  # seat 0's messages, up to its stream's end (OK)
            while (message := await calls[0].read()) is not grpc.aio.EOF:
                kinds.append(message.WhichOneof("response"))
            assert kinds[:2] == ["welcome", "snapshot"] and kinds[-1] == "match_over"
            result = await server.wait(table)
            assert result.outcome.ending is Ending.FORFEIT and result.outcome.forfeited_by is not None
            assert result.seats[result.outcome.forfeited_by].strikes == 1

    run(main)


def test_an_unparsable_message_ends_its_stream_with_invalid_argument() -> None:
    async def main() -> None:
        async with open_server() as server:
            table = server.start_table(config())
            channel, raw = await channel_of(server, "bot")
            call = play(channel)
            await call.write(convert.hello(table.ticket(0), "x"))
            assert (await call.read()).WhichOneof("response") == "welcome"
            raw.sendall(encode(Kind.MESSAGE, call.id, b"\xff\xff\xff"))
            with pytest.raises(LocalRpcError) as ended:
                while True:
                    await call.read()
            assert ended.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "does not parse as a PlayRequest" in ended.value.details()
            await until(lambda: table.seats[0].connection is None)
            table.stop("test over")

    run(main)


def test_bytes_that_are_not_frames_break_the_link_and_end_every_stream_on_it() -> None:
    async def main() -> None:
        async with open_server() as server:
            table = server.start_table(config())
            channel, raw = await channel_of(server, "bot")
            calls = []
            for seat in (0, 1):
                call = play(channel)
                await call.write(convert.hello(table.ticket(seat), "x"))
                assert (await call.read()).WhichOneof("response") == "welcome"
                calls.append(call)
            raw.sendall(b"\xff" * 9)  # a frame of 4 GiB, of kind 255
            for call in calls:
                with pytest.raises(LocalRpcError) as ended:
                    while True:
                        await call.read()
                assert ended.value.code() in (
                    grpc.StatusCode.INVALID_ARGUMENT,
                    grpc.StatusCode.UNAVAILABLE,
                )
            await until(lambda: not server.links)
            await until(lambda: all(s.connection is None for s in table.seats))
            table.stop("test over")

    run(main)


def test_a_bot_writing_frames_that_do_not_parse_and_reading_nothing_is_cut_off_in_a_few_lines() -> (
    None
):
    """Frames of the right shape whose payloads are not messages, thousands of them, written
    by a bot that never reads: the first are refused as over gRPC, the link is broken at the
    third with one line naming the bot and what was wrong, and what follows is not looked at
    (no flood of lines). A seat the bot holds on the link is let go (its stream ends), and
    nothing is made up: the table's other seats and its clock are the table's."""
    garbage = encode(Kind.PLAY, 7, b"\xff\xff\xff")

    async def main() -> None:
        async with open_server() as server:
            table = server.start_table(config())
            channel, raw = await channel_of(server, "junk#2")
            call = play(channel)
            await call.write(convert.hello(table.ticket(1), "junk"))
            assert (await call.read()).WhichOneof("response") == "welcome"
            with capture_logs() as logs:
                raw.setblocking(False)
                sent = 0
                while sent < 5000 and server.links:
                    try:
                        raw.send(garbage * 50)
                        sent += 50
                    except BlockingIOError:
                        pass
                    await anyio.sleep(0)  # the loop reads what was written
                await until(lambda: not server.links or len(logs) > 100)
            assert not server.links
            warned = [e for e in logs if e["log_level"] != "info"]  # (info: the seat left)
            refused = [e for e in warned if e["event"] == "refused"]
            broken = [e for e in warned if e["event"] == "link_broken"]
            assert len(warned) == 3 and len(refused) == 2 and len(broken) == 1, warned
            assert all(e["code"] == "INVALID_ARGUMENT" for e in refused)
            assert broken[0]["peer"] == "local:junk#2" and broken[0]["session"] == "junk#2"
            assert broken[0]["error"] == (
                "3 frames refused, the last: the first message does not parse as a PlayRequest "
                "(DecodeError: Error parsing message with type 'chaodipi.arena.v2.PlayRequest': "
                "Wire format was corrupt)"
            )
            with pytest.raises(LocalRpcError) as ended:
                while True:
                    await call.read()
            assert "the local link broke (3 frames refused" in ended.value.details()
            await until(lambda: table.seats[1].connection is None)
            assert table.result is None  # the table goes on, by its own clock
            table.stop("test over")

    run(main)


def test_a_process_whose_link_closes_leaves_its_seats_and_its_session() -> None:
    """The process exits (its end closes): its seat is detached and its session left, as when
    a gRPC stream drops, so the runner sees it go."""
    left: list[str] = []

    async def main() -> None:
        async with open_server() as server:
            table = server.start_table(config())
            door = server.open_door("a-token-for-tests-only", "bot#1")
            door.on_leave = lambda session: left.append(session.name)
            channel, raw = await channel_of(server, "bot#1")
            stub = arena_pb2_grpc.ArenaServiceStub(channel)
            enter = stub.Enter(
                convert.enter_request(door.token, bot_name="b", capacity=1, instance="")
            )
            assert (await enter.read()).WhichOneof("message") == "entered"
            call = play(channel)
            await call.write(convert.hello(table.ticket(2), "x"))
            assert (await call.read()).WhichOneof("response") == "welcome"
            assert table.seats[2].connection is not None
            assert channel.link.transport is not None
            channel.link.transport.abort()
            raw.close()
            await until(lambda: table.seats[2].connection is None and left == ["bot#1"])
            table.stop("test over")

    run(main)


def test_a_session_over_a_link_is_offered_seats_and_ends_ok_when_its_door_closes() -> None:
    async def main() -> None:
        async with open_server() as server:
            table = server.start_table(config())
            door = server.open_door("a-token-for-tests-only", "bot#1")
            channel, _ = await channel_of(server, "bot#1")
            stub = arena_pb2_grpc.ArenaServiceStub(channel)
            refused = stub.Enter(
                convert.enter_request("wrong-token", bot_name="b", capacity=1, instance="")
            )
            with pytest.raises(LocalRpcError) as wrong:
                await refused.read()
            assert wrong.value.code() == grpc.StatusCode.UNAUTHENTICATED
            enter = stub.Enter(
                convert.enter_request(door.token, bot_name="b", capacity=2, instance="")
            )
            assert (await enter.read()).entered.capacity == 2
            session = door.session()
            session.offer(table, 1)
            assert (await enter.read()).seat.ticket == table.ticket(1)
            server.close_door(door)
            assert await enter.read() is grpc.aio.EOF  # OK: no more games
            again = stub.Enter(
                convert.enter_request(door.token, bot_name="b", capacity=1, instance="")
            )
            with pytest.raises(LocalRpcError) as closed:
                await again.read()
            assert closed.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            table.stop("test over")

    run(main)


def test_a_link_that_names_no_descriptor_is_one_line_saying_so() -> None:
    async def main() -> None:
        with pytest.raises(BotError, match=r"cannot open the arena's local link.*not fd:N"):
            await LocalChannel("socket:/nowhere").__aenter__()

    run(main)


def test_a_stray_local_link_in_the_arenas_environment_is_not_passed_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ARENA_LOCAL", "fd:99")
    assert "ARENA_LOCAL" not in bot_environment("127.0.0.1:7", token="the-session-token")


def test_a_flood_of_unasked_messages_over_a_link_is_cut_off_and_logged() -> None:
    """5,000 answers to no decision, in one burst: once the seat's allowance is gone its stream
    ends with RESOURCE_EXHAUSTED saying why, and one line is logged (the table's rule: the
    same over gRPC, test_server_more.py)."""

    async def main() -> None:
        async with open_server() as server:
            table = server.start_table(config())
            channel, raw = await channel_of(server, "bot")
            call = play(channel)
            await call.write(convert.hello(table.ticket(0), "flooder"))
            assert (await call.read()).WhichOneof("response") == "welcome"
            junk = pb.PlayRequest(answer=pb.Answer(decision_id=424242)).SerializeToString()
            with capture_logs() as logs:
                raw.sendall(encode(Kind.MESSAGE, call.id, junk) * 5000)
                with pytest.raises(LocalRpcError) as cut:
                    while True:
                        await call.read()
            assert cut.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "flooding" in cut.value.details()
            lines = [e for e in logs if e["event"] == "flood_cut_off"]
            assert len(lines) == 1 and lines[0]["seat"] == 0 and lines[0]["table"] == table.name
            table.stop("test over")

    run(main)


def test_a_seat_stream_the_arena_ends_is_opened_again_on_the_same_link_by_the_sdk() -> None:
    """The local equivalent of a reconnect: a message that does not parse ends the seat's
    stream (INVALID_ARGUMENT, which the SDK retries); the SDK opens it again with its ticket on
    the same link, is sent its Snapshot again, and plays the match to its end."""
    results: list[Any] = []

    async def main() -> None:
        async with open_server() as server:
            table = server.start_table(config())
            async with anyio.create_task_group() as tasks:
                raws = []
                for seat in range(4):
                    channel, raw = await channel_of(server, f"bot#{seat}")
                    raws.append(raw)
                    hello = convert.hello(table.ticket(seat), f"bot{seat}")
                    player = Seat(random_decide(random.Random(seat)), 0.05, None)
                    retries = Retries(reconnects=2, wait_s=0, address="local")

                    async def one(
                        player: Seat = player,
                        channel: Any = channel,
                        hello: Any = hello,
                        retries: Retries = retries,
                    ) -> None:
                        again = lambda: player.play_once(channel, hello)  # noqa: E731
                        results.append(await play_seat(again, player, retries, contacted=True))

                    tasks.start_soon(one)
                await until(lambda: table.match.actions and table.seats[1].connection is not None)
                first = table.seats[1].connection
                assert isinstance(first, LocalStream)
                raws[1].sendall(encode(Kind.MESSAGE, first.id, b"\xff\xff\xff"))
                await until(lambda: table.seats[1].stats.connects == 2)
            assert table.result is not None and table.result.outcome.ending is Ending.PLAYED_OUT

    run(main)
    assert len(results) == 4 and all(r.ending is Ending.PLAYED_OUT for r in results)


@pytest.mark.slow  # a real run killed outright; its bots give up in seconds: `pytest -m slow`
def test_bots_on_the_link_end_when_their_arena_is_killed(tmp_path: Path) -> None:
    """An arena killed outright (SIGKILL: nothing of it runs to end its bots) closes every
    link; each bot process's SDK sees its streams fail, gives up and exits, rather than
    waiting for an arena that is gone."""
    bots = ["-b", f"r={sys.executable} -m chaodipi.sample_bots.random_bot",
            "-b", f"q={sys.executable} -m chaodipi.sample_bots.random_bot"]
    with subprocess.Popen(
        [sys.executable, "-m", "chaodipi.arena", "run", *bots, "-n", "500", "--hands", "1",
         "--transport", "local", "-d", str(tmp_path / "r.sqlite")],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    ) as arena:
        assert arena.stderr is not None
        for line in arena.stderr:  # the event: a game played, so every bot is on its link
            if line.startswith("Finished game"):
                break
        started = children(arena.pid)
        assert started
        arena.kill()
        arena.wait(timeout=60)
    for bot in started:
        assert ends(bot, within_s=60), f"bot process {bot} outlived its killed arena"
