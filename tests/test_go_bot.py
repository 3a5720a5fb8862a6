"""The Go kit (sample_bots/go: package arenabot and its random example) against a real server:
whole matches in every preset with Python bots in the other seats, and a wrong ticket; in
session mode (a token), seats of two tables played after the session ended, and a wrong token.
Against scripted servers: a seat whose stream drops is connected again and its decision
answered; a dropped session is entered again; it answers again after a refusal, and not after
a stale one. Built offline with `make -C sample_bots/go` on first use from Debian's Go
packages (`.ci/run` installs them); the kit's own `go test` runs too."""

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
    check_the_reconnect,
    check_the_refusals,
    check_the_second_enter,
    check_the_session,
    play_a_session,
    run_against_a_dropping_arena,
    run_against_a_dropping_seat,
    run_against_a_refusing_arena,
    run_with_a_wrong_token,
)
from .server_support import Recording, config, random_bot, run_tables

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "sample_bots" / "go"
BOT = SOURCE / "build" / "bot"
TOOLS = ("make", "go", "protoc", "protoc-gen-go", "protoc-gen-go-grpc")
GOCODE = Path("/usr/share/gocode/src")
LIBRARIES = ("google.golang.org/grpc", "google.golang.org/protobuf", "github.com/golang/protobuf")
SETUP = (
    "apt-get install golang-go golang-google-grpc-dev golang-github-golang-protobuf-1-5-dev"
    " protoc-gen-go protoc-gen-go-grpc protobuf-compiler make, then `make -C sample_bots/go`"
)


def _make(*targets: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "-C", str(SOURCE), *targets], capture_output=True, text=True, timeout=900
    )


def go_bot_executable() -> Path:
    """The built bot (``make`` runs on every call: it rebuilds only what changed). Without Go
    and Debian's Go libraries the tests are skipped on a developer's machine but fail in CI
    (``CI`` set), where the Go bot must run."""
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    missing += [str(GOCODE / lib) for lib in LIBRARIES if not (GOCODE / lib).is_dir()]
    if missing:
        message = f"the Go toolchain is missing ({', '.join(missing)}): {SETUP}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    done = _make()
    if done.returncode != 0:
        pytest.fail(f"make -C sample_bots/go failed ({done.returncode}):\n{done.stderr[-4000:]}")
    return BOT


def run_go_bot(address: str, ticket: str, *extra: str) -> subprocess.CompletedProcess[str]:
    """The bot on one seat, its ticket in $ARENA_TICKET (as the arena hands it)."""
    command = [str(BOT), "--address", address, *extra]
    env = bot_environment(address, ticket=ticket)
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_the_go_kit_s_own_tests_pass() -> None:
    go_bot_executable()
    done = _make("test")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok  \tgithub.com/chaodipi/arena/sample_bots/go/arenabot" in done.stdout, done.stdout


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_go_bot_plays_a_whole_match_in_every_preset(preset: str) -> None:
    """The Go bot in seats 0 and 2, the Python random bot in seats 1 and 3, to the end."""
    go_bot_executable()  # build (or fail) before any server starts
    logs: dict[int, str] = {}

    def go_bot(address: str, ticket: str, seat: int, recording: Recording) -> None:
        done = run_go_bot(address, ticket, "--seed", str(seat + 1), "--name", f"go-{seat}")
        logs[seat] = done.stderr
        if done.returncode != 0:
            raise RuntimeError(f"the Go bot exited with {done.returncode}:\n{done.stderr}")

    table = config(preset, max_hands=None, decision_ms=10_000, bank_ms=60_000)
    results, recordings = run_tables([table], [[go_bot, random_bot, go_bot, random_bot]])
    result = results[0]
    for seat in range(4):
        assert recordings[0][seat].error is None, (seat, recordings[0][seat].error)
    assert result.ending is Ending.PLAYED_OUT and result.forfeited_by is None, result
    for seat in (0, 2):
        assert logs[seat].startswith("match over: ENDING_PLAYED_OUT, winner team "), logs[seat]
        assert logs[seat].count("\n") == 1, logs[seat]  # no refusal, no safe move, no drop
        stats = result.seats[seat]
        assert stats.name == f"go-{seat}" and stats.decisions > 0, stats
        assert stats.illegal == 0 and stats.malformed == 0 and stats.strikes == 0, stats
        assert stats.connects == 1, stats


def test_go_bot_with_a_wrong_ticket_exits_1_with_one_line() -> None:
    go_bot_executable()

    async def main() -> None:
        async with open_server("127.0.0.1:0") as server:
            # the table waits far longer than a loaded machine takes to start the bot, and
            # is closed with the server once the bot has gone
            table = server.start_table(config(connect_timeout_s=600, decision_ms=50, bank_ms=0))
            wrong = table.ticket(0)[:-3] + "xyz"
            done = await anyio.to_thread.run_sync(run_go_bot, server.address, wrong)
            assert done.returncode == 1, done.stderr
            assert done.stderr.count("\n") == 1, done.stderr
            assert done.stderr.startswith(f"the arena at {server.address} refused the ticket")
            assert "(UNAUTHENTICATED: " in done.stderr and "$ARENA_TICKET" in done.stderr

    anyio.run(main, backend="asyncio")


def test_go_bot_connects_again_after_a_dropped_stream_and_answers_the_open_decision() -> None:
    done, arena = run_against_a_dropping_seat([str(go_bot_executable()), "--name", "go-seat"])
    check_the_reconnect(done, arena, name="go-seat")
    assert "stream dropped (UNAVAILABLE: scripted drop): connecting again" in done.stderr


def test_go_bot_answers_again_after_a_refusal_and_not_after_a_stale_one() -> None:
    done, arena = run_against_a_refusing_arena([str(go_bot_executable()), "--name", "scripted"])
    check_the_refusals(done, arena, name="scripted")


def test_go_bot_plays_its_session_s_seats_on_two_tables_and_exits_0_when_it_ends() -> None:
    command = [str(go_bot_executable()), "--name", "go-session", "--capacity", "3"]
    run = play_a_session(command)
    check_the_session(run, name="go-session", capacity=3)


def test_go_bot_with_a_wrong_session_token_exits_1_with_one_line() -> None:
    done = run_with_a_wrong_token([str(go_bot_executable())])
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert "refused the session (UNAUTHENTICATED: unknown session token" in done.stderr


def test_go_bot_enters_again_after_a_dropped_session_and_plays_each_seat_once() -> None:
    done, arena = run_against_a_dropping_arena([str(go_bot_executable()), "--name", "go-session"])
    check_the_second_enter(done, arena, name="go-session", capacity=4)


def test_go_bot_whose_run_ends_while_it_is_away_exits_0() -> None:
    """Re-entering after a drop, it is told FAILED_PRECONDITION (the run is over): a normal end."""
    check_a_run_that_ended_while_away([str(go_bot_executable())])


def test_go_bot_says_what_is_wrong_with_its_command_line() -> None:
    done = subprocess.run(
        [str(go_bot_executable()), "--capacity", "0"],
        env=bot_environment("127.0.0.1:9", token="a-token"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr == "--capacity must be at least 1, not 0\n"
