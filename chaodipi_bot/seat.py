"""One seat of one match over a ``Play`` stream: the view, the deadline guard, the answers.

:func:`play_seat` plays a seat to its end with reconnects; :class:`Seat` is one seat's state
across them (the view rebuilt from each Snapshot and carried forward by the events each
Decision brings, the open decision, the refusals answered). :func:`chaodipi_bot.run_bot` uses
both, for its one ticket or for each seat a session is offered.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import grpc

from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import arena_pb2_grpc
from chaodipi_bot.wire import (
    action_message,
    event_from_message,
    legal_from_message,
    view_from_snapshot,
)
from engine.actions import Action, LegalActions
from engine.follow import follow
from engine.match import Ending
from engine.view import SeatView

__all__ = ["Decide", "MatchResult", "Seat", "backoff", "open_channel", "play_seat"]

Decide = Callable[[SeatView], Action]
"""What a bot writes: the seat's view (``view.legal`` set) in, a legal action out."""

_ENDINGS = {
    pb.ENDING_PLAYED_OUT: Ending.PLAYED_OUT,
    pb.ENDING_FORFEIT: Ending.FORFEIT,
    pb.ENDING_STOPPED: Ending.STOPPED,
    pb.ENDING_FAILED: Ending.FAILED,
}
RETRY = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}
"""The statuses after which a stream is opened again."""
RETRY.add(grpc.StatusCode.INVALID_ARGUMENT)  # the stream broke mid-message: start afresh


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

    def __str__(self) -> str:
        winner = "a draw" if self.winner is None else f"team {self.winner} won"
        return f"match over: {winner} in {self.hands} hands ({self.reason})"


def backoff(attempt: int) -> float:
    """Seconds to wait before the ``attempt``-th retry (1, 2, ...): 0.2, 0.4, ... up to 2."""
    return min(2.0, 0.1 * 2.0**attempt)


def open_channel(address: str, root_certificate: bytes | None) -> grpc.Channel:
    """A channel to the arena: TLS when ``root_certificate`` is given, plaintext otherwise."""
    if root_certificate is not None:
        return grpc.secure_channel(address, grpc.ssl_channel_credentials(root_certificate))
    return grpc.insecure_channel(address)


def play_seat(play_once: Callable[[], MatchResult], reconnects: int) -> MatchResult:
    """``play_once()`` until the match is over: a dropped stream is opened again (with the same
    ticket) up to ``reconnects`` times; a refusal is raised (``grpc.RpcError``)."""
    attempt = 0
    while True:
        try:
            return play_once()
        except grpc.RpcError as err:
            if err.code() not in RETRY or attempt >= reconnects:
                raise
        except ConnectionError:
            if attempt >= reconnects:
                raise
        attempt += 1
        time.sleep(backoff(attempt))


class Seat:
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
        self.thinker = _Thinker()
        self.refused: set[int] = set()

    def play_once(self, channel: grpc.Channel, hello: pb.Hello) -> MatchResult:
        """One ``Play`` stream on ``channel``, from Hello to MatchOver (``grpc.RpcError`` or
        ``ConnectionError`` if it ends before)."""
        outgoing: queue.Queue[pb.PlayRequest | None] = queue.Queue()

        def requests() -> Iterator[pb.PlayRequest]:
            yield pb.PlayRequest(hello=hello)
            while (message := outgoing.get()) is not None:
                yield message

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
        action = self.thinker.within(self.decide, view, budget)
        if action is None or action not in legal:
            if action is not None:
                print(f"decide() returned {action}, which is not legal here", file=sys.stderr)
            action = legal.default()
        return _answer(decision.decision_id, action)

    def over(self, over: pb.MatchOver) -> MatchResult:
        self.thinker.close()
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


_Job = tuple[Decide, SeatView, "queue.Queue[Action | BaseException]"]


class _Thinker:
    """The thread ``decide`` runs in, kept from one decision to the next (starting a thread
    per decision cost as much CPU as the rest of the SDK's work). A ``decide`` still running
    past its deadline keeps its thread, which ends once it returns; the next decision gets a
    new one. The threads are daemons: a hung ``decide`` never holds the process up."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[_Job | None] | None = None

    def within(self, decide: Decide, view: SeatView, budget_s: float) -> Action | None:
        """``decide(view)``, or ``None`` if it has not answered in ``budget_s`` seconds (its
        late answer is dropped, never sent). An exception in ``decide`` is raised here."""
        if self._jobs is None:
            self._jobs = queue.SimpleQueue()
            threading.Thread(target=_think, args=(self._jobs,), daemon=True, name="decide").start()
        answers: queue.Queue[Action | BaseException] = queue.Queue(1)
        self._jobs.put((decide, view, answers))
        try:
            answer = answers.get(timeout=budget_s)
        except queue.Empty:
            self.close()  # its thread ends after this late decide
            return None
        if isinstance(answer, BaseException):
            raise answer
        return answer

    def close(self) -> None:
        if self._jobs is not None:
            self._jobs.put(None)
            self._jobs = None


def _think(jobs: queue.SimpleQueue[_Job | None]) -> None:
    while (job := jobs.get()) is not None:
        decide, view, answers = job
        try:
            answers.put(decide(view))
        except BaseException as err:  # handed to the seat's thread
            answers.put(err)
