"""Command bots as processes: start one for a seat, know when it exits, read its stderr's tail.

A bot command runs in the config file's folder with the arena's environment, plus
``--address``/``--ticket`` arguments and ``ARENA_ADDRESS``/``ARENA_TICKET``; its stdout is
discarded and its stderr goes to a file of its own in the run's log folder. It runs in a
session of its own, so a Ctrl-C at the terminal reaches the arena alone, which then kills it.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

import trio

from arena.config import BotSpec

__all__ = ["BotProcess", "StartFailures", "launch", "stderr_tail"]

STDERR_TAIL = 2000
"""Characters of a bot's stderr quoted when it fails."""


@dataclass(slots=True)
class BotProcess:
    """One bot process, playing one seat."""

    spec: BotSpec
    seat: int
    process: trio.Process
    stderr: Path

    @property
    def exit_code(self) -> int | None:
        return self.process.returncode

    def crashed(self) -> bool:
        """It exited on its own with an error (not killed by the arena after the game)."""
        return self.process.returncode not in (None, 0, -signal.SIGKILL)

    async def kill(self) -> None:
        """Kill it if it still runs, and reap it (safe to call from a cancelled scope)."""
        with trio.CancelScope(shield=True):
            if self.process.returncode is None:
                self.process.send_signal(signal.SIGKILL)
            await self.process.wait()


async def launch(
    spec: BotSpec, seat: int, *, address: str, ticket: str, folder: Path, stderr: Path
) -> BotProcess:
    """Start ``spec``'s command for ``seat``; ``OSError`` if it cannot even be started."""
    with stderr.open("wb") as err:
        process = await trio.lowlevel.open_process(
            [*spec.argv(), "--address", address, "--ticket", ticket],
            cwd=folder,
            env={**os.environ, "ARENA_ADDRESS": address, "ARENA_TICKET": ticket},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
        )
    return BotProcess(spec, seat, process, stderr)


def stderr_tail(path: Path) -> str:
    """The last lines a bot wrote to its stderr, or ``(no stderr)``."""
    try:
        data = path.read_bytes()[-STDERR_TAIL:]
    except OSError:
        return "(no stderr)"
    return data.decode("utf-8", "replace").strip() or "(no stderr)"


class StartFailures:
    """Counts, per bot, the games in a row in which it did not start; a bot that failed
    ``limit`` times in a row stops the run (as cutechess-cli and fastchess stop on an engine
    that cannot start), rather than filling the database with void games."""

    def __init__(self, limit: int = 3) -> None:
        self.limit = limit
        self._in_a_row: dict[str, int] = {}

    def failed(self, spec: BotSpec, why: str, stderr: Path | None) -> str | None:
        """Record a failure; return the message that stops the run once there are too many."""
        count = self._in_a_row.get(spec.name, 0) + 1
        self._in_a_row[spec.name] = count
        if count < self.limit:
            return None
        how = f"command: {shlex.join(spec.argv())}" if spec.command else "an external bot"
        tail = f"; the tail of its stderr:\n{stderr_tail(stderr)}" if stderr is not None else ""
        return f"bot {spec.name!r} failed to start {count} times in a row ({why}; {how}){tail}"

    def played(self, spec: BotSpec) -> None:
        self._in_a_row[spec.name] = 0
