"""A shard of a tournament, played on a Ray node: the body of the task the Ray backend
(:mod:`chaodipi.arena.tournament.ray_backend`) sends to the cluster.

A :class:`Shard` is every game still to play on a run of whole deals (every pairing that
plays them, both seatings), so the rule that no bot process ever holds two seats of one deal
(:mod:`chaodipi.arena.tournament.pools`) holds on each node as it does in a local run: the node's
own pools play all of a deal's games. :func:`play_shard` runs, on the node, a table server on
127.0.0.1 and the bots' sessions (:func:`chaodipi.arena.tournament.local.play_games`, the local
backend's own code): the games never cross the network, only one small :class:`ShardResult` per game
does, carrying the game's :class:`chaodipi.arena.tournament.backend.GameResult` (its row, its
compressed record, its bots' failures). The shard counts nothing and stores nothing: the driver
does, for every shard at once.

Ray runs the shard as a streaming generator task and, when its worker or node is lost, runs
it again elsewhere and drops the results the driver has already received. So a shard yields
**the same games in the same order, and as many, on every attempt**: one result per game, in
the shard's order (deal after deal), each as soon as it and every game before it have ended.

The shard's asyncio loop runs on the worker's main thread, driven by this generator
(:func:`loop_items`): the tables keep playing between the generator's yields. Bot processes
stay in the worker's process group (Ray kills the group with the worker) and are killed when
the shard ends. Nothing here touches signals: Ray owns SIGTERM in its workers. ``ray`` itself
is imported only inside functions.
"""

from __future__ import annotations

import asyncio
import collections
import os
import tempfile
import threading
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from chaodipi.arena.deals import DealSource
from chaodipi.arena.errors import ShardError
from chaodipi.arena.files import make_private_folder
from chaodipi.arena.logs import configure_logging, get_logger
from chaodipi.arena.results import GameKey
from chaodipi.arena.serving import open_server, tune_garbage_collector
from chaodipi.arena.tournament.backend import GameResult
from chaodipi.arena.tournament.config import TournamentConfig
from chaodipi.arena.tournament.local import play_games
from chaodipi.arena.tournament.workers import open_workers

__all__ = ["Shard", "ShardResult", "loop_items", "play_shard"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Shard:
    """The games of whole deals to play on one node, in this order."""

    index: int
    config: TournamentConfig
    deal_key: DealSource
    """The tournament's secret (its repr hides it): it crosses the network to the nodes."""
    games: tuple[GameKey, ...]
    log_dir: str
    """The driver's folder for the bots' stderr; a node uses ``LOG_DIR/shard-N`` if it can
    make it, else a folder in its temporary directory."""
    folder: str | None = None
    """The config's folder relative to the shipped ``working_dir`` (the worker's current
    folder), or None when the project is at the same path on every node."""
    log_level: str = "warning"

    @property
    def deals(self) -> tuple[int, int]:
        """The first and last deal numbers of the shard."""
        return self.games[0].deal, self.games[-1].deal


@dataclass(frozen=True, slots=True)
class ShardResult:
    """What a node sends back for one game of a shard."""

    shard: int
    index: int
    """The game's place in the shard."""
    result: GameResult
    node: str = ""
    processes: int = 0
    """Bot processes the shard started (on its last result; 0 on the others)."""


def loop_items(async_fn: Callable[[Callable[[T], None]], Awaitable[None]]) -> Iterator[T]:
    """Run ``async_fn(emit)`` on an asyncio loop of this thread and yield what it emits, as it
    emits.

    The generator drives the loop (anyio code, and grpc.aio, run on it): each ``next`` runs the
    loop until something was emitted or the run has ended, so the tables play on this thread
    between the generator's yields only while Ray asks for more. Closing the generator early
    cancels the run and drives it to its end.

    >>> async def count(emit: Callable[[int], None]) -> None:
    ...     for n in range(3):
    ...         await asyncio.sleep(0)
    ...         emit(n)
    >>> list(loop_items(count))
    [0, 1, 2]
    """
    loop = asyncio.new_event_loop()
    emitted: collections.deque[T] = collections.deque()
    woken = asyncio.Event()

    def emit(item: T) -> None:
        emitted.append(item)
        woken.set()

    async def main() -> None:
        await async_fn(emit)

    async def until_news(run: asyncio.Task[None]) -> None:
        waiter = asyncio.ensure_future(woken.wait())
        await asyncio.wait((run, waiter), return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        woken.clear()

    run = loop.create_task(main())
    try:
        while not run.done():
            loop.run_until_complete(until_news(run))
            while emitted:
                yield emitted.popleft()
        run.result()
    finally:
        if not run.done():  # closed early, or an exception from below: end the run first
            run.cancel()
            loop.run_until_complete(asyncio.gather(run, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


_prepared = False


def _prepare_worker(level: str) -> None:
    """Once per worker process (Ray reuses workers): JSON log lines on its stderr (the node's
    Ray logs), and the arena's garbage-collector settings."""
    global _prepared
    configure_logging(level, json=True)
    if not _prepared:
        tune_garbage_collector()
        _prepared = True


def _node_id() -> str:
    try:
        import ray

        if ray.is_initialized():
            return str(ray.get_runtime_context().get_node_id())
    except ImportError:
        pass
    return "local"


def _node_config(shard: Shard, node: str) -> TournamentConfig:
    """The config as this node sees it: bot commands run in the config's folder, shipped or
    at the driver's path."""
    config = shard.config
    folder = config.folder if shard.folder is None else Path.cwd() / shard.folder
    if not folder.is_dir():
        how = (
            "the shipped working_dir does not hold it"
            if shard.folder is not None
            else "install the project and the bots at the same path on every node, or ship "
            "the folder with --ray-working-dir"
        )
        raise ShardError(
            f"the config's folder {folder} (where bot commands run) does not exist on Ray "
            f"node {node}: {how}"
        )
    return replace(config, folder=folder)


def _node_log_dir(shard: Shard) -> Path:
    """Where the shard's bots write their stderr on this node."""
    name = f"shard-{shard.index}"
    folder = Path(shard.log_dir) / name
    try:
        make_private_folder(folder)
        return folder
    except OSError:
        pass
    try:  # a new folder of its own, never a name another user could have made first
        return Path(tempfile.mkdtemp(prefix=f"chaodipi-arena-{name}-"))
    except OSError:
        raise ShardError(
            f"no folder for the bots' stderr on this node ({shard.log_dir}, or $TMPDIR)"
        ) from None


def play_shard(shard: Shard) -> Iterator[ShardResult]:
    """Play the shard's games here and yield one :class:`ShardResult` per game, in order: the
    body of the Ray task (a sync task runs on the worker's main thread, where the loop runs:
    signals and child processes need it)."""
    if threading.current_thread() is not threading.main_thread():
        raise ShardError("a shard runs its loop on the main thread: run it as a task, not an actor")
    _prepare_worker(shard.log_level)
    node = _node_id()
    config = _node_config(shard, node)
    log_dir = _node_log_dir(shard)
    get_logger(shard=shard.index, node=node).info(
        "shard_started", games=len(shard.games), deals=shard.deals, pid=os.getpid()
    )

    def run(emit: Callable[[ShardResult], None]) -> Awaitable[None]:
        return _play(shard, config, log_dir, node, emit)

    yield from loop_items(run)


async def _play(
    shard: Shard,
    config: TournamentConfig,
    log_dir: Path,
    node: str,
    emit: Callable[[ShardResult], None],
) -> None:
    games = shard.games
    index = {key: i for i, key in enumerate(games)}
    ended: dict[int, GameResult] = {}
    sent = 0

    def send(upto: int, processes: int = 0) -> None:
        """Send the results of games ``sent`` to ``upto - 1``, which have all ended."""
        nonlocal sent
        while sent < upto:
            last = sent == len(games) - 1
            result = ended.pop(sent)
            emit(ShardResult(shard.index, sent, result, node, processes if last else 0))
            sent += 1

    def on_result(result: GameResult) -> None:
        """Send, in order, every game that has ended with all those before it; the last waits
        for the count of processes."""
        ended[index[result.row.key]] = result
        upto = sent
        while upto < len(games) - 1 and upto in ended:
            upto += 1
        send(upto)

    async with (
        open_workers(config, games, log_dir, log_level=shard.log_level) as workers,
        open_server("127.0.0.1:0") as server,
    ):
        processes = await play_games(
            config,
            shard.deal_key,
            games,
            server=server,
            log_dir=log_dir,
            on_result=on_result,
            detach_bots=False,
            workers=workers,
        )
    send(len(games), processes)
