"""A PostgreSQL server for the ladder's tests: Debian's ``postgresql`` package (``.ci/run``
installs it), a cluster made in a temporary folder with ``initdb``, listening on a Unix socket
only, once per test session; each test gets a database of its own. Run as root, the server runs
as the ``postgres`` user (PostgreSQL refuses root). Without the package the tests that need it
skip, saying how to install it."""

from __future__ import annotations

import atexit
import glob
import itertools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

__all__ = ["postgres_url"]

_server: dict[str, str] = {}
_databases = itertools.count(1)


def _bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return Path(found[-1]).parent if found else None


def _as_server_user(argv: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return argv
    return ["runuser", "-u", "postgres", "--", *argv]


def _start() -> str:
    """The socket folder of a running server (started now if need be)."""
    if "socket" in _server:
        return _server["socket"]
    bin_dir = _bin()
    if bin_dir is None:
        pytest.skip(
            "PostgreSQL is not installed: apt-get install postgresql (the ladder's PostgreSQL "
            "tests start a server of their own)"
        )
    folder = Path(tempfile.mkdtemp(prefix="ladder-pg-"))
    data = folder / "data"
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
        folder.chmod(0o700)
    subprocess.run(
        _as_server_user([str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "ladder"]),
        check=True,
        capture_output=True,
    )
    options = f"-c listen_addresses='' -c unix_socket_directories={folder} -c fsync=off"
    subprocess.run(
        _as_server_user(
            [
                str(bin_dir / "pg_ctl"),
                "-D",
                str(data),
                "-o",
                options,
                "-w",
                "-l",
                str(folder / "log"),
                "start",
            ]
        ),
        check=True,
        capture_output=True,
    )

    def stop() -> None:
        subprocess.run(
            _as_server_user([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]),
            capture_output=True,
        )
        shutil.rmtree(folder, ignore_errors=True)

    atexit.register(stop)
    if os.geteuid() == 0:
        folder.chmod(0o755)  # the tests (root) reach the socket
    _server["socket"] = str(folder)
    return str(folder)


def postgres_url(_tmp_path: Path) -> str:
    """A new, empty database on the session's server, as a SQLAlchemy URL."""
    socket = _start()
    name = f"ladder_{os.getpid()}_{next(_databases)}"
    import psycopg

    with psycopg.connect(dbname="postgres", user="ladder", host=socket, autocommit=True) as db:
        db.execute(f'CREATE DATABASE "{name}"')
    return f"postgresql+psycopg://ladder@/{name}?host={socket}"
