"""The scenarios every bot kit that runs as a process is tested in (tests/test_kits.py): the
bot is a command line run as a subprocess; the arena is a real server on asyncio (the other
seats played by Python bots in threads), or a scripted one (a refusal, a dropped session, a
dropped seat).

A bot is handed its token or ticket as the arena hands it: in the environment (``ARENA_TOKEN``,
``ARENA_TICKET``), never on its command line, and ``--address`` appended to its command. Every
wait here is for an event (the bot entered, the seats connected, the process exited); the
timeouts only catch a hang."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass
from typing import TypeVar

import anyio
import grpc

from chaodipi.arena.serving.server import open_server
from chaodipi.arena.serving.sessions import Session
from chaodipi.arena.serving.table import TableResult
from chaodipi.arena.tournament.processes import bot_environment
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import arena_pb2_grpc
from chaodipi.engine.match import Ending

from .server_support import Recording, config, random_bot

TOKEN = "session-token-for-tests-only"
SEAT_TICKET = "a-ticket"
"""The ticket a bot is handed for a scripted seat."""
Done = subprocess.CompletedProcess[str]
HANG_S = 120.0
"""Far longer than anything here takes: only a hang gets near it."""
MATCH_S = 600.0
"""The same for a whole match on a loaded machine."""


async def run_process(command: list[str], env: dict[str, str]) -> Done:
    """Run a bot to its end (killed if the test is cancelled), its stderr as text."""
    done = await anyio.run_process(command, env=env, check=False)
    stderr = done.stderr.decode(errors="replace")
    return subprocess.CompletedProcess(command, done.returncode, stdout=None, stderr=stderr)


@dataclass
class SessionRun:
    """What a session test saw: the bot's process, the session, and the tables' results."""

    process: Done
    session: Session
    results: list[TableResult]
    seats: list[int]
    """The seat the bot was offered at each table."""

    @property
    def stderr(self) -> str:
        return str(self.process.stderr)


def play_a_session(command: list[str], seats: tuple[int, ...] = (0, 3)) -> SessionRun:
    """Run ``command`` (a bot with ``--address`` still to come, and its token in
    ``ARENA_TOKEN``) against a real server and offer it one seat at each of ``len(seats)`` tables (Python random bots in the
    other seats), each table on its own deal. The door closes as soon as the offers are out,
    while the bot holds every seat; the tables start once all their seats are connected. So
    the bot must play the seats in hand to their end after its session is over, then exit."""
    results: list[TableResult] = []
    entered: list[Session] = []
    done: list[Done] = []

    async def main() -> None:
        async with open_server("127.0.0.1:0") as server:
            someone_entered = anyio.Event()

            def on_enter(session: Session) -> None:
                entered.append(session)
                someone_entered.set()

            door = server.open_door(TOKEN, "session-bot", single=False, on_enter=on_enter)
            start = anyio.Event()
            tables = [
                server.start_table(
                    config(seed=n + 1, decision_ms=10_000, bank_ms=60_000), start=start
                )
                for n in range(len(seats))
            ]
            threads = [
                threading.Thread(
                    target=random_bot,
                    args=(server.address, table.ticket(seat), seat, Recording()),
                    daemon=True,
                )
                for table, ours in zip(tables, seats, strict=True)
                for seat in range(4)
                if seat != ours
            ]
            for thread in threads:
                thread.start()
            full = [*command, "--address", server.address]
            env = bot_environment(server.address, token=TOKEN)
            with anyio.fail_after(HANG_S):
                async with anyio.create_task_group() as nursery:

                    async def run_the_bot() -> None:
                        process = await run_process(full, env)
                        done.append(process)
                        # gone while a table of its is still in play: fail now, not at the
                        # timeout
                        if any(table.result is None for table in tables):
                            raise AssertionError(
                                f"the bot exited ({process.returncode}) before its tables were "
                                f"over:\n{process.stderr}"
                            )

                    nursery.start_soon(run_the_bot)
                    await someone_entered.wait()
                    for table, seat in zip(tables, seats, strict=True):
                        entered[0].offer(table, seat)
                    server.close_door(door)  # the session is over, with its seats in hand
                    for table in tables:
                        await table.connected.wait()
                    start.set()
                    for table in tables:
                        results.append(await server.wait(table))
            for thread in threads:
                await anyio.to_thread.run_sync(thread.join, HANG_S)

    anyio.run(main, backend="asyncio")
    assert len(entered) == 1, entered
    return SessionRun(done[0], entered[0], results, list(seats))


def run_on_a_seat(command: list[str], address: str, ticket: str) -> Done:
    """Run ``command`` (``--address`` still to come) on one seat, its ticket in
    ``ARENA_TICKET``."""
    env = bot_environment(address, ticket=ticket)
    full = [*command, "--address", address]
    return subprocess.run(full, env=env, capture_output=True, text=True, timeout=MATCH_S)


def run_with_a_wrong_ticket(command: list[str]) -> Done:
    """Run ``command`` (``--address`` still to come, the last of its arguments) against a real
    server with a table, with a ticket for that table the server does not know (in
    ``ARENA_TICKET``)."""
    done: list[Done] = []

    async def main() -> None:
        async with open_server("127.0.0.1:0") as server:
            # the table waits far longer than a loaded machine takes to start the bot, and
            # is closed with the server once the bot has gone
            table = server.start_table(config(connect_timeout_s=600, decision_ms=50, bank_ms=0))
            wrong = table.ticket(0)[:-3] + "xyz"
            full = [*command, "--address", server.address]
            env = bot_environment(server.address, ticket=wrong)
            with anyio.fail_after(HANG_S):
                done.append(await run_process(full, env))

    anyio.run(main, backend="asyncio")
    return done[0]


def run_with_a_bad_command_line(command: list[str]) -> Done:
    """Run ``command`` with a token in its environment and an address nothing listens at: a
    bot that checks its command line first exits before it connects."""
    env = bot_environment("127.0.0.1:9", token="a-token")
    full = [*command, "--address", "127.0.0.1:9"]
    return subprocess.run(full, env=env, capture_output=True, text=True, timeout=HANG_S)


def run_with_a_wrong_token(command: list[str]) -> Done:
    """Run ``command`` (``--address`` still to come, the last of its arguments) against a real server that knows a session
    token, with a token it does not know (in ``ARENA_TOKEN``)."""
    done: list[Done] = []

    async def main() -> None:
        async with open_server("127.0.0.1:0") as server:
            server.open_door(TOKEN, "session-bot")
            full = [*command, "--address", server.address]
            env = bot_environment(server.address, token=TOKEN[:-3] + "xyz")
            with anyio.fail_after(HANG_S):
                done.append(await run_process(full, env))

    anyio.run(main, backend="asyncio")
    return done[0]


class DroppingArena(arena_pb2_grpc.ArenaServiceServicer):
    """A scripted arena whose first session stream drops. The first Enter offers seat A, then
    fails with UNAVAILABLE. The second offers A again (its stream is still open, so the bot
    must not open another), then B, and ends with OK once both are played out. A's match is
    held open until B's Hello has come, so A is certainly in hand when it is offered again.
    Records every EnterRequest and Hello."""

    A, B = "ticket-a", "ticket-b"

    def __init__(self) -> None:
        self.enters: list[pb.EnterRequest] = []
        self.hellos: list[pb.Hello] = []
        self._b_said_hello = threading.Event()
        self._played = {self.A: threading.Event(), self.B: threading.Event()}

    def Enter(
        self, request: pb.EnterRequest, context: grpc.ServicerContext
    ) -> Iterator[pb.EnterResponse]:
        self.enters.append(request)
        entered = pb.Entered(session="scripted", capacity=request.capacity, protocol_version=2)
        yield pb.EnterResponse(entered=entered)
        yield pb.EnterResponse(seat=pb.SeatOffer(ticket=self.A, seat=1, preset="classic"))
        if len(self.enters) == 1:
            context.abort(grpc.StatusCode.UNAVAILABLE, "scripted drop")
        yield pb.EnterResponse(seat=pb.SeatOffer(ticket=self.B, seat=2, preset="classic"))
        for played in self._played.values():
            if not played.wait(HANG_S):
                context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "the seats were not played")
        # returning ends the session with status OK: no more games

    def Play(
        self, request_iterator: Iterator[pb.PlayRequest], context: grpc.ServicerContext
    ) -> Iterator[pb.PlayResponse]:
        hello = next(iter(request_iterator)).hello
        self.hellos.append(hello)
        seat = 1 if hello.ticket == self.A else 2
        yield pb.PlayResponse(welcome=pb.Welcome(seat=seat, table=f"scripted-{seat}"))
        if hello.ticket == self.A:
            self._b_said_hello.wait(HANG_S)
        else:
            self._b_said_hello.set()
        over = pb.MatchOver(ending=pb.ENDING_PLAYED_OUT, winner=0, hands=1, reason="scripted")
        yield pb.PlayResponse(match_over=over)
        self._played[hello.ticket].set()


def run_against(
    servicer: arena_pb2_grpc.ArenaServiceServicer,
    command: list[str],
    *,
    token: str | None = None,
    ticket: str | None = None,
) -> Done:
    """Run ``command`` (with ``--address`` still to come) against a scripted arena, with a
    ``token`` or a ``ticket`` in its environment."""
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=8), options=[("grpc.so_reuseport", 0)]
    )
    arena_pb2_grpc.add_ArenaServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        address = f"127.0.0.1:{port}"
        env = bot_environment(address, token=token, ticket=ticket)
        full = [*command, "--address", address]
        return subprocess.run(full, env=env, capture_output=True, text=True, timeout=HANG_S)
    finally:
        server.stop(grace=None)


Scripted = TypeVar("Scripted", bound=arena_pb2_grpc.ArenaServiceServicer)


def run_on_a_scripted_seat(arena: Scripted, command: list[str]) -> tuple[Done, Scripted]:
    """Run ``command`` (``--address`` still to come) with :data:`SEAT_TICKET` against
    ``arena``, a scripted seat (:class:`RefusingArena`, :class:`DroppingSeatArena`)."""
    return run_against(arena, command, ticket=SEAT_TICKET), arena


def run_against_a_dropping_arena(command: list[str]) -> tuple[Done, DroppingArena]:
    """Run ``command`` (``--address`` still to come) with a session token against
    :class:`DroppingArena`."""
    arena = DroppingArena()
    return run_against(arena, command, token=TOKEN), arena


def check_the_session(run: SessionRun, name: str, capacity: int) -> None:
    """The bot entered as asked, played every seat it was offered to its end without a fault,
    and exited 0 once the session and its seats were over."""
    assert run.process.returncode == 0, run.stderr
    assert run.session.bot_name == name, run.session
    assert run.session.capacity == capacity, run.session
    assert run.session.instance, "the bot sent no instance id"
    for result, seat in zip(run.results, run.seats, strict=True):
        assert result.outcome.ending is Ending.PLAYED_OUT, result
        stats = result.seats[seat]
        assert stats.name == name, stats
        assert stats.decisions > 0 and stats.connects == 1, stats
        assert stats.strikes == 0 and stats.illegal == 0 and stats.malformed == 0, stats
    assert run.stderr.count("match over:") == len(run.seats), run.stderr
    assert f"session over: {len(run.seats)} seats played" in run.stderr, run.stderr


def check_the_second_enter(done: Done, arena: DroppingArena, name: str, capacity: int) -> None:
    """After the drop the bot entered again as the same process, played the seat it held on
    its first stream only, played the new seat, and exited 0 when the session ended."""
    assert done.returncode == 0, done.stderr
    assert "UNAVAILABLE" in done.stderr and "entering again" in done.stderr, done.stderr
    first, second = arena.enters
    assert first == second, (first, second)  # the same token and instance: the same process
    assert first.token == TOKEN and first.protocol_version == 2, first
    assert first.bot_name == name and first.capacity == capacity and first.instance, first
    assert sorted(hello.ticket for hello in arena.hellos) == [arena.A, arena.B], arena.hellos
    assert done.stderr.count("match over:") == 2, done.stderr


class EndedArena(arena_pb2_grpc.ArenaServiceServicer):
    """A scripted arena whose run ends while the session is away: the first Enter is answered,
    then drops (UNAVAILABLE); the next is refused with FAILED_PRECONDITION, as the arena
    refuses an Enter once its token's run is over (docs/writing-a-bot.md)."""

    def __init__(self) -> None:
        self.enters: list[pb.EnterRequest] = []

    def Enter(
        self, request: pb.EnterRequest, context: grpc.ServicerContext
    ) -> Iterator[pb.EnterResponse]:
        self.enters.append(request)
        if len(self.enters) > 1:
            context.abort(
                grpc.StatusCode.FAILED_PRECONDITION,
                "the arena wants no more games with this token: its run is over",
            )
        entered = pb.Entered(session="scripted", capacity=request.capacity, protocol_version=2)
        yield pb.EnterResponse(entered=entered)
        context.abort(grpc.StatusCode.UNAVAILABLE, "scripted drop")


def check_a_run_that_ended_while_away(command: list[str]) -> None:
    """A bot that re-enters after a drop and hears the run is over exits 0: nothing failed."""
    arena = EndedArena()
    done = run_against(arena, command, token=TOKEN)
    assert len(arena.enters) == 2, done.stderr
    assert done.returncode == 0, done.stderr


# -- one seat: refusals -----------------------------------------------------------------------

BID = pb.Bid(kind=pb.BID_KIND_SUIT_PAIR, cards=[pb.CARD_CLUBS_2] * 2, suit=pb.SUIT_CLUBS)


class RefusingArena(arena_pb2_grpc.ArenaServiceServicer):
    """One scripted Play: a play decision refused once as illegal, then refused as stale (which
    needs no answer), a fry decision, and the match's end. Records what the bot sent."""

    def __init__(self) -> None:
        self.received: list[pb.PlayRequest] = []

    def Play(
        self, request_iterator: Iterator[pb.PlayRequest], context: grpc.ServicerContext
    ) -> Iterator[pb.PlayResponse]:
        requests = iter(request_iterator)

        def receive() -> pb.PlayRequest:
            self.received.append(next(requests))
            return self.received[-1]

        receive()  # the Hello
        yield pb.PlayResponse(welcome=pb.Welcome(seat=0, partner=2, protocol_version=2))
        yield pb.PlayResponse(snapshot=pb.Snapshot(seat=0, phase=pb.PHASE_PLAY))
        option = pb.CardOption(
            forced=[pb.CARD_SPADES_2], pool=[pb.CARD_HEARTS_5] * 2, k_min=1, k_max=2
        )
        legal = pb.LegalActions(phase=pb.PHASE_PLAY, seat=0, card_options=[option])
        yield pb.PlayResponse(decision=pb.Decision(decision_id=7, legal=legal, deadline_ms=60_000))
        receive()
        refused = pb.Refused(decision_id=7, code=pb.REFUSAL_CODE_ILLEGAL, reason="scripted")
        yield pb.PlayResponse(refused=refused)
        receive()
        stale = pb.Refused(decision_id=7, code=pb.REFUSAL_CODE_STALE, reason="scripted")
        yield pb.PlayResponse(refused=stale)
        legal = pb.LegalActions(phase=pb.PHASE_FRY, seat=0, can_pass=True, bids=[BID])
        yield pb.PlayResponse(decision=pb.Decision(decision_id=8, legal=legal, deadline_ms=60_000))
        receive()
        over = pb.MatchOver(ending=pb.ENDING_PLAYED_OUT, winner=0, hands=1, reason="scripted")
        yield pb.PlayResponse(match_over=over)


def check_the_refusals(done: Done, arena: RefusingArena, name: str) -> None:
    """Every kit's one behaviour after a Refused (docs/writing-a-bot.md): the bot answered the
    refused decision again with the safe legal action (the one a Strike plays) marked
    ``fallback``, said so once on stderr, sent nothing for the stale refusal, answered the next
    decision with its own choice (no ``fallback``), and exited 0 at the MatchOver."""
    assert done.returncode == 0, done.stderr
    assert "refused (REFUSAL_CODE_ILLEGAL): scripted" in done.stderr, done.stderr
    assert done.stderr.count("counted as a fallback in the report") == 1, done.stderr
    hello, first, second, third = arena.received
    assert hello.hello == pb.Hello(ticket=SEAT_TICKET, protocol_version=2, bot_name=name)
    assert first.answer.decision_id == 7 and not first.answer.fallback, first
    assert list(first.answer.action.play.cards) in (
        [pb.CARD_SPADES_2, pb.CARD_HEARTS_5],
        [pb.CARD_SPADES_2, *[pb.CARD_HEARTS_5] * 2],
    )
    assert second.answer.decision_id == 7 and second.answer.fallback, second
    assert sorted(second.answer.action.play.cards) == [pb.CARD_SPADES_2, pb.CARD_HEARTS_5]
    assert third.answer.decision_id == 8 and not third.answer.fallback  # none for the stale one
    assert third.answer.action.WhichOneof("action") in ("fry", "pass_turn")
    if third.answer.action.HasField("fry"):
        assert third.answer.action.fry == BID


# -- one seat: a dropped stream ---------------------------------------------------------------


class DroppingSeatArena(arena_pb2_grpc.ArenaServiceServicer):
    """A scripted seat whose first stream drops with a decision open: Welcome, Snapshot and
    Decision 7, then UNAVAILABLE before any answer is read. The second stream (the bot's
    reconnect, with the same ticket) gets Welcome ``resumed``, a Snapshot, Decision 7 again,
    and once it is answered the MatchOver. Records every Hello and the answer."""

    def __init__(self) -> None:
        self.hellos: list[pb.Hello] = []
        self.answers: list[pb.PlayRequest] = []

    def Play(
        self, request_iterator: Iterator[pb.PlayRequest], context: grpc.ServicerContext
    ) -> Iterator[pb.PlayResponse]:
        requests = iter(request_iterator)
        self.hellos.append(next(requests).hello)
        resumed = len(self.hellos) > 1
        yield pb.PlayResponse(welcome=pb.Welcome(seat=0, partner=2, resumed=resumed))
        yield pb.PlayResponse(snapshot=pb.Snapshot(seat=0, phase=pb.PHASE_PLAY))
        option = pb.CardOption(pool=[pb.CARD_SPADES_2, pb.CARD_HEARTS_5], k_min=1, k_max=1)
        legal = pb.LegalActions(phase=pb.PHASE_PLAY, seat=0, card_options=[option])
        yield pb.PlayResponse(decision=pb.Decision(decision_id=7, legal=legal, deadline_ms=60_000))
        if not resumed:
            context.abort(grpc.StatusCode.UNAVAILABLE, "scripted drop")
        self.answers.append(next(requests))
        over = pb.MatchOver(ending=pb.ENDING_PLAYED_OUT, winner=0, hands=1, reason="scripted")
        yield pb.PlayResponse(match_over=over)


def check_the_reconnect(done: Done, arena: DroppingSeatArena, name: str) -> None:
    """The bot connected again with the same ticket, answered the decision sent again with one
    of its legal plays, and exited 0 at the MatchOver."""
    assert done.returncode == 0, done.stderr
    hello = pb.Hello(ticket=SEAT_TICKET, protocol_version=2, bot_name=name)
    assert arena.hellos == [hello, hello], arena.hellos
    (answer,) = arena.answers
    assert answer.answer.decision_id == 7, answer
    assert list(answer.answer.action.play.cards) in ([pb.CARD_SPADES_2], [pb.CARD_HEARTS_5])
    assert done.stderr.count("match over:") == 1, done.stderr
