"""A table whose seats are in-process bots (their ``decide`` called by the table itself), under
trio's MockClock: a ``decide`` spends time by moving the mock clock on, so every deadline,
bank, strike and forfeit is exact and nothing waits for real time. The rules are the table's
for every seat (tests/test_table_clock.py has the same figures for seats that take streams):
time over the decision comes out of the bank; an answer after the deadline is struck and the
default move played; a fallback for what is no action; an illegal action refused, counted,
and a fallback played for it; a ``decide`` that raises leaves its seat as a stream that ended
(the game is told, and forfeits it); one that runs until its seat would have struck out is
stopped there, and its team forfeits."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
import trio
import trio.testing

from chaodipi.arena.serving import InProcessSeat, Overdue
from chaodipi.arena.serving.table import Table, TableConfig, TableResult
from chaodipi.bot import Answer
from chaodipi.engine import Action, Pass, Play, SeatView, observe

from .table_support import config, kind_of, random_bot, seat_bots


def exactly(seconds: float) -> object:
    return pytest.approx(seconds, abs=1e-9)


def play(
    table_config: TableConfig,
    bots: list[InProcessSeat | None],
    clock: trio.testing.MockClock | None = None,
    tables: list[Table] | None = None,
) -> tuple[TableResult, Table, list[Any]]:
    """Play a table with these in-process seats (None: a stream's seat, played by a random
    bot of the test) on ``clock`` (the table also goes into ``tables``, for the bots to read);
    the result, the table and the players of the seats (those of stream seats connect)."""

    async def main() -> tuple[TableResult, Table, list[Any]]:
        table = Table("t", table_config, in_process=bots)
        if tables is not None:
            tables.append(table)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(table.run)
            players = seat_bots(nursery, table, [random_bot if b is None else idle for b in bots])
            await table.finished.wait()
            nursery.cancel_scope.cancel()
        assert table.result is not None
        return table.result, table, players

    return trio.run(main, clock=clock or trio.testing.MockClock(autojump_threshold=0))


async def idle(player: Any) -> None:
    """An in-process seat's player: nothing to do."""


def sampler(seed: int) -> Callable[[SeatView], Action]:
    rng = random.Random(seed)

    def decide(view: SeatView) -> Action:
        assert view.legal is not None
        return view.legal.sample(rng)

    return decide


def test_a_seat_s_decide_gets_its_view_with_the_legal_set_and_nothing_is_converted() -> None:
    """Four in-process bots play a classic hand: at every decision each gets exactly what
    ``observe(match, seat)`` says (carried from its first view by its events), with the legal
    set; the match is played to its end, a turn per action, and no event became a message."""
    tables: list[Table] = []
    asked: list[int] = []

    def checking(seat: int) -> Callable[[SeatView], Action]:
        rng = random.Random(seat)

        def decide(view: SeatView) -> Action:
            assert view == observe(tables[0].match, seat)
            assert view.legal is not None and view.seat == seat
            asked.append(seat)
            return view.legal.sample(rng)

        return decide

    bots: list[InProcessSeat | None] = [InProcessSeat(checking(s), f"b{s}") for s in range(4)]
    result, table, _ = play(config(seed=7), bots, tables=tables)
    assert result.outcome.reason == "played to the end"
    assert len(result.turns) == len(table.match.actions)
    assert sum(turn.asked for turn in result.turns) == len(asked) > 40
    assert [s.decisions for s in result.seats] == [asked.count(seat) for seat in range(4)]
    assert table._messages == []


def test_time_over_the_decision_comes_out_of_the_bank_then_a_late_answer_is_struck() -> None:
    """Seat 0 thinks 1.5 s a decision (1 s a decision, 2 s of bank, 50 ms grace, 3 strikes):
    its bank goes 2, 1.5, 1, 0.5, 0 s; then each answer comes after its deadline (1.05 s), so
    it is struck, the default move played for it, until the third strike forfeits its team."""
    clock = trio.testing.MockClock(autojump_threshold=0)
    banks: list[float] = []
    tables: list[Table] = []
    rng = random.Random(0)

    def slow(view: SeatView) -> Action:
        banks.append(tables[0].seats[0].bank_s)
        clock.jump(1.5)
        assert view.legal is not None
        return view.legal.sample(rng)

    bots: list[InProcessSeat | None] = [InProcessSeat(slow, "slow")]
    bots += [InProcessSeat(sampler(seat), f"b{seat}") for seat in (1, 2, 3)]
    cfg = config(decision_ms=1000, bank_ms=2000, grace_ms=50, max_strikes=3)
    result, table, _ = play(cfg, bots, clock, tables)
    assert banks == [exactly(b) for b in (2.0, 1.5, 1.0, 0.5, 0.0, 0.0, 0.0)]
    mine = [t for t, (seat, _) in zip(result.turns, table.match.actions, strict=True) if seat == 0]
    asked = [t for t in mine if t.asked]
    assert [t.struck for t in asked] == [False] * 4 + [True] * 3
    assert [t.strikes for t in asked] == [0, 0, 0, 0, 1, 2, 3]
    assert [t.ms for t in asked] == [1500] * 7
    assert result.outcome.forfeited_by == 0 and result.outcome.winner == 1
    assert result.outcome.reason == "seat 0 timed out 3 times"
    assert result.seats[0].think_s == exactly(7 * 1.5)


def test_a_note_is_kept_and_what_is_no_action_or_illegal_is_a_fallback() -> None:
    """Seat 0 answers its first decision with a note, its second with no action (a fallback:
    the default move), its third with an illegal play (refused and counted, then a fallback),
    then at random: the record's turns say so, and the seat's counts."""
    answers: list[Any] = []

    def odd(view: SeatView) -> Action | Answer | None:
        assert view.legal is not None
        answers.append(view.legal.default())
        number = len(answers)
        if number == 1:
            return Answer(view.legal.default(), note="first thoughts")
        if number == 2:
            return None
        if number == 3:
            return Play(tuple(view.hand) * 3)  # no such holding: never legal
        return view.legal.sample(random.Random(number))

    bots: list[InProcessSeat | None] = [InProcessSeat(odd, "odd")]  # type: ignore[arg-type]
    bots += [InProcessSeat(sampler(seat), f"b{seat}") for seat in (1, 2, 3)]
    result, table, _ = play(config(seed=3), bots)
    mine = [t for t, (seat, _) in zip(result.turns, table.match.actions, strict=True) if seat == 0]
    first, second, third = [t for t in mine if t.asked][:3]
    assert (first.note, first.fallback, first.refused) == ("first thoughts", False, 0)
    assert (second.note, second.fallback, second.refused) == ("", True, 0)
    assert (third.note, third.fallback, third.refused) == ("", True, 1)
    played = [a for seat, a in table.match.actions if seat == 0]
    asked_at = [i for i, t in enumerate(mine) if t.asked]
    assert played[asked_at[1]] == answers[1] and played[asked_at[2]] == answers[2]
    stats = result.seats[0]
    assert (stats.fallbacks, stats.illegal, stats.strikes) == (2, 1, 0)
    assert stats.first_refusal != ""
    assert result.outcome.reason == "played to the end"


def test_a_decide_that_raises_leaves_its_seat_and_its_game_is_told() -> None:
    """Seat 2's ``decide`` raises at its third decision: the game is told with the error (and
    forfeits the seat's team here, as a game does when a bot's process exits), the seat counts a
    drop, and no move is played for the decision it never answered."""
    calls: list[int] = []
    told: list[BaseException] = []
    tables: list[Table] = []

    def fragile(view: SeatView) -> Action:
        calls.append(1)
        if len(calls) == 3:
            raise ValueError("no idea")
        assert view.legal is not None
        return view.legal.default()

    def gone(error: BaseException) -> None:
        told.append(error)
        tables[0].forfeit(2, f"b2 (seat 2) crashed, its decide raised {error!r}")

    bots: list[InProcessSeat | None] = [InProcessSeat(sampler(s), f"b{s}") for s in range(4)]
    bots[2] = InProcessSeat(fragile, "fragile", on_gone=gone)
    result, table, _ = play(config(seed=2), bots, tables=tables)
    assert [type(e) for e in told] == [ValueError]
    assert result.outcome.forfeited_by == 2 and result.outcome.winner == 1
    assert result.seats[2].drops == 1 and result.seats[2].decisions == 2
    assert len(result.turns) == len(table.match.actions)


def test_a_raised_decide_with_nobody_to_forfeit_it_strikes_out_by_the_clock() -> None:
    """Nothing forfeits seat 1 when its ``decide`` raises at its first decision: its seat is then
    one whose stream ended, so each of its decisions times out at its budget (3.05 s, then
    1.05 s: 1 s a decision, 2 s of bank, 50 ms grace) and the second strike forfeits it."""
    clock = trio.testing.MockClock(autojump_threshold=0)

    def broken(view: SeatView) -> Action:
        raise RuntimeError("broken")

    bots: list[InProcessSeat | None] = [InProcessSeat(sampler(s), f"b{s}") for s in range(4)]
    bots[1] = InProcessSeat(broken, "broken")
    cfg = config(decision_ms=1000, bank_ms=2000, grace_ms=50, max_strikes=2)
    result, table, _ = play(cfg, bots, clock)
    mine = [t for t, (seat, _) in zip(result.turns, table.match.actions, strict=True) if seat == 1]
    assert [(t.struck, t.ms) for t in mine if t.asked] == [(True, 3050), (True, 1050)]
    assert result.outcome.forfeited_by == 1 and result.outcome.reason == "seat 1 timed out 2 times"
    assert result.seats[1].drops == 1


class Recording:
    """A guard that notes when it is asked to stop the ``decide`` it guards."""

    def __init__(self) -> None:
        self.armed: list[float] = []

    def arm(self, seconds: float) -> None:
        self.armed.append(seconds)

    def disarm(self) -> None:
        pass


def test_a_decide_still_running_when_its_seat_would_have_struck_out_is_stopped_and_forfeits() -> None:
    """Seat 3's guard is set, at each decision, for when the seat would have struck out had it
    stopped answering: its deadline (the decision's 1 s, its 2 s of bank, 50 ms grace), then
    1.05 s for each strike left (3 in all): 5.15 s. Its ``decide`` runs that long and is
    stopped (the guard raises :class:`Overdue` in it): the decision is struck, the default move
    played, and its team forfeits."""
    clock = trio.testing.MockClock(autojump_threshold=0)
    guard = Recording()

    def hangs(view: SeatView) -> Action:
        clock.jump(guard.armed[-1])
        raise Overdue

    bots: list[InProcessSeat | None] = [InProcessSeat(sampler(s), f"b{s}") for s in range(4)]
    bots[3] = InProcessSeat(hangs, "hangs", guard=guard)
    cfg = config(decision_ms=1000, bank_ms=2000, grace_ms=50, max_strikes=3)
    result, table, _ = play(cfg, bots, clock)
    assert guard.armed == [exactly(5.15)]
    assert bots[3] is not None and bots[3].hung
    last_seat, _ = table.match.actions[-1]
    assert last_seat == 3 and result.turns[-1].struck and result.turns[-1].strikes == 1
    assert result.outcome.forfeited_by == 3 and result.outcome.winner == 0
    assert result.outcome.reason.startswith("seat 3 timed out: its decide was still running")


def test_in_process_seats_and_stream_seats_play_one_table() -> None:
    """Seats 0 and 2 in-process, 1 and 3 on streams (random bots of the test): the match is
    played to its end; the stream seats get their Snapshot and Decisions, with the events the
    in-process seats' moves made; the in-process seats are sent nothing."""
    bots: list[InProcessSeat | None] = [InProcessSeat(sampler(0), "a"), None]
    bots += [InProcessSeat(sampler(2), "b"), None]
    result, table, players = play(config(seed=9), bots)
    assert result.outcome.reason == "played to the end"
    for player in players[1::2]:
        kinds = player.kinds()
        assert kinds[:2] == ["welcome", "snapshot"] and "decision" in kinds
        assert kind_of(player.sent[-1]) == "match_over"
    assert players[0].ports == [] and players[2].ports == []
    assert result.seats[0].decisions > 0 and result.seats[1].decisions > 0
    assert any(isinstance(a, Pass) for _, a in table.match.actions)
