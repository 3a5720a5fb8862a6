"""Reading a secret from a file, as ``--token-file`` does: the stripped text, and a warning on
stderr when users other than the file's owner can read it (as ssh says of a private key; the
secret is read all the same).

>>> import os, tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     path = os.path.join(folder, "token")
...     with open(path, "w") as file:
...         _ = file.write("s3cret\\n")
...     os.chmod(path, 0o600)
...     read_token_file(path)
's3cret'
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

__all__ = ["exposed_warning", "read_token_file"]


def exposed_warning(path: Path) -> str | None:
    """One line when ``path`` can be read by other users than its owner (None otherwise, or
    where files have no such modes)."""
    if os.name != "posix":
        return None
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return None
    if not mode & (stat.S_IRGRP | stat.S_IROTH):
        return None
    return f"warning: {path} can be read by other users (mode {mode:04o}): run chmod 600 {path}"


def read_token_file(path: str | os.PathLike[str]) -> str:
    """The file's text, stripped (``OSError`` or ``UnicodeDecodeError`` when it cannot be
    read); warns on stderr, once, when others can read it."""
    path = Path(path)
    token = path.read_text(encoding="utf-8").strip()
    warning = exposed_warning(path)
    if warning is not None:
        print(warning, file=sys.stderr, flush=True)
    return token
