"""The game record of a table whose match has ended: the engine's lines (made by
:mod:`chaodipi.records`), with what only the table knows: the bots' names, the date, how the
table ended, each turn's clock and the bots' notes
(:attr:`chaodipi.arena.serving.table.TableResult.turns`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chaodipi.arena.serving.table import Table
from chaodipi.records import Line, Turn, now, record_lines

__all__ = ["table_record"]


def table_record(
    table: Table, *, bots: Sequence[str] | None = None, about: Mapping[str, Any] | None = None
) -> list[Line]:
    """The record of a table whose match has ended: ``bots`` names each seat's bot (default:
    the names the bots gave in their Hello); ``about``: more header fields (``game``,
    ``deal``). The table's name and clock are added."""
    result = table.result
    if result is None:
        raise ValueError(f"table {table.name} has not ended: it has no record yet")
    config = table.config
    names = list(bots) if bots is not None else [seat.stats.name for seat in table.seats]
    header: dict[str, Any] = {
        "table": table.name,
        "clock": {
            "decision_ms": config.decision_ms,
            "bank_ms": config.bank_ms,
            "max_strikes": config.max_strikes,
        },
    }
    header.update(about or {})
    turns: tuple[Turn, ...] | None = result.turns
    if len(result.turns) != len(table.match.actions):  # the table failed mid-action
        turns = None  # the record then says nothing of the clock, rather than a wrong thing
    lines = record_lines(
        table.match, turns, bots=names, outcome=result.outcome, date=now(), about=header
    )
    return list(lines)
