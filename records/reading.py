"""Reading and writing a record: its text (JSON lines), packed (zlib) as it is stored, and
checked against its JSON Schema.

A record travels and rests compressed (:func:`pack`: zlib of its JSON lines, a tenth of the
text): in a tournament's game result, in the results database's ``records`` table, or as a
``.jsonl`` file (uncompressed, for people: the arena writes it, ``chaodipi.arena.files``).

A record read from a file or a database may be anyone's: :func:`read_file` and :func:`unpack`
read at most :data:`MAX_RECORD_BYTES` of it (decompressed a block at a time, so a zlib bomb is
refused unread), and :func:`check_lines` checks every line against the record's JSON Schema
(:func:`chaodipi.records.lines.record_schema`) before anything shows it. A bad record is a
:class:`chaodipi.engine.ReplayError` that says in one line what is wrong.

>>> lines = [{"type": "header", "format": "chaodipi-record/1"}]
>>> unpack(pack(lines)) == lines
True
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, cast

from chaodipi.engine import ReplayError
from chaodipi.records.lines import RECORD_FORMAT, Line, record_schema

__all__ = [
    "MAX_RECORD_BYTES",
    "check_lines",
    "dump_lines",
    "hands_in",
    "load_lines",
    "pack",
    "read_file",
    "unpack",
]

MAX_RECORD_BYTES = 64 << 20
"""The most text a record may hold (a whole classic match is well under a MiB): a larger file,
or a stored record that decompresses to more, is refused."""

_TOO_LARGE = f"larger than {MAX_RECORD_BYTES >> 20} MiB"

JSON_SPACE = " \t\r"
"""The whitespace JSON allows around a value on a line (a line of nothing else is skipped)."""


def dump_lines(lines: Iterable[Mapping[str, Any]]) -> str:
    """Lines as the record's text: one compact JSON object per line, UTF-8 kept."""
    return "".join(
        json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines
    )


def load_lines(text: str) -> list[Line]:
    """A record's text back into its lines; :class:`ReplayError` names the first bad line.
    Each is an object with a ``type``, the first the header of this format; the rest of
    each line is as the text has it until :func:`check_lines` checks it.

    Lines end at ``\\n`` alone: a note or a name may hold U+2028, U+0085 or another character
    ``str.splitlines`` would break at, which JSON writes as it is inside a string.

    >>> header = {"type": "header", "format": RECORD_FORMAT, "note": "a\\u2028b\\x85"}
    >>> load_lines(dump_lines([header])) == [header]
    True
    """
    lines: list[dict[str, Any]] = []
    for number, row in enumerate(text.split("\n"), start=1):
        if not row.strip(JSON_SPACE):
            continue
        try:
            line = json.loads(row)
        except RecursionError:
            raise ReplayError(f"line {number} is not JSON: nested too deep") from None
        except ValueError as err:  # not JSON, or a number of more digits than int() reads
            raise ReplayError(f"line {number} is not JSON: {err}") from None
        if not isinstance(line, dict) or not isinstance(line.get("type"), str):
            raise ReplayError(f"line {number} is not a record line (an object with a type)")
        lines.append(line)
    if not lines or lines[0]["type"] != "header":
        raise ReplayError("a record starts with its header line")
    if lines[0].get("format") != RECORD_FORMAT:
        raise ReplayError(
            f"not a {RECORD_FORMAT} record (its format is {lines[0].get('format')!r})"
        )
    return cast(list[Line], lines)


def pack(lines: Sequence[Mapping[str, Any]]) -> bytes:
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
    import jsonschema  # the arena extra's: imported when a record is checked

    schema = record_schema()
    validators: dict[str, Any] = {}
    for branch in schema["oneOf"]:
        name = branch["$ref"].rsplit("/", 1)[1]
        kind = schema["$defs"][name]["properties"]["type"]["const"]
        one = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": branch["$ref"]}
        validators[kind] = jsonschema.Draft202012Validator(one)
    return validators


def check_lines(lines: Sequence[Mapping[str, Any]]) -> None:
    """Check each line against the record's JSON Schema (needs ``jsonschema``, of the arena
    extra); :class:`ReplayError` names the first line that does not meet it, and how."""
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


def hands_in(lines: Sequence[Line]) -> tuple[int, int]:
    """How many hands a record holds: those begun (a ``hand`` line each) and those finished
    (its header's ``result.hands``; 0 for a live record, whose header has no result).

    >>> hands_in([{"type": "header", "format": RECORD_FORMAT, "table": "t1"}])
    (0, 0)
    """
    header = lines[0]
    finished = 0
    if header["type"] == "header" and "result" in header:
        finished = header["result"]["hands"]
    return sum(1 for line in lines if line["type"] == "hand"), finished


def read_file(path: Path) -> list[Line]:
    """A record file's lines (plain ``.jsonl``, or zlib as the database keeps them), each
    checked (:func:`check_lines`); a :class:`ReplayError` names the file and what is wrong
    with it."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_RECORD_BYTES + 1)
    except OSError as err:
        raise ReplayError(f"cannot read the record {path}: {err.strerror}") from None
    try:
        if data[:1] == b"x":  # zlib's header byte: a record as the database stores it
            lines = unpack(data)
        elif len(data) > MAX_RECORD_BYTES:
            raise ReplayError(_TOO_LARGE)
        else:
            lines = load_lines(data.decode("utf-8"))
        check_lines(lines)
    except (ReplayError, UnicodeDecodeError) as err:
        raise ReplayError(f"{path} is not a game record: {err}") from None
    return lines
