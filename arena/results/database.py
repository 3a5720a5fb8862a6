"""Tournament results in SQLite: one row per finished game, written as each game ends.

A game is identified by its :class:`~chaodipi.arena.results.rows.GameKey` (bot_a, bot_b, deal,
swapped). People name it by its name (:func:`~chaodipi.arena.results.rows.game_label`,
``alpha-beta-d3-a``) or by its number in the file (``id``: 1 for the first game stored, 2 for
the next, never changed; a void game played again keeps its number). The live log, ``arena
games``, ``arena show``, the CSV and the JSON give both. The deal itself comes from the
tournament's secret key, kept in the ``meta`` table (:mod:`chaodipi.arena.deals`).
``--resume`` skips every game already stored, so an interrupted tournament loses and repeats
nothing; a void game (a bot never took its seat) is stored with its reason and played again.

Each game's record (:mod:`chaodipi.records`) is kept in the ``records`` table, and read
(:meth:`ResultsDB.record`) only once it is released: once every game of its run on its deal is
stored (``docs/trust.md``). A database written before records existed has no such table until
a run resumes it; reading it says there are no records.

One run writes a database at a time: :class:`ResultsDB` holds an exclusive lock on the file for
as long as it is open for writing, and a second writer is refused at once.

A database may be anyone's: its tables are checked as it is opened, and what is read from them
as it is read (:mod:`chaodipi.arena.results.check`); anything amiss, or any error
SQLite raises while reading, is a :class:`DatabaseError` naming the file, in one line.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from chaodipi.arena.deals import DealKey
from chaodipi.arena.errors import DatabaseError, NotResultsDatabase, ResumeError
from chaodipi.arena.files import check_own, make_private_folder, open_own
from chaodipi.arena.results.check import (
    check_tables,
    deal_key_text,
    game_values,
    stored_config,
    stored_sprt,
)
from chaodipi.arena.results.rows import GameKey, GameRow, StoredRun

__all__ = ["ResultsDB"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    bot_a TEXT NOT NULL, bot_b TEXT NOT NULL, deal INTEGER NOT NULL, swapped INTEGER NOT NULL,
    score_a REAL,               -- 1 win, 0.5 draw, 0 loss for bot_a; NULL if undecided or void
    hands INTEGER NOT NULL,
    levels_a INTEGER NOT NULL, levels_b INTEGER NOT NULL,   -- each team's final progress
    defended_a INTEGER NOT NULL, points_a INTEGER NOT NULL, -- hands bot_a's team defended, points
    defended_b INTEGER NOT NULL, points_b INTEGER NOT NULL,
    strikes_a INTEGER NOT NULL, strikes_b INTEGER NOT NULL,
    illegal_a INTEGER NOT NULL, illegal_b INTEGER NOT NULL,
    crashes_a INTEGER NOT NULL, crashes_b INTEGER NOT NULL,
    forfeit TEXT,               -- the bot whose team forfeited, if any
    reason TEXT NOT NULL,
    errors TEXT NOT NULL,       -- what went wrong with the bots' processes but why the game
                                -- is void ('' if nothing; see _APART)
    seconds REAL NOT NULL,
    finished_at TEXT NOT NULL DEFAULT (datetime('now')),
    void TEXT,                  -- why the game is not a result (a bot never took its seat), or NULL
    id INTEGER,                 -- its number: 1 for the first game stored, never changed
    fallbacks_a INTEGER NOT NULL DEFAULT 0, -- answers bot_a's kit chose for it (Answer.fallback)
    fallbacks_b INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (bot_a, bot_b, deal, swapped)
);
CREATE TABLE IF NOT EXISTS records (
    bot_a TEXT NOT NULL, bot_b TEXT NOT NULL, deal INTEGER NOT NULL, swapped INTEGER NOT NULL,
    record BLOB NOT NULL,       -- the game record (docs/game-record.md): JSON lines, zlib
    released INTEGER NOT NULL DEFAULT 0, -- 1 once every game of its run on its deal is stored
    PRIMARY KEY (bot_a, bot_b, deal, swapped)
);
CREATE TABLE IF NOT EXISTS runs (  -- one row per `arena run` on this file, the first one first
    started_at TEXT NOT NULL DEFAULT (datetime('now')),
    resumed INTEGER NOT NULL,   -- 1: with --resume
    config TEXT NOT NULL,       -- the config it ran with (JSON: TournamentConfig.record)
    sprt TEXT                   -- its SPRT's hypotheses (JSON: elo0, elo1, alpha, beta) or NULL
);
"""


SIDE_FILES = ("-wal", "-shm", "-journal")
"""What SQLite keeps beside a database file, by the suffix of its name."""

_COLUMNS = ["bot_a", "bot_b", "deal", "swapped"] + [
    f.name for f in fields(GameRow) if f.name != "key"
]
_ADDED = {"fallbacks_a", "fallbacks_b"}
"""Counts a results file an older arena wrote has no column for (``ALTER TABLE`` adds them
when a run resumes it; a reader takes them as 0)."""

_APART = "errors_apart_from_void"
"""The ``meta`` key of a file whose ``errors`` never repeat its ``void`` text (every file this
arena writes). A file an older arena wrote began a void game's ``errors`` with its ``void``
text: a writer drops it from those rows as it opens the file, and a reader reads them without
it (:data:`_OLDER_ERRORS`), so that a game's problems are never parsed out of its text."""

_OLDER_ERRORS = (
    "CASE WHEN typeof(void) = 'text' AND typeof(errors) = 'text' "
    "AND substr(errors, 1, length(void)) = void "
    "THEN ltrim(substr(errors, length(void) + 1), char(10)) ELSE errors END"
)
"""A void game's ``errors`` in a file an older arena wrote, without the ``void`` text it
began with."""

_STORED_ORDER = "ROW_NUMBER() OVER (ORDER BY rowid)"
"""A game's number in a file written before games had numbers, over all its games: its place
in the order they were stored (SQLite gives each new row a rowid above every one before it)."""


class ResultsDB:
    """The results file. Each ``add`` commits at once (an interrupted run keeps every game).

    ``ResultsDB(path)`` opens it for writing (creating it) and locks it against a second
    writer; ``ResultsDB(path, read_only=True)`` only reads (``arena report``, ``games``,
    ``show``, even while a run writes, and in a folder this user cannot write). Problems raise
    :class:`DatabaseError` with a message that names the file."""

    def __init__(self, path: Path, *, read_only: bool = False) -> None:
        self.path = path
        self._lock_fd: int | None = None
        self._tables: set[str] = set()
        """The arena's tables the file holds (checked: check.check_tables)."""
        try:
            if read_only:
                if not path.exists():
                    raise DatabaseError(f"no database at {path}")
                self.db = sqlite3.connect(self._read_only_uri(path), uri=True)
            else:
                make_private_folder(path.parent)
                if not os.access(path.parent, os.W_OK):
                    raise DatabaseError(
                        f"cannot write the results database {path}: its folder {path.parent} is "
                        "not writable (SQLite keeps its log beside the file): name a file in a "
                        "folder you can write"
                    )
                self._lock(path)
                # check_same_thread=False: while a run plays, its writer thread
                # (chaodipi.arena.tournament.writer) makes the writes, and nothing else uses
                # the connection until it is done
                self.db = sqlite3.connect(path, check_same_thread=False)
                # WAL: a commit appends to the log and, with synchronous=NORMAL, makes no
                # fsync (only checkpoints do), so storing a game never stalls the event loop
                # the tables share; a crash loses no committed game, a power cut at worst the
                # last few (which --resume plays again). Readers (arena report) never block it.
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
            self._check_schema(read_only)
        except DatabaseError:
            self._unlock()
            raise
        except OSError as err:
            self._unlock()
            where = "" if err.filename in (None, str(path)) else f" ({err.filename})"
            raise DatabaseError(
                f"cannot use {path} as the results database{where}: {err.strerror}"
            ) from None
        except (sqlite3.DatabaseError, NotResultsDatabase) as err:
            self._unlock()
            raise self._not_ours(err) from None

    def _not_ours(self, err: Exception) -> DatabaseError:
        return DatabaseError(
            f"{self.path} is not an arena results database ({err}): name another file"
        )

    def _read(self, sql: str, parameters: tuple[Any, ...] = ()) -> list[Any]:
        """The rows of a query; what SQLite raises (a damaged file) is a :class:`DatabaseError`
        naming the file."""
        try:
            return self.db.execute(sql, parameters).fetchall()
        except sqlite3.Error as err:
            raise self._not_ours(err) from None

    @staticmethod
    def _read_only_uri(path: Path) -> str:
        """How to open ``path`` only to read it. In a folder this user cannot write, SQLite
        cannot make the shared-memory file it reads a write-ahead log with: the file is then
        opened as immutable, which is exact when no log is beside it (no run is writing it, and
        none left games in a log); with one, it cannot be read here."""
        uri = f"{path.resolve().as_uri()}?mode=ro"
        if os.access(path.parent, os.W_OK):
            return uri
        log = path.with_name(path.name + "-wal")
        if log.exists() and log.stat().st_size > 0:
            raise DatabaseError(
                f"cannot read {path}: its folder {path.parent} is not writable and a run is "
                f"writing it, or left games in its log {log.name}: read it once the run has "
                "ended, or copy the file and its log to a folder you can write"
            )
        return uri + "&immutable=1"

    def _lock(self, path: Path) -> None:
        """Open the file (made 0600 if new) and lock it. It, and SQLite's files beside it
        (its log, its shared memory, a rollback journal), must each be a plain file of this
        user's with no other link, or nothing: SQLite would write through a link planted
        there (:func:`chaodipi.arena.files.check_own`)."""
        for suffix in SIDE_FILES:
            check_own(path.with_name(path.name + suffix))
        fd = open_own(path, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise DatabaseError(
                f"{path} is in use by another arena run: wait for it to end (or stop it), "
                "or name another database file"
            ) from None
        self._lock_fd = fd

    def _unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing the descriptor releases the lock
            self._lock_fd = None

    def _check_schema(self, read_only: bool) -> None:
        tables = check_tables(self.db)
        self._tables = tables
        if tables:  # what every command relies on, checked once: the runs and the deal key
            self.runs()
            for (value,) in self._read("SELECT value FROM meta WHERE key = 'deal_key'"):
                deal_key_text(value)
        if read_only:
            if not tables:
                raise sqlite3.DatabaseError("it is empty")
            return
        self.db.executescript(_SCHEMA)
        columns = {r[1] for r in self.db.execute("PRAGMA table_info(games)")}
        if "void" not in columns:  # written before void games existed
            self.db.execute("ALTER TABLE games ADD COLUMN void TEXT")
        for name in _ADDED - columns:
            self.db.execute(f"ALTER TABLE games ADD COLUMN {name} INTEGER NOT NULL DEFAULT 0")
        if "seed" in columns:  # written when the deal number was called its seed
            self.db.execute("ALTER TABLE games RENAME COLUMN seed TO deal")
        if "id" not in columns:  # written before games had numbers: numbered as stored
            self.db.execute("ALTER TABLE games ADD COLUMN id INTEGER")
            self.db.execute(
                f"UPDATE games SET id = stored.n FROM (SELECT rowid AS r, {_STORED_ORDER} AS n "
                "FROM games) AS stored WHERE games.rowid = stored.r"
            )
        self.db.execute("CREATE UNIQUE INDEX IF NOT EXISTS games_by_id ON games (id)")
        if not self._apart():
            self.db.execute(f"UPDATE games SET errors = {_OLDER_ERRORS}")
            self.db.execute("INSERT INTO meta VALUES (?, '1')", (_APART,))
        self.db.commit()
        self._tables = check_tables(self.db)

    def _columns(self) -> list[str]:
        """The columns to read, as this file names them (a file an older arena wrote and
        nobody has resumed since still calls the deal number ``seed``, may lack ``void`` and
        the counts of :data:`_ADDED` (read as 0), and numbers no game: its games are numbered
        in the order they were stored, as resuming it numbers them)."""
        names = {r[1] for r in self._read("PRAGMA table_info(games)")}
        older = {"deal": "seed AS deal", "void": "NULL AS void", "id": f"{_STORED_ORDER} AS id"}
        older |= {name: f"0 AS {name}" for name in _ADDED}
        columns = [(older[c] if c in older and c not in names else c) for c in _COLUMNS]
        if "void" in names and not self._apart():
            columns[_COLUMNS.index("errors")] = f"{_OLDER_ERRORS} AS errors"
        return columns

    def _apart(self) -> bool:
        """Whether this file's ``errors`` never repeat its ``void`` text (:data:`_APART`)."""
        return bool(self._read("SELECT 1 FROM meta WHERE key = ?", (_APART,)))

    def claim(self, fingerprint: str, *, resume: bool) -> None:
        """Tie the file to one tournament: refuse a different one, or a rerun without resume."""
        row = next(iter(self._read("SELECT value FROM meta WHERE key = 'fingerprint'")), None)
        if row is None:
            self.db.execute("INSERT INTO meta VALUES ('fingerprint', ?)", (fingerprint,))
            self.db.commit()
            return
        if row[0] != fingerprint:
            raise ResumeError(
                f"{self.path} holds another tournament's results (its bots, preset, deals or "
                "hands differ): use another database file"
            )
        if not resume and self.count():
            raise ResumeError(
                f"{self.path} already holds {self.count()} games of this tournament: pass "
                "--resume to continue it, or use another database file"
            )

    def deal_key(self) -> DealKey:
        """The tournament's secret deal key: made on first use, then always the same one."""
        row = next(iter(self._read("SELECT value FROM meta WHERE key = 'deal_key'")), None)
        if row is not None:
            try:
                return deal_key_text(row[0])
            except NotResultsDatabase as err:
                raise self._not_ours(err) from None
        key = DealKey.new()
        self.db.execute("INSERT INTO meta VALUES ('deal_key', ?)", (key.hex(),))
        self.db.commit()
        return key

    def count(self) -> int:
        """Games stored, void ones included."""
        return int(self._read("SELECT COUNT(*) FROM games")[0][0])

    def done(self) -> set[GameKey]:
        """The games that need not be played again: every stored one that is not void."""
        return {row.key for row in self.rows() if row.void is None}

    def numbers(self) -> dict[GameKey, int]:
        """The number of every stored game (void ones included)."""
        key = ", ".join(self._columns()[:4])
        number = self._columns()[_COLUMNS.index("id")]
        rows = self.db.execute(f"SELECT {key}, {number} FROM games")
        return {GameKey(*row[:4]): row[4] for row in rows}

    def add(self, row: GameRow) -> None:
        """Store a game (replacing a void row of the same game, played again) with its number:
        ``row.id`` if given (a run's :class:`chaodipi.arena.tournament.recorder.Recorder` gives
        it), else the void row's, else the next one."""
        key = row.key
        where = "bot_a = ? AND bot_b = ? AND deal = ? AND swapped = ?"
        place = (key.bot_a, key.bot_b, key.deal, key.swapped)
        with self.db:
            if row.id is None:
                found = self.db.execute(
                    f"SELECT id FROM games WHERE {where} AND void IS NOT NULL", place
                ).fetchone()
                if found is None:
                    found = self.db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM games").fetchone()
                row = replace(row, id=int(found[0]))
            self.db.execute(f"DELETE FROM games WHERE {where} AND void IS NOT NULL", place)
            values = [*place] + [getattr(row, name) for name in _COLUMNS[4:]]
            placeholders = ", ".join("?" for _ in _COLUMNS)
            self.db.execute(
                f"INSERT INTO games ({', '.join(_COLUMNS)}) VALUES ({placeholders})", values
            )

    def _has_records(self) -> bool:
        return "records" in self._tables

    def add_record(self, key: GameKey, record: bytes) -> None:
        """Store a game's record (compressed), held back until :meth:`release_deal`."""
        with self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO records (bot_a, bot_b, deal, swapped, record, released) "
                "VALUES (?, ?, ?, ?, ?, 0)",
                (key.bot_a, key.bot_b, key.deal, key.swapped, record),
            )

    def release_deal(self, deal: int) -> None:
        """Every game of the run on ``deal`` is stored: its records may be read."""
        with self.db:
            self.db.execute("UPDATE records SET released = 1 WHERE deal = ?", (deal,))

    def recorded(self) -> set[GameKey]:
        """The games whose record may be read (released)."""
        if not self._has_records():
            return set()
        rows = self._read("SELECT bot_a, bot_b, deal, swapped FROM records WHERE released = 1")
        return {GameKey(*row) for row in rows}

    def record(self, key: GameKey) -> bytes | None:
        """A game's record (compressed), or None: not recorded, or not released yet. Not
        checked: :func:`chaodipi.records.unpack` refuses what is not a record."""
        if not self._has_records():
            return None
        rows = self._read(
            "SELECT record FROM records WHERE bot_a = ? AND bot_b = ? AND deal = ? "
            "AND swapped = ? AND released = 1",
            (key.bot_a, key.bot_b, key.deal, key.swapped),
        )
        return None if not rows else rows[0][0]  # bytes, or what a crafted file holds

    def rows(self) -> list[GameRow]:
        """Every stored game, each checked (:func:`~chaodipi.arena.results.check.game_values`)."""
        cursor = self._read(
            f"SELECT {', '.join(self._columns())} FROM games ORDER BY bot_a, bot_b, 3, swapped"
        )
        rows = []
        for values in cursor:
            try:
                game_values(dict(zip(_COLUMNS, values, strict=True)))
            except NotResultsDatabase as err:
                raise self._not_ours(err) from None
            rows.append(GameRow(GameKey(*values[:4]), *values[4:]))
        return rows

    def add_run(
        self, config: dict[str, Any], sprt: dict[str, float] | None, *, resumed: bool
    ) -> None:
        """Record a run's config and SPRT as it starts."""
        with self.db:
            self.db.execute(
                "INSERT INTO runs (resumed, config, sprt) VALUES (?, ?, ?)",
                (resumed, json.dumps(config), None if sprt is None else json.dumps(sprt)),
            )

    def runs(self) -> list[StoredRun]:
        """Every run recorded on this file, the first one first (none in a file written before
        runs were recorded), each checked (:mod:`~chaodipi.arena.results.check`)."""
        if "runs" not in self._tables:
            return []
        cursor = self._read("SELECT started_at, resumed, config, sprt FROM runs ORDER BY rowid")
        try:
            return [
                StoredRun(str(started), bool(resumed), stored_config(conf, n), stored_sprt(sprt, n))
                for n, (started, resumed, conf, sprt) in enumerate(cursor, start=1)
            ]
        except NotResultsDatabase as err:
            raise self._not_ours(err) from None

    def close(self) -> None:
        self.db.close()
        self._unlock()
