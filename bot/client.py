"""``run_bot(decide)``: a bot over protocol v2, with ``decide(view) -> Action`` in engine terms.

``run_bot`` plays the way the arena asks, read from the environment (or the command line):

* ``$ARENA_TOKEN`` (or ``--token-file PATH``): a *session*. The process enters the arena once
  and is offered seats game after game, several at once (``--capacity``, default 4), each
  played on its own stream (a task on the process's one asyncio event loop); when the arena
  wants no more games it finishes the ones in hand and returns a
  :class:`~chaodipi.bot.session.SessionResult` (:mod:`chaodipi.bot.session`).
* ``$ARENA_TICKET``: one seat of one game (the arena's ``fresh = true`` bots, and ``arena
  serve``'s printed tickets); it returns that game's :class:`MatchResult`.

The arena hands a bot its token or ticket in the environment, never on its command line, which
every user of the machine can read (``ps``, ``/proc/PID/cmdline``); ``--token`` and
``--ticket`` still work, with a warning on stderr.

Each seat's view is the engine's :class:`~chaodipi.engine.view.SeatView`: from the Snapshot the
server sends on every (re)connect, carried forward by the events each Decision brings
(:func:`chaodipi.engine.follow.follow`). ``decide`` gets that view with ``view.legal`` (the engine's
:class:`~chaodipi.engine.actions.LegalActions`: iterate it, test with ``in``) and returns an engine
action. Everything else is here: the arguments (``--address``, ``--token-file``,
``--capacity``, ``--name``, ``--wait-for-arena``), Hello, where ``decide`` runs (inline once
it has shown itself quick, else in a worker thread under the deadline guard: ``margin_ms``
before the deadline a safe legal action goes instead; :mod:`chaodipi.bot.thinking`), refusals
(an illegal action is sent as it is: the server refuses it, and a safe one goes instead; every
safe action sent for ``decide`` is marked ``Answer.fallback``, which the arena counts),
waiting for an arena that does not listen yet, reconnects (a seat with the same ticket, a
session with the same token and instance id), and failures as one line
(:mod:`chaodipi.bot.errors`).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import threading
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.bot.errors import BotError
from chaodipi.bot.seat import Decide, MatchResult, Retries, Seat, play_ticket
from chaodipi.bot.session import SessionResult, play_session
from chaodipi.bot.thinking import Placement
from chaodipi.bot.token_file import read_token_file

__all__ = [
    "DEFAULT_CAPACITY",
    "DEFAULT_WAIT_S",
    "Decide",
    "MatchResult",
    "bot_arguments",
    "run_bot",
]

DEFAULT_CAPACITY = 4
"""Seats a session asks to play at once unless told otherwise (``--capacity``)."""

DEFAULT_WAIT_S = 30.0
"""Seconds a bot started before the arena listens keeps trying (``--wait-for-arena``)."""


def bot_arguments(description: str = "A bot for the 炒地皮 arena.") -> argparse.ArgumentParser:
    """The arguments every bot takes (``--address``, ``--token-file``, ``--capacity``,
    ``--name``, ``--wait-for-arena``, ``--bot-version``, ``--root-certificate``, and
    ``--token``, ``--ticket``, which
    put a secret where other users can read it); add your own. :func:`run_bot` reads these
    from the same command line by itself; pass it what you change, e.g. ``name=args.name``
    after ``parser.set_defaults(name="mine")``.

    >>> args = bot_arguments().parse_args(["--token-file", "/run/me/token", "--capacity", "2"])
    >>> args.token_file, args.capacity
    (PosixPath('/run/me/token'), 2)
    """
    parser = argparse.ArgumentParser(
        description=description,
        epilog="The session token comes from $ARENA_TOKEN (as the arena hands it) or "
        "--token-file, a seat's ticket from $ARENA_TICKET: never put either on the command "
        "line, where every user of the machine can read it.",
    )
    parser.add_argument(
        "--address",
        default=os.environ.get("ARENA_ADDRESS", "127.0.0.1:50051"),
        help="the arena server (default: $ARENA_ADDRESS or 127.0.0.1:50051)",
    )
    parser.add_argument(
        "--token-file",
        type=Path,
        metavar="PATH",
        help="read the session token from this file (keep it readable by you only); "
        "default: $ARENA_TOKEN",
    )
    parser.add_argument(
        "--token",
        default=os.environ.get("ARENA_TOKEN", ""),
        help="session token: play the games the arena offers, several at once. Prefer "
        "$ARENA_TOKEN or --token-file: other users can read a command line",
    )
    parser.add_argument(
        "--capacity",
        type=int,
        default=DEFAULT_CAPACITY,
        help=f"in a session, games to play at once (default: {DEFAULT_CAPACITY})",
    )
    parser.add_argument(
        "--ticket",
        default=os.environ.get("ARENA_TICKET", ""),
        help="one seat's ticket: play that seat's game only. Prefer $ARENA_TICKET: other "
        "users can read a command line",
    )
    parser.add_argument("--name", default="python-bot", help="name shown in logs and reports")
    parser.add_argument(
        "--root-certificate",
        type=Path,
        metavar="PEM",
        default=os.environ.get("ARENA_ROOT_CERTIFICATE") or None,
        help="connect over TLS, trusting this PEM certificate (the arena's own, or its CA's: "
        "a ladder served with tls_cert gives it out); default: $ARENA_ROOT_CERTIFICATE, or "
        "plaintext",
    )
    parser.add_argument(
        "--bot-version",
        default=os.environ.get("ARENA_BOT_VERSION", ""),
        metavar="VERSION",
        help="the version of the bot this process runs: a standing ladder rates each version "
        "apart, and a new one starts a new entry (default: $ARENA_BOT_VERSION, or none)",
    )
    parser.add_argument(
        "--wait-for-arena",
        type=float,
        default=DEFAULT_WAIT_S,
        metavar="SECONDS",
        help="keep trying this long to reach an arena that does not listen yet (default: "
        f"{DEFAULT_WAIT_S:g})",
    )
    return parser


def run_bot(
    decide: Decide | None = None,
    *,
    new_game: Callable[[], Decide] | None = None,
    address: str | None = None,
    token: str | None = None,
    capacity: int | None = None,
    ticket: str | None = None,
    name: str | None = None,
    argv: Sequence[str] | None = None,
    root_certificate: bytes | None = None,
    reconnects: int = 5,
    wait_for_arena: float | None = None,
    margin_ms: int = 150,
    on_message: Callable[[pb.PlayResponse], None] | None = None,
    exit_on_error: bool = True,
    decide_in_thread: bool | None = None,
    bot_version: str | None = None,
) -> MatchResult | SessionResult:
    """Play what the arena offers: a session's games (a token), or one seat (a ticket).

    With a ticket, play that seat until its match ends and return its :class:`MatchResult`.
    With a session token (and no ticket), enter the arena asking for ``capacity`` games at once
    (default 4), play each seat it offers, and return a :class:`SessionResult` once the arena wants
    no more games and the games in hand are over (see :mod:`chaodipi.bot.session`).

    ``decide(view)`` answers every decision, of every game; in a session it may be called
    from several threads at once (each game's worker thread). Or give ``new_game``, called
    once per game (as its stream opens), returning the ``decide`` for that game: a class with
    ``__call__`` keeps per-game state without any bookkeeping::

        class Counting:
            def __init__(self) -> None:
                self.seen = 0          # this game only

            def __call__(self, view: SeatView) -> Action:
                self.seen += 1
                return view.legal.default()

        run_bot(new_game=Counting)

    ``address``, ``token``, ``capacity``, ``ticket``, ``name``, ``wait_for_arena``,
    ``bot_version`` and ``root_certificate`` default to ``--address``, ``--token-file`` (or
    ``--token``), ``--capacity``, ``--ticket``, ``--name``, ``--wait-for-arena``,
    ``--bot-version`` and ``--root-certificate`` (the file's bytes: TLS) in ``argv`` (default
    ``sys.argv[1:]``; other arguments are ignored), then to the environment:
    ``$ARENA_ADDRESS``, ``$ARENA_TOKEN``, ``$ARENA_TICKET``, ``$ARENA_BOT_VERSION``,
    ``$ARENA_ROOT_CERTIFICATE`` (:func:`bot_arguments`). A token or ticket on the command line
    works, with a one-line warning on stderr: other users can read it there. A ticket wins over
    a token.
    ``decide_in_thread`` says where ``decide`` runs (:mod:`chaodipi.bot.thinking`): ``None``
    (the default) in a worker thread until 8 calls in a row took at most 5 ms each, then inline
    on the SDK's event loop until one is slower (then twice as many are wanted before the next
    go inline); ``True`` always in the worker thread; ``False``
    always inline. In the worker thread, without an answer ``margin_ms`` before the deadline, a
    safe legal action goes instead (pass, or the first cards the legal set lists); an inline
    ``decide`` is never interrupted. What ``decide`` returns is sent as it is: the server
    checks it, and answers an illegal action with a refusal, after which a safe legal action
    goes instead (what is no action at all is replaced at once, with a line on stderr). Until the
    arena first answers, a refused connection is tried again for up to ``wait_for_arena``
    seconds (default 30: the arena may not listen yet), with one line on stderr. After that, a
    dropped stream is opened again up to ``reconnects`` times in a row (a seat with its ticket,
    a session with its token and instance id). ``on_message`` sees every server message on the
    seats' streams (for logs and tests), on the SDK's event loop (one thread).

    When the arena refuses the ticket or the token, cannot be reached, or the session or seat
    is lost, ``run_bot`` exits with one line saying what was wrong and what to do
    (``SystemExit(message)``: status 1, no traceback); with ``exit_on_error=False`` it raises
    that :class:`~chaodipi.bot.errors.BotError` instead
    (:class:`~chaodipi.bot.errors.SeatError` for a ticket,
    :class:`~chaodipi.bot.errors.SessionError` for a token). Whatever ``decide`` raises is
    raised (a bug in the bot, with its traceback), and bad arguments (neither a ticket nor a
    token, say) are ``SystemExit``."""
    make = _per_game(decide, new_game)
    if root_certificate is None:
        root_certificate = _root_certificate(argv)
    missing = None in (address, name, wait_for_arena, bot_version)
    if missing or (not ticket and None in (ticket, token, capacity)):
        parser = bot_arguments()
        parser.allow_abbrev = False  # another program's arguments (pytest's, say) stay theirs
        words = list(sys.argv[1:] if argv is None else argv)
        known, _ = parser.parse_known_args(words)
        address = known.address if address is None else address
        if token is None:
            token = _token(known, words)
        capacity = known.capacity if capacity is None else capacity
        if ticket is None:
            ticket = known.ticket
            if ticket and _given(words, "--ticket"):
                _warn("--ticket", "$ARENA_TICKET")
        name = known.name if name is None else name
        wait_for_arena = known.wait_for_arena if wait_for_arena is None else wait_for_arena
        bot_version = known.bot_version if bot_version is None else bot_version
    assert address is not None and name is not None and wait_for_arena is not None
    assert bot_version is not None
    placement = Placement(decide_in_thread)
    try:
        if ticket:
            return _run(
                _play_ticket(
                    make(),
                    address,
                    ticket,
                    name,
                    root_certificate,
                    Retries(reconnects=reconnects, wait_s=wait_for_arena, address=address),
                    margin_ms,
                    on_message,
                    placement,
                )
            )
        if not token:
            raise SystemExit(
                "no session token and no ticket: set ARENA_TOKEN (or pass --token-file PATH) to "
                "play the games the arena offers, or set ARENA_TICKET to play one seat (--token "
                "TOKEN and --ticket TICKET work too, but other users can read a command line)"
            )
        capacity = DEFAULT_CAPACITY if capacity is None else capacity
        if capacity < 1:
            raise SystemExit(f"capacity (--capacity) must be at least 1, not {capacity}")
        return _run(
            play_session(
                make,
                address=address,
                token=token,
                name=name,
                capacity=capacity,
                root_certificate=root_certificate,
                reconnects=reconnects,
                wait_s=wait_for_arena,
                margin_ms=margin_ms,
                on_message=on_message,
                placement=placement,
                bot_version=bot_version,
            )
        )
    except BotError as err:
        if exit_on_error:
            raise SystemExit(str(err)) from None
        raise


_Result = TypeVar("_Result")


def _run(play: Coroutine[Any, Any, _Result]) -> _Result:
    """``play`` on an event loop of its own: this thread's, or, when this thread already runs
    one (``run_bot`` called from async code, a notebook), a thread's of its own."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(play)
    outcome: list[_Result] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(asyncio.run(play))
        except BaseException as err:  # raised in the caller's thread
            failure.append(err)

    thread = threading.Thread(target=run, name="run_bot")
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
    return outcome[0]


def _root_certificate(argv: Sequence[str] | None) -> bytes | None:
    """The PEM certificate ``--root-certificate`` (or $ARENA_ROOT_CERTIFICATE) names, if any."""
    parser = bot_arguments()
    parser.allow_abbrev = False
    known, _ = parser.parse_known_args(list(sys.argv[1:] if argv is None else argv))
    if known.root_certificate is None:
        return None
    try:
        return bytes(known.root_certificate.read_bytes())
    except OSError as err:
        raise SystemExit(
            f"cannot read the root certificate (--root-certificate) {known.root_certificate}: "
            f"{err.strerror}"
        ) from None


def _token(known: argparse.Namespace, words: list[str]) -> str:
    """The session token: ``--token`` (with a warning), ``--token-file``, or $ARENA_TOKEN."""
    if _given(words, "--token"):
        if known.token:
            _warn("--token", "$ARENA_TOKEN or --token-file PATH")
        return str(known.token)
    if known.token_file is not None:
        try:
            token = read_token_file(known.token_file)
        except (OSError, UnicodeDecodeError) as err:
            raise SystemExit(f"cannot read the session token (--token-file): {err}") from None
        if not token:
            raise SystemExit(f"the session token file {known.token_file} is empty")
        return token
    return str(known.token)


def _given(words: list[str], option: str) -> bool:
    """``option`` is on the command line (as ``--token X`` or ``--token=X``)."""
    return any(word == option or word.startswith(option + "=") for word in words)


def _warn(option: str, instead: str) -> None:
    print(
        f"warning: {option} puts a secret on the command line, which every user of this "
        f"machine can read (ps, /proc): pass it in {instead} instead",
        file=sys.stderr,
        flush=True,
    )


def _per_game(decide: Decide | None, new_game: Callable[[], Decide] | None) -> Callable[[], Decide]:
    """The function that gives each game its ``decide``."""
    if new_game is not None and decide is None:
        return new_game
    if decide is not None and new_game is None:
        same = decide
        return lambda: same
    raise TypeError("run_bot: give decide, or new_game (a function making a decide per game)")


async def _play_ticket(
    decide: Decide,
    address: str,
    ticket: str,
    name: str,
    root_certificate: bytes | None,
    retries: Retries,
    margin_ms: int,
    on_message: Callable[[pb.PlayResponse], None] | None,
    placement: Placement,
) -> MatchResult:
    """One seat until its match ends, a fresh channel for each connection."""
    seat = Seat(decide, margin_ms / 1000, on_message, placement)
    return await play_ticket(
        seat,
        address=address,
        ticket=ticket,
        name=name,
        root_certificate=root_certificate,
        retries=retries,
    )
