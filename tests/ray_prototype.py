"""The execution shape of tournaments on Ray, as a prototype: one Ray task per shard of deals.

A shard task is a generator (``num_returns="streaming"``, ``max_retries``) that, on its node,
runs the arena's table server in trio and plays the shard's games there (bots in threads:
real gRPC on loopback), yielding one small picklable :class:`GameDone` per game as it ends.
The driver reads every shard's stream with ``ray.wait`` and alone writes SQLite.

Two rules make a retried shard deliver every game exactly once: Ray drops the items a retry
yields at indexes the driver already has, so a shard yields **the same games in the same
order** on every attempt (games may finish in any order: they are yielded in game order),
and the **same number** of them (or Ray raises ``StreamingGeneratorReplayInconsistentError``).

trio runs on the task's thread, the worker's main thread, in guest mode
(:func:`trio_items`): the generator is trio's host loop and yields between its steps, so the
tables keep playing while results travel. ``ray`` is imported only inside functions: pytest
imports this module for doctests where ray is not installed.
"""

from __future__ import annotations

import collections
import os
import sqlite3
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from arena.config import BotSpec
from arena.logs import configure_logging
from arena.processes import launch
from arena.ray_shard import trio_items
from arena.server import ArenaServer, open_server
from arena.table import Table, TableConfig, TableResult
from engine.presets import PRESETS

from .server_support import Recording, random_bot


@dataclass(frozen=True, slots=True)
class Shard:
    """Games to play on one node: a deal seed each."""

    index: int
    seeds: tuple[int, ...]
    hold_after: int | None = None
    """Test hook: the first attempt stops playing after this many games, for ever (until
    its worker is killed); a retry plays through. Attempts are told apart by ``marker``."""
    marker: str | None = None
    """A file (on a disk all nodes see) the first attempt creates."""
    processes: bool = False
    """Bots as processes (``python3 -m sample_bots.random_bot``, started as the local runner
    starts them, :func:`arena.processes.launch`), not threads."""


@dataclass(frozen=True, slots=True)
class GameDone:
    """One game's result, as a shard yields it (small and picklable)."""

    shard: int
    game: int
    seed: int
    winner: int | None
    hands: int
    reward: int
    reason: str
    node: str
    pid: int
    attempt: int
    seconds: float
    """From the table's start to its result."""


def _attempt(shard: Shard) -> int:
    if shard.marker is None:
        return 1
    try:
        with open(shard.marker, "x"):
            return 1
    except FileExistsError:
        return 2


async def play_shard(shard: Shard, emit: Callable[[GameDone], None], concurrency: int = 2) -> None:
    """Serve the shard's tables, ``concurrency`` at a time, with 4 in-process random bots
    each; emit each game's :class:`GameDone` in game order."""
    configure_logging("warning")
    attempt = _attempt(shard)
    node = _node_id()
    finished: dict[int, GameDone] = {}
    next_game = 0
    slots = trio.Semaphore(concurrency)
    holding = trio.Event()  # never set: the held first attempt waits for its killer

    def flush() -> None:
        nonlocal next_game
        while next_game in finished:
            emit(finished.pop(next_game))
            next_game += 1

    async with open_server("127.0.0.1:0") as server:

        async def play(game: int, seed: int) -> None:
            async with slots:
                config = TableConfig(PRESETS["classic"], seed=seed, max_hands=1)
                table = server.start_table(config, name=f"s{shard.index}g{game}")
                started = time.perf_counter()
                if shard.processes:
                    result = await play_with_processes(server, table)
                else:
                    async with trio.open_nursery() as bots:
                        for seat in range(4):
                            bots.start_soon(
                                trio.to_thread.run_sync,
                                random_bot,
                                server.address,
                                table.ticket(seat),
                                seat,
                                Recording(),
                            )
                        result = await server.wait(table)
                server.release(table)
            finished[game] = GameDone(
                shard=shard.index,
                game=game,
                seed=seed,
                winner=result.winner,
                hands=result.hands,
                reward=result.reward,
                reason=result.reason,
                node=node,
                pid=os.getpid(),
                attempt=attempt,
                seconds=time.perf_counter() - started,
            )
            flush()

        async with trio.open_nursery() as nursery:
            for game, seed in enumerate(shard.seeds):
                if attempt == 1 and game == shard.hold_after:
                    await until_emitted(lambda held=game: next_game >= held)
                    await holding.wait()
                nursery.start_soon(play, game, seed)


RANDOM_BOT = BotSpec("random", ("python3", "-m", "sample_bots.random_bot", "--seed", "1"))
ROOT = Path(__file__).resolve().parent.parent


async def play_with_processes(server: ArenaServer, table: Table) -> TableResult:
    """The seats played by bot processes, started and stopped as the local runner does."""
    with tempfile.TemporaryDirectory(prefix="shard-bots-") as logs:
        bots = []
        try:
            for seat in range(4):
                bots.append(
                    await launch(
                        RANDOM_BOT,
                        address=server.address,
                        ticket=table.ticket(seat),
                        folder=ROOT,
                        stderr=Path(logs) / f"seat{seat}.stderr",
                    )
                )
            return await server.wait(table)
        finally:  # a Ray worker is reused: nothing of a game may outlive it
            for bot in bots:
                await bot.kill()


async def until_emitted(condition: Callable[[], bool]) -> None:
    while not condition():
        await trio.sleep(0.005)


def _node_id() -> str:
    try:
        import ray

        if ray.is_initialized():
            return str(ray.get_runtime_context().get_node_id())
    except ImportError:
        pass
    return "local"


def shard_games(shard: Shard) -> Iterator[GameDone]:
    """The shard's games, played here: the body of the Ray task."""
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError("a shard runs trio on the main thread (a sync task, not an actor)")
    yield from trio_items(lambda emit: play_shard(shard, emit))


def remote_shard_games(max_retries: int = 3) -> Any:
    """``shard_games`` as a Ray task: ``.remote(shard)`` returns an ``ObjectRefGenerator``."""
    import ray

    return ray.remote(num_cpus=1, num_returns="streaming", max_retries=max_retries)(shard_games)


class ResultStore:
    """The driver's SQLite: one row per game, a game stored twice is an error."""

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(path)
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS games (shard INTEGER, game INTEGER, seed INTEGER,"
            " winner INTEGER, reward INTEGER, node TEXT, pid INTEGER, attempt INTEGER,"
            " PRIMARY KEY (shard, game))"
        )

    def add(self, done: GameDone) -> None:
        with self.db:
            self.db.execute(
                "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    done.shard,
                    done.game,
                    done.seed,
                    done.winner,
                    done.reward,
                    done.node,
                    done.pid,
                    done.attempt,
                ),
            )

    def rows(self) -> list[tuple[Any, ...]]:
        return self.db.execute("SELECT * FROM games ORDER BY shard, game").fetchall()

    def close(self) -> None:
        self.db.close()


@dataclass
class Drive:
    """What the driver saw: each game once, in arrival order, and when each shard ended."""

    games: list[GameDone]
    shard_seconds: dict[int, float]
    """From the shard's submission to its stream's end, as the driver saw it."""


def drive(
    shards: Sequence[Shard],
    on_game: Callable[[GameDone], None],
    *,
    task: Any,
    max_in_flight: int = 4,
    options: dict[str, Any] | None = None,
    timeout_s: float = 300.0,
) -> Drive:
    """Submit the shards (at most ``max_in_flight`` at once) as ``task`` (see
    :func:`remote_shard_games`) and hand every game to ``on_game`` as it arrives: the loop
    the tournament's driver will run. ``timeout_s`` only guards against a hang."""
    import ray

    waiting = collections.deque(shards)
    streams: dict[Any, tuple[int, float]] = {}
    games: list[GameDone] = []
    ended: dict[int, float] = {}
    deadline = time.monotonic() + timeout_s
    while waiting or streams:
        while waiting and len(streams) < max_in_flight:
            shard = waiting.popleft()
            stream = task.options(**(options or {})).remote(shard)
            streams[stream] = (shard.index, time.perf_counter())
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"shards still running: {sorted(i for i, _ in streams.values())}")
        ready, _ = ray.wait(list(streams), num_returns=1, timeout=left)
        for stream in ready:
            try:
                ref = next(stream)
            except StopIteration:
                index, submitted = streams.pop(stream)
                ended[index] = time.perf_counter() - submitted
                continue
            done: GameDone = ray.get(ref)  # a shard out of retries raises here
            games.append(done)
            on_game(done)
    return Drive(games, ended)


def children_then_wait(hold: str) -> Iterator[dict[str, int]]:
    """Test task: start two long sleeps, one in the worker's process group and one in a
    session of its own (as :func:`arena.processes.launch` starts bots), yield their pids and
    the worker's, then wait until ``hold`` exists (it never does: the worker is killed)."""
    import signal

    plain = subprocess.Popen(["sleep", "300"])
    session = subprocess.Popen(["sleep", "300"], start_new_session=True)
    yield {
        "worker": os.getpid(),
        "plain": plain.pid,
        "session": session.pid,
        "worker_pgid": os.getpgid(0),
        "sigterm_is_default": int(signal.getsignal(signal.SIGTERM) is signal.SIG_DFL),
    }
    while not os.path.exists(hold):
        time.sleep(0.05)
