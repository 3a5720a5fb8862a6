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
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

import grpc

from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import arena_pb2_grpc
from chaodipi_bot.wire import (
    PROTOCOL_VERSION,
    action_message,
    event_from_message,
    legal_from_message,
    view_from_snapshot,
)
from engine.actions import Action, LegalActions
from engine.follow import follow
from engine.match import Ending
from engine.view import SeatView

__all__ = ["Decide", "MatchResult", "bot_arguments", "run_bot"]

Decide = Callable[[SeatView], Action]
"""What a bot writes: the seat's view (``view.legal`` set) in, a legal action out."""

_ENDINGS = {
    pb.ENDING_PLAYED_OUT: Ending.PLAYED_OUT,
    pb.ENDING_FORFEIT: Ending.FORFEIT,
    pb.ENDING_STOPPED: Ending.STOPPED,
    pb.ENDING_FAILED: Ending.FAILED,
}
_RETRY = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}
_RETRY.add(grpc.StatusCode.INVALID_ARGUMENT)  # the stream broke mid-message: start afresh


@dataclass(frozen=True, slots=True)
class MatchResult:
    """How the match ended, and the seat's last view (``view.over`` set)."""

    ending: Ending
    reason: str
    winner: int | None
    """The winning team (``None``: a draw, or undecided)."""
    hands: int
    progress: tuple[int, ...]
    forfeited_by: int | None
    reward: int
    view: SeatView | None
    """The seat's view at the end (``None`` if the server never sent a Snapshot)."""


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
    seat = _Seat(decide, margin_ms / 1000, on_message)
    hello = pb.Hello(ticket=ticket, protocol_version=PROTOCOL_VERSION, bot_name=name)
    attempt = 0
    while True:
        try:
            return seat.play_once(address, hello, root_certificate)
        except grpc.RpcError as err:
            if err.code() not in _RETRY or attempt >= reconnects:
                raise
        except ConnectionError:
            if attempt >= reconnects:
                raise
        attempt += 1
        time.sleep(min(2.0, 0.1 * 2**attempt))


class _Seat:
    """One seat's stream: its view, the open decision, and the answers."""

    def __init__(
        self,
        decide: Decide,
        margin_s: float,
        on_message: Callable[[pb.PlayResponse], None] | None,
    ) -> None:
        self.decide = decide
        self.margin_s = margin_s
        self.on_message = on_message
        self.view: SeatView | None = None
        self.open: tuple[int, LegalActions] | None = None
        self.refused: set[int] = set()

    def play_once(
        self, address: str, hello: pb.Hello, root_certificate: bytes | None
    ) -> MatchResult:
        if root_certificate is not None:
            credentials = grpc.ssl_channel_credentials(root_certificate)
            channel = grpc.secure_channel(address, credentials)
        else:
            channel = grpc.insecure_channel(address)
        outgoing: queue.Queue[pb.PlayRequest | None] = queue.Queue()

        def requests() -> Iterator[pb.PlayRequest]:
            yield pb.PlayRequest(hello=hello)
            while (message := outgoing.get()) is not None:
                yield message

        with channel:
            stub = arena_pb2_grpc.ArenaServiceStub(channel)
            try:
                for message in stub.Play(requests()):
                    if self.on_message is not None:
                        self.on_message(message)
                    answer = self.read(message)
                    if isinstance(answer, MatchResult):
                        return answer
                    if answer is not None:
                        outgoing.put(answer)
            finally:
                outgoing.put(None)
        raise ConnectionError("the server ended the stream before the match was over")

    def read(self, message: pb.PlayResponse) -> pb.PlayRequest | MatchResult | None:
        """Take in one server message; what to send back (or the match's end)."""
        kind = message.WhichOneof("response")
        if kind == "snapshot":
            self.view = view_from_snapshot(message.snapshot)
        elif kind == "decision":
            return self.answer(message.decision)
        elif kind == "refused":
            refused = message.refused
            if self.open is not None and refused.decision_id == self.open[0]:
                print(f"refused: {refused.reason}", file=sys.stderr)
                if refused.decision_id not in self.refused:  # once: then the clock decides
                    self.refused.add(refused.decision_id)
                    return _answer(refused.decision_id, self.open[1].default())
        elif kind == "match_over":
            return self.over(message.match_over)
        return None

    def answer(self, decision: pb.Decision) -> pb.PlayRequest:
        legal = legal_from_message(decision.legal)
        view = self.view
        if view is None:
            raise ConnectionError("a Decision came before any Snapshot")
        events = [event_from_message(e) for e in decision.events]
        view = self.view = follow(view, events, cursor=decision.cursor, legal=legal)
        self.open = (decision.decision_id, legal)
        budget = max(0.02, decision.deadline_ms / 1000 - self.margin_s)
        action = _within(self.decide, view, budget)
        if action is None or action not in legal:
            if action is not None:
                print(f"decide() returned {action}, which is not legal here", file=sys.stderr)
            action = legal.default()
        return _answer(decision.decision_id, action)

    def over(self, over: pb.MatchOver) -> MatchResult:
        view = self.view
        if view is not None:
            events = [event_from_message(e) for e in over.events]
            cursor = max([view.cursor, *(e.seq for e in events)])
            view = follow(view, events, cursor=cursor)
            winner = over.winner if over.HasField("winner") else None
            view = self.view = replace(view, over=True, winner=winner, reward=over.reward)
        return MatchResult(
            ending=_ENDINGS.get(over.ending, Ending.STOPPED),
            reason=over.reason,
            winner=over.winner if over.HasField("winner") else None,
            hands=over.hands,
            progress=tuple(over.progress),
            forfeited_by=over.forfeited_by if over.HasField("forfeited_by") else None,
            reward=over.reward,
            view=view,
        )


def _answer(decision_id: int, action: Action) -> pb.PlayRequest:
    answer = pb.Answer(decision_id=decision_id, action=action_message(action))
    return pb.PlayRequest(answer=answer)


def _within(decide: Decide, view: SeatView, budget_s: float) -> Action | None:
    """``decide(view)`` in a worker thread, or ``None`` if it has not answered in time (its
    late answer is dropped, never sent). An exception in ``decide`` is raised here."""
    answers: queue.Queue[Action | BaseException] = queue.Queue(1)

    def think() -> None:
        try:
            answers.put(decide(view))
        except BaseException as err:  # handed to the caller's thread below
            answers.put(err)

    threading.Thread(target=think, daemon=True, name="decide").start()
    try:
        answer = answers.get(timeout=budget_s)
    except queue.Empty:
        return None
    if isinstance(answer, BaseException):
        raise answer
    return answer
