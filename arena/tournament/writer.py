"""The results database's writes, off the event loop's thread.

In ``arena run`` the tables, their clocks, the gRPC server and the driver share one event loop
(docs/architecture.md, "One event loop"), so a commit that waits for the disk (a checkpoint of
the WAL, a slow or busy file system) would hold up every table's decisions. The driver hands
its writes (each game's row, its record, a deal's release) to a :class:`ResultsWriter`: one
thread that owns the database's connection while the run plays, and runs the writes one at a
time, in the order they were handed over. What must follow a write (the progress line, the
standings of ``--report-every``, which read the file) is called back on the loop once the write
is committed, so nothing is reported that is not stored.

* **Nothing is lost on stop**: leaving :func:`open_writer` (the run's end, an SPRT verdict,
  Ctrl-C) waits, shielded, for every write handed over; the run ends with all of them stored.
* **A write that fails stops the run**: ``on_failure`` is called on the loop with one line
  naming the file, the game and SQLite's reason (the driver stops the run with it), and no later
  write is made, so what is stored is always a prefix of what was handed over.

>>> import anyio
>>> async def main() -> list[str]:
...     done: list[str] = []
...     async with open_writer("results.db", done.append) as writer:
...         writer.write(lambda: None, "game a", then=lambda: done.append("a stored"))
...     return done
>>> anyio.run(main)
['a stored']
"""

from __future__ import annotations

import queue
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread

__all__ = ["ResultsWriter", "open_writer"]


@dataclass(frozen=True, slots=True)
class _Write:
    job: Callable[[], None]
    what: str
    then: Callable[[], None] | None


class ResultsWriter:
    """Hands writes to the writer thread; made by :func:`open_writer`."""

    def __init__(self, path: str, on_failure: Callable[[str], None] | None = None) -> None:
        self.path = path
        self.on_failure: Callable[[str], None] = on_failure or (lambda line: None)
        """Called on the loop with the line of the write that failed (settable)."""
        self.failure: str | None = None
        """The line of the write that failed, once one has."""
        self.error: BaseException | None = None
        """The first thing a ``then`` callback raised: raised again as the writer closes (the
        writes go on meanwhile, so no game is lost to a broken progress line)."""
        self._writes: queue.SimpleQueue[_Write | None] = queue.SimpleQueue()
        self._token = anyio.lowlevel.current_token()
        self._thread = threading.Thread(target=self._run, name="results-writer", daemon=True)

    def write(
        self, job: Callable[[], None], what: str, *, then: Callable[[], None] | None = None
    ) -> None:
        """Run ``job`` (SQLite writes) on the writer thread after every write handed over
        before it, then ``then()`` on the loop. ``what`` names it in the failure's line
        (``the game alpha-beta-d3-a``). Never waits."""
        self._writes.put(_Write(job, what, then))

    def _run(self) -> None:
        while (write := self._writes.get()) is not None:
            if self.failure is not None:
                continue  # a prefix of what was handed over, never a write after a gap
            try:
                write.job()
            except Exception as err:  # whatever it is, the run stops and says so
                known = isinstance(err, sqlite3.Error | OSError)
                self.failure = f"cannot store {write.what} in {self.path}: " + (
                    str(err) if known else repr(err)
                )
                self._on_loop(self.on_failure, self.failure)
                continue
            if write.then is not None:
                self._on_loop(write.then)

    def _on_loop(self, call: Callable[..., None], *args: object) -> None:
        try:
            anyio.from_thread.run_sync(call, *args, token=self._token)
        except BaseException as err:  # raised again on the loop as the writer closes
            if self.error is None:
                self.error = err


@asynccontextmanager
async def open_writer(
    path: str, on_failure: Callable[[str], None] | None = None
) -> AsyncIterator[ResultsWriter]:
    """A writer thread for the block; leaving it waits (shielded from cancellation) until every
    write handed over is done, and raises again what a ``then`` callback raised."""
    writer = ResultsWriter(path, on_failure)
    writer._thread.start()
    try:
        yield writer
    finally:
        writer._writes.put(None)
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(writer._thread.join)
        if writer.error is not None:
            raise writer.error
