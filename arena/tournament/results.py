"""Tournament results in SQLite: one row per finished game, written as each game ends.

A game is identified by (bot_a, bot_b, deal, swapped): ``deal`` is the deal number, played
twice, ``swapped`` false with bot_a's team in seats 0+2 and true with it in seats 1+3. The deal
itself comes from the tournament's secret key, kept in the ``meta`` table
(:mod:`chaodipi.arena.tournament.deals`). ``--resume`` skips every game already stored, so an
interrupted tournament loses and repeats nothing; a void game (a bot never played) is stored with
its reason and played again.

Each game's record (:mod:`chaodipi.arena.records`) is kept in the ``records`` table, and read
(:meth:`ResultsDB.record`) only once it is released: once every game of its run on its deal is
stored (``docs/trust.md``). A database written before records existed has no such table until
a run resumes it; reading it says there are no records.

One run writes a database at a time: :class:`ResultsDB` holds an exclusive lock on the file for
as long as it is open for writing, and a second writer is refused at once.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from chaodipi.arena.errors import DatabaseError, ResumeError
from chaodipi.arena.tournament.deals import DealKey

__all__ = ["GameKey", "GameRow", "ResultsDB", "StoredRun", "game_label"]

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
    errors TEXT NOT NULL,       -- what went wrong with the bots' processes ('' if nothing)
    seconds REAL NOT NULL,
    finished_at TEXT NOT NULL DEFAULT (datetime('now')),
    void TEXT,                  -- why the game is not a result (a bot never played), or NULL
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


@dataclass(frozen=True, slots=True)
class GameKey:
    bot_a: str
    bot_b: str
    deal: int
    """The deal number (its cards come from the tournament's deal key)."""
    swapped: bool
    """False: bot_a's team sits in seats 0 and 2; True: in seats 1 and 3."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "swapped", bool(self.swapped))  # SQLite gives 0 and 1


def game_label(key: GameKey) -> str:
    """A game's name in logs, replays and messages (``b``: seats swapped). Not the table's
    name, which no bot can guess.

    >>> game_label(GameKey("alpha", "beta", 3, False))
    'alpha-beta-d3-a'
    """
    return f"{key.bot_a}-{key.bot_b}-d{key.deal}-{'b' if key.swapped else 'a'}"


@dataclass(frozen=True, slots=True)
class GameRow:
    key: GameKey
    score_a: float | None
    hands: int
    levels_a: int
    levels_b: int
    defended_a: int
    points_a: int
    defended_b: int
    points_b: int
    strikes_a: int
    strikes_b: int
    illegal_a: int
    illegal_b: int
    crashes_a: int
    crashes_b: int
    forfeit: str | None
    reason: str
    errors: str
    seconds: float
    void: str | None = None
    """Why the game is not a result (a bot never played), or None."""
    fallbacks_a: int = 0
    """Answers bot_a's kit chose for its seats (``Answer.fallback``: too late for the kit's
    guard, no action, or refused)."""
    fallbacks_b: int = 0


@dataclass(frozen=True, slots=True)
class StoredRun:
    """One ``arena run`` on a results file: when it started, the config it ran with (the
    JSON of :meth:`chaodipi.arena.tournament.config.TournamentConfig.record`) and its SPRT's
    hypotheses (``elo0``, ``elo1``, ``alpha``, ``beta``), if it had one."""

    started_at: str
    resumed: bool
    config: dict[str, Any]
    sprt: dict[str, float] | None


_COLUMNS = ["bot_a", "bot_b", "deal", "swapped"] + [
    f.name for f in fields(GameRow) if f.name != "key"
]
_ADDED = {"fallbacks_a", "fallbacks_b"}
"""Counts a results file an older arena wrote has no column for (``ALTER TABLE`` adds them
when a run resumes it; a reader takes them as 0)."""


class ResultsDB:
    """The results file. Each ``add`` commits at once (an interrupted run keeps every game).

    ``ResultsDB(path)`` opens it for writing (creating it) and locks it against a second
    writer; ``ResultsDB(path, read_only=True)`` only reads (``arena report``, even while a run
    writes). Problems raise :class:`DatabaseError` with a message that names the file."""

    def __init__(self, path: Path, *, read_only: bool = False) -> None:
        self.path = path
        self._lock_fd: int | None = None
        try:
            if read_only:
                if not path.exists():
                    raise DatabaseError(f"no database at {path}")
                self.db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
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
            raise DatabaseError(
                f"cannot use {path} as the results database: {err.strerror}"
            ) from None
        except sqlite3.DatabaseError as err:
            self._unlock()
            raise DatabaseError(
                f"{path} is not an arena results database ({err}): name another file"
            ) from None

    def _lock(self, path: Path) -> None:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
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
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master")}
        if tables and not {"meta", "games"} <= tables:
            raise sqlite3.DatabaseError(f"it holds the tables {', '.join(sorted(tables))}")
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
        self.db.commit()

    def _columns(self) -> list[str]:
        """The columns to read, as this file names them (a file an older arena wrote and
        nobody has resumed since calls the deal number ``seed``, and lacks the counts of
        :data:`_ADDED`: read as 0)."""
        names = {r[1] for r in self.db.execute("PRAGMA table_info(games)")}
        return [
            "seed AS deal"
            if c == "deal" and "deal" not in names
            else f"0 AS {c}"
            if c in _ADDED and c not in names
            else c
            for c in _COLUMNS
        ]

    def claim(self, fingerprint: str, *, resume: bool) -> None:
        """Tie the file to one tournament: refuse a different one, or a rerun without resume."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
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
        row = self.db.execute("SELECT value FROM meta WHERE key = 'deal_key'").fetchone()
        if row is not None:
            return DealKey.from_hex(row[0])
        key = DealKey.new()
        self.db.execute("INSERT INTO meta VALUES ('deal_key', ?)", (key.hex(),))
        self.db.commit()
        return key

    def count(self) -> int:
        """Games stored, void ones included."""
        return int(self.db.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    def done(self) -> set[GameKey]:
        """The games that need not be played again: every stored one that is not void."""
        key = ", ".join(self._columns()[:4])
        rows = self.db.execute(f"SELECT {key} FROM games WHERE void IS NULL")
        return {GameKey(*row) for row in rows}

    def add(self, row: GameRow) -> None:
        """Store a game (replacing a void row of the same game, played again)."""
        key = row.key
        values = [key.bot_a, key.bot_b, key.deal, key.swapped] + [
            getattr(row, name) for name in _COLUMNS[4:]
        ]
        placeholders = ", ".join("?" for _ in _COLUMNS)
        with self.db:
            self.db.execute(
                "DELETE FROM games WHERE bot_a = ? AND bot_b = ? AND deal = ? AND swapped = ? "
                "AND void IS NOT NULL",
                (key.bot_a, key.bot_b, key.deal, key.swapped),
            )
            self.db.execute(
                f"INSERT INTO games ({', '.join(_COLUMNS)}) VALUES ({placeholders})", values
            )

    def _has_records(self) -> bool:
        found = self.db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'records'"
        ).fetchone()
        return found is not None

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
        rows = self.db.execute("SELECT bot_a, bot_b, deal, swapped FROM records WHERE released = 1")
        return {GameKey(*row) for row in rows}

    def record(self, key: GameKey) -> bytes | None:
        """A game's record (compressed), or None: not recorded, or not released yet."""
        if not self._has_records():
            return None
        row = self.db.execute(
            "SELECT record FROM records WHERE bot_a = ? AND bot_b = ? AND deal = ? "
            "AND swapped = ? AND released = 1",
            (key.bot_a, key.bot_b, key.deal, key.swapped),
        ).fetchone()
        return None if row is None else bytes(row[0])

    def rows(self) -> list[GameRow]:
        cursor = self.db.execute(
            f"SELECT {', '.join(self._columns())} FROM games ORDER BY bot_a, bot_b, 3, swapped"
        )
        return [GameRow(GameKey(*r[:4]), *r[4:]) for r in cursor]

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
        runs were recorded)."""
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master")}
        if "runs" not in tables:
            return []
        cursor = self.db.execute(
            "SELECT started_at, resumed, config, sprt FROM runs ORDER BY rowid"
        )
        return [
            StoredRun(started, bool(resumed), json.loads(config), sprt and json.loads(sprt))
            for started, resumed, config, sprt in cursor
        ]

    def close(self) -> None:
        self.db.close()
        self._unlock()
