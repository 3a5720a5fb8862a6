"""Every bot kit that runs as a process (tests/kits.py: C++, Node, Go, and the stdio bridge
with its Node example bot) through the same scenarios. Against a real server: a one-hand and
a whole match in every preset with Python bots in the other seats, and a wrong ticket; in
session mode (a token), seats of two tables played after the session ended, and a wrong
token. Against scripted servers (tests/process_bots.py): it answers again after a refusal, and
not after a stale one; a dropped session is entered again; a run that ended while it was away
is a normal end; a seat whose stream drops is connected again (by the kits that do). A bad
command line is exit 2. Each kit is built once per test session (``make``, ``npm ci``); a
kit's own tests are at the end (the Go kit's ``go test``), the bridge's in
tests/test_stdio_bridge.py."""

from __future__ import annotations

import re

import pytest

from chaodipi.engine.match import Ending
from chaodipi.engine.presets import PRESETS

from .kits import GO, GO_SOURCE, KITS, Kit, make
from .process_bots import (
    DroppingSeatArena,
    RefusingArena,
    check_a_run_that_ended_while_away,
    check_the_reconnect,
    check_the_refusals,
    check_the_second_enter,
    check_the_session,
    play_a_session,
    run_against_a_dropping_arena,
    run_on_a_scripted_seat,
    run_on_a_seat,
    run_with_a_bad_command_line,
    run_with_a_wrong_ticket,
    run_with_a_wrong_token,
)
from .server_support import Bot, Recording, config, random_bot, run_tables

pytestmark = pytest.mark.slow  # each kit's toolchain and build, its processes: `pytest -m slow`


@pytest.fixture(scope="session", params=KITS, ids=lambda kit: kit.name)
def kit(request: pytest.FixtureRequest) -> Kit:
    """Each kit, built (or skipped) once per test session, before any server starts."""
    ready: Kit = request.param.ready()
    return ready


@pytest.mark.parametrize("max_hands", [1, None], ids=["one-hand", "whole"])
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_kit_plays_a_match_to_its_end(kit: Kit, preset: str, max_hands: int | None) -> None:
    """The kit's bot in seats 0 and 2, the Python random bot in seats 1 and 3: the match is
    played out without a fault, and each of its bots says so in one line."""
    logs: dict[int, str] = {}

    def kit_bot(address: str, ticket: str, seat: int, recording: Recording) -> None:
        command = kit.command(name=f"{kit.name}-{seat}", seed=seat + 1)
        done = run_on_a_seat(command, address, ticket)
        logs[seat] = done.stderr
        if done.returncode != 0:
            raise RuntimeError(f"the {kit.name} bot exited with {done.returncode}:\n{done.stderr}")

    table = config(preset, max_hands=max_hands, decision_ms=10_000, bank_ms=60_000)
    bots: list[list[Bot]] = [[kit_bot, random_bot, kit_bot, random_bot]]
    results, recordings = run_tables([table], bots, timeout=900.0)
    result = results[0]
    for seat in range(4):
        assert recordings[0][seat].error is None, (seat, recordings[0][seat].error)
    assert result.outcome.ending is Ending.PLAYED_OUT and result.outcome.forfeited_by is None, result
    if max_hands is not None:
        assert result.outcome.hands == max_hands, result
    for seat in (0, 2):
        assert logs[seat].startswith("match over: "), logs[seat]
        assert logs[seat].count("\n") == 1, logs[seat]  # no refusal, no fallback, no drop
        stats = result.seats[seat]
        assert stats.name == f"{kit.name}-{seat}" and stats.decisions > 0, stats
        assert stats.illegal == 0 and stats.malformed == 0 and stats.strikes == 0, stats
        assert stats.connects == 1, stats
    for seat in (1, 3):
        assert result.seats[seat].strikes == 0, result.seats[seat]


def test_a_kit_with_a_wrong_ticket_exits_1_with_one_line(kit: Kit) -> None:
    done = run_with_a_wrong_ticket(kit.command())
    assert done.returncode == 1, done.stderr
    assert done.stderr == kit.lines.wrong_ticket.format(address=done.args[-1]) + "\n"


def test_a_kit_answers_again_after_a_refusal_and_not_after_a_stale_one(kit: Kit) -> None:
    done, arena = run_on_a_scripted_seat(RefusingArena(), kit.command(name="scripted", seed=3))
    check_the_refusals(done, arena, name="scripted")


def test_a_kit_plays_its_session_s_seats_on_two_tables_and_exits_0_when_it_ends(
    kit: Kit,
) -> None:
    name = f"{kit.name}-session"
    run = play_a_session(kit.command(name=name, capacity=3, seed=5))
    check_the_session(run, name=name, capacity=3)


def test_a_kit_with_a_wrong_session_token_exits_1_with_one_line(kit: Kit) -> None:
    done = run_with_a_wrong_token(kit.command())
    assert done.returncode == 1, done.stderr
    assert done.stderr == kit.lines.wrong_token.format(address=done.args[-1]) + "\n"


def test_a_kit_enters_again_after_a_dropped_session_and_plays_each_seat_once(kit: Kit) -> None:
    name = f"{kit.name}-session"
    done, arena = run_against_a_dropping_arena(kit.command(name=name))
    check_the_second_enter(done, arena, name=name, capacity=4)


def test_a_kit_whose_run_ends_while_it_is_away_exits_0(kit: Kit) -> None:
    """Re-entering after a drop, it is told FAILED_PRECONDITION (the run is over): a normal end."""
    check_a_run_that_ended_while_away(kit.command())


@pytest.mark.parametrize(
    "kit",
    [kit for kit in KITS if kit.reconnect_says is not None],
    ids=lambda kit: kit.name,
    indirect=True,
)
def test_a_kit_connects_again_after_a_dropped_stream_and_answers_the_open_decision(
    kit: Kit,
) -> None:
    name = f"{kit.name}-seat"
    done, arena = run_on_a_scripted_seat(DroppingSeatArena(), kit.command(name=name))
    check_the_reconnect(done, arena, name=name)
    assert done.stderr.splitlines()[:-1] == list(kit.reconnect_says or ()), done.stderr


def test_a_kit_says_what_is_wrong_with_its_command_line(kit: Kit) -> None:
    """``--capacity 0``: exit 2, the first line naming the flag and the value (a usage line
    may follow)."""
    done = run_with_a_bad_command_line(kit.command(capacity=0))
    assert done.returncode == 2, done.stderr
    first, *rest = done.stderr.splitlines()
    assert re.search(r"--capacity must be .*\bnot 0\)?$", first), done.stderr
    assert len(rest) <= 1 and all(line.startswith("usage: ") for line in rest), rest


# -- a kit's own tests --------------------------------------------------------------------------


def test_the_go_kit_s_own_tests_pass() -> None:
    GO.ready()
    done = make(GO_SOURCE, "test")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok  \tgithub.com/chaodipi/arena/sample_bots/go/arenabot" in done.stdout, done.stdout
