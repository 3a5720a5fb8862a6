"""The tournament driver: one run, wherever its games are played.

:func:`run_tournament` claims the results database (``--resume`` skips what is stored, and
deals the same cards from the key kept there), asks a backend
(:mod:`chaodipi.arena.tournament.backend`) to play the rest, here
(:class:`chaodipi.arena.tournament.local.LocalBackend`, the default) or on a Ray cluster
(:class:`chaodipi.arena.tournament.ray_backend.RayBackend`), and takes its stream of typed game
results. It alone owns what the run keeps and decides:

* **the rows**, through the :class:`chaodipi.arena.tournament.recorder.Recorder`: stored once each
  as they come, progress, the SPRT after every complete duplicate pair;
* **the failure count** (:class:`FailureCount`): a bot that fails to take its seat, or whose
  processes die, in 3 games in a row stops the run, counted over every game wherever it was
  played, from the facts each result carries (a seat the server refused is not counted);
* **the records** (:class:`RecordStore`): each game's record is stored with its row, and
  released (readable by ``arena games``/``arena show``, written into the ``replays`` folder when
  the config names one) only once every game of this run on its deal is stored, so that no
  record shows a deal while its twin game still plays (``docs/trust.md``); when the run ends
  (its schedule done, or stopped: a failing bot, the SPRT, Ctrl-C) no game of it is in play,
  and the deals it left unfinished are released too;
* **the writes**: every write to the database goes through one thread
  (:mod:`chaodipi.arena.tournament.writer`), in order, so the loop the tables share never waits
  for SQLite; ``on_game`` is called once a game's writes are committed, the run ends only once
  every write is made (Ctrl-C included), and a write that fails stops the run with its line;
* **signals**: Ctrl-C or SIGTERM (:mod:`chaodipi.arena.signals`) cancels the backend; the games in
  flight are dropped, what is stored stays, and ``interrupted`` is set.

It stops the backend by cancelling it: when the SPRT has decided, when a bot keeps failing, on
a signal, and, when the backend raises :class:`chaodipi.arena.tournament.backend.BackendFailed`,
with its reason. Once it has decided to stop, no further result is stored.
"""

from __future__ import annotations

import shlex
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import assert_never

import anyio

from chaodipi.arena.deals import DealSource
from chaodipi.arena.errors import BackendFailed, ConfigError
from chaodipi.arena.files import PRIVATE_FOLDER, make_private_folder, write_packed_record
from chaodipi.arena.logs import get_logger
from chaodipi.arena.results import GameKey, GameRow, ResultsDB, SprtTest, game_label
from chaodipi.arena.signals import stop_on_signals
from chaodipi.arena.tournament.backend import (
    Assignment,
    Backend,
    BotFailure,
    FailureKind,
    GameResult,
    Games,
)
from chaodipi.arena.tournament.config import BotSpec, TournamentConfig
from chaodipi.arena.tournament.deal_sets import DealSetError, load_deal_set
from chaodipi.arena.tournament.local import LocalBackend
from chaodipi.arena.tournament.recorder import Recorder, RunResult, Write, write_now
from chaodipi.arena.tournament.runs import claim_run
from chaodipi.arena.tournament.writer import open_writer

__all__ = [
    "FAILURES_IN_A_ROW",
    "FailureCount",
    "RecordStore",
    "prepare_log_dir",
    "run_tournament",
]

FAILURES_IN_A_ROW = 3
"""A bot that fails in this many games in a row stops the run."""


class FailureCount:
    """Counts, per bot, the games in a row in which it failed to take its seat, or in which
    one of its processes died; a bot that failed ``limit`` times in a row stops the run (as
    cutechess-cli and fastchess stop on an engine that cannot start or keeps crashing), rather
    than filling the database with void games and forfeits. A game in which it took its seats
    and did not fail starts the count again; a seat the server refused (at its stream cap,
    :attr:`FailureKind.REFUSED`) is not the bot's failure and counts neither way.

    In one game, a bot's seats that it never took count once; each process that died counts
    once, however many games it held seats in when it died.
    """

    def __init__(self, bots: Iterable[BotSpec], limit: int = FAILURES_IN_A_ROW) -> None:
        self.limit = limit
        self._bots = {spec.name: spec for spec in bots}
        self._in_a_row: dict[str, int] = {}
        self._deaths: set[str] = set()

    def count(self, result: GameResult) -> str | None:
        """Count a stored game's failures; the message that stops the run, once a bot has
        failed too often."""
        failing: set[str] = set()
        counted: set[str] = set()
        unseated_first = sorted(result.failures, key=lambda f: f.kind is not FailureKind.UNSEATED)
        for failure in unseated_first:
            failing.add(failure.bot)
            match failure.kind:
                case FailureKind.REFUSED:
                    continue  # the server's refusal, not the bot's failure
                case FailureKind.UNSEATED:
                    if failure.bot in counted:
                        continue  # its other seats in this game, which it did not take either
                case FailureKind.CRASHED:
                    pass
                case kind:
                    assert_never(kind)
            if failure.process:
                if failure.process in self._deaths:
                    continue  # one process dying in several games at once is one failure
                self._deaths.add(failure.process)
            counted.add(failure.bot)
            message = self._failed(failure)
            if message is not None:
                return message
        for bot in result.seated - failing:
            self._in_a_row[bot] = 0
        return None

    def _failed(self, failure: BotFailure) -> str | None:
        count = self._in_a_row.get(failure.bot, 0) + 1
        self._in_a_row[failure.bot] = count
        if count < self.limit:
            return None
        spec = self._bots[failure.bot]
        how = f"command: {shlex.join(spec.argv())}" if spec.command else "an external bot"
        tail = "" if failure.stderr is None else f"; the tail of its stderr:\n{failure.stderr}"
        unseated = failure.kind is FailureKind.UNSEATED
        what = "failed to start" if unseated else "kept dying: it died in"
        hint = ""
        if spec.command and not spec.fresh and unseated:
            hint = (
                " (if this bot can play only one game per process, give it `fresh = true` in "
                "the config)"
            )
        return (
            f"bot {failure.bot!r} {what} {count} games in a row ({failure.why}; {how}){hint}{tail}"
        )


class RecordStore:
    """Each stored game's record, kept in ``db`` at once but released (readable) only once
    every game of ``games`` on its deal is stored; then also written into ``folder``
    (``<game label>.jsonl``), when given. A deal the run leaves unfinished (it stopped) is
    released as the run ends (:meth:`release_rest`): no game of it is in play any more."""

    def __init__(
        self,
        db: ResultsDB,
        folder: Path | None,
        games: Sequence[GameKey],
        write: Write = write_now,
    ) -> None:
        self.db = db
        self.folder = folder
        self.write = write
        self._left = Counter(key.deal for key in games)
        self._held: dict[int, list[tuple[GameKey, bytes]]] = {}
        """The records for the folder, until their deal is released."""

    def add(self, key: GameKey, record: bytes | None) -> None:
        """A game of ``key``'s deal is stored (with its record, or None without one)."""
        deal = key.deal
        if record is not None:
            self.write(
                lambda: self.db.add_record(key, record), f"the record of {game_label(key)}"
            )
            if self.folder is not None:
                self._held.setdefault(deal, []).append((key, record))
        self._left[deal] -= 1
        if self._left[deal] > 0:
            return
        held = self._held.pop(deal, [])
        self.write(lambda: self._release(deal, held), f"the release of deal {deal}")

    def release_rest(self) -> None:
        """The run has ended, and none of its games is in play: release every deal it left
        unfinished, so that the games it did finish can be seen (the ones a stopped run's user
        most needs to see)."""
        for deal, left in sorted(self._left.items()):
            if left > 0:
                self._left[deal] = 0
                held = self._held.pop(deal, [])
                self.write(partial(self._release, deal, held), f"the release of deal {deal}")

    def _release(self, deal: int, held: list[tuple[GameKey, bytes]]) -> None:
        self.db.release_deal(deal)
        for game, compressed in held:
            assert self.folder is not None
            write_packed_record(self.folder / f"{game_label(game)}.jsonl", compressed)


def prepare_log_dir(config: TournamentConfig, log_dir: Path | None) -> Path:
    """The folder for the bots' stderr files (``<database stem>-logs`` beside the database
    unless given), made private."""
    log_dir = log_dir or config.database.parent / f"{config.database.stem}-logs"
    make_private_folder(log_dir)
    log_dir.chmod(PRIVATE_FOLDER)  # made earlier, perhaps under another umask: others need not
    return log_dir


async def run_tournament(
    config: TournamentConfig,
    backend: Backend | None = None,
    *,
    resume: bool = False,
    sprt_test: SprtTest | None = None,
    on_game: Callable[[GameRow, int, int], None] | None = None,
    log_dir: Path | None = None,
) -> RunResult:
    """Play every game of ``config`` not yet stored, on ``backend`` (default: here, on
    127.0.0.1 with any free port); ``on_game(row, done, total)`` after each stored one.

    Returns what the run did: ``stopped`` says why it ended early (a bot that keeps failing,
    a backend that could not go on), ``sprt`` the verdict that ended it, ``interrupted`` that
    Ctrl-C or SIGTERM did (when this runs in the main thread). Raises what
    :class:`chaodipi.arena.results.database.ResultsDB` raises (a database in use, or another
    tournament's, or one to ``resume``), and what the backend's set-up raises."""
    if backend is None:
        backend = LocalBackend()
    db = ResultsDB(config.database)
    try:
        claim_run(db, config, resume=resume, sprt=sprt_test)
        run_result = RunResult()
        deals = deal_source(config, db)
        async with open_writer(str(config.database)) as writer:
            recorder = Recorder(
                config, db, run_result, sprt_test=sprt_test, on_game=on_game, write=writer.write
            )
            assignment = Assignment(
                config, deals, tuple(recorder.pending), prepare_log_dir(config, log_dir)
            )
            run = _Run(recorder, assignment, writer.write)
            writer.on_failure = run.write_failed
            try:
                async with backend.open(assignment) as games:
                    try:
                        await run.play(games)
                    finally:
                        run_result.processes = games.processes
            finally:  # every game has ended: what it left unfinished can be seen
                run.records.release_rest()
        return run_result
    finally:
        db.close()


def deal_source(config: TournamentConfig, db: ResultsDB) -> DealSource:
    """What deals the run: its public deal set (``deals_file``), else the database's secret key.

    The set was checked as the config was read; it is read again (unless unchanged since)
    and must still be the same file."""
    if config.deal_set is None:
        return db.deal_key()
    try:
        deal_set = load_deal_set(config.deal_set.path)
    except DealSetError as err:
        raise ConfigError(f"deals_file: {err}") from None
    if deal_set.sha256 != config.deal_set.sha256:
        raise ConfigError(f"deals_file: {config.deal_set.path} changed since the run began")
    return deal_set


class _Run:
    """One run's results as they come: stored, counted, their records kept; and the decision
    to stop."""

    def __init__(self, recorder: Recorder, assignment: Assignment, write: Write) -> None:
        self.recorder = recorder
        self.run_result = recorder.run_result
        self.failures = FailureCount(assignment.config.bots)
        self.records = RecordStore(
            recorder.db, assignment.config.replays, assignment.games, write
        )
        self.scope = anyio.CancelScope()  # until play() has the nursery's
        self.log = get_logger(database=str(assignment.config.database))

    async def play(self, games: Games) -> None:
        async with anyio.create_task_group() as nursery:
            self.scope = nursery.cancel_scope
            await nursery.start(stop_on_signals, self._interrupt)
            try:
                await games.play(self._game_over)
            except BackendFailed as err:
                self.recorder.stop(str(err))
            nursery.cancel_scope.cancel()  # every game is over: stop listening for signals

    def _game_over(self, result: GameResult) -> None:
        if self.scope.cancel_called:
            return  # the run is stopping: what still comes is dropped, as the games in flight
        key, record = result.row.key, result.record
        if not self.recorder.keep(result.row, and_then=lambda: self.records.add(key, record)):
            return  # stored already (a shard that Ray ran again): counted once
        message = self.failures.count(result)
        if message is not None:
            self.recorder.stop(message)
            self.scope.cancel()
        elif self.run_result.sprt is not None:
            self.scope.cancel()

    def write_failed(self, line: str) -> None:
        """A write failed (the disk is full, the file was removed): nothing more is stored,
        and the run stops with the line."""
        self.recorder.stop(line)
        self.scope.cancel()

    def _interrupt(self) -> None:
        self.run_result.interrupted = True
        self.log.info("run_interrupted")
        self.scope.cancel()
