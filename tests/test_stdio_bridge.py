"""The stdio bridge (chaodipi.bot.stdio): a bot that speaks JSON lines plays through it.

What every kit does, the bridge with the documented 20-line bot (examples/stdio_bot.js, plain
Node.js) does in tests/test_kits.py: whole matches, a session, refusals, drops, wrong tickets
and tokens. Here, what is the bridge's own: the example plays a tournament of ``arena run``;
tests/bots/stdio_child.py (Python's standard library only) crashes, hangs or writes garbage
on demand: each is one line on the bridge's stderr, and the games are the bot's forfeits. Its
illegal moves are answered again by the bridge with safe ones, marked as fallbacks, which the
arena counts against it. The child never sees the secret, and none of its processes outlives
the bridge."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chaodipi.arena.results.database import ResultsDB
from chaodipi.arena.tournament.processes import bot_environment
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.bot.child import MAX_LINE, Child, ChildError, message_line

from .kits import STDIO, STDIO_EXAMPLE
from .process_bots import run_against_a_dropping_arena
from .test_install import SERVER_ONLY, _without
from .test_tournament import arena, write_config

ROOT = Path(__file__).resolve().parents[1]
CHILD = Path(__file__).parent / "bots" / "stdio_child.py"
BRIDGE = [*STDIO.bot]


def run_bridge(
    command: list[str], address: str, ticket: str, *options: str
) -> subprocess.CompletedProcess[str]:
    """The bridge on one seat, as the arena starts a bot: its ticket in ``$ARENA_TICKET`` and
    ``--address`` appended to the command."""
    full = [*BRIDGE, *options, "--", *command, "--address", address]
    env = bot_environment(address, ticket=ticket)
    return subprocess.run(full, env=env, capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_a_tournament_with_the_stdio_bot_is_played_out(tmp_path: Path) -> None:
    """``arena run`` starts the bridge as any command bot (a session, --address appended)."""
    stdio = shlex.join(STDIO.ready().command(name="stdio"))
    config_file = write_config(
        tmp_path / "t.toml",
        deals=2,
        bank_ms=10_000,  # a child's start on a loaded machine is no timeout
        bots={"stdio": stdio, "random": "python3 -m chaodipi.sample_bots.random_bot"},
    )
    done = arena("run", str(config_file))
    assert done.returncode == 0, done.stderr[-3000:]
    rows = ResultsDB(tmp_path / "results.sqlite", read_only=True).rows()
    assert len(rows) == 4, rows
    for row in rows:
        assert row.void is None and row.forfeit is None and row.score_a is not None, row
        assert row.illegal_a == row.illegal_b == 0 and row.strikes_a == row.strikes_b == 0, row
    logs = list((tmp_path / "results-logs").glob("stdio#*.stderr"))
    assert logs, "no stderr of a stdio process"
    played = sum(log.read_text().count("match over:") for log in logs)
    assert played == 8  # four games, two seats each


FAILURES = {
    "crash": "exited with status 3 before answering decision",
    "hang": "did not answer decision",
    "garbage": "with a line that is not an Answer in proto3 JSON",
}


@pytest.mark.parametrize("how", sorted(FAILURES))
def test_a_child_that_fails_is_one_line_and_forfeits_its_games(tmp_path: Path, how: str) -> None:
    """The child fails at its third decision: the bridge says how in one line and exits, and
    the arena records each game as that bot's forfeit, quoting the line."""
    bad = f"python3 -m chaodipi.bot.stdio -- python3 {CHILD} --fail {how} --at 3"
    config_file = write_config(
        tmp_path / "t.toml",
        deals=1,
        decision_ms=1000,
        bank_ms=4000,  # a child's start on a loaded machine: not a hang
        bots={"bad": bad, "random": "python3 -m chaodipi.sample_bots.random_bot"},
    )
    done = arena("run", str(config_file))
    assert done.returncode == 1, done.stderr[-3000:]
    rows = ResultsDB(tmp_path / "results.sqlite", read_only=True).rows()
    assert len(rows) == 2, rows
    for row in rows:
        assert row.void is None and row.forfeit == "bad" and row.score_a == 0.0, row
        assert row.crashes_a >= 1, row
    lines = [
        line
        for log in (tmp_path / "results-logs").glob("bad#*.stderr")
        for line in log.read_text().splitlines()
        if FAILURES[how] in line
    ]
    assert len(lines) == 2, lines  # one per game, each on a line of its own
    for line in lines:
        assert line.startswith("the bot `python3 "), line
        assert f"stdio_child.py --fail {how} --at 3` (seat " in line, line
    assert FAILURES[how] in done.stderr  # the run quotes it


def test_a_child_whose_answers_are_refused_plays_on_and_its_fallbacks_are_counted_everywhere(
    tmp_path: Path,
) -> None:
    """A child that passes where a play is due, from its third decision on: every such answer
    is refused and answered again by the bridge with the safe move marked ``fallback``, so the
    games are played out (no forfeit, no crash), and each fallback is counted against the bot:
    in the results file, the report's faults table (not "faults: none"), `arena games`, the
    game's record and `arena show`."""
    bad = f"python3 -m chaodipi.bot.stdio -- python3 {CHILD} --fail illegal --at 3"
    config_file = write_config(
        tmp_path / "t.toml",
        deals=1,
        decision_ms=2000,
        bank_ms=10_000,  # a child's start on a loaded machine: not a timeout
        bots={"bad": bad, "random": "python3 -m chaodipi.sample_bots.random_bot"},
    )
    done = arena("run", str(config_file))
    assert done.returncode == 0, done.stderr[-3000:]
    database = tmp_path / "results.sqlite"
    rows = ResultsDB(database, read_only=True).rows()
    assert len(rows) == 2, rows
    for row in rows:
        assert row.void is None and row.forfeit is None and row.crashes_a == 0, row
        assert row.fallbacks_a > 0 and row.fallbacks_a == row.illegal_a, row
        assert row.fallbacks_b == 0 and row.strikes_a == 0, row
    report = arena("report", str(database))
    assert report.returncode == 0, report.stderr
    assert "faults: none" not in report.stdout and "fallbacks" in report.stdout, report.stdout
    games = subprocess.run(
        [sys.executable, "-m", "chaodipi.arena", "games", str(database)],
        env={**os.environ, "COLUMNS": "200"},  # each game's faults on its one line
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert games.returncode == 0, games.stderr
    assert f"bad: {rows[0].fallbacks_a} fallbacks, " in games.stdout, games.stdout
    shown = arena("show", str(database), "1")
    assert shown.returncode == 0, shown.stderr
    assert "fallback: its kit answered for it" in shown.stdout, shown.stdout
    logs = [log.read_text() for log in (tmp_path / "results-logs").glob("bad#*.stderr")]
    assert any("counted as a fallback in the report" in log for log in logs), logs


def test_the_child_holds_no_secret_across_a_dropped_session(tmp_path: Path) -> None:
    """The bridge enters again after the drop (tests/test_kits.py) with the token, which its
    child never sees."""
    env_file = tmp_path / "env"
    child = ["python3", str(CHILD), "--env", str(env_file)]
    done, _ = run_against_a_dropping_arena([*BRIDGE, "--", *child])
    assert done.returncode == 0, done.stderr
    assert env_file.read_text().split() == ["ARENA_ADDRESS"]  # no ARENA_TOKEN


def test_a_command_that_cannot_start_is_one_line_and_exit_1() -> None:
    done = run_bridge(["./no-such-bot", "--fast"], "127.0.0.1:9", "a-ticket")
    assert done.returncode == 1, done.stderr
    assert done.stderr == (
        "cannot start the bot `./no-such-bot --fast`: [Errno 2] No such file or directory: "
        "'./no-such-bot'\n"
    )


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (
            ["node", "bot.js"],
            "`node bot.js` is not an option of the bridge: give the bot's command after --, "
            "e.g. `arena stdio -- node bot.js`",
        ),
        (["--capacity", "0", "--", "node"], "--capacity must be at least 1, not 0"),
    ],
)
def test_arena_stdio_says_what_is_wrong_with_its_command_line(
    words: list[str], message: str
) -> None:
    env = bot_environment("127.0.0.1:9", token="a-token")
    done = subprocess.run(
        [sys.executable, "-m", "chaodipi.arena", "stdio", *words],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"arena stdio: {message}\n"  # one line, as every arena command's


def test_the_bridge_s_help_names_the_protocol() -> None:
    done = subprocess.run([*BRIDGE, "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert "-- COMMAND [ARGS...]" in done.stdout and "proto3 JSON" in done.stdout


def test_the_bot_in_the_docs_is_the_example_tested_here() -> None:
    text = (ROOT / "docs" / "writing-a-bot.md").read_text(encoding="utf-8")
    section = text.split("## Any language: the stdio bridge", 1)[1].split("\n## ", 1)[0]
    block = section.split("```js\n", 1)[1].split("```", 1)[0]
    assert block == STDIO_EXAMPLE.read_text(encoding="utf-8")
    assert len(block.splitlines()) == 20


def test_the_bridge_runs_on_a_bot_s_install_without_the_server_s_packages() -> None:
    """It is the SDK's: its help answers in an interpreter that cannot import trio, scipy,
    rich, structlog, ... (tests/test_install.py's blocker)."""
    code = "import sys\nfrom chaodipi.bot.stdio import main\nmain(['--help'])\n"
    done = _without(SERVER_ONLY, code)
    assert done.returncode == 0, done.stderr
    assert "-- COMMAND [ARGS...]" in done.stdout


# -- the child's lines and its processes ------------------------------------------------------

HANG_S = 60.0
"""A hang guard only: what is waited for comes long before."""

FLOOD = (
    "import os, sys\n"
    "count = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)\n"
    "line = b'x' * 60000 + b'\\n'\n"
    "while True:\n"
    "    sys.stdout.buffer.write(line)\n"
    "    sys.stdout.buffer.flush()\n"
    "    os.write(count, b'.')\n"
)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _spawned(folder: Path, count: int = 1) -> list[int]:
    """The pids the children started with ``--spawn folder`` wrote (themselves and their
    sleepers), once ``count`` children have written them."""
    deadline = time.monotonic() + HANG_S
    while len(files := [p for p in folder.iterdir() if p.name.isdigit()]) < count:
        assert time.monotonic() < deadline, "the children never started"
        time.sleep(0.05)
    return [int(pid) for path in files for pid in path.read_text().split()]


def _outlive(pids: list[int]) -> list[int]:
    """The processes of ``pids`` still running once they have had time to end (they are
    killed then, so that a failing test leaves none behind)."""
    deadline = time.monotonic() + 10.0  # a hang guard: an ended group goes at once
    while (left := [pid for pid in pids if _alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return left


def test_a_child_that_floods_its_stdout_waits_for_the_bridge(tmp_path: Path) -> None:
    """The bridge holds AHEAD lines it has not asked for; then the child waits in its write
    (it wrote no more than those, what the pipe holds and the one it is writing)."""
    from chaodipi.bot.child import AHEAD

    count = tmp_path / "count"
    count.touch()
    child = Child.start([sys.executable, "-c", FLOOD, str(count)])
    try:
        deadline = time.monotonic() + HANG_S
        while child.waiting < AHEAD:
            assert time.monotonic() < deadline and child.process.poll() is None
            time.sleep(0.05)
        assert child.waiting == AHEAD
        assert count.stat().st_size <= AHEAD + 4
    finally:
        child.kill()
    assert child.process.returncode == -signal.SIGTERM


def test_a_line_longer_than_the_cap_is_a_protocol_error_naming_it(tmp_path: Path) -> None:
    code = f"import sys; sys.stdout.write('x' * {MAX_LINE + 10} + '\\n'); sys.stdout.flush()"
    child = Child.start([sys.executable, "-c", code])
    try:
        with pytest.raises(ChildError, match=f"with a line longer than {MAX_LINE} bytes, the most"):
            child.answer(1, HANG_S)
    finally:
        child.kill()


def test_a_childs_whole_process_group_ends_with_it(tmp_path: Path) -> None:
    child = Child.start([sys.executable, str(CHILD), "--spawn", str(tmp_path)])
    try:
        pids = _spawned(tmp_path)
    finally:
        child.kill()
    assert _outlive(pids) == []


def test_the_bridge_ended_by_sigterm_ends_its_childrens_processes(tmp_path: Path) -> None:
    """The arena ends a bot with SIGTERM: the bridge ends each child's group before it goes."""
    command = [*BRIDGE, "--", sys.executable, str(CHILD), "--spawn", str(tmp_path)]
    env = bot_environment("127.0.0.1:9", ticket="t1/0/a-ticket")  # no arena: it waits for one
    log = tmp_path / "bridge.stderr"
    with log.open("wb") as stderr:
        bridge = subprocess.Popen(command, env=env, stderr=stderr, cwd=ROOT)
    pids: list[int] = []
    try:
        pids = _spawned(tmp_path)
        bridge.send_signal(signal.SIGTERM)
        code = bridge.wait(HANG_S)
    finally:
        bridge.kill()
        bridge.wait()
        left = _outlive(pids)
    assert code == 128 + signal.SIGTERM, log.read_text()
    assert left == [], log.read_text()


def test_no_process_of_a_run_outlives_it(tmp_path: Path) -> None:
    """A stdio bot whose children start helpers and then hang, and a bot under a wrapper shell
    script that starts a helper: once ``arena run`` is over, none of them runs."""
    helpers = tmp_path / "helpers"
    helpers.mkdir()
    sleeper = (
        "import os, pathlib, sys, time; "
        "pathlib.Path(sys.argv[1], str(os.getpid())).write_text(str(os.getpid())); "
        "time.sleep(3600)"
    )
    wrapper = [
        "sh",
        "-c",
        f'python3 -c "$0" {helpers} & exec python3 -m chaodipi.sample_bots.random_bot "$@"',
        sleeper,
    ]
    bad = f"python3 -m chaodipi.bot.stdio -- python3 {CHILD} --fail hang --at 3 --spawn {helpers}"
    config_file = write_config(
        tmp_path / "t.toml",
        deals=1,
        decision_ms=1000,
        bank_ms=4000,  # a child's start on a loaded machine: not a hang
        bots={"bad": bad, "wrapped": {"command": wrapper}},
    )
    done = arena("run", str(config_file))
    pids = [int(pid) for path in helpers.iterdir() for pid in path.read_text().split()]
    assert _outlive(pids) == []
    assert done.returncode == 1, done.stderr[-3000:]
    assert len(pids) >= 4, pids  # two stdio children (and their sleepers), two wrapped sleepers


def test_seat_0_s_welcome_line_has_every_field() -> None:
    """JSON leaves a proto3 default out unless told: seat 0 would come with no ``seat``."""
    welcome = pb.Welcome(seat=0, partner=2, table="t1", preset="classic", protocol_version=2)
    line = json.loads(message_line(pb.PlayResponse(welcome=welcome)))
    assert line["welcome"]["seat"] == 0 and line["welcome"]["resumed"] is False
    assert set(line["welcome"]) == {f.json_name for f in pb.Welcome.DESCRIPTOR.fields}
