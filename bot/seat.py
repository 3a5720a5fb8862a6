"""One seat of one match over a ``Play`` stream: the view, the deadline guard, the answers.

:func:`play_seat` plays a seat to its end with reconnects (:class:`Retries` says when to try
again); :class:`Seat` is one seat's state across them (the view rebuilt from each Snapshot and
carried forward by the events each Decision brings, the open decision, the refusals answered).
:func:`chaodipi.bot.run_bot` uses both, for its one ticket or for each seat a session is
offered. The streams are grpc.aio calls on the SDK's one asyncio event loop; ``decide`` runs
on that loop or in a worker thread as :class:`~chaodipi.bot.thinking.Placement` says (on the
loop over a local link, a Decision is answered in the link's read callback: :meth:`Seat.take`).

What ``decide`` answers is sent as it is: the server checks every action (the SDK does not
check it twice), and answers an illegal one with a Refused, which the seat answers once with a
safe legal action (:meth:`Seat.read`). Every answer ``decide`` did not choose (too late for the
deadline guard, no action, or refused) is ``legal.default()`` marked ``fallback`` on the wire
(``Answer.fallback``: the arena counts it against the bot), and the first one in a game is
said on stderr, naming the seat and the fix.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import Protocol, cast

import grpc
import grpc.aio

from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import arena_pb2_grpc, convert
from chaodipi.bot.answer import Answer, action_and_note
from chaodipi.bot.errors import SeatError, status_text, unreachable
from chaodipi.bot.local import LocalCall, local_channel
from chaodipi.bot.thinking import Decide, Placement, Thinker
from chaodipi.engine import (
    Action,
    Bury,
    Declare,
    Ending,
    Fry,
    LegalActions,
    Outcome,
    Pass,
    Play,
    SeatView,
    follow,
)

__all__ = [
    "Decide",
    "MatchResult",
    "Retries",
    "Seat",
    "SeatPlayer",
    "backoff",
    "open_aio_channel",
    "play_seat",
    "play_ticket",
    "retried",
    "send_request",
]

RETRY = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}
"""The statuses after which a stream is opened again."""
RETRY.add(grpc.StatusCode.INVALID_ARGUMENT)  # the stream broke mid-message: start afresh

ACTIONS = (Pass, Declare, Fry, Bury, Play)
"""What ``decide`` may answer (which of them is legal, the server judges)."""


@dataclass(frozen=True, slots=True)
class MatchResult:
    """A seat's game as it ended: its :class:`~chaodipi.engine.Outcome` (what its MatchOver
    says), each of whose fields reads here too (``result.winner``), and the seat's last view
    (``view.over`` set)."""

    outcome: Outcome
    """How the game ended."""
    view: SeatView | None
    """The seat's view at the end (``None`` if the server never sent a Snapshot)."""

    @property
    def ending(self) -> Ending:
        """``outcome.ending``: played out, a forfeit, stopped or failed."""
        return self.outcome.ending

    @property
    def reason(self) -> str:
        """``outcome.reason``: why, as a person reads it."""
        return self.outcome.reason

    @property
    def winner(self) -> int | None:
        """``outcome.winner``: the winning team (``None``: a draw, or undecided)."""
        return self.outcome.winner

    @property
    def hands(self) -> int:
        """``outcome.hands``: the hands finished."""
        return self.outcome.hands

    @property
    def progress(self) -> tuple[int, ...]:
        """``outcome.progress``: each team's progress at the end."""
        return self.outcome.progress

    @property
    def forfeited_by(self) -> int | None:
        """``outcome.forfeited_by``: the seat whose team forfeited, if one did."""
        return self.outcome.forfeited_by

    @property
    def reward(self) -> int:
        """``outcome.reward``: what the winner earns."""
        return self.outcome.reward

    def __str__(self) -> str:
        return f"match over: {self.outcome}"


def backoff(attempt: int) -> float:
    """Seconds to wait before the ``attempt``-th retry (1, 2, ...): 0.2, 0.4, ... up to 2."""
    return min(2.0, 0.1 * 2.0**attempt)


WAITING_BACKOFF_S = 1.0
"""The longest wait between two tries while the arena does not listen yet."""

BUSY_S = 60.0
"""How long a stream the arena refuses for want of room (``RESOURCE_EXHAUSTED``: "try again
later") is tried again, with backoff, before the seat or session gives up."""

CHANNEL_OPTIONS = [
    # gRPC waits longer and longer (up to 2 minutes) before connecting again to an address
    # that refused: keep it short, so that an arena that starts (or restarts) is seen at once
    ("grpc.initial_reconnect_backoff_ms", 200),
    ("grpc.max_reconnect_backoff_ms", 1000),
]


def open_aio_channel(address: str, root_certificate: bytes | None) -> grpc.aio.Channel:
    """A grpc.aio channel to the arena (in a running event loop), as the SDK's streams use:
    TLS when ``root_certificate`` is given, plaintext otherwise; or, when the arena started
    this process with a local link (``$ARENA_LOCAL``), a channel over that link instead
    (:mod:`chaodipi.bot.local`: the same calls, a fraction of the CPU)."""
    local = local_channel()
    if local is not None:
        return cast(grpc.aio.Channel, local)
    if root_certificate is not None:
        credentials = grpc.ssl_channel_credentials(root_certificate)
        return grpc.aio.secure_channel(address, credentials, options=CHANNEL_OPTIONS)
    return grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS)


class SeatPlayer(Protocol):
    """What plays one seat's ``Play`` streams: :class:`Seat` (``decide`` on engine views), or
    :class:`chaodipi.bot.stdio.ChildSeat` (a program speaking JSON lines). The SDK's ticket and
    session loops (:func:`play_ticket`, :func:`chaodipi.bot.session.play_seats`) open its
    streams, retry them and end it with :meth:`close`, whatever plays it."""

    messages: int
    """Messages the server sent this seat, over all its streams (a stream that got any
    through starts the count of drops in a row again)."""

    async def play_once(self, channel: grpc.aio.Channel, hello: pb.PlayRequest) -> MatchResult:
        """One ``Play`` stream on ``channel``, from ``hello`` to MatchOver (``grpc.RpcError``
        or ``ConnectionError`` if it ends before)."""
        ...

    def close(self) -> None:
        """The seat is over, played to its end or given up: let go of what it holds."""
        ...


class Retries:
    """When a stream that failed is opened again. Until the arena has answered once, a
    refused connection (``UNAVAILABLE``) is tried again for up to ``wait_s`` seconds: the arena
    may not listen yet (``arena run`` takes a few seconds to start); the first such retry says
    so on stderr. A stream the arena has no room for (``RESOURCE_EXHAUSTED``: it holds as many
    streams as it may, or cut this one off) is tried again for up to ``busy_s`` seconds, the
    first retry said on stderr too. Otherwise a dropped stream is opened again up to
    ``reconnects`` times in a row (:meth:`answered` starts both counts again). :meth:`delay`
    says how long to wait first.

    >>> retries = Retries(reconnects=2, wait_s=0, address="h:1")
    >>> [retries.delay(grpc.StatusCode.INTERNAL, reached=True) for _ in range(3)]
    [0.2, 0.4, None]
    """

    def __init__(
        self,
        *,
        reconnects: int,
        wait_s: float,
        address: str,
        clock: Callable[[], float] = time.monotonic,
        busy_s: float = BUSY_S,
    ) -> None:
        self.reconnects = reconnects
        self.wait_s = wait_s
        self.address = address
        self.clock = clock
        self.busy_s = busy_s
        self.attempt = 0
        """Retries in a row so far (after the arena answered)."""
        self.waits = 0
        """Tries while the arena did not listen yet."""
        self.since: float | None = None
        """When the first refused connection was seen (before the arena ever answered)."""
        self.busy = 0
        """Tries in a row the arena refused for want of room."""
        self.busy_since: float | None = None
        """When the first of them was refused."""

    def answered(self) -> None:
        """The stream got through: the next failure is the first in a row."""
        self.attempt = 0
        self.busy, self.busy_since = 0, None

    def waited_s(self) -> float:
        """Seconds since the first refused connection (0 if none)."""
        return 0.0 if self.since is None else self.clock() - self.since

    def delay(self, code: grpc.StatusCode | None, *, reached: bool) -> float | None:
        """After a failure with ``code`` (``None``: the stream ended early without a status),
        the seconds to wait before trying again, or ``None`` to give up. ``reached``: the arena
        has answered once."""
        if not reached and code == grpc.StatusCode.UNAVAILABLE:
            if self.since is None:
                self.since = self.clock()
            left = self.wait_s - self.waited_s()
            if left <= 0:
                return None
            if self.waits == 0:
                print(
                    f"no arena at {self.address} yet (UNAVAILABLE): trying again for up to "
                    f"{self.wait_s:g} s",
                    file=sys.stderr,
                    flush=True,
                )
            self.waits += 1
            return min(backoff(self.waits), WAITING_BACKOFF_S, left)
        if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
            return self._busy_delay()
        if (code is not None and code not in RETRY) or self.attempt >= self.reconnects:
            return None
        self.attempt += 1
        return backoff(self.attempt)

    def _busy_delay(self) -> float | None:
        """The wait before trying again an arena that had no room (None: it stayed full for
        ``busy_s`` seconds).

        >>> retries = Retries(reconnects=0, wait_s=0, address="h:1", busy_s=0.5, clock=lambda: 0)
        >>> [retries.delay(grpc.StatusCode.RESOURCE_EXHAUSTED, reached=False) for _ in range(3)]
        [0.2, 0.4, 0.5]
        """
        if self.busy_since is None:
            self.busy_since = self.clock()
        left = self.busy_s - (self.clock() - self.busy_since)
        if left <= 0:
            return None
        if self.busy == 0:
            print(
                f"the arena at {self.address} has no room for this stream now "
                f"(RESOURCE_EXHAUSTED): trying again for up to {self.busy_s:g} s",
                file=sys.stderr,
                flush=True,
            )
        self.busy += 1
        return min(backoff(self.busy), left)


_SEAT_HINTS = {
    grpc.StatusCode.UNAUTHENTICATED: "check the ticket in $ARENA_TICKET: each seat of each table "
    "has its own",
    grpc.StatusCode.NOT_FOUND: "a ticket plays one match: ask for a ticket of a table still open",
}


async def play_seat(
    play_once: Callable[[], Awaitable[MatchResult]],
    seat: SeatPlayer,
    retries: Retries,
    *,
    contacted: bool,
) -> MatchResult:
    """``await play_once()`` (a stream of ``seat``) until the match is over: a dropped stream
    is opened again (with the same ticket) as ``retries`` says; a refusal, or a stream that
    keeps failing, is a :class:`SeatError`. ``contacted``: the arena has answered already (a
    session's seat), so a refused connection is a drop, not an arena that does not listen
    yet."""
    while True:
        before = seat.messages
        try:
            return await play_once()
        except grpc.RpcError as err:
            error: grpc.RpcError | ConnectionError = err
            code: grpc.StatusCode | None = err.code()
        except ConnectionError as err:
            error, code = err, None
        if seat.messages > before:
            retries.answered()  # it got through this time: a new count of drops in a row
        reached = contacted or seat.messages > 0
        wait_s = retries.delay(code, reached=reached)
        if wait_s is None:
            raise seat_error(error, retries, reached) from None
        await asyncio.sleep(wait_s)


async def play_ticket(
    seat: SeatPlayer,
    *,
    address: str,
    ticket: str,
    name: str,
    root_certificate: bytes | None,
    retries: Retries,
) -> MatchResult:
    """One seat with its ``ticket`` until its match ends, a fresh channel for each connection
    (the arena may not listen yet: ``retries`` waits for it)."""
    hello = convert.hello(ticket, name)

    async def play_once() -> MatchResult:
        async with open_aio_channel(address, root_certificate) as channel:
            return await seat.play_once(channel, hello)

    try:
        return await play_seat(play_once, seat, retries, contacted=False)
    finally:
        seat.close()


def seat_error(
    error: grpc.RpcError | ConnectionError, retries: Retries, reached: bool
) -> SeatError:
    """What a seat's stream that ended with ``error`` for good means, in one line."""
    if isinstance(error, ConnectionError):
        what = f"the seat's stream at {retries.address} kept ending early {retried(retries)}"
        return SeatError(f"{what} ({error})")
    code = error.code()
    if code == grpc.StatusCode.UNAVAILABLE and not reached:
        return unreachable(SeatError, retries.address, error, retries.waited_s())
    if code in RETRY:
        what = f"the seat's stream at {retries.address} kept failing {retried(retries)}"
        return SeatError(f"{what} ({status_text(error)})", code)
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        what = f"the arena at {retries.address} had no room for the seat {retried(retries)}"
        return SeatError(f"{what} ({status_text(error)})", code)
    hint = _SEAT_HINTS.get(code)
    message = f"the arena at {retries.address} refused the ticket ({status_text(error)})"
    return SeatError(message + (f": {hint}" if hint else ""), code)


def retried(retries: Retries) -> str:
    """``after 3 retries``, or ``with no retry``."""
    count = retries.attempt + retries.busy
    return f"after {count} retr{'y' if count == 1 else 'ies'}" if count else "with no retry"


class Seat:
    """One seat's stream: its view, the open decision, and the answers. ``placement`` says
    where ``decide`` runs (default: always inline, as :meth:`read` calls it)."""

    def __init__(
        self,
        decide: Decide,
        margin_s: float,
        on_message: Callable[[pb.PlayResponse], None] | None,
        placement: Placement | None = None,
    ) -> None:
        self.decide = decide
        self.margin_s = margin_s
        self.on_message = on_message
        self.placement = Placement(False) if placement is None else placement
        self.view: SeatView | None = None
        self.open: tuple[int, LegalActions] | None = None
        self.thinker = Thinker()
        self.refused: set[int] = set()
        self.messages = 0
        """Messages the server sent this seat, over all its streams."""
        self.label = "this seat"
        """The seat in stderr lines: ``seat 2 of table t3`` once the Welcome came."""
        self.fallbacks = 0
        """Answers sent for ``decide`` in this game (``Answer.fallback``)."""

    async def play_once(self, channel: grpc.aio.Channel, hello: pb.PlayRequest) -> MatchResult:
        """One ``Play`` stream on ``channel``, from ``hello`` (:func:`convert.hello`) to
        MatchOver (``grpc.RpcError`` or ``ConnectionError`` if it ends before)."""
        call = arena_pb2_grpc.ArenaServiceStub(channel).Play()
        if isinstance(call, LocalCall):  # a Decision decided inline is answered as it comes
            call.handler = partial(self.take, call)
        try:
            await send_request(call, hello)
            while (message := await call.read()) is not grpc.aio.EOF:
                assert isinstance(message, pb.PlayResponse)
                self._received(message)
                if message.WhichOneof("response") == "decision":
                    await send_request(call, await self.answer(message.decision))
                    continue
                answer = self.read(message)
                if isinstance(answer, MatchResult):
                    await call.done_writing()
                    return answer
                if answer is not None:
                    await send_request(call, answer)
        finally:
            if not call.done():
                call.cancel()
            self.thinker.close()
        raise ConnectionError("the server ended the stream before the match was over")

    def close(self) -> None:
        self.thinker.close()

    def read(self, message: pb.PlayResponse) -> pb.PlayRequest | MatchResult | None:
        """Take in one server message; what to send back (or the match's end). A Decision is
        decided here and now, inline (the streams call :meth:`answer` for it instead)."""
        kind = message.WhichOneof("response")
        if kind == "welcome":
            self.label = f"seat {message.welcome.seat} of table {message.welcome.table}"
        elif kind == "snapshot":
            self.view = convert.view_from_snapshot(message.snapshot)
        elif kind == "decision":
            decision_id, view, budget_s = self._turn(message.decision)
            return self._reply(decision_id, self.decide(view), budget_s)
        elif kind == "refused":
            refused = message.refused
            if self.open is not None and refused.decision_id == self.open[0]:
                code = pb.RefusalCode.Name(refused.code)
                print(f"{self.label}: refused ({code}): {refused.reason}", file=sys.stderr)
                if refused.decision_id not in self.refused:  # once: then the clock decides
                    self.refused.add(refused.decision_id)
                    return self._fallback(
                        f"the arena refused decide's answer to decision {refused.decision_id} "
                        f"({refused.reason})",
                        "answer one of view.legal",
                    )
        elif kind == "match_over":
            return self.over(message.match_over)
        return None

    def _received(self, message: pb.PlayResponse) -> None:
        """A message of the stream, counted and shown to ``on_message``."""
        self.messages += 1
        if self.on_message is not None:
            self.on_message(message)

    def take(self, call: LocalCall, message: pb.PlayResponse) -> bool:
        """A message of a local stream as it comes, while :meth:`play_once` waits for it
        (:attr:`LocalCall.handler`): a Decision ``decide`` answers inline is answered now, as
        :meth:`play_once` would (True); anything else is left to it (False)."""
        if not self.placement.inline() or message.WhichOneof("response") != "decision":
            return False
        self._received(message)
        call.write_now(self._answer_inline(message.decision))
        return True

    async def answer(self, message: pb.Decision) -> pb.PlayRequest:
        """The answer to a Decision: ``decide``'s, inline or from the worker thread, or a
        safe legal action if the thread has not answered ``margin_s`` before the deadline."""
        placement = self.placement
        if placement.inline():
            return self._answer_inline(message)
        decision_id, view, budget_s = self._turn(message)
        answered = await self.thinker.within(self.decide, view, budget_s)
        placement.timed(float("inf") if answered is None else answered[1])
        action = None if answered is None else answered[0]
        return self._reply(decision_id, action, budget_s)

    def _answer_inline(self, message: pb.Decision) -> pb.PlayRequest:
        """The answer to a Decision, ``decide`` called here and now (timed)."""
        decision_id, view, budget_s = self._turn(message)
        started = time.perf_counter()
        action: Action | Answer = self.decide(view)
        self.placement.timed(time.perf_counter() - started)
        return self._reply(decision_id, action, budget_s)

    def _turn(self, message: pb.Decision) -> tuple[int, SeatView, float]:
        """The seat's view brought up to the Decision (``view.legal`` set), and the seconds
        ``decide`` has for it."""
        decision = convert.decision_from_message(message)
        legal = decision.legal
        view = self.view
        if view is None:
            raise ConnectionError("a Decision came before any Snapshot")
        view = self.view = follow(view, decision.events, cursor=decision.cursor, legal=legal)
        self.open = (decision.decision_id, legal)
        return decision.decision_id, view, max(0.02, decision.deadline_s - self.margin_s)

    def _reply(
        self, decision_id: int, answer: Action | Answer | None, budget_s: float
    ) -> pb.PlayRequest:
        """The Answer with ``decide``'s action and note (``None``: too late), a safe action
        marked ``fallback`` if it gave no action."""
        if answer is None:
            return self._fallback(
                f"decide did not answer decision {decision_id} within {budget_s * 1000:.0f} ms "
                f"(the deadline less the SDK's margin of {self.margin_s * 1000:.0f} ms)",
                "make decide quicker (the Decision's deadline_ms is its time), or give the bot "
                "more time (decision_ms)",
            )
        action, note = action_and_note(answer)
        if not isinstance(action, ACTIONS):
            return self._fallback(
                f"decide() returned {action!r}, which is not an action",
                "return one of view.legal",
            )
        return convert.answer(decision_id, action, note)

    def _fallback(self, why: str, fix: str) -> pb.PlayRequest:
        """``legal.default()`` for the open decision, marked ``fallback``; the game's first
        says so on stderr (the rest are counted in the arena's report)."""
        assert self.open is not None
        decision_id, legal = self.open
        if not self.fallbacks:
            print(
                f"{self.label}: {why}; answered legal.default() for you (counted as a "
                f"fallback in the report; said once a game): {fix}",
                file=sys.stderr,
                flush=True,
            )
        self.fallbacks += 1
        return convert.fallback_answer(decision_id, legal)

    def over(self, message: pb.MatchOver) -> MatchResult:
        self.thinker.close()
        outcome, events = convert.outcome_from_message(message)
        view = self.view
        if view is not None:
            cursor = max([view.cursor, *(e.seq for e in events)])
            view = follow(view, events, cursor=cursor)
            view = replace(view, over=True, winner=outcome.winner, reward=outcome.reward)
            self.view = view
        return MatchResult(outcome, view)


async def send_request(
    call: grpc.aio.StreamStreamCall[pb.PlayRequest, pb.PlayResponse], message: pb.PlayRequest
) -> None:
    """Write ``message``; if the server has ended the stream meanwhile (its status came while
    ``decide`` thought), raise what reading it says: the status as a ``grpc.RpcError``, or
    ``ConnectionError`` for an end without an error (grpc.aio's write says only
    ``InvalidStateError``)."""
    try:
        await call.write(message)
    except asyncio.InvalidStateError:
        if await call.read() is grpc.aio.EOF:  # raises the stream's status if not OK
            raise ConnectionError("the server ended the stream before the match was over") from None
        raise
