"""Does a long-running server keep its memory flat? Play many short games on one server.

``python3 benchmarks/memory_soak.py [--games 2000] [--hands 1] [--concurrency 4]``

One server (as ``arena serve`` and the tournament runner use it: ``tune_garbage_collector``,
then ``open_server``) plays GAMES games of HANDS hands, CONCURRENCY at a time, each table
released once it ends (``ArenaServer.release``). The bots are in-process threads that answer
each Decision at once over real gRPC, each keeping one channel for all its games, so what grows
is the server's. Every 200 games it prints the process's resident memory (``VmRSS`` from
``/proc/self/status``) and how many Table objects are still alive: flat RSS and a live count
that stays at most CONCURRENCY mean released tables leave nothing behind.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import queue
import sys
import threading
import time
import weakref
from collections.abc import Iterator
from pathlib import Path

import anyio
import grpc

from chaodipi.arena.serving import (
    SERVICE_NAME,
    ArenaServer,
    Table,
    TableConfig,
    open_server,
    tune_garbage_collector,
)
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import convert
from chaodipi.engine import PRESETS

REPORT_EVERY = 200


def rss_mb() -> float:
    """The process's resident set size in MB (Linux: ``VmRSS`` in ``/proc/self/status``)."""
    for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status (this script needs Linux)")


def _requests(outgoing: queue.Queue[pb.PlayRequest | None]) -> Iterator[pb.PlayRequest]:
    while (message := outgoing.get()) is not None:
        yield message


def play_seat(channel: grpc.Channel, ticket: str) -> None:
    """One seat's game: Hello, then the first legal move for every Decision, at once."""
    call = channel.stream_stream(
        f"/{SERVICE_NAME}/Play",
        request_serializer=pb.PlayRequest.SerializeToString,
        response_deserializer=pb.PlayResponse.FromString,
    )
    outgoing: queue.Queue[pb.PlayRequest | None] = queue.Queue()
    outgoing.put(convert.hello(ticket, "soak"))
    try:
        for message in call(_requests(outgoing)):
            if message.HasField("decision"):
                decision = message.decision
                action = convert.legal_from_message(decision.legal).default()
                outgoing.put(convert.answer(decision.decision_id, action))
            elif message.HasField("match_over"):
                return
    finally:
        outgoing.put(None)


def bot_worker(address: str, tickets: queue.Queue[str | None]) -> None:
    """A bot thread: one channel, one seat after another until told to stop."""
    with grpc.insecure_channel(address) as channel:
        while (ticket := tickets.get()) is not None:
            play_seat(channel, ticket)


async def play_game(
    server: ArenaServer,
    config: TableConfig,
    tickets: queue.Queue[str | None],
    alive: weakref.WeakSet[Table],
    release: bool,
) -> None:
    table = server.start_table(config)
    alive.add(table)
    for seat in range(4):
        tickets.put(table.ticket(seat))
    result = await server.wait(table)
    if result.outcome.reason != "played to the end":
        raise RuntimeError(f"{result.table}: {result.outcome.reason}")
    if release:
        server.release(table)


def _report(games: int, alive: weakref.WeakSet[Table], elapsed: float) -> None:
    """One line, after a full garbage collection (the server collects rarely, see
    ``tune_garbage_collector``, so without it the figures would swing with uncollected
    garbage): games so far, RSS, Python's allocated blocks (these grow if Python objects
    leak; RSS also holds the C allocator's and grpc's own memory), tables still alive,
    seconds."""
    gc.collect()
    print(
        f"{games:>6} {rss_mb():>8.1f} {sys.getallocatedblocks():>13,} {len(alive):>11} "
        f"{elapsed:>8.1f}",
        flush=True,
    )


async def soak(games: int, hands: int, concurrency: int, release: bool) -> None:
    tune_garbage_collector()
    alive: weakref.WeakSet[Table] = weakref.WeakSet()
    tickets: queue.Queue[str | None] = queue.Queue()
    config = TableConfig(PRESETS["classic"], max_hands=hands, decision_ms=10_000)
    async with open_server("127.0.0.1:0") as server:
        workers = [
            threading.Thread(target=bot_worker, args=(server.address, tickets), daemon=True)
            for _ in range(4 * concurrency)
        ]
        for worker in workers:
            worker.start()
        limiter = anyio.Semaphore(concurrency)
        started = time.perf_counter()
        done = 0
        print(
            f"{'games':>6} {'RSS MB':>8} {'Python blocks':>13} {'live tables':>11} {'seconds':>8}",
            flush=True,
        )
        _report(0, alive, 0.0)

        async def one(i: int) -> None:
            nonlocal done
            try:
                await play_game(
                    server, dataclasses.replace(config, seed=i), tickets, alive, release
                )
            finally:
                limiter.release()
            done += 1
            if done % REPORT_EVERY == 0:
                _report(done, alive, time.perf_counter() - started)

        async with anyio.create_task_group() as nursery:
            for i in range(games):
                await limiter.acquire()
                nursery.start_soon(one, i)
        for _ in workers:
            tickets.put(None)
        for worker in workers:
            await anyio.to_thread.run_sync(worker.join, 10.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games to play (default 2000)")
    parser.add_argument("--hands", type=int, default=1, help="hands per game (default 1)")
    parser.add_argument("--concurrency", type=int, default=4, help="tables at a time (default 4)")
    parser.add_argument(
        "--keep",
        action="store_true",
        help="never release a table (what the server did before ArenaServer.release): the "
        "growth to compare with",
    )
    args = parser.parse_args()
    anyio.run(soak, args.games, args.hands, args.concurrency, not args.keep, backend="asyncio")


if __name__ == "__main__":
    main()
