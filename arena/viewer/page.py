"""A game record as one HTML page that needs nothing else: no network, no server.

The page (``page.html``) holds its style (``viewer.css``), its script (``viewer.js``, small
hand-written JavaScript, no build step) and the record itself, as JSON in a ``<script
type="application/json">`` element; the script reads the record and lets a person step through
it (docs/game-record.md, "Looking at a game").

>>> page = render_html([{"type": "header", "format": "chaodipi-record/1", "note": "</script>"}])
>>> page.startswith("<!DOCTYPE html>") and "</script>\\"" not in page and "\\\\u003c/script>" in page
True
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["render_html", "write_html"]

_PLACEHOLDER = re.compile(r"/\*(STYLE|SCRIPT|RECORD)\*/")


def _asset(name: str) -> str:
    return resources.files("chaodipi.arena.viewer").joinpath(name).read_text(encoding="utf-8")


def _embedded_json(lines: Sequence[Mapping[str, Any]]) -> str:
    """The record as JSON that cannot end the ``<script>`` holding it: every ``<`` is written
    ``\\u003c`` (the same string to a JSON reader), so no text in it (a bot's note, say) can
    close the element or open a comment."""
    text = json.dumps(list(lines), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c")


def render_html(lines: Sequence[Mapping[str, Any]]) -> str:
    """The page showing the record ``lines`` (its header first, as
    :func:`chaodipi.engine.record.load_lines` returns them)."""
    parts = {
        "STYLE": _asset("viewer.css"),
        "SCRIPT": _asset("viewer.js"),
        "RECORD": _embedded_json(lines),
    }
    # one pass: what is put in (a note saying /*SCRIPT*/, say) is never read again
    return _PLACEHOLDER.sub(lambda found: parts[found.group(1)], _asset("page.html"))


def write_html(lines: Sequence[Mapping[str, Any]], path: Path) -> None:
    """Write the page of the record ``lines`` to ``path`` (made or replaced)."""
    path.write_text(render_html(lines), encoding="utf-8")
