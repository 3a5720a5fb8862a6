"""``run_bot(decide)``: a bot over protocol v2, with ``decide(view) -> Action`` in engine terms.

``run_bot`` plays the way the arena asks, read from the command line or the environment:

* ``--token TOKEN`` (``$ARENA_TOKEN``): a *session*. The process enters the arena once and is
  offered seats game after game, several at once (``--capacity``, default 4), each played on
  its own stream and thread; when the arena wants no more games it finishes the ones in hand
  and returns a :class:`~chaodipi_bot.session.SessionResult` (:mod:`chaodipi_bot.session`).
* ``--ticket TICKET`` (``$ARENA_TICKET``): one seat of one game (the arena's ``fresh = true``
  bots, and ``arena serve``'s printed tickets); it returns that game's :class:`MatchResult`.

Each seat's view is the engine's :class:`~engine.view.SeatView`: from the Snapshot the server
sends on every (re)connect, carried forward by the events each Decision brings
(:func:`engine.follow.follow`). ``decide`` gets that view with ``view.legal`` (the engine's
:class:`~engine.actions.LegalActions`: iterate it, test with ``in``) and returns an engine
action. Everything else is here: the arguments (``--address``, ``--token``, ``--capacity``,
``--ticket``, ``--name``), Hello, the deadline guard (``decide`` runs in a worker thread;
``margin_ms`` before the deadline a safe legal action goes instead), actions that are not legal
(replaced by a safe one, with a warning on stderr), refusals, and reconnects (a seat with the
same ticket, a session with the same token and instance id).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi_bot.seat import Decide, MatchResult, Seat, open_channel, play_seat
from chaodipi_bot.session import SessionResult, play_session
from chaodipi_bot.wire import PROTOCOL_VERSION

__all__ = ["DEFAULT_CAPACITY", "Decide", "MatchResult", "bot_arguments", "run_bot"]

DEFAULT_CAPACITY = 4
"""Seats a session asks to play at once unless told otherwise (``--capacity``)."""


def bot_arguments(description: str = "A bot for the 炒地皮 arena.") -> argparse.ArgumentParser:
    """The arguments every bot takes (``--address``, ``--token``, ``--capacity``,
    ``--ticket``, ``--name``); add your own. :func:`run_bot` reads these from the same command
    line by itself; pass it what you change, e.g. ``name=args.name`` after
    ``parser.set_defaults(name="mine")``.

    >>> args = bot_arguments().parse_args(["--token", "s3cret-token", "--capacity", "2"])
    >>> args.token, args.capacity
    ('s3cret-token', 2)
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--address",
        default=os.environ.get("ARENA_ADDRESS", "127.0.0.1:50051"),
        help="the arena server (default: $ARENA_ADDRESS or 127.0.0.1:50051)",
    )
    parser.add_argument(
        "--token",
        default=os.environ.get("ARENA_TOKEN", ""),
        help="session token: play the games the arena offers, several at once (default: "
        "$ARENA_TOKEN)",
    )
    parser.add_argument(
        "--capacity",
        type=int,
        default=DEFAULT_CAPACITY,
        help=f"with --token, games to play at once (default: {DEFAULT_CAPACITY})",
    )
    parser.add_argument(
        "--ticket",
        default=os.environ.get("ARENA_TICKET", ""),
        help="one seat's ticket: play that seat's game only (default: $ARENA_TICKET)",
    )
    parser.add_argument("--name", default="python-bot", help="name shown in logs and reports")
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
    margin_ms: int = 150,
    on_message: Callable[[pb.PlayResponse], None] | None = None,
) -> MatchResult | SessionResult:
    """Play what the arena offers: a session's games (a token), or one seat (a ticket).

    With a ticket, play that seat until its match ends and return its :class:`MatchResult`.
    With a session token (and no ticket), enter the arena asking for ``capacity`` games at once
    (default 4), play each seat it offers, and return a :class:`SessionResult` once the arena wants
    no more games and the games in hand are over (see :mod:`chaodipi_bot.session`).

    ``decide(view)`` answers every decision, of every game; in a session it is called from
    several threads at once, one per game. Or give ``new_game``, called once per game (in
    that game's thread), returning the ``decide`` for that game: a class with ``__call__``
    keeps per-game state without any bookkeeping::

        class Counting:
            def __init__(self) -> None:
                self.seen = 0          # this game only

            def __call__(self, view: SeatView) -> Action:
                self.seen += 1
                return view.legal.default()

        run_bot(new_game=Counting)

    ``address``, ``token``, ``capacity``, ``ticket`` and ``name`` default to ``--address``,
    ``--token``, ``--capacity``, ``--ticket`` and ``--name`` in ``argv`` (default
    ``sys.argv[1:]``; other arguments are ignored), then to the environment
    (:func:`bot_arguments`). A ticket wins over a token. ``decide`` runs in a worker thread:
    without an answer ``margin_ms`` before the deadline, a safe legal action goes instead
    (pass, or the first cards the legal set lists). A dropped stream is opened again up to
    ``reconnects`` times in a row (a seat with its ticket, a session with its token and
    instance id). ``on_message`` sees every server message on the seats' streams (for logs
    and tests; in a session, from several threads).

    Raises ``grpc.RpcError`` when the server refuses the ticket,
    :class:`~chaodipi_bot.session.SessionError` when it refuses the token (or the session is
    lost), whatever ``decide`` raises, and ``SystemExit`` with neither a ticket nor a token."""
    make = _per_game(decide, new_game)
    if address is None or name is None or (not ticket and None in (ticket, token, capacity)):
        parser = bot_arguments()
        parser.allow_abbrev = False  # another program's arguments (pytest's, say) stay theirs
        known, _ = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
        address = known.address if address is None else address
        token = known.token if token is None else token
        capacity = known.capacity if capacity is None else capacity
        ticket = known.ticket if ticket is None else ticket
        name = known.name if name is None else name
    assert address is not None and name is not None
    if ticket:
        return _play_ticket(
            make(), address, ticket, name, root_certificate, reconnects, margin_ms, on_message
        )
    if not token:
        raise SystemExit(
            "no session token and no ticket: pass --token TOKEN (or set ARENA_TOKEN) to play "
            "the games the arena offers, or --ticket TICKET (or set ARENA_TICKET) to play one "
            "seat"
        )
    capacity = DEFAULT_CAPACITY if capacity is None else capacity
    if capacity < 1:
        raise SystemExit(f"capacity (--capacity) must be at least 1, not {capacity}")
    return play_session(
        make,
        address=address,
        token=token,
        name=name,
        capacity=capacity,
        root_certificate=root_certificate,
        reconnects=reconnects,
        margin_ms=margin_ms,
        on_message=on_message,
    )


def _per_game(decide: Decide | None, new_game: Callable[[], Decide] | None) -> Callable[[], Decide]:
    """The function that gives each game its ``decide``."""
    if new_game is not None and decide is None:
        return new_game
    if decide is not None and new_game is None:
        same = decide
        return lambda: same
    raise TypeError("run_bot: give decide, or new_game (a function making a decide per game)")


def _play_ticket(
    decide: Decide,
    address: str,
    ticket: str,
    name: str,
    root_certificate: bytes | None,
    reconnects: int,
    margin_ms: int,
    on_message: Callable[[pb.PlayResponse], None] | None,
) -> MatchResult:
    """One seat until its match ends, a fresh channel for each connection."""
    seat = Seat(decide, margin_ms / 1000, on_message)
    hello = pb.Hello(ticket=ticket, protocol_version=PROTOCOL_VERSION, bot_name=name)

    def play_once() -> MatchResult:
        with open_channel(address, root_certificate) as channel:
            return seat.play_once(channel, hello)

    return play_seat(play_once, reconnects)
