"""The SDK's sessions (``run_bot`` with a token): real gRPC against ``open_server``, on asyncio.

The tests wait for points of the run (a session entered, a seat connected, a table over),
never for lengths of time; ``HANG`` only bounds a hang.
"""

from __future__ import annotations

import os
import random
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import grpc
import pytest

from chaodipi.arena.serving.server import ArenaServer, open_server
from chaodipi.arena.serving.sessions import Door, Session
from chaodipi.arena.serving.table import Table
from chaodipi.bot import Action, MatchResult, SeatView, SessionError, SessionResult, run_bot
from chaodipi.engine.match import Ending

from .server_support import Recording, config, random_bot, random_decide, run_tables, until

ROOT = Path(__file__).resolve().parent.parent
HANG = 120.0
TOKEN = "session-token-for-tests"


@dataclass
class BotThread:
    """``run_bot`` (or any call) in a thread of its own: what it returned, or raised."""

    call: Callable[[], Any]
    outcome: Any = None
    error: BaseException | None = None
    thread: threading.Thread = field(init=False)

    def __post_init__(self) -> None:
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.outcome = self.call()
        except BaseException as err:  # kept for the test to inspect
            self.error = err

    async def join(self) -> None:
        await anyio.to_thread.run_sync(self.thread.join, HANG)
        assert not self.thread.is_alive(), "the bot did not return"


def other_seats(address: str, tables: list[Table], mine: list[int]) -> list[BotThread]:
    """Random bots in threads on every seat the session does not play."""
    bots = []
    for table, seat in zip(tables, mine, strict=True):
        for other in set(range(4)) - {seat}:
            ticket = table.ticket(other)
            bots.append(BotThread(lambda t=ticket, s=other: random_bot(address, t, s, Recording())))
    return bots


async def entered(server: ArenaServer, token: str = TOKEN) -> tuple[Door, anyio.Event, list[Any]]:
    """A door for ``token``, an event set on its session's first Enter, and that session."""
    event, sessions = anyio.Event(), []

    def on_enter(session: Session) -> None:
        sessions.append(session)
        event.set()

    return server.open_door(token, "tester", on_enter=on_enter), event, sessions


def all_connected(tables: list[Table], seats: list[int]) -> bool:
    return all(t.seats[s].connection is not None for t, s in zip(tables, seats, strict=True))


def test_a_session_plays_four_tables_at_once_and_finishes_them_after_the_door_closes() -> None:
    """Four seats of four tables are offered at once; every one is connected before any
    table starts (so they are played at the same time), the door closes before the games
    begin, and run_bot still plays all four to the end, then returns."""
    configs = [config("classic", seed=s) for s in (1, 2, 3, 4)]
    mine = [0, 1, 2, 3]
    games = []

    def new_game() -> Callable[[SeatView], Action]:
        decide = random_decide(random.Random(len(games)))
        games.append(decide)
        return decide

    async def main() -> None:
        async with open_server("127.0.0.1:0") as server:
            start = anyio.Event()
            tables = [server.start_table(c, start=start) for c in configs]
            door, first_enter, sessions = await entered(server)
            others = other_seats(server.address, tables, mine)
            bot = BotThread(
                lambda: run_bot(
                    new_game=new_game,
                    address=server.address,
                    token=TOKEN,
                    name="session-bot",
                    argv=[],
                )
            )
            with anyio.fail_after(HANG):
                await first_enter.wait()
                session = sessions[0]
                assert session.capacity == 4  # the default
                for table, seat in zip(tables, mine, strict=True):
                    session.offer(table, seat)
                await until(lambda: all_connected(tables, mine))
                server.close_door(door)  # no more games: the four in hand are played out
                start.set()
                results = [await server.wait(t) for t in tables]
                await bot.join()
                for other in others:
                    await other.join()
            assert bot.error is None
            outcome = bot.outcome
            assert isinstance(outcome, SessionResult)
            assert outcome.session == "tester" and outcome.lost == 0
            assert len(outcome.games) == 4 and len(games) == 4  # a fresh decide per game
            assert all(g.ending is Ending.PLAYED_OUT for g in outcome.games)
            for seat, result in zip(mine, results, strict=True):
                assert result.outcome.reason == "played to the end"
                assert result.seats[seat].name == "session-bot"
                assert result.seats[seat].connects == 1
                assert result.seats[seat].strikes == 0
            assert all(o.error is None for o in others)

    anyio.run(main, backend="asyncio")


def test_a_dropped_session_enters_again_and_never_plays_a_seat_twice() -> None:
    """The session's stream is cut (UNAVAILABLE) while it holds four seats: it enters again
    with the same token and instance, is offered the four seats again, and opens no second
    stream for any of them; the games are played out and run_bot returns once the door
    closes."""
    configs = [config("classic", seed=s) for s in (5, 6, 7, 8)]
    mine = [3, 2, 1, 0]
    recording = Recording()

    async def main() -> None:
        async with open_server("127.0.0.1:0") as server:
            start = anyio.Event()
            tables = [server.start_table(c, start=start) for c in configs]
            door, first_enter, sessions = await entered(server)
            others = other_seats(server.address, tables, mine)
            bot = BotThread(
                lambda: run_bot(
                    random_decide(random.Random(1)),
                    address=server.address,
                    token=TOKEN,
                    capacity=4,
                    name="dropped",
                    on_message=recording.messages.append,
                    argv=[],
                )
            )
            with anyio.fail_after(HANG):
                await first_enter.wait()
                session = sessions[0]
                instance = session.instance
                for table, seat in zip(tables, mine, strict=True):
                    session.offer(table, seat)
                await until(lambda: all_connected(tables, mine))
                old = session.connection
                assert old is not None
                old.close(grpc.StatusCode.UNAVAILABLE, "dropped by the test")
                await until(lambda: session.connection not in (None, old))
                assert door.sessions == {"": session} and session.instance == instance
                start.set()
                for table, seat in zip(tables, mine, strict=True):
                    await server.wait(table)
                    session.seat_over(table, seat)
                server.close_door(door)
                await bot.join()
                for other in others:
                    await other.join()
            assert bot.error is None
            outcome = bot.outcome
            assert isinstance(outcome, SessionResult) and len(outcome.games) == 4
            for table, seat in zip(tables, mine, strict=True):
                assert table.seats[seat].stats.connects == 1  # never a second stream
            welcomes = recording.of("welcome")
            assert len(welcomes) == 4 and not any(w.resumed for w in welcomes)

    anyio.run(main, backend="asyncio")


def test_a_session_whose_run_ends_while_it_is_away_returns_without_error() -> None:
    """The stream drops and the door closes at once: entering again is refused (the token's
    run is over), which ends the session quietly rather than as an error."""

    async def main() -> None:
        async with open_server("127.0.0.1:0") as server:
            door, first_enter, sessions = await entered(server)
            bot = BotThread(
                lambda: run_bot(
                    random_decide(random.Random(1)),
                    address=server.address,
                    token=TOKEN,
                    argv=[],
                )
            )
            with anyio.fail_after(HANG):
                await first_enter.wait()
                connection = sessions[0].connection
                assert connection is not None
                connection.close(grpc.StatusCode.UNAVAILABLE, "dropped by the test")
                server.close_door(door)
                await bot.join()
            assert bot.error is None
            assert bot.outcome == SessionResult("tester", games=(), lost=0)

    anyio.run(main, backend="asyncio")


def test_a_wrong_session_token_is_a_clear_error() -> None:
    async def main() -> None:
        async with open_server("127.0.0.1:0") as server:
            await entered(server)
            bot = BotThread(
                lambda: run_bot(
                    lambda view: view.legal.default(),
                    address=server.address,
                    token="not-the-token",
                    argv=[],
                    exit_on_error=False,
                )
            )
            with anyio.fail_after(HANG):
                await bot.join()
            error = bot.error
            assert isinstance(error, SessionError)
            assert error.code == grpc.StatusCode.UNAUTHENTICATED
            assert "refused the session" in str(error) and "--token" in str(error)

    anyio.run(main, backend="asyncio")


def test_a_seat_whose_table_is_gone_is_given_up_and_the_session_goes_on() -> None:
    """A seat offered for a table already over and released gets NOT_FOUND: the session counts
    it lost and keeps going until its door closes."""

    async def main() -> None:
        async with open_server("127.0.0.1:0") as server:
            table = server.start_table(config("classic", seed=12))
            table.stop("over before it began")
            await server.wait(table)
            server.release(table)
            door, first_enter, sessions = await entered(server)
            bot = BotThread(
                lambda: run_bot(
                    random_decide(random.Random(1)),
                    address=server.address,
                    token=TOKEN,
                    argv=[],
                )
            )
            with anyio.fail_after(HANG):
                await first_enter.wait()
                sessions[0].offer(table, 1)
                server.close_door(door)
                await bot.join()
            assert bot.error is None
            assert bot.outcome == SessionResult("tester", games=(), lost=1)

    anyio.run(main, backend="asyncio")


def test_an_arena_that_cannot_be_reached_is_a_clear_error() -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{probe.getsockname()[1]}"
    with pytest.raises(SessionError, match=r"^no arena answered at .* \(UNAVAILABLE: ") as caught:
        run_bot(
            lambda view: view.legal.default(),
            address=address,
            token=TOKEN,
            wait_for_arena=0,
            argv=[],
            exit_on_error=False,
        )
    assert caught.value.code == grpc.StatusCode.UNAVAILABLE
    assert "start the arena first" in str(caught.value) and "\n" not in str(caught.value)


def test_an_exception_in_decide_ends_the_session_and_is_raised() -> None:
    def broken(view: SeatView) -> Action:
        raise ValueError("a bug in the bot")

    async def main() -> None:
        async with open_server("127.0.0.1:0") as server:
            table = server.start_table(config("classic", seed=9))
            _door, first_enter, sessions = await entered(server)
            others = other_seats(server.address, [table], [0])
            bot = BotThread(lambda: run_bot(broken, address=server.address, token=TOKEN, argv=[]))
            with anyio.fail_after(HANG):
                await first_enter.wait()
                sessions[0].offer(table, 0)
                await bot.join()
                table.stop("the test is over")
                await server.wait(table)
                for other in others:
                    await other.join()
            assert isinstance(bot.error, ValueError)
            assert str(bot.error) == "a bug in the bot"

    anyio.run(main, backend="asyncio")


def test_neither_a_token_nor_a_ticket_names_both(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    monkeypatch.delenv("ARENA_TICKET", raising=False)
    with pytest.raises(SystemExit) as stop:
        run_bot(lambda view: view.legal.default(), argv=[])
    message = str(stop.value)
    assert all(word in message for word in ("--token", "ARENA_TOKEN", "--ticket", "ARENA_TICKET"))


def test_run_bot_takes_decide_or_new_game_not_both() -> None:
    def decide(view: SeatView) -> Action:
        return view.legal.default()  # pragma: no cover

    with pytest.raises(TypeError, match="new_game"):
        run_bot(decide, new_game=lambda: decide, argv=[])
    with pytest.raises(TypeError, match="new_game"):
        run_bot(argv=[])


def test_the_sample_bot_and_the_examples_play_sessions_from_the_command_line() -> None:
    """``python3 -m chaodipi.sample_bots.random_bot``, ``examples/highest_card_bot.py`` (which calls
    ``run_bot(decide)`` alone) and ``examples/per_game_bot.py`` (``new_game``), each given a
    token in ``ARENA_TOKEN`` as the arena gives it, hold a session, play the seat offered, and
    exit 0 once their door closes, with no warning."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "proto")])}
    env.pop("ARENA_TICKET", None)
    commands = {
        "random-token-for-tests": [sys.executable, "-m", "chaodipi.sample_bots.random_bot", "--seed", "3"],
        "example-token-for-tests": [sys.executable, str(ROOT / "examples/highest_card_bot.py")],
        "per-game-token-for-tests": [sys.executable, str(ROOT / "examples/per_game_bot.py")],
    }
    mine = [0, 1, 2]
    finished: dict[str, subprocess.CompletedProcess[bytes]] = {}

    async def main() -> None:
        async with open_server("127.0.0.1:0") as server:
            table = server.start_table(config("classic", seed=10))
            doors, entries, sessions = [], [], []
            for token in commands:
                door, event, found = await entered(server, token)
                doors.append(door)
                entries.append(event)
                sessions.append(found)
            others = [
                BotThread(lambda s=s: random_bot(server.address, table.ticket(s), s, Recording()))
                for s in (3,)
            ]

            async def play(token: str, argv: list[str]) -> None:
                finished[token] = await anyio.run_process(
                    [*argv, "--address", server.address],
                    env={**env, "ARENA_TOKEN": token},
                    cwd=ROOT,
                    check=False,
                )

            with anyio.fail_after(HANG):
                async with anyio.create_task_group() as nursery:
                    for token, argv in commands.items():
                        nursery.start_soon(play, token, argv)
                    for event, found, seat in zip(entries, sessions, mine, strict=True):
                        await event.wait()
                        found[0].offer(table, seat)
                    result = await server.wait(table)
                    for door in doors:
                        server.close_door(door)
                for other in others:
                    await other.join()
            assert result.outcome.reason == "played to the end"
            assert all(result.seats[s].connects == 1 for s in mine)

    anyio.run(main, backend="asyncio")
    for done in finished.values():
        stderr = done.stderr.decode()
        assert done.returncode == 0, stderr
        assert "entered session tester" in stderr and "warning" not in stderr
    # the sample bot prints what run_bot returned
    assert (
        "session tester over: 1 game played" in finished["random-token-for-tests"].stderr.decode()
    )


def test_the_sample_bots_help_lists_the_session_options() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "chaodipi.sample_bots.random_bot", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "--token-file" in done.stdout and "--capacity" in done.stdout
    assert "--wait-for-arena" in done.stdout and "$ARENA_TICKET" in done.stdout


def test_a_ticket_still_plays_one_seat_and_returns_its_match_result() -> None:
    """With a ticket (the arena's ``fresh = true`` bots) run_bot plays that seat alone, even
    with a session token in the environment too."""
    results: list[MatchResult | SessionResult] = []

    def ticket_bot(address: str, ticket: str, seat: int, recording: Recording) -> None:
        results.append(
            run_bot(
                random_decide(random.Random(seat)),
                argv=["--address", address, "--ticket", ticket, "--token", "ignored-token"],
            )
        )

    outcome, _ = run_tables([config("classic", seed=11)], [[ticket_bot] * 4])
    assert outcome[0].outcome.reason == "played to the end"
    assert len(results) == 4 and all(isinstance(r, MatchResult) for r in results)
