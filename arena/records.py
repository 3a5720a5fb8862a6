"""Game records of the arena's tables: built when a table ends, compressed, read back.

The format is the engine's (:mod:`chaodipi.engine.record`, ``docs/game-record.md``): the engine
makes the lines from the match; the arena adds what only it knows (the bots' names, the date,
how the table ended, each decision's clock and the bots' notes, which the table keeps in
:attr:`chaodipi.arena.serving.table.TableResult.decisions`).

A record travels and rests compressed (:func:`pack`: zlib of its JSON lines, a tenth of the
text): in a :class:`chaodipi.arena.tournament.backend.GameResult`, in the results database's
``records`` table, or as a ``.jsonl`` file (:func:`write_file`, uncompressed, for people).

A record read from a file or a database may be anyone's: :func:`read_file` and :func:`unpack`
read at most :data:`MAX_RECORD_BYTES` of it (decompressed a block at a time, so a zlib bomb is
refused unread), and :func:`check_lines` checks every line against the record's JSON Schema
(``engine/record.schema.json``) before anything shows it.

>>> lines = [{"type": "header", "format": "chaodipi-record/1"}]
>>> unpack(pack(lines)) == lines
True
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from chaodipi.arena.errors import UsageError
from chaodipi.arena.files import write_private
from chaodipi.arena.serving.table import Table
from chaodipi.engine.errors import ReplayError
from chaodipi.engine.record import (
    Decision,
    GameEnd,
    dump_lines,
    load_lines,
    record_lines,
    record_schema,
)

__all__ = [
    "MAX_RECORD_BYTES",
    "check_lines",
    "now",
    "pack",
    "read_file",
    "table_record",
    "unpack",
    "write_file",
    "write_packed",
]

MAX_RECORD_BYTES = 64 << 20
"""The most text a record may hold (a whole classic match is well under a MiB): a larger file,
or a stored record that decompresses to more, is refused."""

_TOO_LARGE = f"larger than {MAX_RECORD_BYTES >> 20} MiB"

Line = dict[str, Any]


def now() -> str:
    """The time now as a record's ``date``: ISO 8601 in UTC, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


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
    end = GameEnd(
        ending=result.ending,
        reason=result.reason,
        winner=result.winner,
        forfeited_by=result.forfeited_by,
        reward=result.reward,
    )
    decisions: tuple[Decision, ...] | None = result.decisions
    if len(result.decisions) != len(table.match.actions):  # the table failed mid-action
        decisions = None  # the record then says nothing of the clock, rather than a wrong thing
    return list(record_lines(table.match, decisions, bots=names, end=end, date=now(), about=header))


def pack(lines: Sequence[Line]) -> bytes:
    """A record as stored: its JSON lines, zlib-compressed."""
    return zlib.compress(dump_lines(lines).encode("utf-8"), 6)


def unpack(blob: bytes) -> list[Line]:
    """A stored record's lines; :class:`ReplayError` if it is not one (or decompresses to more
    than :data:`MAX_RECORD_BYTES`)."""
    if not isinstance(blob, bytes):
        raise ReplayError(f"a stored record of type {type(blob).__name__}, not compressed bytes")
    stream = zlib.decompressobj()
    try:
        data = stream.decompress(blob, MAX_RECORD_BYTES + 1)
    except zlib.error as err:
        raise ReplayError(f"a stored record that does not decompress: {err}") from None
    if len(data) > MAX_RECORD_BYTES:
        raise ReplayError(f"a stored record {_TOO_LARGE} once decompressed")
    if not stream.eof:
        raise ReplayError("a stored record that does not decompress: its zlib stream is cut")
    try:
        return load_lines(data.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise ReplayError(f"a stored record that is not UTF-8: {err}") from None


@cache
def _validators() -> dict[str, Any]:
    """A validator of the record's schema for each line type (the schema's ``oneOf``, one
    branch per type: checked against its own branch, a line's error is named exactly)."""
    import jsonschema  # the arena extra's: imported when a record is read

    schema = record_schema()
    validators: dict[str, Any] = {}
    for branch in schema["oneOf"]:
        name = branch["$ref"].rsplit("/", 1)[1]
        kind = schema["$defs"][name]["properties"]["type"]["const"]
        one = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": branch["$ref"]}
        validators[kind] = jsonschema.Draft202012Validator(one)
    return validators


def check_lines(lines: Sequence[Line]) -> None:
    """Check each line against the record's JSON Schema; :class:`ReplayError` names the first
    line that does not meet it, and how."""
    from jsonschema.exceptions import best_match

    validators = _validators()
    for number, line in enumerate(lines, start=1):
        validator = validators.get(line["type"])
        if validator is None:
            raise ReplayError(f"line {number}: no record line has type {line['type']!r}")
        error = best_match(validator.iter_errors(line))
        if error is not None:
            where = "" if not error.path else f" at {error.json_path[2:]}"
            raise ReplayError(f"line {number} ({line['type']}){where}: {error.message}")


def write_file(path: Path, lines: Sequence[Line]) -> None:
    """Write a record as a ``.jsonl`` file a person (or ``arena show``) can open, readable by
    its owner only (:func:`chaodipi.arena.files.write_private`: it holds whole deals and the
    bots' notes)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    write_private(path, dump_lines(lines), replace=True)


def write_packed(path: Path, blob: bytes) -> None:
    """Write a stored (compressed) record as its ``.jsonl`` file, as it was made (owner
    only, as :func:`write_file`)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    write_private(path, zlib.decompress(blob), replace=True)


def read_file(path: Path) -> list[Line]:
    """A record file's lines (plain ``.jsonl``, or zlib as the database keeps them), each
    checked (:func:`check_lines`); a :class:`UsageError` names the file and what is wrong with
    it."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_RECORD_BYTES + 1)
    except OSError as err:
        raise UsageError(f"cannot read the record {path}: {err.strerror}") from None
    try:
        if data[:1] == b"x":  # zlib's header byte: a record as the database stores it
            lines = unpack(data)
        elif len(data) > MAX_RECORD_BYTES:
            raise ReplayError(_TOO_LARGE)
        else:
            lines = load_lines(data.decode("utf-8"))
        check_lines(lines)
    except (ReplayError, UnicodeDecodeError) as err:
        raise UsageError(f"{path} is not a game record: {err}") from None
    return lines
