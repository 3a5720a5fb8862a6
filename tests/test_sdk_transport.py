"""The SDK's grpc.aio transport: where ``decide`` runs (inline on the bot's event loop, or in a
worker thread), and what it sends (``decide``'s action as it is: the server judges it).

Real tables over gRPC (:func:`tests.server_support.run_tables`); each bot runs ``run_bot`` in
a thread of its own, whose event loop is that thread. No test waits for a length of time."""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Callable

import grpc
import grpc.aio
import pytest

from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import convert
from chaodipi.bot import Action, MatchResult, Pass, SeatView, run_bot
from chaodipi.bot.seat import Retries, Seat, play_seat
from chaodipi.bot.thinking import FAST_S, MOST_PROBE, PROBE, Placement
from chaodipi.engine.match import Ending, Match
from chaodipi.engine.presets import PRESETS
from chaodipi.engine.view import observe

from .server_support import Bot, Recording, config, random_bot, random_decide, run_tables


class Where:
    """A random ``decide`` that notes, for each call, whether it ran on the bot's own thread
    (the one running its event loop: inline) or another (a worker thread)."""

    def __init__(self) -> None:
        self.rng = random.Random(5)
        self.loop_thread: int | None = None
        self.inline: list[bool] = []

    def __call__(self, view: SeatView) -> Action:
        assert view.legal is not None
        self.inline.append(threading.get_ident() == self.loop_thread)
        return view.legal.sample(self.rng)

    def bot(self, decide_in_thread: bool | None = None) -> Bot:
        def play(address: str, ticket: str, seat: int, recording: Recording) -> MatchResult:
            self.loop_thread = threading.get_ident()
            return run_bot(
                self,
                address=address,
                ticket=ticket,
                on_message=recording.messages.append,
                exit_on_error=False,
                decide_in_thread=decide_in_thread,
            )

        return play


def play_two_hands(bot: Bot) -> None:
    cfg = config("classic", seed=3, max_hands=2)
    results, recordings = run_tables([cfg], [[bot, random_bot, random_bot, random_bot]])
    assert results[0].outcome.reason == "played to the end"
    assert all(r.error is None for r in recordings[0]), [r.error for r in recordings[0]]
    assert all(s.strikes == 0 for s in results[0].seats)


def test_a_quick_decide_starts_in_the_worker_thread_then_runs_inline() -> None:
    """By default the first decides run in the worker thread, timed; a random bot's are far
    quicker than ``FAST_S``, so after ``PROBE`` of them the next ones run inline."""
    where = Where()
    play_two_hands(where.bot())
    assert len(where.inline) > PROBE + 5
    assert where.inline[:PROBE] == [False] * PROBE
    # then inline (a loaded machine may make a decide look slow, which only puts that later)
    assert True in where.inline[PROBE:], where.inline


@pytest.mark.parametrize("in_thread", [True, False])
def test_decide_in_thread_fixes_where_decide_runs(in_thread: bool) -> None:
    where = Where()
    play_two_hands(where.bot(decide_in_thread=in_thread))
    assert where.inline and set(where.inline) == {not in_thread}


def test_placement_goes_inline_after_probe_fast_decides_in_a_row_and_back_after_a_slow_one() -> (
    None
):
    placement = Placement(None)
    seen = []
    for seconds in [FAST_S / 10] * (PROBE - 1) + [FAST_S * 2] + [FAST_S] * PROBE + [1.0]:
        seen.append(placement.inline())
        placement.timed(seconds)
    seen.append(placement.inline())
    # PROBE - 1 fast, one slow: still the thread; then PROBE fast: inline; then one slow: thread
    assert seen == [False] * (2 * PROBE) + [True, False]
    assert Placement(True).inline() is False and Placement(False).inline() is True
    never = Placement(True)
    for _ in range(2 * PROBE):
        never.timed(0.0)
    assert never.inline() is False


def test_each_slow_decide_inline_doubles_the_fast_ones_wanted_before_the_next_go_inline() -> None:
    """A bot slow now and then (the heuristic bot) soon stays in the guarded thread; one slow
    in the thread (not inline) asks for no more than before."""
    placement = Placement(None)
    wanted = []
    for _ in range(12):
        fast = 0
        while not placement.inline():
            placement.timed(0.0)
            fast += 1
        wanted.append(fast)
        placement.timed(FAST_S * 2)  # slow, inline
        placement.timed(FAST_S * 2)  # slow again, in the thread: no doubling
    assert wanted == [PROBE * 2**k for k in range(8)] + [MOST_PROBE] * 4
    assert MOST_PROBE == PROBE * 2**7


def test_an_illegal_action_is_sent_as_it_is_and_the_refusal_answered_with_a_safe_one(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """The SDK does not check ``decide``'s action: the server does, refuses it (the seat's
    ``illegal`` count), and the SDK answers the refusal once with a safe legal action, so the
    seat is never struck."""
    rng = random.Random(2)
    wrong: list[SeatView] = []

    def decide(view: SeatView) -> Action:
        assert view.legal is not None
        if not view.legal.can_pass and not wrong:
            wrong.append(view)
            return Pass()  # not legal here
        return view.legal.sample(rng)

    def bot(address: str, ticket: str, seat: int, recording: Recording) -> MatchResult:
        return run_bot(decide, address=address, ticket=ticket, on_message=recording.messages.append)

    results, recordings = run_tables(
        [config("classic", seed=4)], [[bot, random_bot, random_bot, random_bot]]
    )
    seat = results[0].seats[0]
    assert results[0].outcome.reason == "played to the end"
    assert len(wrong) == 1 and seat.illegal == 1 and seat.strikes == 0
    assert seat.fallbacks == 1  # the safe action went as the SDK's, not the bot's
    assert len(recordings[0][0].of("refused")) == 1
    err = capfd.readouterr().err
    assert "refused (REFUSAL_CODE_ILLEGAL): " in err
    assert err.count("counted as a fallback in the report") == 1, err


def test_what_is_no_action_at_all_is_replaced_by_a_safe_one_with_a_warning(
    capfd: pytest.CaptureFixture[str],
) -> None:
    rng = random.Random(3)
    calls = []

    def decide(view: SeatView) -> Action:
        assert view.legal is not None
        calls.append(view)
        if len(calls) == 1:
            return "play the best card"  # type: ignore[return-value]
        return view.legal.sample(rng)

    def bot(address: str, ticket: str, seat: int, recording: Recording) -> MatchResult:
        return run_bot(decide, address=address, ticket=ticket)

    results, _ = run_tables(
        [config("classic", seed=5)], [[bot, random_bot, random_bot, random_bot]]
    )
    seat = results[0].seats[0]
    assert results[0].outcome.reason == "played to the end"
    assert seat.illegal == 0 and seat.strikes == 0 and seat.malformed == 0
    assert seat.fallbacks == 1
    err = capfd.readouterr().err
    assert "decide() returned 'play the best card', which is not an action" in err
    assert "answered legal.default() for you (counted as a fallback in the report" in err


def test_a_decide_too_late_for_the_guard_is_answered_for_as_a_fallback_said_once_a_game(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """A ``decide`` that has not answered ``margin_ms`` before the deadline (here: one that
    waits on an event never set, for its first three decisions) does not play: the SDK sends
    ``legal.default()`` marked ``fallback`` on the wire, the table counts each as the seat's
    fallback (not a timeout: the answer came in time) and notes it on the decision, and the
    bot's stderr says it once in the game, naming the seat and the fix."""
    never = threading.Event()
    rng = random.Random(7)
    calls: list[SeatView] = []

    def decide(view: SeatView) -> Action:
        assert view.legal is not None
        calls.append(view)
        if len(calls) <= 3:
            never.wait()  # set only when the test is over, to let the thread end
        return view.legal.sample(rng)

    def bot(address: str, ticket: str, seat: int, recording: Recording) -> MatchResult:
        return run_bot(decide, address=address, ticket=ticket, decide_in_thread=True)

    # the guard answers 150 ms (margin_ms) before the 400 ms deadline; the bank keeps a
    # loaded machine's late answer from being a timeout
    cfg = config("classic", seed=8, decision_ms=400, bank_ms=30_000)
    try:
        results, recordings = run_tables([cfg], [[bot, random_bot, random_bot, random_bot]])
    finally:
        never.set()
    result = results[0]
    assert result.outcome.reason == "played to the end"
    assert recordings[0][0].error is None, recordings[0][0].error
    seat = result.seats[0]
    assert seat.fallbacks == 3 and seat.strikes == 0 and seat.illegal == 0, seat
    assert [d.fallback for d in result.turns].count(True) == 3
    assert not any(d.fallback and d.struck for d in result.turns)
    err = capfd.readouterr().err
    assert err.count("counted as a fallback in the report") == 1, err
    line = next(line for line in err.splitlines() if "counted as a fallback" in line)
    assert line.startswith("seat 0 of table ") and "decide did not answer decision " in line
    assert "answered legal.default() for you" in line and "decision_ms" in line, line


def test_an_exception_in_an_inline_decide_is_raised_by_run_bot() -> None:
    calls = []

    def decide(view: SeatView) -> Action:
        calls.append(threading.get_ident())
        raise ValueError("a bug in the bot")

    errors: list[BaseException] = []

    def bot(address: str, ticket: str, seat: int, recording: Recording) -> None:
        try:
            run_bot(decide, address=address, ticket=ticket, decide_in_thread=False)
        except ValueError as err:
            errors.append(err)
            assert calls == [threading.get_ident()]  # it ran on this thread, inline

    cfg = config("classic", seed=6, decision_ms=200, bank_ms=0, max_strikes=1)
    run_tables([cfg], [[bot, random_bot, random_bot, random_bot]])
    assert [str(e) for e in errors] == ["a bug in the bot"]


def test_run_bot_called_from_async_code_plays_on_a_loop_of_its_own() -> None:
    """``run_bot`` inside a running asyncio loop (a notebook, an async program) still plays:
    its event loop runs in a thread of its own."""
    played: list[MatchResult] = []

    def bot(address: str, ticket: str, seat: int, recording: Recording) -> None:
        async def inside_a_loop() -> None:
            result = run_bot(random_decide(random.Random(seat)), address=address, ticket=ticket)
            assert isinstance(result, MatchResult)
            played.append(result)

        asyncio.run(inside_a_loop())

    results, recordings = run_tables(
        [config("classic", seed=7)], [[bot, random_bot, random_bot, random_bot]]
    )
    assert results[0].outcome.reason == "played to the end"
    assert recordings[0][0].error is None and len(played) == 1


class ScriptedCall:
    """A ``Play`` call that plays back server messages and then ends with a status; once it
    has ended, a write raises what grpc.aio raises then (``InvalidStateError``)."""

    def __init__(self, messages: list[pb.PlayResponse], status: grpc.StatusCode | None) -> None:
        self.messages = messages
        self.status = status
        """The status the call ends with after its messages (``None``: it stays open)."""
        self.written: list[pb.PlayRequest] = []
        self.ended = False

    async def write(self, message: pb.PlayRequest) -> None:
        if self.ended:
            raise asyncio.InvalidStateError("RPC already finished.")
        self.written.append(message)

    async def read(self) -> pb.PlayResponse | object:
        if self.messages:
            return self.messages.pop(0)
        self.ended = True
        if self.status is None or self.status == grpc.StatusCode.OK:
            return grpc.aio.EOF
        meta = grpc.aio.Metadata()
        raise grpc.aio.AioRpcError(self.status, meta, meta, details="dropped by the test")

    def done(self) -> bool:
        return self.ended

    def cancel(self) -> bool:
        self.ended = True
        return True

    async def done_writing(self) -> None:
        return None


class ScriptedChannel:
    """Hands out the scripted calls, one per ``Play`` stream opened."""

    def __init__(self, calls: list[ScriptedCall]) -> None:
        self.calls = calls

    def stream_stream(self, method: str, **_: object) -> Callable[[], ScriptedCall]:
        return lambda: self.calls.pop(0)  # Play

    def unary_unary(self, method: str, **_: object) -> None:
        return None  # the stub's other methods, never called here

    unary_stream = unary_unary


def test_a_stream_the_server_ended_while_decide_thought_is_opened_again() -> None:
    """The server ends the stream (UNAVAILABLE) while a Decision is being decided: the answer's
    write finds the call over (grpc.aio raises ``InvalidStateError`` there, not the status),
    the seat reads the status, reconnects with its ticket and plays on to the match's end."""
    match = Match(PRESETS["classic"], seed=7, max_hands=1)
    seat = match.to_play
    view = observe(match, seat)
    legal = convert.legal_message(match.legal_actions(seat))
    decision = convert.decision(
        1, events=[], legal=legal, deadline_s=60, bank_s=0, strikes=0, cursor=view.cursor
    )
    first = ScriptedCall([convert.snapshot(view), decision], grpc.StatusCode.UNAVAILABLE)
    outcome = match.cut_short(Ending.STOPPED, "stopped by the test")
    again = ScriptedCall(
        [convert.snapshot(view), decision, convert.match_over(outcome, [])], grpc.StatusCode.OK
    )
    channel = ScriptedChannel([first, again])

    def decide(view: SeatView) -> Action:
        first.ended = True  # the server's status came while deciding
        assert view.legal is not None
        return view.legal.default()

    player = Seat(decide, 0.15, None)
    hello = convert.hello("t1/0/secret")
    retries = Retries(reconnects=1, wait_s=0, address="scripted")

    async def play() -> MatchResult:
        return await play_seat(
            lambda: player.play_once(channel, hello),  # type: ignore[arg-type]
            player,
            retries,
            contacted=True,
        )

    result = asyncio.run(play())
    assert result.reason == "stopped by the test"
    assert [m.WhichOneof("request") for m in first.written] == ["hello"]
    assert [m.WhichOneof("request") for m in again.written] == ["hello", "answer"]
