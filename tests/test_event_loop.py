"""One event loop per server process (docs/architecture.md "One event loop"): the gRPC
handlers and the tables on one thread, the server refused on any loop but asyncio's, the
Ray shard's loop driven by its generator, and a results file whose commits never wait for
the disk."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
import trio

from chaodipi.arena.results.database import ResultsDB
from chaodipi.arena.serving import servicer
from chaodipi.arena.serving.server import open_server
from chaodipi.arena.serving.table import Table
from chaodipi.arena.tournament.ray_shard import loop_items

from .server_support import config, run_tables


def test_the_grpc_handlers_and_the_tables_run_on_one_thread(monkeypatch: Any) -> None:
    """A whole match over gRPC: every stream's writer (the gRPC side) and every Decision the
    tables send run on the test's own thread; nothing crosses to another one."""
    seen: dict[str, set[int]] = {"grpc": set(), "table": set()}
    write = servicer._Servicer._write

    async def recorded_write(self: Any, context: Any, connection: Any) -> None:
        seen["grpc"].add(threading.get_ident())
        await write(self, context, connection)

    send_decision = Table._send_decision

    def recorded_send(self: Table) -> None:
        seen["table"].add(threading.get_ident())
        send_decision(self)

    monkeypatch.setattr(servicer._Servicer, "_write", recorded_write)
    monkeypatch.setattr(Table, "_send_decision", recorded_send)
    results, _ = run_tables([config()])
    assert results[0].outcome.reason == "played to the end"
    assert seen["grpc"] == seen["table"] == {threading.get_ident()}


def test_the_server_on_trio_is_refused_with_the_way_to_run_it() -> None:
    async def main() -> None:
        async with open_server("127.0.0.1:0"):
            raise AssertionError("the server started on trio")

    with pytest.raises(RuntimeError, match=r'anyio\.run\(main, backend="asyncio"\)'):
        trio.run(main)


def test_the_shard_loop_yields_each_result_as_it_is_emitted() -> None:
    async def play(emit: Callable[[int], None]) -> None:
        for n in range(3):
            await anyio.sleep(0)
            emit(n)
            emit(n * 10)

    assert list(loop_items(play)) == [0, 0, 1, 10, 2, 20]


def test_closing_the_shard_early_cancels_its_run_to_the_end() -> None:
    """Ray stops reading a shard (the driver has what it needs): closing the generator
    cancels the run, whose cleanup (bot processes killed, in a real shard) runs before
    close() returns."""
    cleaned: list[str] = []

    async def play(emit: Callable[[int], None]) -> None:
        try:
            for n in range(1000):
                emit(n)
                await anyio.sleep(0)
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.sleep(0)
                cleaned.append("cleaned")

    items = loop_items(play)
    assert next(items) == 0
    items.close()
    assert cleaned == ["cleaned"]


def test_a_failing_shard_run_raises_from_the_generator() -> None:
    async def play(emit: Callable[[int], None]) -> None:
        emit(1)
        await anyio.sleep(0)
        raise ValueError("the shard broke")

    items = loop_items(play)
    assert next(items) == 1
    with pytest.raises(ValueError, match="the shard broke"):
        next(items)


def test_the_results_database_commits_without_stalling_the_loop(tmp_path: Path) -> None:
    """The tables share one loop with the run's bookkeeping, so storing a game must not wait
    for the disk: the results file is in WAL mode with synchronous=NORMAL (a commit makes no
    fsync), and a reader (arena report) reads it while the run holds it open."""
    path = tmp_path / "results.db"
    db = ResultsDB(path)
    try:
        db.claim("fingerprint", resume=False)
        assert db.db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert db.db.execute("PRAGMA synchronous").fetchone() == (1,)  # NORMAL
        reader = ResultsDB(path, read_only=True)
        assert reader.count() == 0
        reader.close()
    finally:
        db.close()
