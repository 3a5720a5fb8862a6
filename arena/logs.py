"""Logging: structlog, console lines on a terminal and JSON lines otherwise.

Loggers are bound to what they concern (``table``, ``hand``, ``seat``). Tickets are secrets and
are never logged: nothing in the arena passes one to a logger. On a terminal every text value
is shown by :func:`chaodipi.records.visible` (a bot's words may hold escapes); JSON
lines escape control characters themselves.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import MutableMapping
from typing import Any, TextIO, cast

import structlog

from chaodipi.records import visible

__all__ = ["configure_logging", "get_logger"]

_configured = False


class _Stderr:
    """``sys.stderr`` as it is when a line is written, not when logging was configured: a
    command run in-process by a test (whose stderr is captured, then closed) leaves the
    process's later lines writable.

    >>> import io
    >>> stream, sys.stderr = sys.stderr, io.StringIO()
    >>> _ = _Stderr().write("a line")
    >>> sys.stderr.getvalue(), setattr(sys, "stderr", stream)
    ('a line', None)
    """

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def _visible(_logger: Any, _method: str, event: MutableMapping[str, Any]) -> dict[str, Any]:
    """Every text value of ``event`` as :func:`visible` shows it (for the terminal's lines).

    >>> _visible(None, "info", {"event": "exited", "stderr": "bye\\x1b[2J", "code": 3})
    {'event': 'exited', 'stderr': 'bye\\\\x1b[2J', 'code': 3}
    """
    return {k: visible(v) if isinstance(v, str) else v for k, v in event.items()}


def _without_tables_info(
    _logger: Any, method: str, event: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """Drops a table's or a session's info line (a seat given, connected, a hand over).

    >>> _without_tables_info(None, "info", {"event": "pair_over", "pair": 3})
    {'event': 'pair_over', 'pair': 3}
    >>> _without_tables_info(None, "info", {"event": "seat_connected", "table": "t1"})
    Traceback (most recent call last):
    structlog.exceptions.DropEvent
    """
    if method == "info" and ("table" in event or "session" in event):
        raise structlog.DropEvent
    return event


def configure_logging(
    level: str = "info", *, json: bool | None = None, tables_at_info: bool = True
) -> None:
    """Set up structlog once: JSON when stderr is not a terminal (or ``json=True``).
    ``tables_at_info=False`` keeps the info lines of tables and sessions out (a standing
    ladder's own lines stay; ``debug`` shows them all)."""
    global _configured
    as_json = not sys.stderr.isatty() if json is None else json
    renderer: Any = (
        structlog.processors.JSONRenderer(ensure_ascii=False)
        if as_json
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            *([] if tables_at_info or level == "debug" else [_without_tables_info]),
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            *([] if as_json else [_visible]),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        logger_factory=structlog.PrintLoggerFactory(file=cast(TextIO, _Stderr())),
        cache_logger_on_first_use=False,
    )
    _configured = True


def get_logger(**bound: Any) -> Any:
    """A logger bound to these keys (configuring defaults first if nobody has)."""
    if not _configured:
        configure_logging()
    return structlog.get_logger().bind(**bound)
