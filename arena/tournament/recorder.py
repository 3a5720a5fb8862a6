"""The driver's bookkeeping of rows (:mod:`chaodipi.arena.tournament.driver`), wherever the games
were played.

A :class:`Recorder` lists the games still to play (``--resume`` skips the stored ones), stores
each finished game's row in the results database (the driver is its only writer) with its
number (the next one; a void game played again keeps its own), counts it,
logs it, reports progress, and checks the SPRT after every complete duplicate pair. A game
whose row this run has stored already (a shard that Ray ran again) is not stored twice.

The write itself goes through a ``write`` function (the driver's
:class:`chaodipi.arena.tournament.writer.ResultsWriter`, off the loop's thread; by default at
once, here): the counts and the SPRT are kept at once, and ``on_game`` is called once the row is
committed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Protocol

from chaodipi.arena.logs import get_logger
from chaodipi.arena.results import (
    GameRow,
    ResultsDB,
    SprtResult,
    SprtTest,
    game_label,
    pentanomial,
    sprt,
)
from chaodipi.arena.tournament.config import TournamentConfig, schedule, unplayed

__all__ = ["Recorder", "RunResult", "Write", "write_now"]


class Write(Protocol):
    """Run ``job`` (SQLite writes) after the writes before it, then ``then()``; ``what`` names
    it when it fails."""

    def __call__(
        self, job: Callable[[], None], what: str, *, then: Callable[[], None] | None = None
    ) -> None: ...


def write_now(
    job: Callable[[], None], what: str, *, then: Callable[[], None] | None = None
) -> None:
    """A :class:`Write` that writes at once, on the caller's thread."""
    job()
    if then is not None:
        then()


@dataclass(slots=True)
class RunResult:
    """What a run did: games stored now (results and void ones), problems seen, an SPRT verdict
    if one was asked, and why it stopped early if it did."""

    played: int = 0
    void: int = 0
    skipped: int = 0
    problems: list[str] = field(default_factory=list)
    sprt: SprtResult | None = None
    """The SPRT's decision, when one was asked and it decided."""
    stopped: str | None = None
    """Why the run stopped before its schedule ended (a bot that keeps failing, a shard that
    failed on the cluster)."""
    interrupted: bool = False
    """Stopped by Ctrl-C or SIGTERM: the games in flight were dropped."""
    processes: int = 0
    """Bot processes started."""
    duplicates: int = 0
    """Results received for a game this run had stored already, and not stored again."""


@dataclass(slots=True)
class _Pairs:
    """Each duplicate pair's scores for bot_a, kept as games are stored (read from the
    database once), so the SPRT is checked without reading every stored game again."""

    scores: dict[tuple[str, str, int], dict[int, float]] = field(default_factory=dict)

    def add(self, row: GameRow) -> bool:
        """Count a stored game; True when it completes its pair."""
        if row.score_a is None or row.void is not None:
            return False
        key = row.key
        pair = self.scores.setdefault((key.bot_a, key.bot_b, key.deal), {})
        pair[key.swapped] = row.score_a
        return len(pair) == 2

    def sprt(self, test: SprtTest) -> SprtResult:
        """The SPRT over every complete pair (a two-bot tournament has one pairing)."""
        return sprt(test, pentanomial(sum(p.values()) for p in self.scores.values() if len(p) == 2))


class Recorder:
    """One run's bookkeeping over ``db`` (open for writing, claimed): the games to play, and
    :meth:`keep` for each one that ends. ``on_game(row, done, total)`` after each stored game
    (``row.id``: its number)."""

    def __init__(
        self,
        config: TournamentConfig,
        db: ResultsDB,
        run_result: RunResult,
        *,
        sprt_test: SprtTest | None = None,
        on_game: Callable[[GameRow, int, int], None] | None = None,
        write: Write = write_now,
    ) -> None:
        self.config = config
        self.write = write
        self.db = db
        self.run_result = run_result
        self.sprt_test = sprt_test
        self.on_game = on_game
        self.total = len(schedule(config))
        self._kept = db.done()
        """Games not to store again: those stored before this run (not void), and every one
        stored by it."""
        self.pending = unplayed(config, self._kept)
        """The games this run plays, in the schedule's order (deal-major)."""
        run_result.skipped = self.total - len(self.pending)
        self.finished = run_result.skipped
        self._numbers = db.numbers()
        """Each stored game's number (a void one keeps it when played again)."""
        self._next_number = max(self._numbers.values(), default=0) + 1
        self._pairs = _Pairs()
        for stored in db.rows():
            self._pairs.add(stored)
        self.log = get_logger(database=str(config.database))

    def keep(self, row: GameRow, *, and_then: Callable[[], None] | None = None) -> bool:
        """Store a finished game; False (and counted in ``run_result.duplicates``) for one this run
        has stored already. ``and_then()`` (the game's other writes) is called right after its
        row is handed to ``write``, so ``on_game`` follows every write of the game. Once a
        complete pair lets the SPRT decide, ``run_result.sprt`` holds its verdict: play no more."""
        run_result = self.run_result
        if row.key in self._kept:
            run_result.duplicates += 1
            self.log.warning("game_stored_already", game=game_label(row.key))
            return False
        if row.key not in self._numbers:
            self._numbers[row.key] = self._next_number
            self._next_number += 1
        row = replace(row, id=self._numbers[row.key])
        self.write(lambda: self.db.add(row), f"the game {game_label(row.key)}")
        if and_then is not None:
            and_then()
        self._kept.add(row.key)
        self.finished += 1
        if row.void is not None:
            run_result.void += 1
        else:
            run_result.played += 1
        if row.trouble:
            run_result.problems.append(row.trouble)
        self.log.info(
            "game_over",
            game=game_label(row.key),
            number=row.id,
            score_a=row.score_a,
            hands=row.hands,
            reason=row.reason,
            void=row.void is not None,
        )
        on_game, finished = self.on_game, self.finished
        if on_game is not None:
            self.write(
                lambda: None,
                f"the game {game_label(row.key)}",
                then=lambda: on_game(row, finished, self.total),
            )
        if self._pairs.add(row) and self.sprt_test is not None and run_result.sprt is None:
            # checked after every complete pair, whichever of its games ended last
            result = self._pairs.sprt(self.sprt_test)
            if result.verdict is not None:
                run_result.sprt = result
        return True

    def stop(self, message: str) -> None:
        """The run stops early: the first reason is the one reported."""
        if self.run_result.stopped is None:
            self.run_result.stopped = message
            self.log.error("run_stopped", reason=message.splitlines()[0])
