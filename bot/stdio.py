"""The stdio bridge: a bot in any language that reads and writes JSON lines plays in the arena.

::

    python -m chaodipi.bot.stdio [--name NAME] [--capacity N] -- COMMAND [ARGS...]
    arena stdio [--name NAME] [--capacity N] -- COMMAND [ARGS...]      (the same)

The bridge is the bot as the arena sees it: it connects over gRPC like any bot, its session
token or ticket from the environment (``$ARENA_TOKEN``, ``$ARENA_TICKET``) or
``--token-file``, plays the seats the arena offers, several at once (``--capacity``), and
reconnects when a stream drops. For each seat it starts ``COMMAND`` once, without the secrets
in its environment, and speaks to it one JSON object per line (:mod:`chaodipi.bot.child`):
every message the server sends the seat goes to the child's stdin as a ``PlayResponse`` in the
proto3 JSON mapping; for each one holding a ``decision`` the child writes one ``Answer`` line to
its stdout. The same messages as the gRPC bots', so there is no second schema. When the match
is over, the child's stdin is closed and it should exit. Each child runs in a process group of
its own, and when its match is over or the bridge ends (SIGTERM included) the whole group is
ended, SIGTERM then SIGKILL: nothing a child starts, directly or under a wrapper script,
outlives the bridge. The bridge holds a few lines of a child's that it has not asked for yet,
no more (a child that writes faster waits in its write), each at most 64 KiB.

An answer the arena refuses as illegal or malformed (a ``refused`` line, which the child is
sent and never answers) is answered by the bridge, once per decision, with the safe legal
action a Strike would play, marked ``fallback`` (``Answer.fallback``: the arena counts it
against the bot), and a line on stderr says so; a second refusal of the same decision is left
to the clock. Every kit does the same (docs/writing-a-bot.md). A child may mark its own answer
``"fallback": true`` when its code did not choose it.

A child that fails ends the bridge with one line on stderr and exit status 1, so that the
arena sees the bot go and records its games as forfeits (as a Python bot's exception does, and
as chess GUIs score a crashed or stalled engine): a child that cannot be started, exits or
closes its stdout before answering, does not answer within the time its decision allows
(``deadlineMs`` + ``bankMs``), or writes a line that is not an ``Answer``. A failure of the
arena's (a wrong ticket or token, no arena at the address, a seat lost past its retries) is
one line and status 1 as well, as :func:`chaodipi.bot.run_bot` reports it.

The arena appends ``--address HOST:PORT`` to a bot's command line: when ``COMMAND`` ends with
``--address HOST:PORT`` (or ``--address=HOST:PORT``), that is the bridge's, not the child's.
docs/writing-a-bot.md ("Any language: the stdio bridge") has a 20-line bot.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

import grpc
import grpc.aio

from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import arena_pb2_grpc, convert
from chaodipi.bot.child import TERM_S, Child, ChildError
from chaodipi.bot.client import bot_arguments
from chaodipi.bot.errors import BotError
from chaodipi.bot.seat import MatchResult, Retries, play_ticket, send_request
from chaodipi.bot.session import play_seats
from chaodipi.bot.token_file import read_token_file

__all__ = ["Bridge", "ChildSeat", "main", "split_command"]

PROG = "python -m chaodipi.bot.stdio"
USAGE = "give the bot's command after --, e.g. `{prog} -- node bot.js`"

EXIT_CODES = """\
The session token comes from $ARENA_TOKEN (as the arena hands it) or --token-file, a seat's
ticket from $ARENA_TICKET: never put either on the command line. The arena's --address,
appended to COMMAND, is the bridge's.

exit codes:
  0    the seat's match, or the session, played to its end (whoever won)
  1    the bot failed (could not start, exited, hung, wrote what is not an Answer) or the
       arena refused the bridge, could not be reached or was lost: the line on stderr says
       which (an answer the arena refuses is answered again by the bridge with a safe legal
       action, marked as a fallback: the bot plays on)
  2    the command line cannot run (the line on stderr says why)"""


class _Parser(argparse.ArgumentParser):
    """Bad arguments are one line on stderr and status 2, as the ``arena`` commands'."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message}", file=sys.stderr)
        sys.exit(2)


_REFUSED_ANSWER = {pb.REFUSAL_CODE_ILLEGAL, pb.REFUSAL_CODE_MALFORMED}
"""Refusals of an answer the child chose: the decision stays open, and the bridge answers it."""


def split_command(words: Sequence[str]) -> tuple[list[str], list[str], str | None]:
    """The bridge's options, the child's command, and the ``--address`` the arena appended to
    it (``None`` if not there).

    >>> split_command(["--name", "p", "--", "perl", "bot.pl", "--address", "h:1"])
    (['--name', 'p'], ['perl', 'bot.pl'], 'h:1')
    >>> split_command(["--", "node", "bot.js", "--address=h:1"])
    ([], ['node', 'bot.js'], 'h:1')
    >>> split_command(["node", "bot.js"])
    (['node', 'bot.js'], [], None)
    """
    words = list(words)
    if "--" not in words:
        return words, [], None
    cut = words.index("--")
    options, command = words[:cut], words[cut + 1 :]
    address = None
    if len(command) >= 3 and command[-2] == "--address":
        address, command = command[-1], command[:-2]
    elif len(command) >= 2 and command[-1].startswith("--address="):
        address, command = command[-1].removeprefix("--address="), command[:-1]
    return options, command, address


def main(argv: Sequence[str] | None = None, prog: str = PROG) -> int:
    """Run the bridge on ``argv`` (default ``sys.argv[1:]``); the exit status."""
    options, command, appended = split_command(sys.argv[1:] if argv is None else argv)
    parser = _Parser(
        prog=prog,
        usage=f"{prog} [OPTIONS] -- COMMAND [ARGS...]",
        description="Play a bot that speaks JSON lines on stdin/stdout (the proto3 JSON mapping "
        "of the arena's messages) in the arena: COMMAND is started once per seat.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[bot_arguments()],
        add_help=False,
    )
    parser.set_defaults(name="stdio-bot")
    args, unknown = parser.parse_known_args(options)
    if unknown or not command:
        given = f"`{shlex.join(unknown)}` is not an option of the bridge: " if unknown else ""
        parser.error(given + USAGE.format(prog=prog))
    address = appended or args.address
    try:
        ticket, token = _secret(args, options)
    except ValueError as err:
        print(f"{prog}: {err}", file=sys.stderr)
        return 2
    bridge = Bridge(command, address=address, name=args.name, wait_s=args.wait_for_arena)
    _end_on_sigterm(bridge)
    try:
        if ticket:
            bridge.play_ticket(ticket)
        else:
            if args.capacity < 1:
                print(
                    f"{prog}: --capacity must be at least 1, not {args.capacity}", file=sys.stderr
                )
                return 2
            session, games, lost = bridge.play_session(token, args.capacity)
            given_up = f", {lost} given up" if lost else ""
            print(f"session over: {games} seats played{given_up} ({session})", file=sys.stderr)
    except (ChildError, BotError) as err:
        bridge.kill_all()
        print(err, file=sys.stderr, flush=True)
        return 1
    finally:
        bridge.kill_all()
    return 0


def _end_on_sigterm(bridge: Bridge) -> None:
    """SIGTERM (the arena ending the bridge) ends every child's process group first, then the
    bridge (status 143): no process a child started outlives the bridge."""
    if threading.current_thread() is not threading.main_thread():
        return  # only the main thread may handle signals (a test calling main in a thread)
    signal.signal(signal.SIGTERM, lambda signum, _frame: bridge.end(signum))


def _secret(args: argparse.Namespace, words: list[str]) -> tuple[str, str]:
    """The seat's ticket and the session token (either may be empty), as the SDK reads them:
    ``--ticket``, ``--token`` (each with a warning), ``--token-file``, then the environment."""
    given = {
        option: any(w == option or w.startswith(option + "=") for w in words)
        for option in ("--ticket", "--token")
    }
    for option, instead in (("--ticket", "$ARENA_TICKET"), ("--token", "$ARENA_TOKEN")):
        if given[option]:
            print(
                f"warning: {option} puts a secret on the command line, which every user of "
                f"this machine can read (ps, /proc): pass it in {instead} instead",
                file=sys.stderr,
            )
    token = str(args.token)
    if args.token_file is not None and not given["--token"]:
        token = _read_token(args.token_file)
    if not args.ticket and not token:
        raise ValueError(
            "no session token and no ticket: the arena hands one in $ARENA_TOKEN or "
            "$ARENA_TICKET (or pass --token-file PATH)"
        )
    return str(args.ticket), token


def _read_token(path: Path) -> str:
    try:
        token = read_token_file(path)
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"cannot read the session token (--token-file): {err}") from None
    if not token:
        raise ValueError(f"the session token file {path} is empty")
    return token


class Bridge:
    """Plays seats with one child per seat, on the SDK's own ticket and session loops
    (:func:`chaodipi.bot.seat.play_ticket`, :func:`chaodipi.bot.session.play_seats`): a
    :class:`ChildSeat` for each seat. :meth:`play_ticket` for one seat, :meth:`play_session`
    for a session's."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        address: str,
        name: str,
        root_certificate: bytes | None = None,
        reconnects: int = 5,
        wait_s: float = 30.0,
    ) -> None:
        self.command = list(command)
        self.address = address
        self.name = name
        self.root_certificate = root_certificate
        self.reconnects = reconnects
        self.wait_s = wait_s
        self._seats: set[ChildSeat] = set()
        self._starting = False
        """A child is being started and is not among the seats yet."""
        self._ending: int | None = None
        """The signal that came while a child was being started."""

    def kill_all(self) -> None:
        """End every child still running, with its process group (the bridge is ending): all
        are sent SIGTERM at once, and what runs :data:`~chaodipi.bot.child.TERM_S` seconds
        later is killed."""
        seats = list(self._seats)
        for seat in seats:
            seat.child.terminate()
        end = time.monotonic() + TERM_S
        for seat in seats:
            seat.close(grace_s=max(0.0, end - time.monotonic()))

    def play_ticket(self, ticket: str) -> MatchResult:
        """One seat to its end, a fresh channel for each connection (as the SDK does)."""
        retries = Retries(reconnects=self.reconnects, wait_s=self.wait_s, address=self.address)
        return asyncio.run(
            play_ticket(
                self._new_seat(),
                address=self.address,
                ticket=ticket,
                name=self.name,
                root_certificate=self.root_certificate,
                retries=retries,
            )
        )

    def play_session(self, token: str, capacity: int) -> tuple[str, int, int]:
        """Enter with ``token`` and play every seat offered until the arena wants no more: the
        session's name, the games played, the seats given up."""
        result = asyncio.run(
            play_seats(
                self._new_seat,
                address=self.address,
                token=token,
                name=self.name,
                capacity=capacity,
                root_certificate=self.root_certificate,
                reconnects=self.reconnects,
                wait_s=self.wait_s,
            )
        )
        return result.session, len(result.games), result.lost

    def end(self, signum: int) -> None:
        """``signum`` came (SIGTERM): end every child and exit with status 128 + ``signum``;
        when it comes while a child is being started, once that child is among the seats."""
        if self._starting:
            self._ending = signum
            return
        self.kill_all()
        raise SystemExit(128 + signum)

    def _new_seat(self) -> ChildSeat:
        self._starting = True
        try:
            seat = ChildSeat(Child.start(self.command), self._seats.discard)
            self._seats.add(seat)
        finally:
            self._starting = False
        if self._ending is not None:
            self.end(self._ending)
        return seat


class ChildSeat:
    """One seat played by one child (a :class:`~chaodipi.bot.seat.SeatPlayer`): every
    message the server sends goes to the child, and the child's line answers each Decision.
    The child lives as long as the seat, across reconnects."""

    def __init__(self, child: Child, on_close: Callable[[ChildSeat], None]) -> None:
        self.child = child
        self.on_close = on_close
        self.messages = 0
        """Messages the server sent this seat, over all its streams."""
        self.open: pb.Decision | None = None
        """The decision answered last, while the arena may still refuse its answer."""
        self.refused: set[int] = set()
        """Decisions answered for the child after a refusal (once each: then the clock)."""

    async def play_once(self, channel: grpc.aio.Channel, hello: pb.PlayRequest) -> MatchResult:
        call = arena_pb2_grpc.ArenaServiceStub(channel).Play()
        try:
            await send_request(call, hello)
            while (message := await call.read()) is not grpc.aio.EOF:
                assert isinstance(message, pb.PlayResponse)
                self.messages += 1
                self.child.send(message)
                kind = message.WhichOneof("response")
                if kind == "welcome":
                    welcome = message.welcome
                    self.child.name = (
                        f"the bot `{shlex.join(self.child.command)}` "
                        f"(seat {welcome.seat} of table {welcome.table})"
                    )
                elif kind == "decision":
                    decision = self.open = message.decision
                    within_s = (decision.deadline_ms + decision.bank_ms) / 1000
                    answer = await asyncio.to_thread(
                        self.child.answer, decision.decision_id, within_s
                    )
                    await send_request(call, pb.PlayRequest(answer=answer))
                elif kind == "refused":
                    again = self._refused(message.refused)
                    if again is not None:
                        await send_request(call, again)
                elif kind == "strike":
                    self.open = None
                elif kind == "match_over":
                    await call.done_writing()
                    return await self._over(message.match_over)
        finally:
            if not call.done():
                call.cancel()
        raise ConnectionError("the server ended the stream before the match was over")

    async def _over(self, message: pb.MatchOver) -> MatchResult:
        result = MatchResult(convert.outcome_from_message(message)[0], view=None)
        print(result, file=sys.stderr, flush=True)
        status = await asyncio.to_thread(self.child.finish)
        if status != 0:
            how = "had to be killed" if status is None else f"exited with status {status}"
            print(f"warning: {self.child.name} {how} after its match", file=sys.stderr)
        return result

    def _refused(self, refused: pb.Refused) -> pb.PlayRequest | None:
        """Say the refusal on stderr; the answer the bridge sends for the child, if any: the
        safe legal action marked ``fallback``, once for each decision whose answer the arena
        refused as illegal or malformed."""
        code = pb.RefusalCode.Name(refused.code)
        said = f"{self.child.name}: refused ({code}): {refused.reason}"
        decision = self.open
        if (
            refused.code not in _REFUSED_ANSWER
            or decision is None
            or refused.decision_id != decision.decision_id
            or refused.decision_id in self.refused
        ):
            # an answer that came as the clock ran out (the arena played for the seat), or a
            # second refusal of one decision (the clock decides)
            print(said, file=sys.stderr, flush=True)
            return None
        self.refused.add(refused.decision_id)
        print(
            f"{said}; the bridge answered the safe legal action for it (counted as a fallback "
            "in the report): answer one of the decision's legal actions",
            file=sys.stderr,
            flush=True,
        )
        legal = convert.legal_from_message(decision.legal)
        return convert.fallback_answer(decision.decision_id, legal)

    def close(self, grace_s: float = TERM_S) -> None:
        self.child.kill(grace_s)
        self.on_close(self)


if __name__ == "__main__":
    sys.exit(main())
