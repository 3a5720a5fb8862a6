"""Command bots as processes: start one, know when it exits, read its stderr's tail.

A bot command runs in the config file's folder with the arena's environment, plus
``--address ADDRESS`` on its command line and in ``ARENA_ADDRESS``, and its secret in the
environment only: ``ARENA_TOKEN`` (a session) or ``ARENA_TICKET`` (one seat); with the
``local`` transport (``arena run``'s default) also ``ARENA_LOCAL``, the file descriptor of the
bot's end of a socket pair it inherits (:mod:`chaodipi.arena.serving.local`), which the Python
SDK plays over instead of the address. A command line
is world-readable (``ps``, ``/proc/PID/cmdline``); a process's environment is readable by its
own user only (``/proc/PID/environ``), so a bot run as another OS user (docs/trust.md) cannot
read an honest bot's token and take its seats. Its stdout is discarded and its stderr goes
to a file of its own in the run's log folder, readable by the arena's user only. It runs in a
session of its own, so a Ctrl-C at the terminal reaches the arena alone, which then ends it
with its whole process group (:meth:`BotProcess.kill`: what it started, directly or under a
wrapper script, goes with it); in a Ray worker it stays in the worker's process group instead
(``new_session=False``), which Ray kills with the worker, so that a lost worker leaves no bot
behind.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

import anyio
import anyio.abc

from chaodipi.arena.files import open_private
from chaodipi.arena.tournament.config import BotSpec
from chaodipi.arena.v2.frames import ENVIRONMENT

__all__ = ["BotProcess", "bot_environment", "bound_stderr", "launch", "stderr_tail"]

STDERR_TAIL = 2000
"""Characters of a bot's stderr quoted when it fails."""

STDERR_BOUND = 8 << 20
"""The bytes a bot's stderr file may reach before :func:`bound_stderr` cuts it."""

STDERR_KEPT = 1 << 20
"""The bytes of its end :func:`bound_stderr` keeps."""


TERM_S = 2.0
"""How long a bot's process group has to exit after SIGTERM before SIGKILL (longer than the
stdio bridge gives its children, :data:`chaodipi.bot.child.TERM_S`, so that it ends them
first)."""


@dataclass(slots=True)
class BotProcess:
    """One bot process: a session process (many seats) or a fresh one (one seat)."""

    spec: BotSpec
    process: anyio.abc.Process
    stderr: Path
    group: bool = True
    """It leads a process group of its own (a new session), ended with it."""

    @property
    def exit_code(self) -> int | None:
        return self.process.returncode

    async def kill(self) -> None:
        """End it and every process it started: SIGTERM to its process group (to it alone
        in a Ray worker's group), SIGKILL to what still runs :data:`TERM_S` seconds later; and
        reap it (safe to call from a cancelled scope). A bot that exited by itself may have
        left processes in its group: they are ended too."""
        with anyio.CancelScope(shield=True):
            if self._signal(signal.SIGTERM):
                with anyio.move_on_after(TERM_S):
                    await self.process.wait()
                self._signal(signal.SIGKILL)
            await self.process.wait()

    def _signal(self, signum: signal.Signals) -> bool:
        """Send ``signum`` to its group (or to it); False if nothing is left to receive it."""
        try:
            if self.group:
                os.killpg(self.process.pid, signum)
            elif self.process.returncode is None:
                self.process.send_signal(signum)
            else:
                return False
        except (ProcessLookupError, PermissionError):  # it (and its group) went in between
            return False
        return True


async def launch(
    spec: BotSpec,
    *,
    address: str,
    folder: Path,
    stderr: Path,
    token: str | None = None,
    ticket: str | None = None,
    new_session: bool = True,
    link: socket.socket | None = None,
) -> BotProcess:
    """Start ``spec``'s command with ``--address address`` and a session ``token``
    (``$ARENA_TOKEN``) or a seat's ``ticket`` (``$ARENA_TICKET``), the secret in its
    environment only (:func:`bot_environment`); ``OSError`` if it cannot even be started.
    ``link``: the bot's end of a local link (:mod:`chaodipi.arena.serving.local`), which it
    inherits as a file descriptor named in ``$ARENA_LOCAL`` (``fd:N``); closed here once the
    process has started (or failed to). ``new_session=False`` keeps it in this process's
    group (in a Ray worker)."""
    env = bot_environment(address, token=token, ticket=ticket)
    fds: tuple[int, ...] = ()
    if link is not None:
        env[ENVIRONMENT] = f"fd:{link.fileno()}"
        fds = (link.fileno(),)
    try:
        with open_private(stderr) as err:
            process = await anyio.open_process(
                [*spec.argv(), "--address", address],
                cwd=folder,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
                start_new_session=new_session,
                pass_fds=fds,
            )
    finally:
        if link is not None:
            link.close()
    return BotProcess(spec, process, stderr, group=new_session)


def bot_environment(
    address: str, *, token: str | None = None, ticket: str | None = None
) -> dict[str, str]:
    """A bot's environment: the arena's own, with ``ARENA_ADDRESS`` and exactly one secret,
    ``ARENA_TOKEN`` or ``ARENA_TICKET`` (one the arena's user happens to have set is dropped,
    so that a session bot is never handed a stray ticket, nor a fresh one a stray token; a
    stray ``ARENA_LOCAL`` is dropped too: :func:`launch` sets it for a bot it gives a link).

    >>> env = bot_environment("127.0.0.1:5", ticket="t1/2/secret")
    >>> env["ARENA_ADDRESS"], env["ARENA_TICKET"], "ARENA_TOKEN" in env
    ('127.0.0.1:5', 't1/2/secret', False)
    """
    if (token is None) == (ticket is None):
        raise ValueError("launch a bot with a session token or a seat's ticket")
    env = {
        k: v for k, v in os.environ.items() if k not in ("ARENA_TOKEN", "ARENA_TICKET", ENVIRONMENT)
    }
    env["ARENA_ADDRESS"] = address
    if token is not None:
        env["ARENA_TOKEN"] = token
    else:
        assert ticket is not None
        env["ARENA_TICKET"] = ticket
    return env


_SECRETS = re.compile(
    r"(?P<option>--(?:token|ticket)[= ]|ARENA_(?:TOKEN|TICKET)=)\S+"
    r"|(?P<seat>/[0-3]/)[A-Za-z0-9_-]{16,}"
)


def stderr_tail(path: Path) -> str:
    """The last lines a bot wrote to its stderr (at most ``STDERR_TAIL`` bytes, from a line
    start; a single longer line shows its end after ``…``), or ``(no stderr)``; session tokens
    and seat tickets in it (a bot's usage message echoes its arguments) are shown as ``…``.

    >>> _SECRETS.sub(_redact, "error: unrecognized arguments: --token Ab3-x_yz --ticket g1/2/k")
    'error: unrecognized arguments: --token … --ticket …'
    """
    try:
        with path.open("rb") as file:
            start = max(0, file.seek(0, os.SEEK_END) - STDERR_TAIL)
            file.seek(max(0, start - 1))
            data = file.read()
    except OSError:
        return "(no stderr)"
    if start > 0:  # begin at a line start: drop the line the cut fell in
        _, newline, rest = data.partition(b"\n")
        data = rest if newline and rest.strip() else b"\xe2\x80\xa6" + data[1:]
    text = _SECRETS.sub(_redact, data.decode("utf-8", "replace")).strip()
    return text or "(no stderr)"


def _redact(found: re.Match[str]) -> str:
    return (found.group("option") or found.group("seat")) + "…"


def bound_stderr(path: Path, *, bound: int = STDERR_BOUND, kept: int = STDERR_KEPT) -> int:
    """Cut a bot's stderr file longer than ``bound`` bytes to its last ``kept`` (from a line
    start), after a line saying how much went; returns the bytes cut (0: none). The bot
    appends to it (``O_APPEND``), so what it writes next follows the kept end; a line it
    writes while the file is cut may be lost with the rest.

    A long-running arena (a standing ladder) calls it now and then, so that a bot that
    writes without end cannot fill the disk."""
    try:
        size = path.stat().st_size
        if size <= bound:
            return 0
        with path.open("rb") as file:
            file.seek(size - kept)
            data = file.read()
        _, newline, rest = data.partition(b"\n")
        data = rest if newline else data
        cut = size - len(data)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW)
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"[the arena cut the {cut} bytes before this line]\n".encode() + data)
        finally:
            os.close(fd)
    except OSError:
        return 0
    return cut

