"""The SDK's grpc.aio transport: where ``decide`` runs (inline on the bot's event loop, or in a
worker thread), and what it sends (``decide``'s action as it is: the server judges it).

Real tables over gRPC (:func:`tests.server_support.run_tables`); each bot runs ``run_bot`` in
a thread of its own, whose event loop is that thread. No test waits for a length of time."""

from __future__ import annotations

import asyncio
import random
import threading

import pytest

from chaodipi.bot import Action, MatchResult, Pass, SeatView, run_bot
from chaodipi.bot.thinking import FAST_S, PROBE, Placement

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
    assert results[0].reason == "played to the end"
    assert all(r.error is None for r in recordings[0]), [r.error for r in recordings[0]]
    assert all(s.strikes == 0 for s in results[0].seats)


def test_a_quick_decide_starts_in_the_worker_thread_then_runs_inline() -> None:
    """By default the first decides run in the worker thread, timed; a random bot's are far
    quicker than ``FAST_S``, so after ``PROBE`` of them the next ones run inline."""
    where = Where()
    play_two_hands(where.bot())
    assert len(where.inline) > PROBE + 5
    assert where.inline[:PROBE] == [False] * PROBE
    assert where.inline[-1] is True, where.inline  # inline by the end (a loaded machine may
    # have made a decide or two look slow, which only puts the switch later)


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
    assert results[0].reason == "played to the end"
    assert len(wrong) == 1 and seat.illegal == 1 and seat.strikes == 0
    assert len(recordings[0][0].of("refused")) == 1
    assert "refused: " in capfd.readouterr().err


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
    assert results[0].reason == "played to the end"
    assert seat.illegal == 0 and seat.strikes == 0 and seat.malformed == 0
    err = capfd.readouterr().err
    assert "decide() returned 'play the best card', which is not an action" in err


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
    assert results[0].reason == "played to the end"
    assert recordings[0][0].error is None and len(played) == 1
