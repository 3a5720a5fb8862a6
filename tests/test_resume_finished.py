"""``arena run --resume`` on a run whose every game is stored: nothing to play, so the report
alone, without a server (no "serving on") and without a progress bar left above it."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.test_tournament import BOT, write_config


def _run(*args: str, terminal: bool = False) -> subprocess.CompletedProcess[str]:
    # TTY_COMPATIBLE=1: rich draws its progress bar as on a terminal
    env = {**os.environ, "TTY_COMPATIBLE": "1"} if terminal else None
    return subprocess.run(
        [sys.executable, "-m", "chaodipi.arena", "run", *args],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
    )


def test_resuming_a_finished_run_prints_the_report_and_starts_nothing(tmp_path: Path) -> None:
    config = write_config(tmp_path / "t.toml", deals=1, bots={"a": BOT, "b": BOT})
    first = _run(str(config), "--port", "0", terminal=True)
    assert first.returncode == 0, first.stderr
    assert "serving on" in first.stderr and "2/2" in first.stderr  # a run that plays: both
    database = tmp_path / "results.sqlite"
    runs = sqlite3.connect(database).execute("SELECT COUNT(*) FROM runs").fetchone()
    again = _run(str(config), "--resume", terminal=True)
    assert again.returncode == 0, again.stderr
    assert "serving on" not in again.stderr
    assert "/2" not in again.stderr and "━" not in again.stderr, again.stderr  # no bar
    assert "0 games played now, 2 already stored" in again.stderr
    assert "Standings (2 games)" in again.stdout
    after = sqlite3.connect(database).execute("SELECT COUNT(*) FROM runs").fetchone()
    assert after == runs  # nothing written: no run was played
