"""Every file and folder the arena writes, made so that no other user of the machine reads
it or has it written anywhere else:

* **a file** is its owner's only, mode 0600 whatever the umask: the secrets (a deal key, a
  spectator token, tickets), the game records (whole deals, and the bots' notes), the pages
  that show them, the reports, the bots' stderr, the starter files;
* **a folder** the arena makes is its owner's only, 0700 whatever the umask (with every
  missing parent); a folder that exists is used as it is;
* **nothing is written through what is at a path.** A new file is created new (``O_EXCL``: a
  link planted at its name fails it); a file written again (a rerun writing the same page)
  is written under a new name in its folder and renamed over the path, which replaces a link
  or a file there, never its target; a file appended to (a bot's stderr) or kept open (the
  results database) must be a plain file of this user's with no other link.

So another user who can write in a folder the arena writes in may delete what it wrote there,
but can never have it overwrite, truncate or chmod a file elsewhere.

>>> import pathlib, stat, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp()) / "key"
>>> write_private(path, "s3cret\\n")
>>> stat.filemode(path.stat().st_mode), path.read_text()
('-rw-------', 's3cret\\n')
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from chaodipi.records import dump_lines

__all__ = [
    "PRIVATE",
    "PRIVATE_FOLDER",
    "check_own",
    "make_private_folder",
    "open_own",
    "open_private",
    "write_packed_record",
    "write_private",
    "write_record",
]

PRIVATE = 0o600
"""The mode of every file the arena writes."""

PRIVATE_FOLDER = 0o700
"""The mode of every folder the arena makes."""


def make_private_folder(path: Path) -> None:
    """Make the folder ``path`` and its missing parents, each new one 0700 whatever the umask;
    a folder already there is kept as it is (``OSError`` if something else is)."""
    missing = []
    for part in (path, *path.parents):
        if part.is_dir():
            break
        missing.append(part)
    for part in reversed(missing):
        try:
            part.mkdir(mode=PRIVATE_FOLDER)
        except FileExistsError:
            if part.is_dir():  # made meanwhile by someone else: used as it is
                continue
            raise
        folder = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            os.fchmod(folder, PRIVATE_FOLDER)  # mkdir's mode is masked by the umask
        finally:
            os.close(folder)


def _refuse(path: Path, why: str) -> OSError:
    why += " (the arena writes only into a plain file of its own)"
    return OSError(errno.EPERM, why, str(path))


def _check(status: os.stat_result, path: Path) -> None:
    if stat.S_ISLNK(status.st_mode):
        raise _refuse(path, "it is a symbolic link")
    if not stat.S_ISREG(status.st_mode):
        raise _refuse(path, "it is not a plain file")
    if status.st_uid != os.geteuid():
        raise _refuse(path, f"it is another user's (uid {status.st_uid})")
    if status.st_nlink != 1:
        raise _refuse(path, f"it has {status.st_nlink - 1} other hard link(s)")


def check_own(path: Path) -> None:
    """Nothing at ``path``, or a plain file of this user's with no other link; else an
    ``OSError`` saying what is there."""
    try:
        status = path.lstat()
    except FileNotFoundError:
        return
    _check(status, path)


def open_own(path: Path, flags: int) -> int:
    """A descriptor of ``path`` opened with ``flags`` (``O_CREAT`` and ``O_NOFOLLOW`` added):
    a new file is made 0600; a file already there must pass :func:`check_own`, and is made
    0600."""
    try:
        descriptor = os.open(path, flags | os.O_CREAT | os.O_NOFOLLOW, PRIVATE)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise _refuse(path, "it is a symbolic link") from None
        raise
    try:
        _check(os.fstat(descriptor), path)
        os.fchmod(descriptor, PRIVATE)  # a new file's mode is masked by the umask
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def write_private(path: Path, data: str | bytes, *, replace: bool = False) -> None:
    """Write ``data`` (text as UTF-8) to ``path``, readable by its owner only. Without
    ``replace`` the file is new: ``FileExistsError`` if anything is at ``path`` (a link too).
    With it, the file is written under a new name in the same folder and renamed over
    ``path``: what was there (a file, a link) is replaced, never written into."""
    body = data.encode("utf-8") if isinstance(data, str) else data
    if not replace:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, PRIVATE)
        with os.fdopen(descriptor, "wb") as out:
            os.fchmod(descriptor, PRIVATE)
            out.write(body)
        return
    try:
        descriptor, name = tempfile.mkstemp(dir=path.parent, prefix=".arena-", suffix=".part")
    except OSError as err:  # named by the folder written, not the temporary name
        raise OSError(err.errno, err.strerror, str(path)) from None
    try:
        with os.fdopen(descriptor, "wb") as out:
            os.fchmod(descriptor, PRIVATE)
            out.write(body)
        os.replace(name, path)
    except BaseException as err:
        with contextlib.suppress(OSError):
            os.unlink(name)
        if isinstance(err, OSError):
            raise OSError(err.errno, err.strerror, str(path)) from None
        raise


def open_private(path: Path) -> IO[bytes]:
    """``path`` opened to append bytes to, readable by its owner only: new, or a plain file of
    this user's with no other link (:func:`open_own`)."""
    return os.fdopen(open_own(path, os.O_WRONLY | os.O_APPEND), "ab")


def write_record(path: Path, lines: Sequence[Mapping[str, Any]]) -> None:
    """Write a game record as a ``.jsonl`` file a person (or ``arena show``) can open, readable
    by its owner only (it holds whole deals and the bots' notes), replacing what is at
    ``path``; its folder is made if new."""
    make_private_folder(path.parent)
    write_private(path, dump_lines(lines), replace=True)


def write_packed_record(path: Path, blob: bytes) -> None:
    """Write a stored (zlib-compressed) game record as its ``.jsonl`` file, as it was made
    (as :func:`write_record`)."""
    make_private_folder(path.parent)
    write_private(path, zlib.decompress(blob), replace=True)
