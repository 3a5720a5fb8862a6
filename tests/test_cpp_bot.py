"""The C++ sample bot (sample_bots/cpp/bot.cc) against a real server: whole matches in every
preset with Python bots in the other seats, and a wrong ticket; in session mode (--token),
seats of two tables played after the session ended, and a wrong token. Against scripted
servers: it answers again after a refusal, and not after a stale one; it enters a dropped
session again. It is built with `make` on first use (g++, pkg-config, protoc,
grpc_cpp_plugin and libgrpc++-dev; `.ci/run` installs them)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest

from chaodipi.arena.serving.server import open_server
from chaodipi.arena.tournament.processes import bot_environment
from chaodipi.engine.match import Ending
from chaodipi.engine.presets import PRESETS

from .process_bots import (
    check_a_run_that_ended_while_away,
    check_the_refusals,
    check_the_second_enter,
    check_the_session,
    play_a_session,
    run_against_a_dropping_arena,
    run_against_a_refusing_arena,
    run_with_a_wrong_token,
)
from .server_support import Recording, config, random_bot, run_tables

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "sample_bots" / "cpp"
BOT = SOURCE / "build" / "bot"
TOOLS = ("make", "g++", "pkg-config", "protoc", "grpc_cpp_plugin")
SETUP = (
    "apt-get install g++ make pkg-config protobuf-compiler protobuf-compiler-grpc"
    " libprotobuf-dev libgrpc++-dev, then `make -C sample_bots/cpp`"
)


def cpp_bot_executable() -> Path:
    """The built bot (``make`` runs on every call: it rebuilds only what changed, e.g. after
    the .proto moved). Without the toolchain the tests are skipped on a developer's machine but
    fail in CI (``CI`` set), where the C++ bot must run."""
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        message = f"the C++ toolchain is missing ({', '.join(missing)}): {SETUP}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    done = subprocess.run(
        ["make", "-C", str(SOURCE), f"-j{min(os.cpu_count() or 1, 4)}"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if done.returncode != 0:
        pytest.fail(f"make -C sample_bots/cpp failed ({done.returncode}):\n{done.stderr[-4000:]}")
    return BOT


def run_cpp_bot(address: str, ticket: str, *extra: str) -> subprocess.CompletedProcess[str]:
    """The bot on one seat, its ticket in $ARENA_TICKET (as the arena hands it)."""
    command = [str(BOT), "--address", address, *extra]
    env = bot_environment(address, ticket=ticket)
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, cwd=ROOT)


def play_with_cpp_bots(preset: str, max_hands: int | None) -> None:
    """One match: the C++ bot in seats 0 and 2, the Python random bot in seats 1 and 3."""
    logs: dict[int, str] = {}

    def cpp_bot(address: str, ticket: str, seat: int, recording: Recording) -> None:
        done = run_cpp_bot(address, ticket, "--seed", str(seat), "--name", f"cpp-{seat}")
        logs[seat] = done.stderr
        if done.returncode != 0:
            raise RuntimeError(f"the C++ bot exited with {done.returncode}:\n{done.stderr}")

    table = config(preset, max_hands=max_hands, decision_ms=10_000, bank_ms=60_000)
    bots = [[cpp_bot, random_bot, cpp_bot, random_bot]]
    results, recordings = run_tables([table], bots, timeout=900.0)
    result = results[0]
    for seat in range(4):
        assert recordings[0][seat].error is None, (seat, recordings[0][seat].error)
    assert result.ending is Ending.PLAYED_OUT, result
    assert result.forfeited_by is None, result
    if max_hands is not None:
        assert result.hands == max_hands, result
    for seat in (0, 2):
        assert "match over: ENDING_PLAYED_OUT" in logs[seat], logs[seat]
        assert "refused" not in logs[seat], logs[seat]
        stats = result.seats[seat]
        assert stats.name == f"cpp-{seat}"
        assert stats.decisions > 0
        assert stats.illegal == 0 and stats.malformed == 0 and stats.strikes == 0, stats
        assert stats.connects == 1, stats
    for seat in (1, 3):
        assert result.seats[seat].strikes == 0, result.seats[seat]


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_cpp_bot_plays_a_one_hand_match(preset: str) -> None:
    cpp_bot_executable()  # build (or fail) before any server starts
    play_with_cpp_bots(preset, max_hands=1)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_cpp_bot_plays_a_whole_match_to_its_end(preset: str) -> None:
    cpp_bot_executable()
    play_with_cpp_bots(preset, max_hands=None)


def test_cpp_bot_with_a_wrong_ticket_exits_1_and_says_unauthenticated() -> None:
    cpp_bot_executable()

    async def main() -> None:
        async with open_server("127.0.0.1:0") as server:
            # the table waits far longer than a loaded machine takes to start the bot, and
            # is closed with the server once the bot has gone
            table = server.start_table(config(connect_timeout_s=600, decision_ms=50, bank_ms=0))
            wrong = table.ticket(0)[:-3] + "xyz"
            done = await anyio.to_thread.run_sync(run_cpp_bot, server.address, wrong)
            assert done.returncode == 1, done.stderr
            assert "UNAUTHENTICATED" in done.stderr, done.stderr

    anyio.run(main, backend="asyncio")


def test_cpp_bot_answers_again_after_a_refusal_and_not_after_a_stale_one() -> None:
    done, arena = run_against_a_refusing_arena([str(cpp_bot_executable()), "--name", "scripted"])
    check_the_refusals(done, arena, name="scripted")


def test_cpp_bot_plays_its_session_s_seats_on_two_tables_and_exits_0_when_it_ends() -> None:
    command = [str(cpp_bot_executable()), "--name", "cpp-session", "--capacity", "3"]
    run = play_a_session(command)
    check_the_session(run, name="cpp-session", capacity=3)


def test_cpp_bot_with_a_wrong_session_token_exits_1_and_says_unauthenticated() -> None:
    done = run_with_a_wrong_token([str(cpp_bot_executable())])
    assert done.returncode == 1, done.stderr
    assert "UNAUTHENTICATED" in done.stderr and "unknown session token" in done.stderr, done.stderr


def test_cpp_bot_enters_again_after_a_dropped_session_and_plays_each_seat_once() -> None:
    command = [str(cpp_bot_executable()), "--name", "cpp-session"]
    done, arena = run_against_a_dropping_arena(command)
    check_the_second_enter(done, arena, name="cpp-session", capacity=4)


def test_cpp_bot_whose_run_ends_while_it_is_away_exits_0() -> None:
    """Re-entering after a drop, it is told FAILED_PRECONDITION (the run is over): a normal end."""
    check_a_run_that_ended_while_away([str(cpp_bot_executable())])
