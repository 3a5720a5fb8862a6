"""What a results database holds, checked as it is read: a file may be anyone's (labs share
them), so nothing in it is taken on trust.

* **its tables** (:func:`check_tables`): ``meta`` and ``games`` must be there, and every name
  the arena reads (``meta``, ``games``, ``records``, ``runs``) must be an ordinary table, never
  a view (a recursive one would never end) nor a virtual table; no trigger (which runs on the
  arena's writes); and each table has the columns the arena reads with the type affinity it
  writes them with (more columns are fine).
* **its values** (:func:`game_values`, :func:`stored_config`, :func:`stored_sprt`,
  :func:`deal_key_text`): SQLite keeps any value in any column, so each game's row, each run's
  config and SPRT (JSON, read within bounds) and the deal key are checked before anything uses
  them; a bot's name, in a game or a config, passes the rule a config's does
  (:data:`~chaodipi.arena.results.rows.BOT_NAME`: it names files).

Each check raises :class:`NotResultsDatabase` with what is wrong; :class:`ResultsDB
<chaodipi.arena.results.database.ResultsDB>` names the file in its one line.
"""

from __future__ import annotations

import json
import math
import sqlite3
from typing import Any

from chaodipi.arena.deals import DealKey
from chaodipi.arena.errors import NotResultsDatabase
from chaodipi.arena.results.rows import BOT_NAME, BOT_NAME_RULE

__all__ = [
    "check_tables",
    "deal_key_text",
    "game_values",
    "loads",
    "stored_config",
    "stored_sprt",
]

MAX_NUMBER_DIGITS = 40
"""The most digits a number in a stored JSON text may have."""


TABLES: dict[str, dict[str, str]] = {
    "meta": {"key": "TEXT", "value": "TEXT"},
    "games": {
        "bot_a": "TEXT", "bot_b": "TEXT", "deal": "INTEGER", "swapped": "INTEGER",
        "score_a": "REAL", "hands": "INTEGER", "levels_a": "INTEGER", "levels_b": "INTEGER",
        "defended_a": "INTEGER", "points_a": "INTEGER", "defended_b": "INTEGER",
        "points_b": "INTEGER", "strikes_a": "INTEGER", "strikes_b": "INTEGER",
        "illegal_a": "INTEGER", "illegal_b": "INTEGER", "crashes_a": "INTEGER",
        "crashes_b": "INTEGER", "forfeit": "TEXT", "reason": "TEXT", "errors": "TEXT",
        "seconds": "REAL", "void": "TEXT", "id": "INTEGER", "fallbacks_a": "INTEGER",
        "fallbacks_b": "INTEGER",
    },
    "records": {
        "bot_a": "TEXT", "bot_b": "TEXT", "deal": "INTEGER", "swapped": "INTEGER",
        "record": "BLOB", "released": "INTEGER",
    },
    "runs": {"started_at": "TEXT", "resumed": "INTEGER", "config": "TEXT", "sprt": "TEXT"},
}  # fmt: skip
"""Each table the arena reads, and the columns it reads with their affinity."""

OLDER: dict[str, set[str]] = {"games": {"void", "deal", "id", "fallbacks_a", "fallbacks_b"}}
"""Columns a file an older arena wrote may lack (``void``, ``id``, the fallback counts;
``deal``, then called ``seed``): read as such, and added or renamed when a run resumes the
file."""


def affinity(declared: str) -> str:
    """SQLite's type affinity of a column declared ``declared`` (its rules, in order).

    >>> [affinity(t) for t in ("INTEGER", "VARCHAR(9)", "", "DOUBLE", "DECIMAL")]
    ['INTEGER', 'TEXT', 'BLOB', 'REAL', 'NUMERIC']
    """
    kind = declared.upper()
    if "INT" in kind:
        return "INTEGER"
    if any(word in kind for word in ("CHAR", "CLOB", "TEXT")):
        return "TEXT"
    if "BLOB" in kind or not kind:
        return "BLOB"
    if any(word in kind for word in ("REAL", "FLOA", "DOUB")):
        return "REAL"
    return "NUMERIC"


def check_tables(db: sqlite3.Connection) -> set[str]:
    """The arena's tables the file holds (none: a new, empty file); :class:`NotResultsDatabase` if
    it is not a results database."""
    entries = list(db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))
    if not entries:
        return set()
    for kind, name, _, sql in entries:
        if kind == "trigger":
            raise NotResultsDatabase(f"it holds a trigger, {name}, which no results database has")
        if name in TABLES and (kind != "table" or not str(sql).upper().startswith("CREATE TABLE")):
            what = {"table": "a virtual table", "index": "an index"}.get(kind, f"a {kind}")
            raise NotResultsDatabase(f"its {name} is {what}, not a table")
    present = {name for kind, name, _, _ in entries if kind == "table" and name in TABLES}
    if not {"meta", "games"} <= present:
        names = sorted(name for kind, name, _, _ in entries if kind == "table")
        raise NotResultsDatabase(f"it holds the tables {', '.join(names) or '(none)'}")
    for table in sorted(present):
        declared = {row[1]: affinity(row[2]) for row in db.execute(f"PRAGMA table_info({table})")}
        if table == "games" and "seed" in declared and "deal" not in declared:
            declared["deal"] = declared["seed"]
        for column, wanted in TABLES[table].items():
            if column not in declared:
                if column in OLDER.get(table, set()):
                    continue
                raise NotResultsDatabase(f"its table {table} has no column {column}")
            if declared[column] != wanted:
                raise NotResultsDatabase(
                    f"its {table}.{column} is of type {declared[column]}, not {wanted}"
                )
    return present


def _number(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_NUMBER_DIGITS:
        raise ValueError(f"a number of {digits} digits")
    return int(text)


def loads(value: object, what: str) -> Any:
    """A stored JSON text, read within bounds (no number of more than 40 digits, no nesting
    deeper than the parser goes)."""
    if not isinstance(value, str):
        raise NotResultsDatabase(f"{what} is of type {type(value).__name__}, not JSON text")
    try:
        return json.loads(value, parse_int=_number)
    except RecursionError:
        raise NotResultsDatabase(f"{what} is JSON nested too deep") from None
    except ValueError as err:
        raise NotResultsDatabase(f"{what} is not JSON ({err})") from None


_COMMAND = {"type": "array", "items": {"type": "string"}}
CONFIG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "bots": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name"],
                "anyOf": [{"required": ["command"]}, {"required": ["token"]}],
                "properties": {
                    "name": {"type": "string"},
                    "command": _COMMAND,
                    "token": {"const": True},
                    "fresh": {"type": "boolean"},
                    "processes": {"type": ["integer", "null"]},
                },
            },
        },
        "deals_file": {
            "type": ["object", "null"],
            "required": ["name", "sha256"],
            "properties": {"name": {"type": "string"}, "sha256": {"type": "string"}},
        },
    },
}
"""What the arena reads of a run's stored config
(:meth:`chaodipi.arena.tournament.config.TournamentConfig.record`); its other keys are compared
and printed as they are."""

SPRT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["elo0", "elo1", "alpha", "beta"],
    "additionalProperties": False,
    "properties": {name: {"type": "number"} for name in ("elo0", "elo1", "alpha", "beta")},
}


def _valid(document: Any, schema: dict[str, Any], what: str) -> None:
    import jsonschema  # the arena extra's: imported when a results file is read

    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema).iter_errors(document)
    )
    if error is not None:
        where = "" if not error.path else f" at {error.json_path[2:]}"
        raise NotResultsDatabase(f"{what}{where}: {error.message}")


def stored_config(value: object, run: int) -> dict[str, Any]:
    """Run ``run``'s stored config, checked."""
    what = f"the config of its run {run}"
    config = loads(value, what)
    _valid(config, CONFIG_SCHEMA, what)
    assert isinstance(config, dict)
    for i, bot in enumerate(config.get("bots", [])):
        if not BOT_NAME.fullmatch(bot["name"]):
            raise NotResultsDatabase(f"{what} at bots[{i}].name: {bot['name']!r}: {BOT_NAME_RULE}")
    return config


def stored_sprt(value: object, run: int) -> dict[str, float] | None:
    """Run ``run``'s stored SPRT hypotheses (None: it had none), checked."""
    if value is None:
        return None
    what = f"the SPRT of its run {run}"
    sprt = loads(value, what)
    _valid(sprt, SPRT_SCHEMA, what)
    from chaodipi.arena.results.sprt import SprtTest  # numpy and scipy: only when there is one

    try:
        SprtTest(**sprt)
    except ValueError as err:
        raise NotResultsDatabase(f"{what}: {err}") from None
    assert isinstance(sprt, dict)
    return sprt


def deal_key_text(value: object) -> DealKey:
    """The stored deal key."""
    if not isinstance(value, str):
        raise NotResultsDatabase(f"its deal key is of type {type(value).__name__}, not hex text")
    try:
        return DealKey.from_hex(value)
    except ValueError as err:
        raise NotResultsDatabase(f"its deal key: {err}") from None


_COUNTS = (
    "hands", "levels_a", "levels_b", "defended_a", "defended_b", "strikes_a", "strikes_b",
    "illegal_a", "illegal_b", "crashes_a", "crashes_b", "fallbacks_a", "fallbacks_b",
)  # fmt: skip
"""The columns that count something (never below 0); the points may be (a penalty)."""


def game_values(values: dict[str, Any]) -> None:
    """Check one stored game's values, by column (as :class:`GameRow` takes them)."""

    def wrong(column: str, wanted: str) -> NotResultsDatabase:
        label = f"{values.get('bot_a')!r}-{values.get('bot_b')!r} deal {values.get('deal')!r}"
        value = values[column]
        return NotResultsDatabase(f"its game {label} has {column} = {value!r}, not {wanted}")

    for column in ("bot_a", "bot_b", "reason", "errors"):
        if not isinstance(values[column], str):
            raise wrong(column, "text")
    for column in ("bot_a", "bot_b"):
        if not BOT_NAME.fullmatch(values[column]):
            raise wrong(column, f"a bot's name: {BOT_NAME_RULE}")
    for column in ("forfeit", "void"):
        if values[column] is not None and not isinstance(values[column], str):
            raise wrong(column, "text or NULL")
    for column in ("deal", "points_a", "points_b", *_COUNTS):
        value = values[column]
        if not isinstance(value, int) or (value < 0 and column in _COUNTS):
            raise wrong(column, "a whole number" + (" ≥ 0" if column in _COUNTS else ""))
    if values["swapped"] not in (0, 1) or isinstance(values["swapped"], float | str):
        raise wrong("swapped", "0 or 1")
    score = values["score_a"]
    if score is not None and (isinstance(score, str | bytes) or score not in (0, 0.5, 1)):
        raise wrong("score_a", "1, 0.5, 0 or NULL")
    seconds = values["seconds"]
    if not isinstance(seconds, int | float) or not math.isfinite(seconds) or seconds < 0:
        raise wrong("seconds", "a number of seconds ≥ 0")
    number = values["id"]
    if number is not None and (not isinstance(number, int) or number < 1):
        raise wrong("id", "a whole number ≥ 1 or NULL")
