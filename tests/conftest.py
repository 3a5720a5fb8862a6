"""Fixtures for every test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from chaodipi.arena.logs import configure_logging


@pytest.fixture(autouse=True, scope="session")
def _logging_configured() -> None:
    """Configure the arena's logging before any test runs: ``get_logger`` configures it on
    first use otherwise, and a first use inside ``structlog.testing.capture_logs()`` would
    replace the capture, so a test that ran alone would see no log lines."""
    configure_logging()


@pytest.fixture(autouse=True)
def _logging_at_info() -> Iterator[None]:
    """Each test begins with the arena's logging at info, whatever level a command a test ran
    in this process (``main([... "--log-level", "warning"])``) set: a test that captures the
    info lines (``structlog.testing.capture_logs``) sees them wherever it runs in the suite."""
    yield
    configure_logging()


@pytest.fixture(params=["local", pytest.param("grpc", marks=pytest.mark.slow)])
def transport(request: pytest.FixtureRequest) -> str:
    """How ``arena run``'s command bots reach it (the config's ``transport``): a test that
    takes this runs over each, the default one (``local``) in the default run, ``grpc`` in
    ``pytest -m slow``. A test that runs over both in the default run parametrizes
    ``transport`` itself (tests/test_sessions_run.py's secrets test)."""
    return str(request.param)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test in a real browser (it takes the ``browser`` fixture of tests/test_viewer.py:
    Debian's chromium, driven by playwright) is slow: it runs under ``pytest -m slow``. Before
    ``-m`` deselects (``tryfirst``)."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (the addopts) in the slow and Ray steps is one process: their clusters,
    browsers and toolchains are not for two workers at once; elsewhere xdist's own count (one
    worker a core)."""
    if config.getoption("markexpr") in ("slow", "ray"):
        return 0
    return None
