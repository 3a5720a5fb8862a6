"""Logging: structlog, console lines on a terminal and JSON lines otherwise.

Loggers are bound to what they concern (``table``, ``hand``, ``seat``). Tickets are secrets and
are never logged: nothing in the arena passes one to a logger.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog

__all__ = ["configure_logging", "get_logger"]

_configured = False


def configure_logging(level: str = "info", *, json: bool | None = None) -> None:
    """Set up structlog once: JSON when stderr is not a terminal (or ``json=True``)."""
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
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        logger_factory=_to_stderr,
        cache_logger_on_first_use=False,
    )
    _configured = True


def _to_stderr(*_args: Any) -> structlog.PrintLogger:
    """A logger writing to the stderr of the moment it is bound, not of the configuration
    (a host that swaps ``sys.stderr``, as pytest's capture does, never gets lines written to a
    stream it closed)."""
    return structlog.PrintLogger(sys.stderr)


def get_logger(**bound: Any) -> Any:
    """A logger bound to these keys (configuring defaults first if nobody has)."""
    if not _configured:
        configure_logging()
    return structlog.get_logger().bind(**bound)
