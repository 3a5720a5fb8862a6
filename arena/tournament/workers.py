"""The worker processes that play a run's games between in-process bots, and the rules for
one that does not come back.

A game whose four seats are in-process bots (both its bots ``py:MODULE:NAME``, and ``workers``
not 0) is played in a worker process (:mod:`chaodipi.arena.tournament.worker`), not on the
table server: :meth:`Workers.play` sends it to the worker with the fewest games in hand and
returns its :class:`~chaodipi.arena.tournament.backend.GameResult` as the worker sends it.
There are at most ``workers`` of them (by default one per core, and never more than the games
played at once), started as games need them: the first as the pool opens, so that a bot spec
naming nothing callable stops the run at once, in one line (a
:class:`~chaodipi.arena.errors.ConfigError`), before any game. Each is started from a fork
server (``multiprocessing``'s ``forkserver``: the arena's modules imported once, each worker a
fork of that clean process, never of this one with its threads and sockets).

A worker plays its games one after another; the games sent to it wait in its pipe. What
happens when one does not come back:

* it stopped a ``decide`` that ran until its seat would have struck out: that game is played to
  its end there (the seat struck out, its team forfeits) and sent, and the worker ends; the
  games still waiting for it are sent to another worker (a new one takes its place), which
  plays them from their start: none of them had begun.
* a ``decide`` will not stop (it catches the alarm, or is stuck in C code): once it has run
  :data:`STUCK_S` past the moment its alarm rang, its worker is killed, and the run stops
  (:class:`~chaodipi.arena.errors.BackendFailed`) saying so: that game and those waiting for
  the worker are not stored, ``--resume`` plays them.
* the worker process dies (a bot's ``os._exit``, a crash in C code): the run stops the same
  way; nothing is made up for the game it was playing.
"""

from __future__ import annotations

import collections
import multiprocessing
import os
import secrets
import time
from collections.abc import AsyncIterator, MutableSequence, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import anyio
import anyio.abc

from chaodipi.arena.errors import BackendFailed, ConfigError
from chaodipi.arena.logs import get_logger
from chaodipi.arena.results import GameKey, game_label
from chaodipi.arena.tournament.backend import GameResult
from chaodipi.arena.tournament.config import TournamentConfig

__all__ = [
    "STUCK_S",
    "WATCH_S",
    "Done",
    "Job",
    "Ready",
    "Refused",
    "Setup",
    "Workers",
    "default_workers",
    "in_process",
    "open_workers",
]

_WORKER = "chaodipi.arena.tournament.worker"
"""The worker's module (its body, :func:`chaodipi.arena.tournament.worker.serve`), imported
once by the fork server, so that every worker starts with it."""

STUCK_S = 10.0
"""How long a ``decide`` may run on after its alarm rang before its worker is killed."""

WATCH_S = 0.5
"""How often the pool looks for a ``decide`` that will not stop."""


@dataclass(frozen=True, slots=True)
class Setup:
    """What a worker is started with."""

    config: TournamentConfig
    log_dir: Path
    index: int
    """The worker's number in its pool (from 1): its bots' stderr files are ``NAME#wK``."""
    run_tag: str
    """Tells this run's instances from others' (:attr:`BotFailure.process`)."""
    log_level: str = "warning"


@dataclass(frozen=True, slots=True)
class Job:
    """A game for a worker to play: which, and its cards' seed (the deal key stays here)."""

    key: GameKey
    seed: int | str


@dataclass(frozen=True, slots=True)
class Ready:
    """The worker has loaded its bots and waits for games."""


@dataclass(frozen=True, slots=True)
class Refused:
    """A bot's spec names nothing the worker can call: why, in one line."""

    why: str


@dataclass(frozen=True, slots=True)
class Done:
    """A game's result; ``retire``: a ``decide`` was stopped in it, and the worker ends."""

    result: GameResult
    retire: bool = False


def in_process(config: TournamentConfig, key: GameKey) -> bool:
    """Whether the game ``key`` is played in a worker process: both its bots are in-process
    bots (``py:MODULE:NAME``), and the config allows workers (``workers`` not 0).

    >>> from chaodipi.arena.tournament.config import load_config
    >>> config = load_config(None, {}, {"a": "py:m:f", "b": "py:m:g", "c": "./c"})
    >>> [in_process(config, GameKey("a", other, 1, False)) for other in ("b", "c")]
    [True, False]
    """
    if config.workers == 0:
        return False
    callables = {spec.name for spec in config.bots if spec.callable is not None}
    return key.bot_a in callables and key.bot_b in callables


def default_workers() -> int:
    """Worker processes when the config does not say: one per core this process may use."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


@dataclass(eq=False)
class _Worker:
    index: int
    process: Any  # multiprocessing's Process of the forkserver context
    connection: Connection
    posted: MutableSequence[float]
    """When its alarm rings (``time.monotonic``; 0: no ``decide`` runs), as it posts it."""
    jobs: collections.deque[_Waiting] = field(default_factory=collections.deque)
    retiring: bool = False


@dataclass(eq=False)
class _Waiting:
    job: Job
    done: anyio.Event = field(default_factory=anyio.Event)
    result: GameResult | None = None


class Workers:
    """A run's worker processes (use :func:`open_workers`)."""

    def __init__(
        self, config: TournamentConfig, log_dir: Path, count: int, *, log_level: str, run_tag: str
    ) -> None:
        self.config = config
        self.log_dir = log_dir
        self.count = count
        self.nursery: anyio.abc.TaskGroup | None = None
        """Where the workers' readers run, while games are played (:meth:`running`)."""
        self.log_level = log_level
        self.run_tag = run_tag
        self.live: list[_Worker] = []
        self.started = 0
        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload([_WORKER])
        self._log = get_logger(run=run_tag)
        self._choosing = anyio.Lock()

    async def play(self, key: GameKey, seed: int | str) -> GameResult:
        """Play the game ``key`` (its cards from ``seed``) in a worker; its result."""
        waiting = _Waiting(Job(key, seed))
        await self._give(waiting)
        await waiting.done.wait()
        assert waiting.result is not None
        return waiting.result

    async def _give(self, waiting: _Waiting) -> None:
        """Send a game to the worker with the fewest in hand (a new one while there are fewer
        than ``count`` and every one has a game)."""
        async with self._choosing:  # one at a time: two games must not both start a worker
            free = [w for w in self.live if not w.retiring]
            if len(free) < self.count and all(w.jobs for w in free):
                free.append(await self.start())
            worker = min(free, key=lambda w: len(w.jobs))
            worker.jobs.append(waiting)
            worker.connection.send(waiting.job)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """While games are played: each worker's results read, the stuck ``decide`` watched
        for; what stops the workers raises :class:`BackendFailed` here."""
        async with anyio.create_task_group() as nursery:
            self.nursery = nursery
            for worker in self.live:
                nursery.start_soon(self._read, worker)
            nursery.start_soon(self._watch)
            try:
                yield
            finally:
                self.nursery = None
                nursery.cancel_scope.cancel()

    async def start(self) -> _Worker:
        """A new worker, once it has loaded the bots (``ConfigError`` if it cannot)."""
        from chaodipi.arena.tournament.worker import serve  # the worker's body, run there

        self.started += 1
        mine, theirs = self._context.Pipe()
        posted = self._context.RawArray("d", 1)
        setup = Setup(self.config, self.log_dir, self.started, self.run_tag, self.log_level)
        process = self._context.Process(
            target=serve, args=(theirs, posted, setup), name=f"arena-worker-{self.started}",
            daemon=True,
        )
        process.start()
        theirs.close()
        worker = _Worker(self.started, process, mine, posted)
        said = await self._receive(worker)
        if isinstance(said, Refused):
            await self._end(worker)
            raise ConfigError(said.why)
        if not isinstance(said, Ready):
            await self._end(worker)
            raise BackendFailed(f"worker {worker.index} did not start ({said!r})")
        self.live.append(worker)
        if self.nursery is not None:
            self.nursery.start_soon(self._read, worker)
        self._log.info("worker_started", worker=worker.index, pid=process.pid)
        return worker

    async def _receive(self, worker: _Worker) -> object:
        """The worker's next message; None when it has gone."""
        await anyio.wait_readable(worker.connection.fileno())
        try:
            message: object = worker.connection.recv()
        except (EOFError, OSError):
            return None
        return message

    async def _read(self, worker: _Worker) -> None:
        """Each result the worker sends, to the game waiting for it; then what its end means."""
        while True:
            said = await self._receive(worker)
            if not isinstance(said, Done):
                break
            waiting = worker.jobs.popleft()
            waiting.result = said.result
            waiting.done.set()
            if said.retire:
                worker.retiring = True
                self._log.info("worker_retired", worker=worker.index)
                break
        await self._end(worker)
        self.live.remove(worker)
        if not worker.retiring:
            raise BackendFailed(self._died(worker))
        for waiting in worker.jobs:  # none of them began: another worker plays them
            await self._give(waiting)

    def _died(self, worker: _Worker) -> str:
        code = worker.process.exitcode
        playing = f" playing game {game_label(worker.jobs[0].job.key)}" if worker.jobs else ""
        return (
            f"worker process {worker.index} died (exit code {code}){playing}: a bot's code "
            "ended it (os._exit, a crash in C code); the games it held are not stored "
            f"(--resume plays them); the bots' stderr is in {self.log_dir}"
        )

    async def _watch(self) -> None:
        """Kill the worker of a ``decide`` that has run :data:`STUCK_S` past its alarm, and
        stop the run."""
        while True:
            await anyio.sleep(WATCH_S)
            now = time.monotonic()
            for worker in self.live:
                rang = worker.posted[0]
                if rang and now > rang + STUCK_S and worker.jobs:
                    label = game_label(worker.jobs[0].job.key)
                    worker.process.kill()
                    raise BackendFailed(
                        f"a decide in game {label} ran on {STUCK_S:g} s after it was stopped "
                        f"for running until its seat would have struck out (it catches "
                        "BaseException, or is stuck in C code): its worker process was killed, "
                        "and the games it held are not stored (--resume plays them); fix the "
                        "bot, or play it as a process (--workers 0)"
                    )

    async def _end(self, worker: _Worker) -> None:
        """The worker ends: told to (it finishes nothing more), or killed if it does not."""
        process = worker.process
        with suppress(OSError):
            worker.connection.send(None)
        with anyio.move_on_after(2.0, shield=True):
            while process.is_alive():
                await anyio.wait_readable(process.sentinel)
        if process.is_alive():
            process.kill()
        process.join()
        worker.connection.close()

    async def close(self, *, kill: bool) -> None:
        """End every worker: told to (``kill``: killed at once, the run stopping)."""
        with anyio.CancelScope(shield=True):
            for worker in list(self.live):
                if kill:
                    worker.process.kill()
                await self._end(worker)
            self.live.clear()


@asynccontextmanager
async def open_workers(
    config: TournamentConfig, games: Sequence[GameKey], log_dir: Path, *, log_level: str
) -> AsyncIterator[Workers | None]:
    """The pool for those of ``games`` played in workers (None: there are none), its first
    worker started (:class:`ConfigError` if a bot's spec names nothing callable); every worker
    ended on leaving (killed, when the run is cancelled)."""
    if not any(in_process(config, key) for key in games):
        yield None
        return
    count = min(config.workers or default_workers(), config.concurrency)
    workers = Workers(config, log_dir, count, log_level=log_level, run_tag=secrets.token_hex(6))
    try:
        await workers.start()
        yield workers
    finally:
        await workers.close(kill=anyio.current_effective_deadline() == -float("inf"))
