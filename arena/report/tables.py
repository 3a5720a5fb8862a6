"""The report as CSV: one tidy file per table, ``standings.csv`` (a row per bot),
``pairings.csv`` (a row per pairing) and ``games.csv`` (a row per stored game, led by its
number ``id`` and name ``game`` as ``arena games`` lists them), each with one header row, so
that ``pandas.read_csv`` or a spreadsheet loads it as it is.

Cells are plain: a boolean is ``0`` or ``1``, a number that is infinite or undefined is an
empty cell (with a flag column saying why, as in ``--json``: ``unbounded``,
``elo_unbounded``), and the pentanomial counts are five columns, ``ptnml_0`` (LL) to
``ptnml_4`` (WW). A text cell a spreadsheet would take for a formula (beginning with ``=``,
``+``, ``-``, ``@``, a tab or a carriage return: a database may be anyone's, and a bot's name
may begin with ``+`` or ``-``) begins with ``'`` instead, which spreadsheets show as text
(OWASP's "CSV injection"); numbers, negative ones too, stay numbers. The files are written as
every file the arena writes (:mod:`chaodipi.arena.files`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from chaodipi.arena.files import make_private_folder, write_private
from chaodipi.arena.report.summary import BotLine, PairLine, Report
from chaodipi.arena.results import GameRow, game_label

__all__ = [
    "FORMULA_STARTS",
    "GAME_COLUMNS",
    "PAIR_COLUMNS",
    "STANDING_COLUMNS",
    "csv_cell",
    "write_csv",
    "write_table",
]

STANDING_COLUMNS = ["rank", *BotLine.__dataclass_fields__, "unbounded", "unbounded_side"]
PAIR_COLUMNS = [
    *(f for f in PairLine.__dataclass_fields__ if f != "pentanomial"),
    *(f"ptnml_{i}" for i in range(5)),
    "elo_unbounded",
    "elo_games_unbounded",
]
GAME_COLUMNS = ["id", "game", "bot_a", "bot_b", "deal", "swapped"] + [
    f.name for f in fields(GameRow) if f.name not in ("key", "id")
]


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What a text cell a spreadsheet runs as a formula begins with (OWASP, "CSV injection")."""


def csv_cell(value: Any) -> Any:
    """A value as a tidy cell: booleans 0/1, None (and so inf, NaN: ``as_dict`` made them
    None) empty, a text a spreadsheet would run as a formula led by ``'``.

    >>> [csv_cell(v) for v in (True, False, None, 2.5, -12.5, "x")]
    [1, 0, '', 2.5, -12.5, 'x']
    >>> print(*(csv_cell(v) for v in ('=HYPERLINK("h")', "-x", "@x")))
    '=HYPERLINK("h") '-x '@x
    """
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return "" if value is None else value


def _standings(report: Report) -> Iterable[dict[str, Any]]:
    for rank, bot in enumerate(report.bots, start=1):
        yield {"rank": rank, **bot.as_dict()}


def _pairings(report: Report) -> Iterable[dict[str, Any]]:
    for pair in report.pairs:
        line = pair.as_dict()
        counts = line.pop("pentanomial")
        yield {**line, **{f"ptnml_{i}": n for i, n in enumerate(counts)}}


def _games(rows: Sequence[GameRow]) -> Iterable[dict[str, Any]]:
    """The games by number, as ``arena games`` lists them."""
    for row in sorted(rows, key=lambda r: r.id or 0):
        key = row.key
        yield {
            "game": game_label(key),
            "bot_a": key.bot_a,
            "bot_b": key.bot_b,
            "deal": key.deal,
            "swapped": key.swapped,
            **{f.name: getattr(row, f.name) for f in fields(GameRow) if f.name != "key"},
        }


def write_table(path: Path, columns: list[str], lines: Iterable[dict[str, Any]]) -> Path:
    """Write ``lines`` as a CSV file with a header of ``columns``, each cell as :func:`csv_cell`
    makes it, readable by its owner only (written privately and renamed into place)."""
    text = io.StringIO(newline="")
    writer = csv.writer(text)
    writer.writerow(columns)
    for line in lines:
        writer.writerow([csv_cell(line[c]) for c in columns])
    write_private(path, text.getvalue(), replace=True)
    return path


def write_csv(report: Report, rows: Sequence[GameRow], folder: Path) -> list[Path]:
    """Write ``standings.csv``, ``pairings.csv`` and ``games.csv`` (every one of ``rows``,
    void games too, with their ``void`` reason) into ``folder`` (made if new); the paths."""
    make_private_folder(folder)
    return [
        write_table(folder / "standings.csv", STANDING_COLUMNS, _standings(report)),
        write_table(folder / "pairings.csv", PAIR_COLUMNS, _pairings(report)),
        write_table(folder / "games.csv", GAME_COLUMNS, _games(rows)),
    ]
