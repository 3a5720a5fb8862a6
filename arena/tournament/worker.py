"""A worker process: it plays the games whose four seats are in-process bots (``py:MODULE:NAME``
commands), one after another, each at a table of its own in this process, and hands each
game's :class:`~chaodipi.arena.tournament.backend.GameResult` back to the pool that started it
(:mod:`chaodipi.arena.tournament.workers`), as a game played on the table server gives one.

Set up once (:func:`serve`): the config file's folder is the current folder and first on the
module path, as for a command ``python3 -m …`` run there; SIGINT is ignored (the arena's Ctrl-C
ends the worker); every in-process bot of the config is loaded (:func:`chaodipi.bot.load_bot`),
and the first spec that names nothing callable is refused in one line (:class:`Refused`) and
the worker ends. While a bot's code runs (its import, a class made for a seat, ``decide``),
``sys.stdout`` goes nowhere and ``sys.stderr`` to the bot's file, ``NAME#wK.stderr`` in the
run's log folder (worker ``K``), as a command bot's process has them.

A game (:meth:`_Worker.play`): each seat's ``decide`` made (a class once per seat; one that
raises means the bot never took its seat, and the game is void, as for a process that could
not start), the table played on this process's event loop, the row and the record made by the
code that makes them for a game on the table server (:mod:`chaodipi.arena.tournament.local`):
a ``decide`` that raises is that bot's crash, and its team forfeits.

The guard (:class:`Alarm`): before each ``decide``, a real-time timer (``SIGALRM``) is set for
the moment its seat would have struck out; if the ``decide`` is still running then, the signal
raises :class:`~chaodipi.arena.serving.in_process.Overdue` inside it (again every
:data:`AGAIN_S` while it runs on), the table strikes the seat out, and once the game's result
is sent this worker ends (:class:`Done` says so): code that was stopped halfway may have left
anything behind. That moment is posted in memory the pool reads, so that a ``decide`` that will
not stop even so (stuck in C, or catching every exception) has its worker killed. A bot must not
use ``SIGALRM`` or ``ITIMER_REAL`` itself.
"""

from __future__ import annotations

import io
import os
import secrets
import signal
import sys
import time
from collections.abc import Callable, Iterator, MutableSequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from multiprocessing.connection import Connection
from pathlib import Path
from types import FrameType
from typing import Any

import anyio

from chaodipi.arena.files import open_private
from chaodipi.arena.logs import configure_logging
from chaodipi.arena.results import game_label
from chaodipi.arena.serving import (
    InProcessSeat,
    Overdue,
    Streams,
    Table,
    TableConfig,
    tune_garbage_collector,
)
from chaodipi.arena.tournament.backend import GameResult
from chaodipi.arena.tournament.config import BotSpec
from chaodipi.arena.tournament.local import _Game, _row, _seat_specs
from chaodipi.arena.tournament.workers import Done, Job, Ready, Refused, Setup
from chaodipi.bot import load_bot
from chaodipi.engine import PRESETS

__all__ = ["AGAIN_S", "Alarm", "serve"]

AGAIN_S = 0.1
"""While a stopped ``decide`` runs on (it caught :class:`Overdue`), the alarm rings again this
often."""


class Alarm:
    """The worker's guard (:class:`chaodipi.arena.serving.in_process.Guard`): ``SIGALRM``
    raises :class:`Overdue` in the ``decide`` running when it rings; the moment it is set for
    (``time.monotonic``, 0 when none) is ``posted[0]``, in memory the pool reads."""

    def __init__(self, posted: MutableSequence[float]) -> None:
        self.posted = posted
        self.armed = False
        signal.signal(signal.SIGALRM, self._ring)

    def arm(self, seconds: float) -> None:
        self.armed = True
        self.posted[0] = time.monotonic() + seconds
        signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-4), AGAIN_S)

    def disarm(self) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        self.armed = False
        self.posted[0] = 0.0

    def _ring(self, signum: int, frame: FrameType | None) -> None:
        if self.armed:
            raise Overdue


@dataclass(slots=True)
class _Bot:
    """An in-process bot as this worker holds it: its spec, what makes a seat's ``decide``,
    its streams and stderr file."""

    spec: BotSpec
    streams: Streams
    stderr: Path
    new_game: Callable[[], Any] | None = None
    """What makes a seat's ``decide`` for a game (:func:`chaodipi.bot.load_bot`), once loaded."""

    @contextmanager
    def running(self) -> Iterator[None]:
        """While the bot's own code runs: its streams."""
        saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = self.streams.stdout, self.streams.stderr
        try:
            yield
        finally:
            sys.stdout, sys.stderr = saved


class _Worker:
    def __init__(self, setup: Setup, posted: MutableSequence[float]) -> None:
        self.setup = setup
        self.alarm = Alarm(posted)
        self.bots: dict[str, _Bot] = {}
        self.hung = False
        """A ``decide`` was stopped in the last game: the worker ends once it is sent."""
        self.specs = {spec.name: spec for spec in setup.config.bots}

    def load(self) -> str | None:
        """Load every in-process bot of the config; why the first cannot be, or None."""
        nowhere = open(os.devnull, "w")  # noqa: SIM115  # their stdout, while the worker lives
        for spec in self.setup.config.bots:
            if spec.callable is None:
                continue
            path = self.setup.log_dir / f"{spec.name}#w{self.setup.index}.stderr"
            stderr = io.TextIOWrapper(open_private(path), encoding="utf-8", line_buffering=True)
            bot = _Bot(spec, Streams(nowhere, stderr), path)
            with bot.running():
                try:
                    bot.new_game = load_bot(spec.callable)
                except ValueError as err:
                    print(err, file=sys.stderr)
                    return f"bots.{spec.name}: {err}"
            self.bots[spec.name] = bot
        return None

    async def play(self, job: Job) -> GameResult:
        setup, config, key = self.setup, self.setup.config, job.key
        specs = _seat_specs(key, self.specs)
        made: list[InProcessSeat | None] = []
        failed: list[tuple[int, BaseException]] = []
        for seat, spec in enumerate(specs):
            bot = self.bots[spec.name]
            assert bot.new_game is not None
            with bot.running():
                try:
                    decide = bot.new_game()
                except Exception as err:
                    print(f"making seat {seat}'s decide failed: {_said(err)}", file=sys.stderr)
                    failed.append((seat, err))
                    made.append(None)
                    continue
            made.append(InProcessSeat(decide, spec.name, streams=bot.streams, guard=self.alarm))
        table = Table(
            f"g{secrets.token_urlsafe(12)}",
            TableConfig(
                PRESETS[config.preset],
                seed=job.seed,
                max_hands=config.hands or None,
                decision_ms=config.decision_ms,
                bank_ms=config.bank_ms,
                max_strikes=config.max_strikes,
                bots=tuple(spec.name for spec in specs),
            ),
            in_process=made,
        )
        game = _Game(key, specs, table, game_label(key), setup.run_tag, None)
        for seat, error in failed:
            stderr = self.bots[specs[seat].name].stderr
            game.unseated(seat, f"could not be made ({_said(error)})", stderr)
        for seat, seated in enumerate(made):
            if seated is not None:
                seated.on_gone = partial(self._raised, game, seat)
        started = time.perf_counter()
        result = await table.run()
        self.hung = any(seated is not None and seated.hung for seated in made)
        team0 = key.bot_a if not key.swapped else key.bot_b
        return game.result(_row(key, team0, result, game, time.perf_counter() - started))

    def _raised(self, game: _Game, seat: int, error: BaseException) -> None:
        """A ``decide`` raised: that bot crashed in this game (its team forfeits)."""
        name = game.specs[seat].name
        who = f"{name}#w{self.setup.index}"
        game.crashed(
            seat,
            who,
            f"its decide raised {_said(error)}",
            self.bots[name].stderr,
            process=f"{who}@{game.run_tag}/{game.label}/{seat}",
        )


def _said(error: BaseException) -> str:
    return " ".join(f"{type(error).__name__}: {error}".split())


def serve(connection: Connection, posted: MutableSequence[float], setup: Setup) -> None:
    """The worker process's body: load the bots (:class:`Ready` or :class:`Refused`), then
    play each :class:`Job` received and send its :class:`Done`, until ``None`` comes, the
    connection closes, or a game retires the worker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    folder = setup.config.folder.absolute()
    os.chdir(folder)
    sys.path.insert(0, str(folder))
    configure_logging(setup.log_level)
    worker = _Worker(setup, posted)
    refused = worker.load()
    connection.send(Refused(refused) if refused is not None else Ready())
    if refused is not None:
        return
    tune_garbage_collector()
    anyio.run(_games, connection, worker, backend="asyncio")


async def _games(connection: Connection, worker: _Worker) -> None:
    while True:
        await anyio.wait_readable(connection.fileno())
        try:
            job = connection.recv()
        except EOFError:
            return
        if job is None:
            return
        result = await worker.play(job)
        connection.send(Done(result, retire=worker.hung))
        if worker.hung:
            return
