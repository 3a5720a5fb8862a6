"""The Node.js sample bot (sample_bots/node/bot.js) against a real server: a whole match, and a
wrong ticket; in session mode (--token), seats of two tables played after the session ended,
and a wrong token. Against scripted servers: it answers again after a refusal, and not after
a stale one; it enters a dropped session again. It needs `node`; the bot's packages are
installed on first use with `npm ci`."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest

from chaodipi.arena.serving.server import open_server
from chaodipi.arena.tournament.processes import bot_environment

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
BOT = ROOT / "sample_bots" / "node" / "bot.js"
NODE_MODULES = ROOT / "sample_bots" / "node" / "node_modules"
SETUP = "run `npm ci --prefix sample_bots/node` from the repository root"


def node() -> str:
    """The node executable, with the bot's packages installed (``npm ci`` on first use).

    Without Node.js the tests are skipped on a developer's machine but fail in CI (``CI`` set),
    where the Node bot must run."""
    executable = shutil.which("node")
    if executable is None:
        message = f"`node` is not on PATH: install Node.js >= 18, then {SETUP}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    if not _packages_resolve(executable):
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail(f"{NODE_MODULES} is missing and npm is not on PATH: {SETUP}")
        done = subprocess.run(
            [npm, "ci", "--prefix", str(NODE_MODULES.parent), "--no-audit", "--no-fund"],
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0:
            pytest.fail(f"npm ci failed ({done.returncode}): {done.stderr[-2000:]}\n{SETUP}")
    return executable


def _packages_resolve(executable: str) -> bool:
    """Node finds the bot's packages (a folder left half-installed does not count)."""
    check = "require.resolve('@grpc/grpc-js'); require.resolve('@grpc/proto-loader')"
    done = subprocess.run(
        [executable, "-e", check], cwd=NODE_MODULES.parent, capture_output=True, timeout=60
    )
    return done.returncode == 0


def run_node_bot(address: str, ticket: str, *extra: str) -> subprocess.CompletedProcess[str]:
    """The bot on one seat, its ticket in $ARENA_TICKET (as the arena hands it)."""
    command = [node(), str(BOT), "--address", address, *extra]
    env = bot_environment(address, ticket=ticket)
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60, cwd=ROOT)


def test_node_bot_plays_a_whole_match() -> None:
    node()  # fail early and clearly, before any server starts
    logs: dict[int, str] = {}

    def node_bot(address: str, ticket: str, seat: int, recording: Recording) -> None:
        done = run_node_bot(address, ticket, "--seed", str(seat), "--name", f"node-{seat}")
        logs[seat] = done.stderr
        if done.returncode != 0:
            raise RuntimeError(f"node bot exited with {done.returncode}:\n{done.stderr}")

    bots = [[node_bot, random_bot, node_bot, random_bot]]
    results, recordings = run_tables([config("classic", max_hands=1)], bots)
    result = results[0]
    for seat in (0, 2):
        assert recordings[0][seat].error is None, recordings[0][seat].error
        assert "match over: winner team" in logs[seat], logs[seat]
    assert result.reason == "played to the end"
    for seat in (0, 2):
        stats = result.seats[seat]
        assert stats.decisions > 0
        assert stats.strikes == 0 and stats.malformed == 0, stats
        assert stats.name == f"node-{seat}"


def test_node_bot_with_a_wrong_ticket_exits_1_and_says_unauthenticated() -> None:
    node()

    async def main() -> None:
        async with open_server("127.0.0.1:0") as server:
            # the table waits far longer than a loaded machine takes to start the bot, and
            # is closed with the server once the bot has gone
            table = server.start_table(config(connect_timeout_s=600, decision_ms=50, bank_ms=0))
            wrong = table.ticket(0)[:-3] + "xyz"
            done = await anyio.to_thread.run_sync(run_node_bot, server.address, wrong)
            assert done.returncode == 1, done.stderr
            assert "UNAUTHENTICATED" in done.stderr, done.stderr

    anyio.run(main, backend="asyncio")


def test_node_bot_plays_its_session_s_seats_on_two_tables_and_exits_0_when_it_ends() -> None:
    command = [node(), str(BOT), "--name", "node-session", "--capacity", "3", "--seed", "5"]
    run = play_a_session(command)
    check_the_session(run, name="node-session", capacity=3)


def test_node_bot_with_a_wrong_session_token_exits_1_and_says_unauthenticated() -> None:
    done = run_with_a_wrong_token([node(), str(BOT)])
    assert done.returncode == 1, done.stderr
    assert "UNAUTHENTICATED" in done.stderr and "unknown session token" in done.stderr, done.stderr


def test_node_bot_enters_again_after_a_dropped_session_and_plays_each_seat_once() -> None:
    done, arena = run_against_a_dropping_arena([node(), str(BOT), "--name", "node-session"])
    check_the_second_enter(done, arena, name="node-session", capacity=4)


def test_node_bot_answers_again_after_a_refusal_and_not_after_a_stale_one() -> None:
    done, arena = run_against_a_refusing_arena([node(), str(BOT), "--name", "scripted"])
    check_the_refusals(done, arena, name="scripted")


def test_node_bot_whose_run_ends_while_it_is_away_exits_0() -> None:
    """Re-entering after a drop, it is told FAILED_PRECONDITION (the run is over): a normal end."""
    check_a_run_that_ended_while_away([node(), str(BOT)])
