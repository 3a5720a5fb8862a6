"""Checking game-record lines against ``records/record.schema.json`` as the whole schema does,
at a fraction of jsonschema's cost for its ``oneOf``: the schema is a ``oneOf`` of one branch
per line type, each branch requiring its own ``type`` constant (checked here as the validator is
made), so a line is valid by the whole schema exactly when it is valid by the branch its
``type`` names. jsonschema checks a line against every branch to count the ones it meets; this
checks it against the one it can meet.

>>> try:
...     record_validator().validate({"type": "hand", "hand": 0})
... except jsonschema.ValidationError as error:
...     print(error.message)
'level' is a required property
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import jsonschema

from chaodipi.records import record_schema


class RecordValidator:
    """The whole schema's verdict on a line, by its branch."""

    def __init__(self) -> None:
        schema = record_schema()
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        self._whole = cls(schema)
        assert set(schema) == {"$schema", "$id", "title", "description", "$defs", "oneOf"}
        base = {key: value for key, value in schema.items() if key != "oneOf"}
        self._branches: dict[str, Any] = {}
        for branch in schema["oneOf"]:
            assert set(branch) == {"$ref"}, branch
            definition = schema["$defs"][branch["$ref"].removeprefix("#/$defs/")]
            assert definition["type"] == "object" and "type" in definition["required"]
            kind = definition["properties"]["type"]["const"]
            assert isinstance(kind, str) and kind not in self._branches, kind
            self._branches[kind] = cls(base | {"$ref": branch["$ref"]})

    def validate(self, line: Any) -> None:
        """Raise :class:`jsonschema.ValidationError` unless the whole schema takes ``line``."""
        kind = line.get("type") if isinstance(line, Mapping) else None
        branch = self._branches.get(kind) if isinstance(kind, str) else None
        if branch is None:  # no branch can take it: the whole schema says why
            self._whole.validate(line)
            raise AssertionError(f"the schema takes a line of no branch: {line!r}")
        branch.validate(line)


@cache
def record_validator() -> RecordValidator:
    """The one validator of the record's schema (made once: checking the schema is costly)."""
    return RecordValidator()
