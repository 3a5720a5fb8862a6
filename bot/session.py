"""A session: one bot process offered seats by the arena, game after game (``Enter``).

:func:`play_session` is what :func:`chaodipi.bot.run_bot` does with a session token. It sends
``EnterRequest`` (the token, protocol version 2, the bot's name, how many seats it will play at
once, and an instance id made once per call), then plays every ``SeatOffer`` on a ``Play``
stream of its own, each a task of its own on the SDK's event loop with a fresh
:class:`~chaodipi.bot.seat.Seat` (and a fresh ``decide`` when a ``new_game`` factory is given),
all on one grpc.aio channel.

* The stream ends with status OK: the arena wants no more games from this process. The seats
  in hand are played to their end, then the call returns a :class:`SessionResult`.
* Nothing listens at the address yet (``UNAVAILABLE`` before the first ``Entered``): Enter is
  tried again, with a line on stderr, for up to ``wait_s`` seconds (``arena run`` takes a few
  seconds to start listening), then :class:`SessionError`.
* The stream drops (``UNAVAILABLE`` and the like): it is opened again with backoff, with the
  same token and instance id, and the server offers the seats still open again. A seat being
  played is never opened twice: offers are kept by ticket, in play and finished.
* The arena has no room for the stream now (``RESOURCE_EXHAUSTED``, "try again later"): it is
  tried again with backoff for up to a minute (:class:`~chaodipi.bot.seat.Retries`), the Enter
  stream and each seat's alike.
* ``UNAUTHENTICATED`` or ``FAILED_PRECONDITION`` on the first Enter (a wrong token, a run that
  is over, a protocol version the server does not speak) raise :class:`SessionError`. On a
  later Enter they mean the arena closed the session's run while the stream was down: the
  seats in hand are finished and the call returns.
* A seat whose stream fails past its retries (or whose table is gone, ``NOT_FOUND``) is given
  up with a line on stderr (its :class:`~chaodipi.bot.errors.SeatError`); the session goes
  on. An exception from ``decide`` (a bug in the
  bot) ends the whole session and is raised, as it would end a one-seat run.
"""

from __future__ import annotations

import asyncio
import secrets
import sys
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, replace
from typing import Any, TypeAlias

import grpc
import grpc.aio

from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import arena_pb2_grpc, convert
from chaodipi.bot.errors import SeatError, SessionError, status_text, unreachable
from chaodipi.bot.seat import (
    Decide,
    MatchResult,
    Retries,
    Seat,
    SeatPlayer,
    open_aio_channel,
    play_seat,
    retried,
)
from chaodipi.bot.thinking import Placement

__all__ = ["SessionError", "SessionResult", "play_seats", "play_session"]


@dataclass(frozen=True, slots=True)
class SessionResult:
    """What a session played: :func:`chaodipi.bot.run_bot`'s answer when given a token.

    >>> SessionResult("random#2", games=(), lost=0)
    SessionResult(session='random#2', games=(), lost=0)
    >>> print(SessionResult("random#2", games=(), lost=1))
    session random#2 over: 0 games played, 1 seat given up
    """

    session: str
    """The session's name in the arena's logs (from ``Entered``)."""
    games: tuple[MatchResult, ...]
    """Each seat played to its end, in the order they ended (without the final view, which
    a ``new_game`` object or ``on_message`` sees)."""
    lost: int = 0
    """Seats given up: their stream failed past the retries, or their table was gone."""

    def __str__(self) -> str:
        games = len(self.games)
        lost = f", {self.lost} seat{'s' * (self.lost != 1)} given up" if self.lost else ""
        return f"session {self.session} over: {games} game{'s' * (games != 1)} played{lost}"


@dataclass(frozen=True, slots=True)
class _EnterEnded:
    """The session's stream ended: ``error`` None for status OK."""

    error: BaseException | None


@dataclass(frozen=True, slots=True)
class _SeatEnded:
    """A seat's task is done: its result, or what stopped it."""

    ticket: str
    result: MatchResult | None
    error: BaseException | None


_Item: TypeAlias = "pb.EnterResponse | _EnterEnded | _SeatEnded"

_HINTS = {
    grpc.StatusCode.UNAUTHENTICATED: "check the token in $ARENA_TOKEN (or the file given with "
    "--token-file)",
    grpc.StatusCode.ABORTED: "another process entered with the same token",
}


async def play_session(
    new_decide: Callable[[], Decide],
    *,
    address: str,
    token: str,
    name: str,
    capacity: int,
    root_certificate: bytes | None = None,
    reconnects: int = 5,
    wait_s: float = 30.0,
    margin_ms: int = 150,
    on_message: Callable[[pb.PlayResponse], None] | None = None,
    placement: Placement | None = None,
    bot_version: str = "",
) -> SessionResult:
    """Enter the arena with ``token`` and play the seats it offers until it wants no more.

    ``new_decide()`` is called once per seat, as its stream opens: the ``decide`` for that
    game. ``capacity`` is how many seats this process asks to play at once; every seat offered
    is played at once (the arena offers at most that many). Until the arena first answers, a
    refused connection is tried again for up to ``wait_s`` seconds; after, the Enter stream
    and each seat's stream are retried up to ``reconnects`` times in a row. ``placement``
    (shared by the seats) says where ``decide`` runs. Raises :class:`SessionError` when the
    arena refuses the token, cannot be reached or the session is lost (after the seats in hand
    are over). ``bot_version`` is the version of the bot this process runs (an arena that
    rates versions apart, a standing ladder, rates each one as an entry of its own)."""
    margin_s = margin_ms / 1000
    placement = Placement(None) if placement is None else placement

    def new_seat() -> Seat:
        return Seat(new_decide(), margin_s, on_message, placement)

    return await play_seats(
        new_seat,
        address=address,
        token=token,
        name=name,
        capacity=capacity,
        root_certificate=root_certificate,
        reconnects=reconnects,
        wait_s=wait_s,
        bot_version=bot_version,
    )


async def play_seats(
    new_seat: Callable[[], SeatPlayer],
    *,
    address: str,
    token: str,
    name: str,
    capacity: int,
    root_certificate: bytes | None = None,
    reconnects: int = 5,
    wait_s: float = 30.0,
    bot_version: str = "",
) -> SessionResult:
    """:func:`play_session` for any :class:`~chaodipi.bot.seat.SeatPlayer`: ``new_seat()``
    plays each seat offered (the stdio bridge's seats are programs, not ``decide``)."""
    session = _Session(
        new_seat,
        address=address,
        name=name,
        retries=Retries(reconnects=reconnects, wait_s=wait_s, address=address),
    )
    request = convert.enter_request(
        token,
        bot_name=name,
        capacity=capacity,
        instance=secrets.token_hex(8),
        bot_version=bot_version,
    )
    async with open_aio_channel(address, root_certificate) as channel:
        try:
            return await session.run(channel, request)
        finally:
            await session.stop()


class _Session:
    """The session's loop: every message and every seat's end arrive on one queue, each
    stream is a task of its own on the one event loop."""

    def __init__(
        self,
        new_seat: Callable[[], SeatPlayer],
        *,
        address: str,
        name: str,
        retries: Retries,
    ) -> None:
        self.new_seat = new_seat
        self.address = address
        self.name = name
        self.retries = retries
        """For the Enter stream (each seat counts its own)."""
        self.items: asyncio.Queue[_Item] = asyncio.Queue()
        self.tasks: set[asyncio.Task[None]] = set()
        """The Enter stream's reader and the seats' tasks, while they run."""
        self.session = ""
        """The session's name, once entered."""
        self.in_play: set[str] = set()
        """Tickets of the seats being played now."""
        self.finished: set[str] = set()
        """Tickets of the seats over (offered again after a reconnect: not played again)."""
        self.games: list[MatchResult] = []
        self.lost = 0

    async def run(self, channel: grpc.aio.Channel, request: pb.EnterRequest) -> SessionResult:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        self._enter(stub, request)
        open_ = True
        failure: SessionError | None = None
        while open_ or self.in_play:
            item = await self.items.get()
            if isinstance(item, _SeatEnded):
                self._seat_ended(item)
            elif isinstance(item, _EnterEnded):
                error = item.error
                if error is None:
                    open_ = False
                elif not isinstance(error, grpc.RpcError):
                    raise error
                else:
                    wait_s = self.retries.delay(error.code(), reached=bool(self.session))
                    if wait_s is None:
                        open_ = False
                        failure = self._failure(error)
                    else:
                        if self.session:  # (before, Retries says the arena is not there yet)
                            print(
                                f"session {self.session}: {status_text(error)}: entering again",
                                file=sys.stderr,
                                flush=True,
                            )
                        self._start(self._enter_later(stub, request, wait_s))
            elif item.WhichOneof("message") == "entered":
                self.retries.answered()
                again = "re-entered" if self.session else "entered"
                self.session = item.entered.session
                print(
                    f"{again} session {self.session} (up to {item.entered.capacity} games at once)",
                    file=sys.stderr,
                    flush=True,
                )
            elif item.WhichOneof("message") == "seat":
                self._offered(channel, item.seat)
        if failure is not None:
            raise failure
        return SessionResult(self.session, tuple(self.games), self.lost)

    async def stop(self) -> None:
        """Cancel what still runs (the Enter stream, seats left when ``decide`` raised)."""
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    def _start(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # -- the Enter stream ---------------------------------------------------------------------

    def _enter(self, stub: arena_pb2_grpc.ArenaServiceStub, request: pb.EnterRequest) -> None:
        self._start(self._read(stub.Enter(request)))

    async def _enter_later(
        self, stub: arena_pb2_grpc.ArenaServiceStub, request: pb.EnterRequest, wait_s: float
    ) -> None:
        await asyncio.sleep(wait_s)
        self._enter(stub, request)

    async def _read(self, call: grpc.aio.UnaryStreamCall[Any, pb.EnterResponse]) -> None:
        try:
            while (message := await call.read()) is not grpc.aio.EOF:
                assert isinstance(message, pb.EnterResponse)
                self.items.put_nowait(message)
        except asyncio.CancelledError:
            call.cancel()
            raise
        except Exception as err:  # handed to the session's loop
            self.items.put_nowait(_EnterEnded(err))
        else:
            self.items.put_nowait(_EnterEnded(None))

    def _failure(self, error: grpc.RpcError) -> SessionError | None:
        """What an Enter stream that ended with ``error`` means (None: the run is over)."""
        code, details = error.code(), error.details() or ""
        refused = code in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.FAILED_PRECONDITION)
        if refused and self.session:
            print(
                f"session {self.session}: the arena no longer takes its token ({details}): "
                "its run is over",
                file=sys.stderr,
                flush=True,
            )
            return None
        if code == grpc.StatusCode.UNAVAILABLE and not self.session:
            return unreachable(SessionError, self.address, error, self.retries.waited_s())
        hint = _HINTS.get(code)
        if refused:
            what = f"the arena at {self.address} refused the session"
        elif self.session:
            what = f"session {self.session} at {self.address} was lost {retried(self.retries)}"
        else:
            what = f"could not enter the arena at {self.address} {retried(self.retries)}"
        message = f"{what} ({status_text(error)})" + (f": {hint}" if hint else "")
        return SessionError(message, code)

    # -- seats --------------------------------------------------------------------------------

    def _offered(self, channel: grpc.aio.Channel, offer: pb.SeatOffer) -> None:
        ticket = offer.ticket
        if ticket in self.in_play or ticket in self.finished:
            return  # offered again after a reconnect: already being played, or over
        self.in_play.add(ticket)
        self._start(self._play(channel, offer))

    async def _play(self, channel: grpc.aio.Channel, offer: pb.SeatOffer) -> None:
        try:
            seat = self.new_seat()
            try:
                hello = convert.hello(offer.ticket, self.name)
                retries = Retries(
                    reconnects=self.retries.reconnects, wait_s=0, address=self.address
                )
                result = await play_seat(
                    lambda: seat.play_once(channel, hello), seat, retries, contacted=True
                )
            finally:
                seat.close()
        except asyncio.CancelledError:
            raise
        except BaseException as err:  # handed to the session's loop
            self.items.put_nowait(_SeatEnded(offer.ticket, None, err))
        else:
            self.items.put_nowait(_SeatEnded(offer.ticket, result, None))

    def _seat_ended(self, ended: _SeatEnded) -> None:
        self.in_play.discard(ended.ticket)
        error = ended.error
        if ended.result is not None:
            self.finished.add(ended.ticket)
            # a long session plays thousands of games: keep how each ended, not its view
            self.games.append(replace(ended.result, view=None))
            return
        if not isinstance(error, SeatError):
            assert error is not None
            raise error  # decide() or new_game() raised: a bug in the bot ends the session
        if error.code == grpc.StatusCode.NOT_FOUND:
            self.finished.add(ended.ticket)  # the table is over and gone
        self.lost += 1
        print(
            f"session {self.session}: {error}; that seat is given up",
            file=sys.stderr,
            flush=True,
        )
