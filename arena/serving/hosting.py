"""Hosting tables: the void rule, applied here only, and ``arena serve``'s tables from open to
release.

The void rule: a table whose seats are not all taken within its ``connect_timeout_s`` is void
(:func:`void_unseated`: :meth:`Table.void` with the seats never taken, so no result). Only that
voids a table: a seat taken was sent its hand, and from then on what its bot does counts. Both
``arena serve`` (:func:`host_tables`) and ``arena run``'s games
(:mod:`chaodipi.arena.tournament.local`) void by it.

:func:`host_tables` opens a server, starts its tables, lets each begin once its four seats are
taken (or voids it), and releases each table as it ends, after telling the caller (who writes
its game record); SIGINT and SIGTERM stop every table, which still reports its result.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import anyio

from chaodipi.arena.serving.server import ArenaServer, open_server
from chaodipi.arena.serving.table import Table, TableConfig, TableResult, Void
from chaodipi.arena.signals import stop_on_signals

__all__ = ["host_tables", "seats_text", "void_unseated"]


def seats_text(seats: Sequence[int]) -> str:
    """``seat 3``, or ``seats 0, 2``.

    >>> seats_text([3]), seats_text([0, 2])
    ('seat 3', 'seats 0, 2')
    """
    if len(seats) == 1:
        return f"seat {seats[0]}"
    return f"seats {', '.join(map(str, seats))}"


async def void_unseated(
    table: Table, timeout_s: float, *, who: Callable[[Sequence[int]], str] = seats_text
) -> Void | None:
    """The void rule: wait up to ``timeout_s`` seconds for every seat of ``table`` to be taken;
    if one is not, the table is void with the seats never taken (``who(seats)`` names them in
    the reason: ``seat 3 did not connect within 60 s``). The :class:`Void` the table got, or
    None: every seat was taken, or the table had ended (or was ending) for another reason."""
    never = await table.wait_seated(timeout_s)
    if not never:
        return None
    return table.void(never, f"{who(never)} did not connect within {timeout_s:g} s")


async def host_tables(
    address: str,
    configs: Sequence[TableConfig],
    *,
    tls: tuple[bytes, bytes] | None,
    spectator_token: str | None,
    announce: Callable[[ArenaServer, list[Table]], None],
    ended: Callable[[Table], None],
    stopping: Callable[[], None],
) -> list[TableResult]:
    """Serve a table of each of ``configs`` at ``address`` until every one has ended; their
    results, in order. ``announce(server, tables)`` once the server listens and the tables are
    open, before any may begin (it hands out the tickets); ``ended(table)`` as each ends,
    before it is released; ``stopping()`` at SIGINT or SIGTERM, before every table stops."""
    cert, key = tls if tls is not None else (None, None)
    async with open_server(
        address,
        plaintext=tls is None,
        tls_cert=cert,
        tls_key=key,
        spectator_token=spectator_token,
    ) as server:
        starts = [anyio.Event() for _ in configs]
        tables = [server.start_table(c, start=e) for c, e in zip(configs, starts, strict=True)]
        results: list[TableResult | None] = [None] * len(tables)
        async with anyio.create_task_group() as nursery:
            # Ctrl-C and SIGTERM stop the tables cleanly from before anyone is told the
            # server is ready (the tickets), never killing it half-announced
            stop = functools.partial(_stop_tables, tables, stopping)
            await nursery.start(stop_on_signals, stop)
            announce(server, tables)
            for table, start in zip(tables, starts, strict=True):
                nursery.start_soon(_start_when_seated, table, start)
            async with anyio.create_task_group() as waiting:
                for i, table in enumerate(tables):
                    waiting.start_soon(_wait_and_release, server, table, results, i, ended)
            nursery.cancel_scope.cancel()
        return [r for r in results if r is not None]


async def _start_when_seated(table: Table, start: anyio.Event) -> None:
    """Let the table begin once its four seats are taken, or void it (:func:`void_unseated`)
    when one is not within its ``connect_timeout_s``. (A seat that was taken and dropped may
    still come back: its clock runs.)"""
    if await void_unseated(table, table.config.connect_timeout_s) is None:
        start.set()  # (or the table is already ending: it never begins)


def _stop_tables(tables: list[Table], stopping: Callable[[], None]) -> None:
    stopping()
    for table in tables:
        table.stop("the server was stopped")


async def _wait_and_release(
    server: ArenaServer,
    table: Table,
    results: list[TableResult | None],
    index: int,
    ended: Callable[[Table], None],
) -> None:
    """Keep a table's result once it ends, tell the caller, then release it."""
    results[index] = await server.wait(table)
    ended(table)
    server.release(table)
