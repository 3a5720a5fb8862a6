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
is over, the child's stdin is closed and it should exit.

A child that fails ends the bridge with one line on stderr and exit status 1, so that the
arena sees the bot go and records its games as forfeits (as a Python bot's exception does, and
as chess GUIs score a crashed or stalled engine): a child that cannot be started, exits or
closes its stdout before answering, does not answer within the time its decision allows
(``deadlineMs`` + ``bankMs``), writes a line that is not an ``Answer``, or whose answer the
arena refuses as illegal or malformed. A failure of the arena's (a wrong ticket or token, no
arena at the address, a seat lost past its retries) is one line and status 1 as well, as
:func:`chaodipi.bot.run_bot` reports it.

The arena appends ``--address HOST:PORT`` to a bot's command line: when ``COMMAND`` ends with
``--address HOST:PORT`` (or ``--address=HOST:PORT``), that is the bridge's, not the child's.
docs/writing-a-bot.md ("Any language: the stdio bridge") has a 20-line bot.
"""

from __future__ import annotations

import argparse
import contextlib
import queue
import secrets
import shlex
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import grpc

from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import arena_pb2_grpc, convert
from chaodipi.arena.v2.convert import MatchEnd
from chaodipi.bot.child import Child, ChildError
from chaodipi.bot.client import bot_arguments
from chaodipi.bot.errors import BotError, SessionError, status_text, unreachable
from chaodipi.bot.seat import Retries, open_channel, retried, seat_error

__all__ = ["Bridge", "main", "split_command"]

PROG = "python -m chaodipi.bot.stdio"
USAGE = "give the bot's command after --, e.g. `{prog} -- node bot.js`"

EXIT_CODES = """\
The session token comes from $ARENA_TOKEN (as the arena hands it) or --token-file, a seat's
ticket from $ARENA_TICKET: never put either on the command line. The arena's --address,
appended to COMMAND, is the bridge's.

exit codes:
  0    the seat's match, or the session, played to its end (whoever won)
  1    the bot failed (could not start, exited, hung, wrote what is not an Answer, answered
       what the arena refused) or the arena refused the bridge, could not be reached or was
       lost: the line on stderr says which
  2    the command line cannot run (the line on stderr says why)"""


class _Parser(argparse.ArgumentParser):
    """Bad arguments are one line on stderr and status 2, as the ``arena`` commands'."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message}", file=sys.stderr)
        sys.exit(2)


_REFUSED_ANSWER = {pb.REFUSAL_CODE_ILLEGAL, pb.REFUSAL_CODE_MALFORMED}
"""Refusals of an answer the child chose: its failure."""


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
    return 0


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
        token = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"cannot read the session token (--token-file): {err}") from None
    if not token:
        raise ValueError(f"the session token file {path} is empty")
    return token


class Bridge:
    """Plays seats with one child per seat: :meth:`play_ticket` for one, :meth:`play_session`
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
        self._children: set[Child] = set()
        self._lock = threading.Lock()

    def kill_all(self) -> None:
        """Kill every child still running (the bridge is giving up)."""
        with self._lock:
            children, self._children = list(self._children), set()
        for child in children:
            child.kill()

    def play_ticket(self, ticket: str) -> MatchEnd:
        """One seat to its end, a fresh channel for each connection (as the SDK does)."""

        def connect() -> grpc.Channel:
            return open_channel(self.address, self.root_certificate)

        return self._play(ticket, connect, contacted=False)

    def play_seat(self, ticket: str, channel: grpc.Channel) -> MatchEnd:
        """One seat a session was offered, on the session's ``channel``."""
        return self._play(ticket, lambda: channel, contacted=True, close=False)

    def _play(
        self,
        ticket: str,
        connect: Callable[[], grpc.Channel],
        *,
        contacted: bool,
        close: bool = True,
    ) -> MatchEnd:
        child = Child.start(self.command)
        with self._lock:
            self._children.add(child)
        seat = _Seat(child)
        hello = convert.hello(ticket, self.name)
        retries = Retries(
            reconnects=self.reconnects, wait_s=0 if contacted else self.wait_s, address=self.address
        )
        try:
            while True:
                before = seat.messages
                channel = connect()
                try:
                    end = seat.play_once(channel, hello)
                except grpc.RpcError as err:
                    error: grpc.RpcError | ConnectionError = err
                    code: grpc.StatusCode | None = err.code()
                except ConnectionError as err:
                    error, code = err, None
                else:
                    winner = "a draw" if end.winner is None else f"team {end.winner} won"
                    print(
                        f"match over: {winner} in {end.hands} hands ({end.reason})",
                        file=sys.stderr,
                    )
                    status = child.finish()
                    if status != 0:
                        how = (
                            "had to be killed" if status is None else f"exited with status {status}"
                        )
                        print(f"warning: {child.name} {how} after its match", file=sys.stderr)
                    return end
                finally:
                    if close:
                        channel.close()
                if seat.messages > before:
                    retries.answered()
                reached = contacted or seat.messages > 0
                if not retries.again(code, reached=reached):
                    raise seat_error(error, retries, reached) from None
        finally:
            child.kill()
            with self._lock:
                self._children.discard(child)

    def play_session(self, token: str, capacity: int) -> tuple[str, int, int]:
        """Enter with ``token`` and play every seat offered until the arena wants no more: the
        session's name, the games played, the seats given up."""
        request = convert.enter_request(
            token, bot_name=self.name, capacity=capacity, instance=secrets.token_hex(8)
        )
        with open_channel(self.address, self.root_certificate) as channel:
            return _Session(self, channel).run(request)


class _Seat:
    """One seat's streams: every message to the child, its answers to the server."""

    def __init__(self, child: Child) -> None:
        self.child = child
        self.messages = 0
        """Messages the server sent this seat, over all its streams."""

    def play_once(self, channel: grpc.Channel, hello: pb.PlayRequest) -> MatchEnd:
        outgoing: queue.SimpleQueue[pb.PlayRequest | None] = queue.SimpleQueue()

        def requests() -> Iterator[pb.PlayRequest]:
            yield hello
            while (request := outgoing.get()) is not None:
                yield request

        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        end: MatchEnd | None = None
        try:
            for message in (call := stub.Play(requests())):
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
                    decision = message.decision
                    within_s = (decision.deadline_ms + decision.bank_ms) / 1000
                    answer = self.child.answer(decision.decision_id, within_s)
                    outgoing.put(pb.PlayRequest(answer=answer))
                elif kind == "refused":
                    self._refused(message.refused)
                elif kind == "match_over":
                    end = convert.match_end_from_message(message.match_over)[0]
                    break
        finally:
            outgoing.put(None)
        if end is None:
            raise ConnectionError("the server ended the stream before the match was over")
        # read the stream to its status, as the server ends it: dropping the call at once
        # could cut the server off before it is done with the seat
        with contextlib.suppress(grpc.RpcError):
            for _ in call:
                pass
        return end

    def _refused(self, refused: pb.Refused) -> None:
        code = pb.RefusalCode.Name(refused.code)
        if refused.code in _REFUSED_ANSWER:
            raise ChildError(
                f"the arena refused the answer of {self.child.name} to decision "
                f"{refused.decision_id} ({code}: {refused.reason})"
            )
        # an answer that came as the clock ran out: the arena played for the seat
        print(f"{self.child.name}: refused ({code}): {refused.reason}", file=sys.stderr)


@dataclass(frozen=True, slots=True)
class _EnterEnded:
    error: BaseException | None
    """``None``: the session's stream ended with status OK."""


@dataclass(frozen=True, slots=True)
class _SeatEnded:
    ticket: str
    error: BaseException | None


_HINTS = {
    grpc.StatusCode.UNAUTHENTICATED: "check the token in $ARENA_TOKEN (or --token-file)",
    grpc.StatusCode.ABORTED: "another process entered with the same token",
}


class _Session:
    """The main thread's loop over the session's stream and its seats' ends, as the SDK's
    (:mod:`chaodipi.bot.session`): re-entered with the same instance id when the stream drops;
    a seat offered again while in play or over is not played twice."""

    def __init__(self, bridge: Bridge, channel: grpc.Channel) -> None:
        self.bridge = bridge
        self.channel = channel
        self.stub = arena_pb2_grpc.ArenaServiceStub(channel)
        self.retries = Retries(
            reconnects=bridge.reconnects, wait_s=bridge.wait_s, address=bridge.address
        )
        self.items: queue.SimpleQueue[pb.EnterResponse | _EnterEnded | _SeatEnded] = (
            queue.SimpleQueue()
        )
        self.session = ""
        self.in_play: set[str] = set()
        self.finished: set[str] = set()
        self.games = 0
        self.lost = 0

    def run(self, request: pb.EnterRequest) -> tuple[str, int, int]:
        self._enter(request)
        open_ = True
        failure: SessionError | None = None
        while open_ or self.in_play:
            item = self.items.get()
            if isinstance(item, _SeatEnded):
                self._seat_ended(item)
            elif isinstance(item, _EnterEnded):
                error = item.error
                if error is None:
                    open_ = False
                elif not isinstance(error, grpc.RpcError):
                    raise error
                elif self.retries.again(error.code(), reached=bool(self.session)):
                    print(
                        f"session {self.session or '(not entered)'}: {status_text(error)}: "
                        "entering again",
                        file=sys.stderr,
                    )
                    self._enter(request)
                else:
                    open_ = False
                    failure = self._failure(error)
            elif item.WhichOneof("message") == "entered":
                self.retries.answered()
                again = "re-entered" if self.session else "entered"
                self.session = item.entered.session
                print(
                    f"{again} session {self.session} (up to {item.entered.capacity} games at once)",
                    file=sys.stderr,
                )
            elif item.WhichOneof("message") == "seat":
                self._offered(item.seat)
        if failure is not None:
            raise failure
        return self.session, self.games, self.lost

    def _enter(self, request: pb.EnterRequest) -> None:
        call = self.stub.Enter(request)
        threading.Thread(target=self._read, args=(call,), daemon=True, name="session").start()

    def _read(self, call: Iterator[pb.EnterResponse]) -> None:
        try:
            for message in call:
                self.items.put(message)
        except BaseException as err:  # handed to the main thread
            self.items.put(_EnterEnded(err))
        else:
            self.items.put(_EnterEnded(None))

    def _failure(self, error: grpc.RpcError) -> SessionError | None:
        """What an Enter stream that ended with ``error`` for good means (None: the run is
        over)."""
        code, address = error.code(), self.bridge.address
        refused = code in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.FAILED_PRECONDITION)
        if refused and self.session:
            print(
                f"session {self.session}: the arena no longer takes its token: its run is over",
                file=sys.stderr,
            )
            return None
        if code == grpc.StatusCode.UNAVAILABLE and not self.session:
            return unreachable(SessionError, address, error, self.retries.waited_s())
        if refused:
            what = f"the arena at {address} refused the session"
        elif self.session:
            what = f"session {self.session} at {address} was lost {retried(self.retries)}"
        else:
            what = f"could not enter the arena at {address} {retried(self.retries)}"
        hint = _HINTS.get(code)
        return SessionError(f"{what} ({status_text(error)})" + (f": {hint}" if hint else ""), code)

    def _offered(self, offer: pb.SeatOffer) -> None:
        if offer.ticket in self.in_play or offer.ticket in self.finished:
            return  # offered again after a re-enter: in play already, or over
        self.in_play.add(offer.ticket)
        threading.Thread(
            target=self._play, args=(offer.ticket,), daemon=True, name=f"seat-{offer.seat}"
        ).start()

    def _play(self, ticket: str) -> None:
        try:
            self.bridge.play_seat(ticket, self.channel)
        except BaseException as err:  # handed to the main thread
            self.items.put(_SeatEnded(ticket, err))
        else:
            self.items.put(_SeatEnded(ticket, None))

    def _seat_ended(self, ended: _SeatEnded) -> None:
        self.in_play.discard(ended.ticket)
        error = ended.error
        if error is None:
            self.finished.add(ended.ticket)
            self.games += 1
            return
        if not isinstance(error, BotError):
            raise error  # the child failed (ChildError), or a bug: the bridge gives up
        if error.code == grpc.StatusCode.NOT_FOUND:
            self.finished.add(ended.ticket)
        self.lost += 1
        print(f"session {self.session}: {error}; that seat is given up", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
