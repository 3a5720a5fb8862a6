"""Game records, replay files and the bots' stderr are their owner's only (mode 0600), as the
secrets beside them, whatever the umask (arena/files.py): they hold whole deals and the bots'
notes, and a bot run as another OS user (docs/trust.md) must not read them."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from chaodipi.arena.files import write_packed_record, write_record
from chaodipi.records import pack
from tests.test_show import _record
from tests.test_tournament import write_config


@pytest.fixture
def open_umask() -> Iterator[None]:
    before = os.umask(0)
    try:
        yield
    finally:
        os.umask(before)


def _mode(path: Path) -> str:
    return stat.filemode(path.stat().st_mode)


def test_a_record_file_is_its_owners_only_under_umask_000(tmp_path: Path, open_umask: None) -> None:
    lines = _record("hefei", seed=2, max_hands=1)
    write_record(tmp_path / "a.jsonl", lines)
    write_packed_record(tmp_path / "b.jsonl", pack(lines))
    old = tmp_path / "c.jsonl"
    old.write_text("{}\n", encoding="utf-8")
    old.chmod(0o644)  # a record written over keeps no other user's access
    write_record(old, lines)
    for name in ("a.jsonl", "b.jsonl", "c.jsonl"):
        assert _mode(tmp_path / name) == "-rw-------", name


def test_a_runs_files_are_its_owners_only_under_umask_000(tmp_path: Path) -> None:
    """``arena run`` with a replays folder, under umask 000: the database (and its WAL), every
    replay file and every bot's stderr file can be read by their owner only."""
    bot = "python3 -m chaodipi.sample_bots.random_bot"
    config = write_config(
        tmp_path / "t.toml", deals=1, replays="replays", bots={"a": bot, "b": bot}
    )
    done = subprocess.run(
        [sys.executable, "-m", "chaodipi.arena", "run", str(config)],
        capture_output=True,
        text=True,
        timeout=300,
        umask=0,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    files = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != "t.toml"]
    replays = [p for p in files if p.parent.name == "replays"]
    stderr = [p for p in files if p.suffix == ".stderr"]
    assert len(replays) == 2 and stderr and (tmp_path / "results.sqlite") in files, files
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, (path, _mode(path))
