"""``arena run`` when things go wrong: bots that never play, a busy or foreign database, Ctrl-C,
and the command line's overrides. Nothing here waits on a timer for a result: each test waits
for what it needs to see (a process exit, a stored game)."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio
import grpc
import pytest

from chaodipi.arena.results.database import ResultsDB
from chaodipi.arena.serving.server import open_server
from chaodipi.arena.tournament.backend import Assignment, OnResult
from chaodipi.arena.tournament.config import load_config
from chaodipi.arena.tournament.driver import run_tournament
from chaodipi.arena.tournament.local import play_games
from chaodipi.arena.v2 import arena_pb2_grpc, convert
from tests.test_tournament import BOT, arena, stored_games, write_config

BROKEN = f"{sys.executable} -c \"import sys; print('missing weights.bin', file=sys.stderr); sys.exit(3)\""
SLEEPER = f'{sys.executable} -c "import signal; signal.pause()"'  # never connects


def test_a_bot_failing_to_start_three_games_in_a_row_stops_the_run(tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "t.toml", deals=5, concurrency=1, bots={"good": BOT, "broken": BROKEN}
    )
    done = arena("run", str(config))
    assert done.returncode == 1
    assert "stopped: bot 'broken' failed to start 3 games in a row" in done.stderr
    assert "missing weights.bin" in done.stderr  # the tail of its stderr
    assert "command: " in done.stderr and "sys.exit(3)" in done.stderr  # its command, as run
    rows = ResultsDB(tmp_path / "results.sqlite", read_only=True).rows()
    assert len(rows) == 3 and all(r.void for r in rows)  # not the whole schedule


JUNK = (  # frames of the right shape whose payload is no message, written fast, nothing read
    f'{sys.executable} -c "import os, socket; '
    "link = socket.socket(fileno=int(os.environ['ARENA_LOCAL'][3:])); "
    "frame = bytes([3, 0, 0, 0, 1, 0, 0, 0, 2, 255, 255, 255]) * 100\n"
    'while True: link.sendall(frame)"'
)


def test_a_bot_writing_unreadable_frames_is_cut_off_in_a_few_lines_and_fails_to_start(
    tmp_path: Path,
) -> None:
    """Each of its processes' links breaks at its third refused frame (two ``refused`` lines
    and one ``link_broken`` naming the process), the process goes, and the bot's games are
    void by the rule for a bot that never took its seat: three in a row stop the run."""
    config = write_config(
        tmp_path / "t.toml", deals=5, concurrency=1, bots={"good": BOT, "junk": JUNK}
    )
    done = arena("run", str(config), timeout=120)
    assert done.returncode == 1
    assert "stopped: bot 'junk' failed to start 3 games in a row" in done.stderr
    logged = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    broken = [e for e in logged if e["event"] == "link_broken"]
    refused = [e for e in logged if e["event"] == "refused"]
    assert broken and all(e["error"].startswith("3 frames refused, the last: ") for e in broken)
    assert {e["session"] for e in broken} == {e["peer"].removeprefix("local:") for e in refused}
    assert len(refused) == 2 * len(broken) and len(broken) <= 12  # a process or two per game
    rows = ResultsDB(tmp_path / "results.sqlite", read_only=True).rows()
    assert len(rows) == 3 and all(r.void for r in rows)


def test_when_both_teams_fail_to_start_no_game_is_a_result(tmp_path: Path) -> None:
    """Both bot commands lack what they need: nothing is decided by which seat timed out."""
    config = write_config(tmp_path / "t.toml", deals=1, bots={"a": BROKEN, "b": BROKEN})
    done = arena("run", str(config), "--json")
    assert done.returncode == 1
    rows = ResultsDB(tmp_path / "results.sqlite", read_only=True).rows()
    assert len(rows) == 2 and all(r.void and r.score_a is None for r in rows)
    report = json.loads(done.stdout)
    assert all(b["score"] == 0 for b in report["bots"])


def test_a_bot_that_never_connects_makes_its_game_void(tmp_path: Path, transport: str) -> None:
    config = write_config(
        tmp_path / "t.toml",
        transport=transport,
        deals=1,
        concurrency=2,
        connect_timeout=8,  # the good bot's start on a loaded machine: seconds
        bots={"good": BOT, "sleeper": SLEEPER},
    )
    done = arena("run", str(config))
    assert done.returncode == 1
    rows = ResultsDB(tmp_path / "results.sqlite", read_only=True).rows()
    assert len(rows) == 2
    for row in rows:
        assert row.void is not None and "sleeper" in row.void
        assert "did not connect within 8 s" in row.void
        assert row.errors == ""  # why it is void is said once, in row.void
        assert row.reason.startswith("void: sleeper (seat "), row.reason
        for line in row.void.splitlines():  # the live log says why, as it did
            assert f"  {line}" in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("arena run: 0 games played now (and 2 void, to play again)"), last
    assert last.endswith("; exit code 1: void games are left to play with --resume"), last


def test_python3_in_a_command_is_the_arenas_interpreter_in_the_config_folder(
    tmp_path: Path,
) -> None:
    """A ``python3`` on PATH without the project's packages must not be picked; a relative
    script path resolves from the config file's folder."""
    fake = tmp_path / "fakebin"
    fake.mkdir()
    impostor = fake / "python3"
    impostor.write_text("#!/bin/sh\necho 'not the arena python' >&2\nexit 42\n")
    impostor.chmod(impostor.stat().st_mode | stat.S_IEXEC)
    folder = tmp_path / "bots"
    folder.mkdir()
    (folder / "my_bot.py").write_text(
        "from chaodipi.sample_bots.random_bot import main\nmain()\n", encoding="utf-8"
    )
    config = write_config(
        folder / "t.toml",
        deals=1,
        bots={"mine": "python3 my_bot.py", "theirs": "python3 -m chaodipi.sample_bots.random_bot"},
    )
    env = {**os.environ, "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        [sys.executable, "-m", "chaodipi.arena", "run", str(config)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    rows = ResultsDB(folder / "results.sqlite", read_only=True).rows()
    assert len(rows) == 2 and all(r.void is None and r.score_a is not None for r in rows)


def test_a_second_run_on_a_database_in_use_is_refused_at_once(tmp_path: Path) -> None:
    config = write_config(tmp_path / "t.toml", deals=1, bots={"a": BOT, "b": BOT})
    holder = ResultsDB(tmp_path / "results.sqlite")  # as a first run would
    try:
        done = arena("run", str(config), timeout=60)
    finally:
        holder.close()
    assert done.returncode == 2
    assert "in use by another arena run" in done.stderr and "Traceback" not in done.stderr


def test_a_file_that_is_not_an_arena_database_is_named(tmp_path: Path) -> None:
    (tmp_path / "results.sqlite").write_text("my notes, not a database\n" * 100)
    config = write_config(tmp_path / "t.toml", deals=1, bots={"a": BOT, "b": BOT})
    done = arena("run", str(config), timeout=60)
    assert done.returncode == 2 and "is not an arena results database" in done.stderr
    report = arena("report", str(tmp_path / "results.sqlite"), timeout=60)
    assert report.returncode == 2 and "is not an arena results database" in report.stderr
    assert "Traceback" not in done.stderr + report.stderr


def test_an_unusable_database_path_is_named(tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "t.toml",
        deals=1,
        database="/proc/no-such-place/results.sqlite",
        bots={"a": BOT, "b": BOT},
    )
    done = arena("run", str(config), timeout=60)
    assert done.returncode == 2
    assert "cannot use /proc/no-such-place/results.sqlite" in done.stderr
    assert "Traceback" not in done.stderr


def test_ctrl_c_stops_cleanly_and_resume_goes_on(tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "t.toml", deals=8, concurrency=2, hands=2, bots={"a": BOT, "b": BOT}
    )
    database = tmp_path / "results.sqlite"
    runner = subprocess.Popen(
        [sys.executable, "-m", "chaodipi.arena", "run", str(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 180  # a bound on a hang, not on the machine's speed
    while time.monotonic() < deadline and runner.poll() is None:
        if stored_games(database) >= 1:
            break
        time.sleep(0.1)
    runner.send_signal(signal.SIGINT)
    _out, err = runner.communicate(timeout=120)
    assert runner.returncode == 130, err
    assert "Traceback" not in err
    stored = stored_games(database)
    assert f"interrupted; {stored} games played now" in err and "--resume" in err
    resumed = arena("run", str(config), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert f"{16 - stored} games played now, {stored} already stored" in resumed.stderr


def test_command_line_overrides_win_over_the_config(tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "t.toml", deals=5, hands=3, concurrency=1, bots={"a": BOT, "b": BOT}
    )
    done = arena("run", str(config), "--deals", "1", "--hands", "1", "--preset", "hefei", "--json")
    assert done.returncode == 0, done.stderr
    rows = ResultsDB(tmp_path / "results.sqlite", read_only=True).rows()
    assert len(rows) == 2 and all(r.hands == 1 for r in rows)
    bad = arena("run", str(config), "--deals", "0")
    assert bad.returncode == 2
    assert "argument -n/--deals: must be a whole number of at least 1" in bad.stderr
    wrong = arena("run", str(config), "--preset", "nope")
    assert wrong.returncode == 2 and "preset: no preset 'nope'" in wrong.stderr


def test_version() -> None:
    done = arena("--version", timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("arena ")


CRASHER = """\
import os, random, sys
from chaodipi.bot import run_bot

decisions = 0


def decide(view):
    global decisions
    decisions += 1
    if decisions == 3:  # mid-game, after it has played
        print("out of memory, say", file=sys.stderr, flush=True)
        os._exit(1)
    return view.legal.sample(random.Random(decisions))


run_bot(decide)
"""


def test_a_bot_that_crashes_mid_game_forfeits_that_game(tmp_path: Path, transport: str) -> None:
    """It played, so the game is a result: a loss by forfeit, decided when it exits (not after
    its clock runs out), with its stderr quoted."""
    (tmp_path / "crasher.py").write_text(CRASHER, encoding="utf-8")
    config = write_config(
        tmp_path / "t.toml",
        transport=transport,
        deals=1,
        hands=0,  # a whole match: only the crash can end it this early
        bots={"steady": BOT, "crasher": "python3 crasher.py"},
    )
    done = arena("run", str(config))
    assert done.returncode == 1
    rows = ResultsDB(tmp_path / "results.sqlite", read_only=True).rows()
    assert len(rows) == 2
    for row in rows:
        assert row.void is None and row.forfeit == "crasher" and row.score_a == 1.0
        assert row.crashes_b >= 1 and row.strikes_b == 0  # no clock ran out
        assert "crasher" in row.reason and "crashed" in row.reason
    assert "out of memory, say" in done.stderr
    # exit code 1 says why, last (it used to end the run without a word)
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("arena run: 2 games played now"), last
    assert "; exit code 1: crasher: 2 forfeits, " in last, last


ONCE_CRASHER = """\
import os, random, sys
from pathlib import Path

import pytest
from chaodipi.bot import run_bot

marker = Path("crashed-once")
decisions = 0


def decide(view):
    global decisions
    decisions += 1
    if decisions == 3 and not marker.exists():  # the first process to get here dies
        marker.write_text("x")
        print("segfault, say", file=sys.stderr, flush=True)
        os._exit(1)
    return view.legal.sample(random.Random(decisions))


run_bot(decide)
"""


def test_a_process_that_dies_is_replaced_and_the_run_goes_on(
    tmp_path: Path, transport: str
) -> None:
    """One process of the bot dies mid-game: that game is its forfeit, a fresh process takes
    its place, and every other game is played out."""
    (tmp_path / "once.py").write_text(ONCE_CRASHER, encoding="utf-8")
    config = write_config(
        tmp_path / "t.toml",
        transport=transport,
        deals=3,
        concurrency=1,
        bots={"steady": BOT, "once": "python3 once.py"},
    )
    done = arena("run", str(config))
    assert done.returncode == 1  # a forfeit is a problem worth the exit code
    rows = ResultsDB(tmp_path / "results.sqlite", read_only=True).rows()
    assert len(rows) == 6 and not any(r.void for r in rows)
    assert [r.forfeit for r in rows].count("once") == 1
    assert sum(r.crashes_b for r in rows) == 1
    assert "segfault, say" in done.stderr
    logs = tmp_path / "results-logs"
    assert len(list(logs.glob("once#*.stderr"))) == 5  # four in the pool, one replacement


def test_a_bot_whose_processes_keep_dying_stops_the_run(tmp_path: Path, transport: str) -> None:
    """Every process of the bot dies at its third decision: after three deaths in a row the run
    stops, naming the bot, its command and its stderr, instead of forfeiting game after game."""
    (tmp_path / "crasher.py").write_text(CRASHER, encoding="utf-8")
    config = write_config(
        tmp_path / "t.toml",
        transport=transport,
        deals=5,
        concurrency=1,
        hands=0,  # whole matches: every game lasts past a process's third decision
        bots={"steady": BOT, "crasher": "python3 crasher.py"},
    )
    done = arena("run", str(config))
    assert done.returncode == 1
    assert "stopped: bot 'crasher' kept dying: it died in 3 games in a row" in done.stderr
    assert "out of memory, say" in done.stderr and "crasher.py" in done.stderr
    rows = ResultsDB(tmp_path / "results.sqlite", read_only=True).rows()
    assert len(rows) == 3 and all(r.forfeit == "crasher" and r.void is None for r in rows)


def test_the_spectator_token_goes_to_a_private_file_never_to_stderr(tmp_path: Path) -> None:
    """``arena run --spectator-token`` writes the token into the run's private log folder
    (readable by its owner only) and prints the file's name; the token is on no output."""
    config = write_config(
        tmp_path / "t.toml", deals=1, bots={"alpha": BOT, "beta": BOT + " --name beta"}
    )
    done = arena("run", str(config), "--spectator-token")
    assert done.returncode == 0, done.stderr[-3000:]
    path = tmp_path / "results-logs" / "spectator-token"
    assert f"arena run: spectator token written to {path} (readable by you only)" in done.stderr
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    token = path.read_text(encoding="utf-8").strip()
    assert len(token) >= 32, token
    assert token not in done.stderr + done.stdout


RAISER = """\
from chaodipi.bot import run_bot


def decide(view):
    raise RuntimeError("my model is not loaded, say")


run_bot(decide)
"""

STDIO_CHILD = Path(__file__).parent / "bots" / "stdio_child.py"
FIRST_DECISION_FAILURES = {
    # an action its phase never takes (a play in the bidding, a pass where a play is due)
    "illegal": f"python3 -m chaodipi.bot.stdio -- python3 {STDIO_CHILD} --fail wrong --at 1",
    # a legal action with a note of 300 bytes, past the 256 an answer may carry
    "note": f"python3 -m chaodipi.bot.stdio -- python3 {STDIO_CHILD} --fail note --at 1",
    "raises": "python3 raiser.py",
}


@pytest.mark.parametrize("how", sorted(FIRST_DECISION_FAILURES))
def test_a_bot_that_fails_at_its_first_decision_is_counted_as_it_would_be_later(
    tmp_path: Path, how: str, transport: str
) -> None:
    """Its seat was sent its hand (Welcome, Snapshot, Decision): what it does from then on
    counts as it would later in the game, never as a void game (which would let a bot drop
    the deals it dislikes from the standings). A ``decide`` that raises kills the bot: each
    game is its forfeit (a crash, in the faults) and the run stops because it kept dying. An
    answer the arena refuses (an action its phase never takes) is an illegal answer: the
    bridge, as every kit, answers again with a safe move marked fallback, and the game goes on
    to its result, both faults counted; a note past 256 bytes the bridge refuses itself, and
    answers with a fallback."""
    (tmp_path / "raiser.py").write_text(RAISER, encoding="utf-8")
    config = write_config(
        tmp_path / "t.toml",
        transport=transport,
        deals=2,
        concurrency=1,
        decision_ms=1000,
        bank_ms=4000,  # a child's start on a loaded machine: not a hang
        bots={"bad": FIRST_DECISION_FAILURES[how], "steady": BOT},
    )
    done = arena("run", str(config), "--json")
    assert "failed to start" not in done.stderr and "exited before" not in done.stderr
    rows = ResultsDB(tmp_path / "results.sqlite", read_only=True).rows()
    faults = {b["bot"]: b for b in json.loads(done.stdout)["bots"]}["bad"]
    if how == "raises":
        assert done.returncode == 1, done.stderr[-3000:]
        assert "stopped: bot 'bad' kept dying: it died in 3 games in a row" in done.stderr
        assert len(rows) == 3, rows
        for row in rows:
            assert row.void is None and row.forfeit == "bad" and row.score_a == 0.0, row
            assert row.crashes_a == 1 and "after it was sent its hand" in row.errors, row
        assert (faults["crashes"], faults["forfeits"]) == (3, 3), faults
        return
    assert len(rows) == 4, rows  # 2 deals, each played twice
    for row in rows:
        assert row.void is None and row.forfeit is None and row.score_a is not None, row
        assert row.fallbacks_a >= 1 and (row.illegal_a >= 1 or how == "note"), row
    assert faults["fallbacks"] >= 4 and (faults["illegal"] >= 4 or how == "note"), faults
    assert (faults["crashes"], faults["forfeits"]) == (0, 0), faults


@dataclass
class FullServer:
    """The local backend, on a server whose every stream someone else holds: two sessions
    whose tokens it took, its cap (``max_streams=2``), entered before any bot starts (streams
    that need no credential, such as health Watches, have room of their own)."""

    refused: int = 0
    """Streams the server refused for lack of room, by the end."""

    @asynccontextmanager
    async def open(self, assignment: Assignment) -> AsyncIterator[FullServer]:
        async with (
            open_server("127.0.0.1:0", max_streams=2) as server,
            grpc.aio.insecure_channel(server.address) as channel,
        ):
            stub = arena_pb2_grpc.ArenaServiceStub(channel)
            held = []
            for n in range(2):
                token = f"a-holder-token-for-tests-{n}"
                server.open_door(token, f"holder-{n}")
                request = convert.enter_request(token, bot_name="holder", capacity=1, instance="")
                held.append(stub.Enter(request))
            for call in held:
                await call.read()  # Entered: the stream is in, its token checked, and stays open
            self.server, self.assignment = server, assignment
            yield self
            self.refused = server.admission.refused
            for call in held:
                call.cancel()

    @property
    def processes(self) -> int:
        return 0

    async def play(self, on_result: OnResult) -> None:
        work = self.assignment
        await play_games(
            work.config,
            work.deal_key,
            work.games,
            server=self.server,
            log_dir=work.log_dir,
            on_result=on_result,
        )


def test_the_server_s_own_refusals_are_never_a_bot_s_failure_to_start(tmp_path: Path) -> None:
    """A server that refuses streams for lack of room (RESOURCE_EXHAUSTED: its cap is held by
    another client) does not blame the bots it turned away: the run does not stop with "failed
    to start", and a game no bot could take a seat of is void, saying why."""
    config = load_config(
        write_config(
            tmp_path / "t.toml",
            deals=2,  # four games: one past the three in a row that stop a run
            concurrency=1,
            connect_timeout=5,
            transport="grpc",  # the caps are the gRPC server's: a local link has its own
            bots={"a": BOT, "b": BOT},
        )
    )
    backend = FullServer()
    outcome = anyio.run(lambda: run_tournament(config, backend), backend="asyncio")
    assert outcome.stopped is None, outcome.stopped
    rows = ResultsDB(tmp_path / "results.sqlite", read_only=True).rows()
    assert len(rows) == 4, rows
    for row in rows:  # played, if the bots got in after all; else void, the server named
        assert row.void is None or ("refused" in row.void and "lack of room" in row.void), row
    if any(row.void for row in rows):
        assert backend.refused > 0
