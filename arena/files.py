"""Files only their owner may read: the secrets (a deal key, a spectator token, tickets), the
game records (whole deals, and the bots' notes), and the bots' stderr. Each is created with mode
0600 whatever the umask, and an existing file is made 0600 before anything is written to it, so
that no other user of the machine (a bot run as another OS user, as docs/trust.md recommends
for untrusted bots) reads it even for a moment.

>>> import pathlib, stat, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp()) / "key"
>>> write_private(path, "s3cret\\n")
>>> stat.filemode(path.stat().st_mode), path.read_text()
('-rw-------', 's3cret\\n')
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from chaodipi.records import dump_lines

__all__ = ["PRIVATE", "open_private", "write_packed_record", "write_private", "write_record"]

PRIVATE = 0o600
"""The mode of every file the arena writes that holds a secret or a game."""


def _descriptor(path: Path, flags: int) -> int:
    descriptor = os.open(path, flags | os.O_CREAT, PRIVATE)
    os.fchmod(descriptor, PRIVATE)  # an existing file keeps its mode otherwise; and the umask
    return descriptor


def write_private(path: Path, data: str | bytes, *, replace: bool = False) -> None:
    """Write ``data`` (text as UTF-8) to a file only its owner can read. Without ``replace``,
    an existing file raises ``FileExistsError``."""
    flags = os.O_WRONLY | (os.O_TRUNC if replace else os.O_EXCL)
    with os.fdopen(_descriptor(path, flags), "wb") as out:
        out.write(data.encode("utf-8") if isinstance(data, str) else data)


def open_private(path: Path) -> IO[bytes]:
    """``path`` opened to append bytes to (created if need be), readable by its owner only."""
    return os.fdopen(_descriptor(path, os.O_WRONLY | os.O_APPEND), "ab")


def write_record(path: Path, lines: Sequence[Mapping[str, Any]]) -> None:
    """Write a game record as a ``.jsonl`` file a person (or ``arena show``) can open, readable
    by its owner only (it holds whole deals and the bots' notes); its folder is made, 0700."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    write_private(path, dump_lines(lines), replace=True)


def write_packed_record(path: Path, blob: bytes) -> None:
    """Write a stored (zlib-compressed) game record as its ``.jsonl`` file, as it was made
    (owner only, as :func:`write_record`)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    write_private(path, zlib.decompress(blob), replace=True)
