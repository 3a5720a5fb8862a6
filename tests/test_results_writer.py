"""The results database's writes go through one thread (chaodipi.arena.tournament.writer), so
the loop the tables share never waits for SQLite: it keeps serving while a commit is held up,
every result handed over is stored before the run ends (Ctrl-C included), in order, and a
write that fails stops the run with one line.

A commit is held up with a write hook that waits on a ``threading.Event`` which only the loop
sets, while it goes on; the wait's timeout is only there so that a loop that is blocked (the
commit on the loop's thread) fails the test instead of hanging it."""

from __future__ import annotations

import signal
import sqlite3
import threading
from pathlib import Path

import pytest
import trio
import trio.testing

from chaodipi.arena.results.database import ResultsDB
from chaodipi.arena.results.rows import GameRow
from chaodipi.arena.tournament.config import schedule
from chaodipi.arena.tournament.writer import open_writer
from tests.test_driver import Scripted, played, run, stored, tournament

HELD_UP_FOR_AT_MOST_S = 10.0
"""How long a held-up write waits for the loop at most (a blocked loop never comes)."""


class HeldUpWrites:
    """``ResultsDB.add`` as a hook: the first write waits until :meth:`release`, and every
    write is listed in the order it was made."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.released = threading.Event()
        self.released_by_the_loop: bool | None = None
        self.order: list[str] = []
        add = ResultsDB.add

        def held_up_add(db: ResultsDB, row: GameRow) -> None:
            if not self.order:
                self.released_by_the_loop = self.released.wait(HELD_UP_FOR_AT_MOST_S)
            self.order.append(f"{row.key.deal}{'b' if row.key.swapped else 'a'}")
            add(db, row)

        monkeypatch.setattr(ResultsDB, "add", held_up_add)

    def release(self) -> None:
        self.released.set()


def test_the_loop_keeps_serving_while_a_commit_is_held_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The backend hands the driver three more results (one mock second apart, so the loop
    runs its timers) while the first game's commit waits; only then does it release it. Every
    row is stored, in the order the games ended."""
    config = tournament(tmp_path, deals=2)
    keys = schedule(config)
    writes = HeldUpWrites(monkeypatch)

    def after(index: int) -> None:
        if index == 3:
            writes.release()

    backend = Scripted([played(key) for key in keys], after=after)
    outcome = run(config, backend)
    assert writes.released_by_the_loop is True
    assert backend.handed == 4 and outcome.played == 4 and outcome.stopped is None
    assert stored(config) == keys and writes.order == ["1a", "1b", "2a", "2b"]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_run_interrupted_while_a_commit_is_held_up_stores_every_game_it_took(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, signum: int
) -> None:
    """Ctrl-C comes while the first game's commit waits and the second's is queued behind it:
    the run ends only once both are stored."""
    config = tournament(tmp_path, deals=3)
    keys = schedule(config)
    writes = HeldUpWrites(monkeypatch)

    def after(index: int) -> None:
        if index == 1:
            signal.raise_signal(signum)
            writes.release()

    backend = Scripted([played(key) for key in keys], after=after)
    outcome = run(config, backend)
    assert outcome.interrupted and backend.handed == 2
    assert writes.released_by_the_loop is True
    assert stored(config) == keys[:2] and outcome.stopped is None


def test_a_write_that_fails_stops_the_run_with_one_line_and_stores_nothing_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk fills up at the second game: the run is stopped with SQLite's reason, naming
    the file and the game, and neither that game nor any later one is stored or reported."""
    config = tournament(tmp_path, deals=3)
    keys = schedule(config)
    add = ResultsDB.add

    def full_disk(db: ResultsDB, row: GameRow) -> None:
        if row.key == keys[1]:
            raise sqlite3.OperationalError("database or disk is full")
        add(db, row)

    monkeypatch.setattr(ResultsDB, "add", full_disk)
    backend = Scripted([played(key) for key in keys])
    reported: list[int] = []
    outcome = run(config, backend, on_game=lambda row, done, total: reported.append(done))
    assert outcome.stopped == (
        f"cannot store the game good-broken-d1-b in {config.database}: database or disk is full"
    )
    # the backend is cancelled if it still plays when the line comes (the writer's own
    # thread decides when), and whatever it handed over after is not stored
    assert stored(config) == keys[:1] and reported == [1]  # nothing reported unstored


def test_writes_are_made_in_order_and_all_made_before_the_writer_closes() -> None:
    """Leaving the block, even cancelled, waits for every write handed over; a ``then``
    follows its write, on the loop's thread."""
    made: list[str] = []
    threads: set[str] = set()
    gate = threading.Event()

    def slow() -> None:
        gate.wait(HELD_UP_FOR_AT_MOST_S)
        made.append("slow")

    async def main() -> None:
        with trio.CancelScope() as scope:
            async with open_writer("results.db") as writer:
                writer.write(slow, "the first game")
                for n in range(20):
                    writer.write(
                        lambda n=n: made.append(str(n)),
                        f"game {n}",
                        then=lambda: threads.add(threading.current_thread().name),
                    )
                scope.cancel()
                gate.set()
                await trio.sleep(1)  # cancelled: leaves at once
        assert scope.cancelled_caught

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert made == ["slow"] + [str(n) for n in range(20)]
    assert threads == {threading.main_thread().name}


def test_a_progress_callback_that_raises_loses_no_write_and_is_raised_at_the_end() -> None:
    made: list[int] = []

    def broken_progress() -> None:
        raise BrokenPipeError("stdout is gone")

    async def main() -> None:
        async with open_writer("results.db") as writer:
            for n in range(3):
                writer.write(lambda n=n: made.append(n), f"game {n}", then=broken_progress)

    with pytest.raises(BrokenPipeError, match="stdout is gone"):
        trio.run(main)
    assert made == [0, 1, 2]
