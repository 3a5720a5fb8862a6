"""Fixtures for every test."""

from __future__ import annotations

import pytest

from chaodipi.arena.logs import configure_logging


@pytest.fixture(autouse=True, scope="session")
def _logging_configured() -> None:
    """Configure the arena's logging before any test runs: ``get_logger`` configures it on
    first use otherwise, and a first use inside ``structlog.testing.capture_logs()`` would
    replace the capture, so a test that ran alone would see no log lines."""
    configure_logging()
