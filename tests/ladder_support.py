"""Helpers of the ladder's tests: a ladder config in a folder, a ladder run in-process until a
condition on its database holds (waiting for its events, never for a length of time), and a
resident bot's processes (threads here, each its own SDK session)."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from chaodipi.arena.ladder import (
    Ladder,
    LadderConfig,
    RayTables,
    Store,
    database_url,
    parse_ladder,
)
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.bot import run_bot

RANDOM_BOT = "python3 -m chaodipi.sample_bots.random_bot"
HOSTED_TIMEOUT_S = 240.0
"""How long a test's ladder may take at most (a guard against a hang, not a wait)."""


def ladder_config(folder: Path, **keys: Any) -> LadderConfig:
    """A quick ladder in ``folder``: one-hand games, no pages unless asked, every free port."""
    data: dict[str, Any] = {
        "name": "test ladder",
        "address": "127.0.0.1:0",
        "web": "",
        "hands": 1,
        "concurrency": 2,
        "connect_timeout": 20,
        "refit_minutes": 0.2,
    }
    data.update(keys)
    return parse_ladder(data, folder)


@dataclass
class Running:
    """A ladder running in this process (:func:`run_ladder`)."""

    ladder: Ladder
    store: Store
    address: str = ""
    web: str = ""


def run_ladder(
    config: LadderConfig,
    until: Callable[[Store], bool],
    *,
    on_ready: Callable[[Running], Any] | None = None,
    store: Store | None = None,
    ray: RayTables | None = None,
) -> Running:
    """Run a ladder until ``until(store)`` holds after one of its events (a pair or game over,
    a version's state changed), then stop it. ``on_ready(running)`` once it listens (in the
    ladder's loop: start resident bots there, in threads)."""
    store = store or Store.open(database_url(config.storage, config.folder))
    log_dir = config.folder / "logs"
    ladder = Ladder(config, store, log_dir, operator_digest=None, ray=ray)
    running = Running(ladder, store)

    async def main() -> None:
        ready = anyio.Event()

        def listening(address: str, web: str) -> None:
            running.address, running.web = address, web
            ready.set()

        ladder.on_ready = listening
        with anyio.fail_after(HOSTED_TIMEOUT_S):
            async with anyio.create_task_group() as nursery:
                nursery.start_soon(ladder.run)
                await ready.wait()
                if on_ready is not None:
                    result = on_ready(running)
                    if hasattr(result, "__await__"):
                        await result
                while True:
                    seen = ladder.live.changes
                    if await anyio.to_thread.run_sync(until, store):
                        break
                    if ladder.live.changes == seen:  # nothing new since: wait for the next
                        async with ladder.live.subscribe() as events:
                            if ladder.live.changes == seen:
                                await events.receive()
                nursery.cancel_scope.cancel()

    anyio.run(main, backend="asyncio")
    return running


class Resident:
    """A resident bot's ``processes`` sessions (threads with random play, each its own
    instance id), started at once; :meth:`join` once the ladder stopped."""

    def __init__(
        self,
        address: str,
        token: str,
        *,
        processes: int = 4,
        version: str = "v1",
        seed: int = 1,
        capacity: int = 2,
    ) -> None:
        self.results: list[object] = []
        self.capacity = capacity
        self.messages: list[list[pb.PlayResponse]] = [[] for _ in range(processes)]
        """What each session was sent, on all its seats' streams, in order."""
        self.threads = [
            threading.Thread(
                target=self._play, args=(address, token, version, seed * 100 + n, n), daemon=True
            )
            for n in range(processes)
        ]
        for thread in self.threads:
            thread.start()

    def _play(self, address: str, token: str, version: str, seed: int, n: int) -> None:
        rng = random.Random(seed)
        try:
            self.results.append(
                run_bot(
                    lambda view: view.legal.sample(rng),
                    address=address,
                    token=token,
                    name="resident",
                    bot_version=version,
                    exit_on_error=False,
                    capacity=self.capacity,
                    reconnects=1,
                    on_message=self.messages[n].append,
                )
            )
        except Exception as err:  # the ladder stopped under it: what a test may read
            self.results.append(err)

    def join(self) -> None:
        for thread in self.threads:
            thread.join(60)
