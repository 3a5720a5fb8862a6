"""``run_bot(decide)``: play one seat over protocol v2, with ``decide(view) -> Action`` in engine
terms.

The SDK keeps the seat's view as the engine's :class:`~engine.view.SeatView`: from the
Snapshot the server sends on every (re)connect, carried forward by the events each Decision
brings (:func:`engine.follow.follow`). ``decide`` gets that view with ``view.legal`` (the
engine's :class:`~engine.actions.LegalActions`: iterate it, test with ``in``) and returns an
engine action. Everything else is here: the arguments (``--address``, ``--ticket``, or
``$ARENA_ADDRESS``, ``$ARENA_TICKET``), Hello, the deadline guard (``decide`` runs in a worker
thread; ``margin_ms`` before the deadline a safe legal action goes instead), actions that are
not legal (replaced by a safe one, with a warning on stderr), refusals, and reconnects with
the same ticket.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi_bot.seat import Decide, MatchResult, Seat, open_channel, play_seat
from chaodipi_bot.wire import PROTOCOL_VERSION

__all__ = ["Decide", "MatchResult", "bot_arguments", "run_bot"]


def bot_arguments(description: str = "A bot for the 炒地皮 arena.") -> argparse.ArgumentParser:
    """The arguments every bot takes (``--address``, ``--ticket``, ``--name``); add your own
    and pass the parsed ``address``, ``ticket`` and ``name`` to :func:`run_bot`."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--address",
        default=os.environ.get("ARENA_ADDRESS", "127.0.0.1:50051"),
        help="the arena server (default: $ARENA_ADDRESS or 127.0.0.1:50051)",
    )
    parser.add_argument(
        "--ticket",
        default=os.environ.get("ARENA_TICKET", ""),
        help="this seat's ticket (default: $ARENA_TICKET)",
    )
    parser.add_argument("--name", default="python-bot", help="name shown in logs and reports")
    return parser


def run_bot(
    decide: Decide,
    *,
    address: str | None = None,
    ticket: str | None = None,
    name: str | None = None,
    argv: Sequence[str] | None = None,
    root_certificate: bytes | None = None,
    reconnects: int = 5,
    margin_ms: int = 150,
    on_message: Callable[[pb.PlayResponse], None] | None = None,
) -> MatchResult:
    """Play one seat until its match ends; return how it ended.

    ``address``, ``ticket`` and ``name`` default to ``--address``, ``--ticket`` and ``--name``
    in ``argv`` (default ``sys.argv[1:]``; other arguments are ignored) or the environment
    (:func:`bot_arguments`). ``decide`` runs in a worker thread: without an answer
    ``margin_ms`` before the deadline, a safe legal action goes instead (pass, or the first
    cards the legal set lists). A dropped connection is retried with the same ticket up to
    ``reconnects`` times. ``on_message`` sees every server message (for logs and tests).
    Raises ``grpc.RpcError`` when the server refuses the seat (a wrong ticket, say), and
    ``SystemExit`` without a ticket."""
    if address is None or ticket is None or name is None:
        known, _ = bot_arguments().parse_known_args(sys.argv[1:] if argv is None else argv)
        address = known.address if address is None else address
        ticket = known.ticket if ticket is None else ticket
        name = known.name if name is None else name
    if not ticket:
        raise SystemExit("no ticket: pass --ticket TICKET or set ARENA_TICKET")
    seat = Seat(decide, margin_ms / 1000, on_message)
    hello = pb.Hello(ticket=ticket, protocol_version=PROTOCOL_VERSION, bot_name=name)

    def play_once() -> MatchResult:
        with open_channel(address, root_certificate) as channel:
            return seat.play_once(channel, hello)

    return play_seat(play_once, reconnects)
