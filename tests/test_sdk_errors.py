"""What a Python bot process says when it cannot play: a wrong ticket, a wrong token, nothing at
the address. Each is one line on stderr (no traceback) and exit status 1, from the sample bot
and from the 11-line example, which calls ``run_bot(decide)`` alone. A bot started before the
arena listens waits for it. And a secret given on the command line is warned about.

Every wait is for an event (a line on the bot's stderr, a session entered, the process's
exit); the timeouts only catch a hang."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
from pathlib import Path

import anyio
import anyio.abc
import grpc
import pytest

from chaodipi.arena.serving.server import open_server
from chaodipi.arena.serving.sessions import Session
from chaodipi.arena.tournament.processes import bot_environment
from chaodipi.bot import SeatError, SessionError, SessionResult, run_bot

from .process_bots import run_with_a_wrong_token
from .server_support import config

ROOT = Path(__file__).resolve().parent.parent
HANG_S = 120.0
TOKEN = "a-session-token-for-tests"
COMMANDS = {
    "sample-bot": [sys.executable, "-m", "chaodipi.sample_bots.random_bot"],
    "example": [sys.executable, str(ROOT / "examples" / "highest_card_bot.py")],
}


async def run_bot_process(command: list[str], env: dict[str, str]) -> tuple[int, list[str]]:
    """Run a bot process to its end: its exit status and its stderr's lines."""
    with anyio.fail_after(HANG_S):
        done = await anyio.run_process(command, env=env, cwd=ROOT, check=False)
    return done.returncode, done.stderr.decode(errors="replace").splitlines()


def free_address() -> str:
    """A localhost address nothing listens on (a port the system just handed out)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{probe.getsockname()[1]}"


@pytest.mark.parametrize("command", COMMANDS.values(), ids=COMMANDS.keys())
def test_a_wrong_ticket_is_one_line_and_exit_status_1(command: list[str]) -> None:
    async def main() -> None:
        async with open_server("127.0.0.1:0") as server:
            # the table waits for its seats far longer than a loaded machine takes to start
            # the bot, and is closed with the server once the bot has gone
            table = server.start_table(config(connect_timeout_s=600, decision_ms=50, bank_ms=0))
            wrong = table.ticket(0)[:-3] + "xyz"
            env = bot_environment(server.address, ticket=wrong)
            status, lines = await run_bot_process([*command, "--address", server.address], env)
        assert status == 1, lines
        assert len(lines) == 1, lines
        line = lines[0]
        assert line.startswith(f"the arena at {server.address} refused the ticket"), line
        assert "UNAUTHENTICATED: unknown or wrong ticket" in line
        assert "check the ticket in $ARENA_TICKET" in line

    anyio.run(main, backend="asyncio")


@pytest.mark.parametrize("command", COMMANDS.values(), ids=COMMANDS.keys())
@pytest.mark.parametrize("secret", ["ticket", "token"])
def test_nothing_at_the_address_is_one_line_and_exit_status_1(
    command: list[str], secret: str
) -> None:
    address = free_address()
    env = bot_environment(address, **{secret: "some-secret-of-the-bot"})
    full = [*command, "--address", address, "--wait-for-arena", "0"]
    status, lines = anyio.run(run_bot_process, full, env, backend="asyncio")
    assert status == 1, lines
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"no arena answered at {address} (UNAVAILABLE: "), lines
    assert "start the arena first, or check the address (--address, $ARENA_ADDRESS)" in lines[0]


def test_a_wrong_session_token_is_one_line_and_exit_status_1() -> None:
    done = run_with_a_wrong_token([sys.executable, "-m", "chaodipi.sample_bots.random_bot"])
    lines = str(done.stderr).splitlines()
    assert done.returncode == 1, lines
    assert len(lines) == 1, lines
    assert "refused the session (UNAUTHENTICATED: unknown session token)" in lines[0]
    assert "check the token in $ARENA_TOKEN" in lines[0]


def test_a_bot_started_before_the_arena_listens_enters_once_it_does() -> None:
    """The bot's first try finds nothing at the address: it says so and keeps trying. Only
    then does the server start on that address; the bot enters, and exits 0 when its session
    ends."""
    address = free_address()
    command = [*COMMANDS["sample-bot"], "--address", address]
    env = bot_environment(address, token=TOKEN)
    said: list[str] = []
    sessions: list[Session] = []

    async def main() -> None:
        with anyio.fail_after(HANG_S):
            process = await anyio.open_process(
                command, env=env, cwd=ROOT, stderr=subprocess.PIPE
            )
            assert process.stderr is not None
            try:
                said.append(await first_line(process.stderr))
                waiting = f"no arena at {address} yet (UNAVAILABLE): trying again for up to 30 s"
                assert said == [waiting], said
                async with open_server(address) as server:
                    entered = anyio.Event()

                    def on_enter(session: Session) -> None:
                        sessions.append(session)
                        entered.set()

                    door = server.open_door(TOKEN, "early", on_enter=on_enter)
                    await entered.wait()
                    server.close_door(door)
                    said.extend((await read_all(process.stderr)).splitlines())
                    assert await process.wait() == 0, said
            finally:
                if process.returncode is None:
                    process.kill()
                await process.wait()

    anyio.run(main, backend="asyncio")
    assert len(sessions) == 1 and sessions[0].bot_name == "random"
    assert "entered session early (up to 4 games at once)" in said, said
    assert said[-1] == "session early over: 0 games played", said


async def first_line(stream: anyio.abc.ByteReceiveStream) -> str:
    """Read up to the first newline (a failing test sees what came before the end)."""
    data = b""
    while b"\n" not in data:
        try:
            data += await stream.receive()
        except anyio.EndOfStream:
            raise AssertionError(f"the bot ended its stderr without a full line: {data!r}") from None
    return data.decode().partition("\n")[0]


async def read_all(stream: anyio.abc.ByteReceiveStream) -> str:
    data = b""
    with contextlib.suppress(anyio.EndOfStream):
        while True:
            data += await stream.receive()
    return data.decode()


def test_a_secret_on_the_command_line_is_warned_about(capsys: pytest.CaptureFixture[str]) -> None:
    address = free_address()
    instead = {"--token": "$ARENA_TOKEN or --token-file PATH", "--ticket": "$ARENA_TICKET"}
    for option, where in instead.items():
        with pytest.raises((SessionError, SeatError)):
            run_bot(
                lambda view: view.legal.default(),
                argv=["--address", address, option, "a-secret", "--wait-for-arena", "0"],
                exit_on_error=False,
            )
        warning = capsys.readouterr().err.splitlines()[0]
        assert warning.startswith(f"warning: {option} puts a secret on the command line"), warning
        assert f"pass it in {where} instead" in warning


def test_a_token_file_is_read_and_no_warning_is_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    token_file.chmod(0o600)
    outcome: list[SessionResult] = []

    async def main() -> None:
        async with open_server("127.0.0.1:0") as server:
            entered = anyio.Event()
            door = server.open_door(TOKEN, "from-a-file", on_enter=lambda _: entered.set())
            argv = ["--address", server.address, "--token-file", str(token_file)]
            async with anyio.create_task_group() as nursery:

                async def bot() -> None:
                    result = await anyio.to_thread.run_sync(
                        lambda: run_bot(lambda view: view.legal.default(), argv=argv)
                    )
                    assert isinstance(result, SessionResult)
                    outcome.append(result)

                nursery.start_soon(bot)
                with anyio.fail_after(HANG_S):
                    await entered.wait()
                server.close_door(door)

    anyio.run(main, backend="asyncio")
    assert outcome == [SessionResult("from-a-file", games=(), lost=0)]
    assert "warning" not in capsys.readouterr().err


def test_run_bot_raises_the_error_when_asked_and_exits_with_its_line_by_default() -> None:
    address = free_address()
    with pytest.raises(SeatError) as raised:
        run_bot(
            lambda view: view.legal.default(),
            address=address,
            ticket="t1/0/secret",
            wait_for_arena=0,
            exit_on_error=False,
        )
    assert raised.value.code == grpc.StatusCode.UNAVAILABLE
    with pytest.raises(SystemExit) as exited:
        run_bot(lambda view: view.legal.default(), address=address, ticket="t", wait_for_arena=0)
    assert isinstance(exited.value.code, str)
    prefix = f"no arena answered at {address} (UNAVAILABLE: "
    assert exited.value.code.startswith(prefix) and str(raised.value).startswith(prefix)
