"""Command bots as processes: start one, know when it exits, read its stderr's tail.

A bot command runs in the config file's folder with the arena's environment, plus
``--address`` and ``--token`` (a session) or ``--ticket`` (one seat) and the same in
``ARENA_ADDRESS``/``ARENA_TOKEN``/``ARENA_TICKET``; its stdout is discarded and its stderr goes
to a file of its own in the run's log folder. It runs in a
session of its own, so a Ctrl-C at the terminal reaches the arena alone, which then kills it;
in a Ray worker it stays in the worker's process group instead (``new_session=False``), which
Ray kills with the worker, so that a lost worker leaves no bot behind.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

import trio

from arena.config import BotSpec

__all__ = ["BotFailures", "BotProcess", "launch", "stderr_tail"]

STDERR_TAIL = 2000
"""Characters of a bot's stderr quoted when it fails."""


@dataclass(slots=True)
class BotProcess:
    """One bot process: a session process (many seats) or a fresh one (one seat)."""

    spec: BotSpec
    process: trio.Process
    stderr: Path

    @property
    def exit_code(self) -> int | None:
        return self.process.returncode

    def crashed(self) -> bool:
        """It exited on its own with an error (not killed by the arena)."""
        return self.process.returncode not in (None, 0, -signal.SIGKILL)

    async def kill(self) -> None:
        """Kill it if it still runs, and reap it (safe to call from a cancelled scope)."""
        with trio.CancelScope(shield=True):
            if self.process.returncode is None:
                self.process.send_signal(signal.SIGKILL)
            await self.process.wait()


async def launch(
    spec: BotSpec,
    *,
    address: str,
    folder: Path,
    stderr: Path,
    token: str | None = None,
    ticket: str | None = None,
    new_session: bool = True,
) -> BotProcess:
    """Start ``spec``'s command with a session ``token`` (``--token``, ``$ARENA_TOKEN``) or a
    seat's ``ticket`` (``--ticket``, ``$ARENA_TICKET``); ``OSError`` if it cannot even be
    started. ``new_session=False`` keeps it in this process's group (in a Ray worker)."""
    if (token is None) == (ticket is None):
        raise ValueError("launch a bot with a session token or a seat's ticket")
    option, value = ("token", token) if token is not None else ("ticket", ticket)
    assert value is not None
    with stderr.open("ab") as err:
        process = await trio.lowlevel.open_process(
            [*spec.argv(), "--address", address, f"--{option}", value],
            cwd=folder,
            env={**os.environ, "ARENA_ADDRESS": address, f"ARENA_{option.upper()}": value},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=new_session,
        )
    return BotProcess(spec, process, stderr)


_SECRETS = re.compile(
    r"(?P<option>--(?:token|ticket)[= ]|ARENA_(?:TOKEN|TICKET)=)\S+"
    r"|(?P<seat>/[0-3]/)[A-Za-z0-9_-]{16,}"
)


def stderr_tail(path: Path) -> str:
    """The last lines a bot wrote to its stderr, or ``(no stderr)``; session tokens and seat
    tickets in it (a bot's usage message echoes its arguments) are shown as ``…``.

    >>> _SECRETS.sub(_redact, "error: unrecognized arguments: --token Ab3-x_yz --ticket g1/2/k")
    'error: unrecognized arguments: --token … --ticket …'
    """
    try:
        data = path.read_bytes()[-STDERR_TAIL:]
    except OSError:
        return "(no stderr)"
    text = _SECRETS.sub(_redact, data.decode("utf-8", "replace")).strip()
    return text or "(no stderr)"


def _redact(found: re.Match[str]) -> str:
    return (found.group("option") or found.group("seat")) + "…"


class BotFailures:
    """Counts, per bot, the games in a row in which it failed to start, or in which one of its
    processes died; a bot that failed ``limit`` times in a row stops the run (as cutechess-cli
    and fastchess stop on an engine that cannot start or keeps crashing), rather than filling
    the database with void games and forfeits. A game it played through resets the count."""

    def __init__(self, limit: int = 3) -> None:
        self.limit = limit
        self._in_a_row: dict[str, int] = {}

    def failed(
        self, spec: BotSpec, why: str, stderr: Path | None, *, started: bool = False
    ) -> str | None:
        """Record a failure (``started``: it played, then died); return the message that
        stops the run once there are too many."""
        count = self._in_a_row.get(spec.name, 0) + 1
        self._in_a_row[spec.name] = count
        if count < self.limit:
            return None
        how = f"command: {shlex.join(spec.argv())}" if spec.command else "an external bot"
        tail = f"; the tail of its stderr:\n{stderr_tail(stderr)}" if stderr is not None else ""
        what = "kept dying: it died in" if started else "failed to start"
        hint = ""
        if spec.command and not spec.fresh and not started:
            hint = (
                " (if this bot can play only one game per process, give it `fresh = true` in "
                "the config)"
            )
        return f"bot {spec.name!r} {what} {count} games in a row ({why}; {how}){hint}{tail}"

    def played(self, spec: BotSpec) -> None:
        self._in_a_row[spec.name] = 0
