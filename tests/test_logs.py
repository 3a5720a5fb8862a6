"""The arena's log lines (arena/logs.py): a standing ladder's terminal at info holds the
ladder's own lines and every warning, not each table's and session's info lines."""

from __future__ import annotations

import json
from typing import Any

import pytest

from chaodipi.arena.logs import configure_logging, get_logger


def _lines(capsys: Any) -> list[tuple[str, str]]:
    return [
        (line["event"], line["level"])
        for line in map(json.loads, capsys.readouterr().err.splitlines())
    ]


def _log_a_pair() -> None:
    get_logger(table="t1", seat=2).info("seat_connected")
    get_logger(session="alice@1#1").info("session_entered")
    get_logger(table="t1", seat=2).warning("seat_struck")
    get_logger(pair=7).info("pair_over")


@pytest.mark.parametrize(
    ("level", "tables_at_info", "seen"),
    [
        ("info", False, [("seat_struck", "warning"), ("pair_over", "info")]),
        (
            "debug",
            False,
            [
                ("seat_connected", "info"),
                ("session_entered", "info"),
                ("seat_struck", "warning"),
                ("pair_over", "info"),
            ],
        ),
        (
            "info",
            True,
            [
                ("seat_connected", "info"),
                ("session_entered", "info"),
                ("seat_struck", "warning"),
                ("pair_over", "info"),
            ],
        ),
    ],
)
def test_tables_info_lines_are_kept_out_only_where_asked(
    capsys: Any, level: str, tables_at_info: bool, seen: list[tuple[str, str]]
) -> None:
    configure_logging(level, json=True, tables_at_info=tables_at_info)
    _log_a_pair()
    assert _lines(capsys) == seen
