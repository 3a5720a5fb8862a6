"""Results databases and game records made by someone else (labs share them): every command
that reads one (``arena report`` with ``--json``/``--csv``/``--plot``, ``games``, ``show``,
``show --html``, ``run --resume``) refuses a crafted one in one line on stderr, exit 2, with no
traceback, and ends (an endless view, a zlib bomb). The commands run in a child process, one
for the module (its imports made once), case after case; its timeout guards against a hang
only."""

from __future__ import annotations

import json
import os
import random
import select
import shutil
import sqlite3
import subprocess
import sys
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from chaodipi.arena.results.database import _SCHEMA, ResultsDB
from chaodipi.arena.results.rows import GameKey, GameRow
from chaodipi.arena.tournament.config import load_config
from chaodipi.arena.tournament.runs import claim_run
from chaodipi.engine.match import Match
from chaodipi.engine.presets import PRESETS
from chaodipi.records import MAX_RECORD_BYTES, dump_lines, pack, record_lines

RANDOM = "python3 -m chaodipi.sample_bots.random_bot"

# Reads a case a line, [folder, [argv, ...]] (JSON), runs each command line in the folder with
# `main`, and prints what each did: a line of DONE and JSON (the bots a `run` starts share its
# stdout, so the answer is the line that starts so).
DONE = "commands done: "
DRIVER = f"""
import contextlib, io, json, os, sys, traceback
from chaodipi.arena.cli.main import main
for case in sys.stdin:
    folder, commands = json.loads(case)
    os.chdir(folder)
    done = []
    for argv in commands:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except BaseException:
                traceback.print_exc()
                code = None
        done.append({{"argv": argv, "code": code, "err": err.getvalue()}})
    print({DONE!r} + json.dumps(done), flush=True)
"""
HANG_S = 600.0
"""How long one case's commands may take: a bound on a hang, not on the machine's speed."""


def _answer(lines: str) -> list[dict[str, Any]]:
    """What the driver said it did, from its output."""
    said = [line for line in lines.splitlines() if line.startswith(DONE)]
    assert said, lines[-3000:]
    results: list[dict[str, Any]] = json.loads(said[-1].removeprefix(DONE))
    return results


class Driver:
    """The child process that runs the commands (``DRIVER``), started again if one dies."""

    def __init__(self, logs: Path) -> None:
        self._logs = logs
        self._child: subprocess.Popen[bytes] | None = None
        self._started_count = 0
        self._stderr = logs / "driver-0.stderr"

    def run(self, commands: list[list[str]], cwd: Path) -> list[dict[str, Any]]:
        """Each command line's exit code and stderr, run in ``cwd``."""
        child = self._started()
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(json.dumps([str(cwd), commands]).encode() + b"\n")
        child.stdin.flush()
        said = b""
        deadline = time.monotonic() + HANG_S
        while not any(line.startswith(DONE.encode()) for line in said.split(b"\n")[:-1]):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([child.stdout], [], [], left)[0]:
                self.close()
                pytest.fail(f"the commands did not end within {HANG_S} s: {commands}")
            chunk = os.read(child.stdout.fileno(), 1 << 16)
            if not chunk:
                child.wait()
                self._child = None
                stderr = self._stderr.read_text(encoding="utf-8", errors="replace")
                pytest.fail(f"the driver exited with {child.returncode}:\n{stderr[-3000:]}")
            said += chunk
        return _answer(said.decode("utf-8", errors="replace"))

    def _started(self) -> subprocess.Popen[bytes]:
        if self._child is None:
            self._started_count += 1
            self._stderr = self._logs / f"driver-{self._started_count}.stderr"
            with self._stderr.open("wb") as stderr:
                self._child = subprocess.Popen(
                    [sys.executable, "-c", DRIVER],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                )  # fmt: skip
        return self._child

    def close(self) -> None:
        if self._child is not None:
            assert self._child.stdin is not None and self._child.stdout is not None
            self._child.stdin.close()
            try:
                self._child.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self._child.kill()
                self._child.wait()
            self._child.stdout.close()
            self._child = None


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Driver]:
    running = Driver(tmp_path_factory.mktemp("driver"))
    try:
        yield running
    finally:
        running.close()


def _record() -> list[dict[str, Any]]:
    match = Match(PRESETS["classic"], seed=3, max_hands=1)
    rng = random.Random(3)
    while not match.over:
        match.apply(match.to_play, match.legal_actions().sample(rng))
    return list(record_lines(match, bots=("a", "b", "a", "b"), date="2026-12-01T14:00:00Z"))


def _row(key: GameKey) -> GameRow:
    return GameRow(
        key, score_a=1.0, hands=1, levels_a=1, levels_b=0, defended_a=1, points_a=80,
        defended_b=0, points_b=20, strikes_a=0, strikes_b=0, illegal_a=0, illegal_b=0,
        crashes_a=0, crashes_b=0, forfeit=None, reason="played to the end", errors="",
        seconds=1.0,
    )  # fmt: skip


RUN = ["-b", f"a={RANDOM}", "-b", f"b={RANDOM}", "-n", "1", "--hands", "1"]
GROW = ["-b", f"a={RANDOM}", "-b", f"b={RANDOM}", "-n", "2", "--hands", "1"]
"""The stored run grown by one deal: a ``--resume`` that has games to play, so writes."""


def _database(path: Path) -> Path:
    """A sound results file: deal 1 of a against b played both ways, its records released, and
    the run that stored them (``run --resume`` with RUN finds nothing left to play)."""
    config = load_config(None, {"deals": 1, "hands": 1, "database": str(path)}, {
        "a": RANDOM, "b": RANDOM,
    })  # fmt: skip
    db = ResultsDB(path)
    claim_run(db, config, resume=False)
    for swapped in (False, True):
        key = GameKey("a", "b", 1, swapped)
        db.add(_row(key))
        db.add_record(key, pack(_record()))
    db.release_deal(1)
    db.deal_key()
    db.close()
    return path


def _zlib_bomb(size: int) -> bytes:
    """zlib of ``size`` zero bytes and more, made a MiB at a time."""
    packer = zlib.compressobj(9)
    block = bytes(1 << 20)
    parts = [packer.compress(block) for _ in range(size // len(block) + 1)]
    return b"".join(parts) + packer.flush()


def _changed(change: Callable[[dict[str, Any]], None]) -> bytes:
    lines = _record()
    change(lines[0])
    return pack(lines)


ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c"

TYPED_GAMES = "CREATE TABLE " + _SCHEMA.split("CREATE TABLE IF NOT EXISTS ")[2].strip()
"""The games table as the arena makes it."""

GAME_NAMES = ", ".join(name for name, _ in sqlite3.connect(":memory:").execute(
    TYPED_GAMES
).connection.execute("SELECT name, type FROM pragma_table_info('games')"))
"""The games table's columns, by name."""

DATABASE_CASES: dict[str, list[str | tuple[str, tuple[Any, ...]]]] = {
    "a config that is not JSON": ["UPDATE runs SET config = 'not json {'"],
    "a config that is a list": ["UPDATE runs SET config = '[1, 2]'"],
    "bots a string": ["""UPDATE runs SET config = '{"bots": "ab"}'"""],
    "a bot without a name": ["""UPDATE runs SET config = '{"bots": [{"command": ["x"]}]}'"""],
    "a config nested 100,000 deep": [
        ("UPDATE runs SET config = ?", ("[" * 100_000 + "]" * 100_000,))
    ],
    "a 5,000-digit number in the config": [
        ("UPDATE runs SET config = ?", ('{"hands": 1' + "7" * 5000 + "}",))
    ],
    "an SPRT that is not JSON": ["UPDATE runs SET sprt = 'x'"],
    "an SPRT of strings": [
        """UPDATE runs SET sprt = '{"elo0": "a", "elo1": "b", "alpha": 1, "beta": 1}'"""
    ],
    "an SPRT out of range": [
        """UPDATE runs SET sprt = '{"elo0": 5, "elo1": 0, "alpha": 2, "beta": 0.05}'"""
    ],
    "a config that is a blob": ["UPDATE runs SET config = X'00ff'"],
    "games an endless view": [
        "DROP TABLE games",
        f"CREATE VIEW games AS SELECT 'a' AS bot_a, 'b' AS bot_b, x AS deal, 0 AS swapped, "
        f"1.0 AS score_a, 1 AS hands, 0 AS levels_a, 0 AS levels_b, 0 AS defended_a, "
        f"0 AS points_a, 0 AS defended_b, 0 AS points_b, 0 AS strikes_a, 0 AS strikes_b, "
        f"0 AS illegal_a, 0 AS illegal_b, 0 AS crashes_a, 0 AS crashes_b, NULL AS forfeit, "
        f"'' AS reason, '' AS errors, 1.0 AS seconds, '' AS finished_at, NULL AS void "
        f"FROM ({ENDLESS})",
    ],
    "runs an endless view": [
        "DROP TABLE runs",
        f"CREATE VIEW runs AS SELECT '' AS started_at, 0 AS resumed, '{{}}' AS config, "
        f"NULL AS sprt FROM ({ENDLESS})",
    ],
    "records an endless view": [
        "DROP TABLE records",
        f"CREATE VIEW records AS SELECT 'a' AS bot_a, 'b' AS bot_b, x AS deal, 0 AS swapped, "
        f"X'00' AS record, 1 AS released FROM ({ENDLESS})",
    ],
    "meta an endless view": [
        "DROP TABLE meta",
        f"CREATE VIEW meta AS SELECT 'k' || x AS key, '' AS value FROM ({ENDLESS})",
    ],
    "an endless trigger on runs": [
        f"CREATE TRIGGER endless AFTER INSERT ON runs BEGIN SELECT count(*) FROM ({ENDLESS}); "
        "END"
    ],
    "no games table": ["DROP TABLE games"],
    "games a virtual table": [
        "DROP TABLE games",
        f"CREATE VIRTUAL TABLE games USING fts5({GAME_NAMES})",
    ],
    "a games table of four columns": [
        "ALTER TABLE games RENAME TO old_games",
        "CREATE TABLE games (bot_a TEXT, bot_b TEXT, deal INTEGER, swapped INTEGER)",
        "INSERT INTO games SELECT bot_a, bot_b, deal, swapped FROM old_games",
        "DROP TABLE old_games",
    ],
    "a deal column of text": [
        "ALTER TABLE games RENAME TO old_games",
        TYPED_GAMES.replace("deal INTEGER", "deal TEXT"),
        "INSERT INTO games SELECT * FROM old_games",
        "DROP TABLE old_games",
    ],
    "a deal that is text": ["UPDATE games SET deal = 'one' WHERE swapped = 1"],
    "a score that is text": ["UPDATE games SET score_a = 'won'"],
    "a score of 7": ["UPDATE games SET score_a = 7"],
    "a bot name that is a blob": ["UPDATE games SET bot_a = X'00ff'"],
    "a bot named ../../escape": ["UPDATE games SET bot_a = '../../escape' WHERE swapped = 1"],
    "a bot named by an absolute path": ["UPDATE games SET bot_b = '/tmp/escape'"],
    "a config's bot named ../../escape": [
        "UPDATE runs SET config = json_set(config, '$.bots[0].name', '../../escape')"
    ],
    "swapped 2": ["UPDATE games SET swapped = 2 WHERE swapped = 1"],
    "hands -1": ["UPDATE games SET hands = -1"],
    "seconds that are text": ["UPDATE games SET seconds = 'long'"],
    "a deal key that is not hex": ["UPDATE meta SET value = 'zz' WHERE key = 'deal_key'"],
    "no fingerprint nor runs, a deal key of a number": [
        "DROP TABLE runs",
        "UPDATE meta SET value = 12 WHERE key = 'deal_key'",
    ],
}

RECORD_CASES: dict[str, list[str | tuple[str, tuple[Any, ...]]]] = {
    "a zlib-bomb record": [("UPDATE records SET record = ?", (_zlib_bomb(MAX_RECORD_BYTES),))],
    "a record that is not zlib": ["UPDATE records SET record = X'78000102'"],
    "a record that is text": ["UPDATE records SET record = 'hello'"],
    "a record whose bots are a string": [
        ("UPDATE records SET record = ?", (_changed(lambda h: h.update(bots="ab")),))
    ],
    "a record that is a number": ["UPDATE records SET record = 12"],
}


def _sql(path: Path, statements: list[str | tuple[str, tuple[Any, ...]]]) -> None:
    with sqlite3.connect(path) as db:
        for statement in statements:
            if isinstance(statement, str):
                db.execute(statement)
            else:
                db.execute(*statement)
    sqlite3.connect(path).close()


def _refused_in_one_line(results: list[dict[str, Any]], says: str = "") -> None:
    for result in results:
        err = result["err"]
        assert "Traceback" not in err, (result["argv"], err[-3000:])
        assert result["code"] == 2, (result["argv"], err[-3000:])
        assert err.count("\n") == 1, (result["argv"], err[-3000:])
        assert says in err, (result["argv"], err[-3000:])


def _says(case: str) -> str:
    """What the line must say, beyond naming the problem (a bomb: that it is too large)."""
    return "larger than" if "bomb" in case or "larger" in case else ""


def _database_commands(path: Path, tmp_path: Path) -> list[list[str]]:
    db = str(path)
    return [
        ["report", db],
        ["report", db, "--json"],
        ["report", db, "--csv", str(tmp_path / "csv")],
        ["report", db, "--plot", str(tmp_path / "plots")],
        ["games", db],
        ["games", db, "--html", str(tmp_path / "pages")],
        ["show", db, "1"],
        ["show", db, "1", "--html", str(tmp_path / "game.html")],
        ["run", *GROW, "-d", db, "--resume"],
    ]


def test_the_sound_database_is_read_by_every_command(tmp_path: Path, driver: Driver) -> None:
    path = _database(tmp_path / "results.sqlite")
    for result in driver.run(_database_commands(path, tmp_path), tmp_path):
        assert result["code"] == 0, (result["argv"], result["err"][-3000:])


@pytest.mark.parametrize("case", sorted(DATABASE_CASES))
def test_a_crafted_database_is_refused_in_one_line(
    tmp_path: Path, case: str, driver: Driver
) -> None:
    path = _database(tmp_path / "results.sqlite")
    _sql(path, DATABASE_CASES[case])
    _refused_in_one_line(driver.run(_database_commands(path, tmp_path), tmp_path))


@pytest.mark.parametrize("case", sorted(RECORD_CASES))
def test_a_crafted_stored_record_is_refused_in_one_line(
    tmp_path: Path, case: str, driver: Driver
) -> None:
    path = _database(tmp_path / "results.sqlite")
    _sql(path, RECORD_CASES[case])
    db = str(path)
    commands = [["show", db, "1"], ["show", db, "2", "--html", str(tmp_path / "game.html")]]
    _refused_in_one_line(driver.run(commands, tmp_path), _says(case))


def _header(change: Callable[[dict[str, Any]], Any]) -> Callable[[list[dict[str, Any]]], None]:
    return lambda lines: change(lines[0])


def _first(kind: str, change: Callable[[dict[str, Any]], Any]) -> Callable[[list[Any]], None]:
    return lambda lines: change(next(line for line in lines if line["type"] == kind))


RECORD_FILE_CASES: dict[str, Callable[[list[dict[str, Any]]], None]] = {
    "a card that is not a card": _first("dealt", lambda d: d.update(kitty="♠Z BJ")),
    "bots a string": _header(lambda h: h.update(bots="ab")),
    "a trump that is not a suit": _first("trump", lambda t: t.update(suit="X")),
    "no result": _header(lambda h: h.pop("result")),
    "hands in the result a string": _header(lambda h: h["result"].update(hands="two")),
    "a play by seat 7": _first("play", lambda p: p.update(seat=7)),
    "a trick of points that are text": _first("trick", lambda t: t.update(points="ten")),
    "a level that is no rank": _first("hand", lambda t: t.update(level="Z")),
    "a hand line without a hand": _first("hand", lambda t: t.pop("hand")),
    "dealt hands that are 3": _first("dealt", lambda d: d["hands"].pop()),
}

RAW_FILES: dict[str, Callable[[Path], None]] = {
    "a zlib bomb file": lambda p: p.write_bytes(_zlib_bomb(MAX_RECORD_BYTES)),
    "a line nested 100,000 deep": lambda p: p.write_text(
        '{"type": "header", "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n", "utf-8"
    ),
    "a 5,000-digit number": lambda p: p.write_text(
        '{"type": "header", "x": 1' + "7" * 5000 + "}\n", "utf-8"
    ),
    "a file larger than a record may be": lambda p: _sparse(p, MAX_RECORD_BYTES + 1),
}


def _sparse(path: Path, size: int) -> None:
    with path.open("wb") as file:
        file.truncate(size)


@pytest.mark.parametrize("case", sorted(RECORD_FILE_CASES) + sorted(RAW_FILES))
def test_a_crafted_record_file_is_refused_in_one_line(
    tmp_path: Path, case: str, driver: Driver
) -> None:
    path = tmp_path / "game.jsonl"
    if case in RAW_FILES:
        RAW_FILES[case](path)
    else:
        lines = _record()
        RECORD_FILE_CASES[case](lines)
        path.write_text(dump_lines(lines), encoding="utf-8")
    commands = [["show", str(path)], ["show", str(path), "--html", str(tmp_path / "game.html")]]
    _refused_in_one_line(driver.run(commands, tmp_path), _says(case))


def _read_only_folder_works(folder: Path) -> bool:
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", f"mount --bind {folder} {folder} && "
         f"mount -o remount,ro,bind {folder} && ! touch {folder}/probe"],
        capture_output=True, timeout=60,
    )  # fmt: skip
    return probe.returncode == 0


def test_a_results_file_in_a_folder_that_cannot_be_written(tmp_path: Path) -> None:
    """The tests run as root, whom no permission stops: the folder is made read-only for the
    commands by a read-only bind mount in a mount namespace of their own (``unshare -m``).
    The readers read the file; ``run --resume`` says the folder is not writable."""
    folder = tmp_path / "shared"
    folder.mkdir()
    path = _database(folder / "results.sqlite")
    if shutil.which("unshare") is None or not _read_only_folder_works(folder):
        pytest.skip("needs unshare -m and a read-only bind mount (root in a container that may)")
    commands = _database_commands(path, tmp_path)
    done = subprocess.run(
        ["unshare", "-m", "sh", "-c", f'mount --bind {folder} {folder} && '
         f'mount -o remount,ro,bind {folder} && exec "$0" -c "$1"', sys.executable, DRIVER],
        input=json.dumps([str(tmp_path), commands]) + "\n",
        capture_output=True, text=True, timeout=HANG_S, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    results = _answer(done.stdout)
    *readers, resume = results
    for result in readers:
        assert result["code"] == 0, (result["argv"], result["err"][-3000:])
    assert resume["code"] == 2 and resume["err"].count("\n") == 1, resume["err"][-3000:]
    assert f"its folder {folder} is not writable" in resume["err"]
