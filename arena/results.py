"""Tournament results in SQLite: one row per finished game, written as each game ends.

A game is identified by (bot_a, bot_b, seed, swapped): the same deal seed is played twice,
``swapped`` 0 with bot_a's team in seats 0+2 and 1 with it in seats 1+3. ``--resume`` skips
every game already stored, so an interrupted tournament loses and repeats nothing.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

__all__ = ["GameKey", "GameRow", "ResultsDB", "ResumeError"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    bot_a TEXT NOT NULL, bot_b TEXT NOT NULL, seed INTEGER NOT NULL, swapped INTEGER NOT NULL,
    score_a REAL,               -- 1 win, 0.5 draw, 0 loss for bot_a
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
    PRIMARY KEY (bot_a, bot_b, seed, swapped)
);
"""


class ResumeError(ValueError):
    """The database belongs to another tournament, or exists without ``--resume``."""


@dataclass(frozen=True, slots=True)
class GameKey:
    bot_a: str
    bot_b: str
    seed: int
    swapped: int


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


class ResultsDB:
    """The results file. Each ``add`` commits at once (an interrupted run keeps every game)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.db = sqlite3.connect(path)
        self.db.executescript(_SCHEMA)
        self.db.commit()

    def claim(self, fingerprint: str, *, resume: bool) -> None:
        """Tie the file to one tournament: refuse a different one, or a rerun without resume."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
        if row is None:
            self.db.execute("INSERT INTO meta VALUES ('fingerprint', ?)", (fingerprint,))
            self.db.commit()
            return
        if row[0] != fingerprint:
            raise ResumeError(
                f"{self.path} holds another tournament's results (its bots, preset, seeds or "
                "hands differ): use another database file"
            )
        if not resume and self.count():
            raise ResumeError(
                f"{self.path} already holds {self.count()} games of this tournament: pass "
                "--resume to continue it, or use another database file"
            )

    def count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    def done(self) -> set[GameKey]:
        rows = self.db.execute("SELECT bot_a, bot_b, seed, swapped FROM games")
        return {GameKey(*row) for row in rows}

    def add(self, row: GameRow) -> None:
        key = row.key
        self.db.execute(
            "INSERT INTO games (bot_a, bot_b, seed, swapped, score_a, hands, levels_a, levels_b, "
            "defended_a, points_a, defended_b, points_b, strikes_a, strikes_b, illegal_a, "
            "illegal_b, crashes_a, crashes_b, forfeit, reason, errors, seconds) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                key.bot_a,
                key.bot_b,
                key.seed,
                key.swapped,
                row.score_a,
                row.hands,
                row.levels_a,
                row.levels_b,
                row.defended_a,
                row.points_a,
                row.defended_b,
                row.points_b,
                row.strikes_a,
                row.strikes_b,
                row.illegal_a,
                row.illegal_b,
                row.crashes_a,
                row.crashes_b,
                row.forfeit,
                row.reason,
                row.errors,
                row.seconds,
            ),
        )
        self.db.commit()

    def rows(self) -> list[GameRow]:
        cursor = self.db.execute(
            "SELECT bot_a, bot_b, seed, swapped, score_a, hands, levels_a, levels_b, defended_a, "
            "points_a, defended_b, points_b, strikes_a, strikes_b, illegal_a, illegal_b, "
            "crashes_a, crashes_b, forfeit, reason, errors, seconds FROM games "
            "ORDER BY bot_a, bot_b, seed, swapped"
        )
        return [GameRow(GameKey(*r[:4]), *r[4:]) for r in cursor]

    def close(self) -> None:
        self.db.close()
