"""A bot program that speaks JSON lines on stdin and stdout, run as a child process.

:mod:`chaodipi.bot.stdio` starts one :class:`Child` per seat it plays. Each message the server
sends that seat goes to the child's stdin as one line: the ``PlayResponse`` in the proto3 JSON
mapping (:func:`message_line`, by ``google.protobuf.json_format``, as every protobuf library
reads and writes it), every field written, those at their default too. For each line that
holds a ``decision`` the child writes one line to its stdout: an ``Answer`` in the same
mapping (:func:`answer_from_line`), whose ``decisionId`` may be left out. Its stderr is the
bridge's. Everything a child can do wrong is a
:class:`ChildError` with one line saying what: it could not be started, it exited or closed
its stdout before answering, it did not answer within the time the decision allows, or it
wrote a line that is not such an ``Answer``.

>>> line = message_line(pb.PlayResponse(strike=pb.Strike(decision_id=7, strikes=1)))
>>> line
'{"strike":{"decisionId":"7","strikes":1,"maxStrikes":0}}'
>>> answer_from_line('{"action": {"passTurn": {}}}', 7, "bot")
decision_id: 7
action {
  pass_turn {
  }
}
<BLANKLINE>
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Sequence

from google.protobuf import json_format

from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import convert

__all__ = ["AHEAD", "MAX_LINE", "Child", "ChildError", "answer_from_line", "message_line"]

MAX_LINE = 64 * 1024
"""The longest line a child may write, in bytes: the protocol's largest message."""

SECRETS = ("ARENA_TOKEN", "ARENA_TICKET", "ARENA_LOCAL")
"""Left out of a child's environment: the bridge holds the seat, the child only plays it."""

QUIT_S = 5.0
"""How long a child may take to exit once its stdin is closed at the end of a match."""

TERM_S = 1.0
"""How long a child's process group has to exit after SIGTERM before SIGKILL."""

AHEAD = 16
"""The most lines of a child's the bridge holds before it asks for them: a child that writes
more waits in its write."""


class ChildError(Exception):
    """The bot program failed: ``str()`` is one line saying how."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))


def message_line(message: pb.PlayResponse) -> str:
    """``message`` as one line of proto3 JSON (no newline at the end), every field written,
    those at their default too (seat 0's ``"seat": 0``, an empty list as ``[]``); a ``oneof``'s
    unset members and unset ``optional`` fields are left out.

    >>> message_line(pb.PlayResponse(welcome=pb.Welcome(table="t1", seat=0)))  # doctest: +ELLIPSIS
    '{"welcome":{"table":"t1","seat":0,...}}'
    """
    data = json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def answer_from_line(line: str, decision_id: int, who: str) -> pb.Answer:
    """The child's ``line`` as an Answer to ``decision_id`` (filled in when the line leaves it
    out); :class:`ChildError` if it is not one. ``who`` names the child in the message.

    >>> answer_from_line('{"play": {}}', 7, "`bot`")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    chaodipi.bot.child.ChildError: `bot` answered decision 7 with a line that is not an Answer ...
    """
    what = f"{who} answered decision {decision_id} with"
    answer = pb.Answer()
    try:
        json_format.Parse(line, answer)
    except json_format.ParseError as err:
        raise ChildError(
            f"{what} a line that is not an Answer in proto3 JSON ({err}): {_quote(line)}"
        ) from None
    if answer.decision_id == 0:
        answer.decision_id = decision_id
    elif answer.decision_id != decision_id:
        raise ChildError(f"{what} the id of decision {answer.decision_id}: {_quote(line)}")
    if answer.action.WhichOneof("action") is None:
        raise ChildError(f"{what} an Answer that names no action: {_quote(line)}")
    try:
        convert.action_from_message(answer.action)
    except convert.WireError as err:
        raise ChildError(f"{what} an action that means nothing ({err}): {_quote(line)}") from None
    return answer


def _quote(line: str) -> str:
    return repr(line if len(line) <= 200 else line[:200] + "…")


class Child:
    """One bot program, started with :meth:`start`: lines to it (:meth:`send`), answers from it
    (:meth:`answer`), and its end (:meth:`finish`, :meth:`kill`). A writer and a reader thread
    carry the lines, so a child that stops reading never blocks the bridge.

    The reader holds at most :data:`AHEAD` lines the bridge has not asked for yet (each at most
    :data:`MAX_LINE` bytes): a child that writes faster than it is asked waits in its write, as
    a pipe makes a writer wait, and never fills the bridge's memory. A line longer than
    :data:`MAX_LINE` ends the reading (the answer it stands for is a protocol error naming the
    cap). The child runs in a process group of its own (a new session), and its end is the
    group's: every process it started, directly or under a wrapper script, is sent SIGTERM, then
    SIGKILL after :data:`TERM_S` seconds."""

    def __init__(self, command: Sequence[str], process: subprocess.Popen[bytes]) -> None:
        self.command = list(command)
        self.process = process
        self.name = f"the bot `{shlex.join(self.command)}`"
        self._outgoing: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._lines: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._room = threading.Semaphore(AHEAD)
        """A line the reader may read before the bridge takes one."""
        self._closed = threading.Event()
        threading.Thread(target=self._write, daemon=True, name="child-stdin").start()
        threading.Thread(target=self._read, daemon=True, name="child-stdout").start()

    @classmethod
    def start(cls, command: Sequence[str]) -> Child:
        """Start ``command`` in a session of its own, with this process's environment less its
        secrets, and its stderr; :class:`ChildError` if it cannot be started."""
        env = {k: v for k, v in os.environ.items() if k not in SECRETS}
        try:
            process = subprocess.Popen(
                list(command),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=env,
                start_new_session=True,
            )
        except OSError as err:
            raise ChildError(f"cannot start the bot `{shlex.join(command)}`: {err}") from None
        return cls(command, process)

    @property
    def waiting(self) -> int:
        """Lines the child wrote that the reader holds, not yet taken by :meth:`answer`."""
        return self._lines.qsize()

    def send(self, message: pb.PlayResponse) -> None:
        """Hand ``message`` to the child (queued: this never blocks)."""
        self._outgoing.put((message_line(message) + "\n").encode())

    def answer(self, decision_id: int, within_s: float) -> pb.Answer:
        """The child's next line as its Answer to ``decision_id``, waiting up to ``within_s``
        seconds for it (blank lines are skipped); :class:`ChildError` if none comes."""
        end = time.monotonic() + within_s
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                raise ChildError(
                    f"{self.name} did not answer decision {decision_id} within "
                    f"{within_s * 1000:.0f} ms, all the time the arena gave it: it is stuck, or "
                    "waits for input it will not get (it must answer each decision line with "
                    "one line, and flush its stdout)"
                ) from None
            if line is None:
                self._lines.put(None)  # every later call is told too
                raise ChildError(
                    f"{self.name} {self._gone()} before answering decision {decision_id}"
                )
            self._room.release()
            if len(line) > MAX_LINE:
                raise ChildError(
                    f"{self.name} answered decision {decision_id} with a line longer than "
                    f"{MAX_LINE} bytes, the most a line may hold"
                )
            try:
                text = line.decode()
            except UnicodeDecodeError:
                raise ChildError(
                    f"{self.name} answered decision {decision_id} with a line that is not UTF-8: "
                    f"{line[:100]!r}"
                ) from None
            if text.strip():
                return answer_from_line(text.strip(), decision_id, self.name)

    def finish(self) -> int | None:
        """The match is over: close the child's stdin and let it exit (killed after
        :data:`QUIT_S` seconds), then end what it left running in its group; its exit status,
        ``None`` if it had to be killed."""
        self._outgoing.put(None)
        try:
            code: int | None = self.process.wait(QUIT_S)
        except subprocess.TimeoutExpired:
            code = None
        self.kill()
        return code

    def terminate(self) -> None:
        """Send SIGTERM to the child's process group (:meth:`kill` ends it)."""
        self._signal(signal.SIGTERM)

    def kill(self, grace_s: float = TERM_S) -> None:
        """End the child's process group (SIGTERM, then SIGKILL after ``grace_s`` seconds to
        what still runs), reap the child, and stop reading it."""
        if self._signal(signal.SIGTERM):
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(grace_s)
            self._signal(signal.SIGKILL)
        self.process.wait()
        self._closed.set()
        self._room.release()  # a reader waiting for room sees it is closed
        self._outgoing.put(None)

    def _signal(self, signum: int) -> bool:
        """Send ``signum`` to every process of the child's group; False if none is left."""
        try:
            os.killpg(self.process.pid, signum)
        except (ProcessLookupError, PermissionError):
            return False
        return True

    def _gone(self) -> str:
        """How the child went: ``exited with status 3``, ``was killed by signal 9``, ..."""
        try:
            code = self.process.wait(1.0)
        except subprocess.TimeoutExpired:
            return "closed its stdout"
        if code < 0:
            return f"was killed by signal {-code}"
        return f"exited with status {code}"

    def _write(self) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        while (data := self._outgoing.get()) is not None:
            try:
                stdin.write(data)
                stdin.flush()
            except OSError:  # it exited: the reader sees its stdout close
                break
        with contextlib.suppress(OSError):
            stdin.close()

    def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        while True:
            self._room.acquire()
            if self._closed.is_set():
                break
            line = stdout.readline(MAX_LINE + 2)
            if not line:
                break
            if line.endswith(b"\n"):
                self._lines.put(line.rstrip(b"\r\n"))
            else:
                self._lines.put(line)
                if len(line) > MAX_LINE:
                    break  # a protocol error: nothing after it is read
        self._lines.put(None)
        with contextlib.suppress(OSError):
            stdout.close()
