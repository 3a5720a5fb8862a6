"""A table's clocks, driven without gRPC under trio's MockClock: deadlines, banks, strikes,
forfeits, disconnects and reconnects (the clock keeps running), takeovers, the start and the
connect timeout. Every time asserted is exact: nothing here waits for real time."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from chaodipi.arena.serving.port import StreamEnd
from chaodipi.arena.serving.table import Table, TableConfig
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2.convert import action_message, answer
from chaodipi.engine.presets import PRESETS

from .table_support import (
    ListPort,
    Player,
    absent_bot,
    config,
    kind_of,
    legal_of,
    play_table,
    random_bot,
    silent_bot,
)


def exactly(seconds: float) -> object:
    """A time on the mock clock, up to float rounding (nothing else can make it differ)."""
    return pytest.approx(seconds, abs=1e-9)


async def answer_on(player: Player, port: ListPort) -> None:
    """Answer at random on ``port`` (connected already), from its next message on."""
    async for message in port:
        if kind_of(message) == "decision":
            decision = message.decision
            action = legal_of(decision).sample(player.rng)
            player.table.receive(player.seat, port, answer(decision.decision_id, action))


def test_a_decision_nobody_answers_times_out_at_its_budget_and_the_default_move_is_played() -> None:
    """Four seats that never answer (1 s a decision, 2 s of bank, 50 ms grace, 2 strikes):
    each seat's first unanswered decision times out 3.05 s after it was sent (all of its
    bank used), the next 1.05 s after (no bank left); each time the table plays the legal
    set's default move and sends a Strike saying so; the first seat struck twice forfeits
    for its team, and every seat is told."""
    cfg = config(decision_ms=1000, bank_ms=2000, grace_ms=50, max_strikes=2)
    result, players = play_table(cfg, [silent_bot] * 4)
    struck_out = result.outcome.forfeited_by
    assert struck_out is not None
    assert result.seats[struck_out].strikes == 2
    assert result.outcome.winner == 1 - struck_out % 2
    assert result.outcome.reason == f"seat {struck_out} timed out 2 times"
    for player in players:
        decisions = player.timed("decision")
        strikes = player.timed("strike")
        assert len(strikes) == len(decisions) == result.seats[player.seat].strikes
        for number, ((opened, decision), (struck, strike)) in enumerate(
            zip(decisions, strikes, strict=True)
        ):
            assert struck - opened == exactly(3.05 if number == 0 else 1.05)
            assert strike.decision_id == decision.decision_id
            assert strike.played == action_message(legal_of(decision).default())
            assert (strike.strikes, strike.max_strikes) == (number + 1, 2)
        (over,) = player.of("match_over")
        assert over.ending == pb.ENDING_FORFEIT and over.forfeited_by == struck_out
        assert player.port.closed == (StreamEnd.DONE, "")


def test_time_past_the_decision_comes_out_of_the_bank_then_strikes() -> None:
    """Seat 0 thinks 1.5 s over every decision (1 s a decision, 2 s of bank, 3 strikes): each
    Decision says what is left of its bank (2, 1.5, 1, 0.5, then 0 s); with the bank gone it
    is struck 1.05 s after each of its last three decisions opened, and the answers it sent
    too late are refused as stale. Its thinking time is exact."""

    async def slow(player: Player) -> None:
        async for message in player.connect():
            if kind_of(message) == "decision":
                decision = message.decision
                await trio.sleep(1.5)
                player.answer(decision.decision_id, legal_of(decision).sample(player.rng))

    cfg = config(decision_ms=1000, bank_ms=2000, grace_ms=50, max_strikes=3)
    result, players = play_table(cfg, [slow, random_bot, random_bot, random_bot])
    seat = players[0]
    decisions = seat.timed("decision")
    assert [d.bank_ms for _, d in decisions] == [2000, 1500, 1000, 500, 0, 0, 0]
    assert all(d.deadline_ms == 1000 for _, d in decisions)
    strikes = seat.timed("strike")
    assert [s.decision_id for _, s in strikes] == [d.decision_id for _, d in decisions[4:]]
    for (opened, _), (struck, _) in zip(decisions[4:], strikes, strict=True):
        assert struck - opened == exactly(1.05)
    assert result.outcome.forfeited_by == 0 and result.seats[0].strikes == 3
    assert result.seats[0].think_s == exactly(4 * 1.5 + 3 * 1.05)
    late = seat.of("refused")
    assert [r.decision_id for r in late] == [d.decision_id for _, d in decisions[4:6]]
    assert {r.code for r in late} == {pb.REFUSAL_CODE_STALE}


def test_after_a_reconnect_the_welcome_and_the_decision_say_what_is_left_of_the_clock() -> None:
    """A seat away for 5 s of an open decision (1 s per decision, 30 s bank): on its return
    the Welcome's bank and the re-sent Decision's deadline and bank are what is left now
    (0 s of the decision's own time, 26 s of bank), not the full allowances."""

    async def main() -> None:
        table = Table(
            "t", TableConfig(PRESETS["classic"], seed=5, decision_ms=1000, bank_ms=30_000)
        )
        connections = [ListPort() for _ in range(4)]
        async with trio.open_nursery() as nursery:
            nursery.start_soon(table.run)
            for seat, connection in enumerate(connections):
                table.attach(seat, connection, f"bot{seat}")
            # the first seat asked to decide (the others' turns were forced)
            async with trio.open_nursery() as first:
                asked: list[int] = []

                async def wait(seat: int) -> None:
                    await connections[seat].wait_for("decision")
                    asked.append(seat)
                    first.cancel_scope.cancel()

                for seat in range(4):
                    first.start_soon(wait, seat)
            seat = asked[0]
            sent = connections[seat].of("decision")[0]
            assert (sent.deadline_ms, sent.bank_ms) == (1000, 30_000)
            table.detach(seat, connections[seat])
            await trio.sleep(5.0)
            back = ListPort()
            table.attach(seat, back, "back")
            welcome = back.of("welcome")[0]
            again = await back.wait_for("decision")
            assert welcome.resumed is True and welcome.bank_ms == 26_000
            assert again.decision_id == sent.decision_id
            assert (again.deadline_ms, again.bank_ms) == (0, 26_000)
            table.stop("the test is over")

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def test_a_seat_away_past_its_time_is_struck_while_away_and_plays_on_when_back() -> None:
    """Seat 0 leaves after its third answer and comes back 6.5 s later (1 s a decision, 5 s
    of bank): its clock ran while it was away, so its next decision timed out after 6.05 s
    and was played for it (the Strike went to no stream); on its return it gets a Welcome
    (resumed, no bank left), a Snapshot and the decision open then, and plays the match out
    with no further strike."""

    async def flaky(player: Player) -> None:
        answered = 0
        async for message in player.connect():
            if kind_of(message) == "decision":
                decision = message.decision
                player.answer(decision.decision_id, legal_of(decision).sample(player.rng))
                answered += 1
                if answered == 3:
                    break
        player.leave()
        await trio.sleep(6.5)
        await random_bot(player)

    cfg = config(decision_ms=1000, bank_ms=5000, max_strikes=3)
    result, players = play_table(cfg, [flaky, random_bot, random_bot, random_bot])
    seat = players[0]
    assert result.outcome.reason == "played to the end"
    assert result.seats[0].connects == 2 and result.seats[0].strikes == 1
    assert seat.of("strike") == []  # it was away when it was struck
    back = seat.ports[1]
    assert back.kinds()[:3] == ["welcome", "snapshot", "decision"]
    welcome = back.of("welcome")[0]
    assert welcome.resumed is True and welcome.bank_ms == 0
    left_at = seat.ports[0].of("decision")[-1].decision_id
    assert back.of("decision")[0].decision_id > left_at + 1  # one at least was struck


def test_the_newest_connection_takes_the_seat_and_the_old_one_is_told_and_ignored() -> None:
    """A second stream for the seat asked first, 0.25 s into its decision: the first is
    closed (taken over, saying why), the second gets a Welcome (resumed), a Snapshot and the
    open Decision with what is left of its time (0.75 s); what still comes on the first is
    neither applied nor answered."""
    took_over: list[Player] = []

    async def twice(player: Player) -> None:
        first = player.connect("first")
        decision = await first.wait_for("decision")
        if took_over:
            return await answer_on(player, first)
        took_over.append(player)
        await trio.sleep(0.25)
        second = player.connect("second")
        taken = f"seat {player.seat} was taken over by a newer connection"
        assert first.closed == (StreamEnd.TAKEN_OVER, taken)
        table, seat = player.table, player.seat
        table.receive(seat, first, answer(decision.decision_id, legal_of(decision).default()))
        assert table.seats[seat].stats.decisions == 0  # ignored
        assert second.kinds()[:3] == ["welcome", "snapshot", "decision"]
        assert second.of("welcome")[0].resumed is True
        again = second.of("decision")[0]
        assert again.decision_id == decision.decision_id and again.deadline_ms == 750
        await answer_on(player, second)

    result, _ = play_table(config(decision_ms=1000), [twice] * 4)
    (player,) = took_over
    assert result.outcome.reason == "played to the end" and result.seats[player.seat].connects == 2
    assert sorted(s.connects for s in result.seats) == [1, 1, 1, 2]
    assert all(port.of("refused") == [] for port in player.ports)


def test_a_seat_whose_stream_ends_for_good_strikes_out_and_its_team_forfeits() -> None:
    """Seat 0's bot is gone after three decisions (a process killed, say): each of its later
    decisions times out, it strikes out, its team forfeits, and the other seats get the
    result; nothing waits for it."""

    async def dies(player: Player) -> None:
        answered = 0
        async for message in player.connect():
            if kind_of(message) == "decision":
                decision = message.decision
                player.answer(decision.decision_id, legal_of(decision).sample(player.rng))
                answered += 1
                if answered == 3:
                    player.leave()
                    return

    cfg = config(max_hands=30, decision_ms=2000, bank_ms=0, max_strikes=2)
    result, players = play_table(cfg, [dies, random_bot, random_bot, random_bot])
    assert result.outcome.forfeited_by == 0 and result.outcome.winner == 1, result.outcome.reason
    assert result.seats[0].decisions == 5 and result.seats[0].strikes == 2
    for player in players[1:]:
        assert player.of("match_over")[0].forfeited_by == 0
        assert player.port.closed == (StreamEnd.DONE, "")


def test_a_table_waits_for_its_start_and_then_plays() -> None:
    """Every seat connected, yet a table given a start event asks nobody anything until it is
    set, however long that takes (here 1,000 s); then it plays the match out."""
    start = trio.Event()
    opened: list[float] = []

    async def starter(table: Table, players: list[Player]) -> None:
        await table.connected.wait()
        await trio.sleep(1000)
        assert all(p.of("decision") == [] for p in players)
        assert all(s.stats.decisions == 0 for s in table.seats)
        opened.append(trio.current_time())
        start.set()

    result, players = play_table(config(), during=starter, start=start)
    assert result.outcome.reason == "played to the end"
    first = min(t for p in players for t, _ in p.timed("decision"))
    assert first == opened[0] == exactly(1000)


@pytest.mark.parametrize(("gone", "begins_at"), [(False, 30.0), (True, 0.0)])
def test_a_seat_that_never_connects_holds_the_table_up_to_its_connect_timeout(
    gone: bool, begins_at: float
) -> None:
    """Seat 3 never connects (no bank, one strike allowed): the match begins once the
    connect timeout (30 s) has passed, or at once when the table is told its bot is gone
    (``seat_gone``); the others answer at once, so it ends exactly when seat 3's first
    decision has timed out (1.05 s later), lost by seat 3's team."""

    async def told(table: Table, players: list[Player]) -> None:
        if gone:
            table.seat_gone(3)

    cfg = config(connect_timeout_s=30.0, max_strikes=1, decision_ms=1000, bank_ms=0)
    result, players = play_table(cfg, [random_bot, random_bot, random_bot, absent_bot], during=told)
    assert result.outcome.forfeited_by == 3 and result.outcome.reason == "seat 3 timed out 1 times"
    for player in players[:3]:
        ((ended, _),) = player.timed("match_over")
        assert ended == exactly(begins_at + 1.05)


@pytest.mark.parametrize("call", ["stop", "forfeit"])
def test_stop_and_forfeit_end_the_match_at_once_and_every_seat_is_told(call: str) -> None:
    """``stop`` ends the match undecided (the server shuts down); ``forfeit`` ends it lost by
    the seat's team (its bot is gone for good): at the moment they are called, with a
    decision open."""
    ended: list[float] = []

    async def end(table: Table, players: list[Player]) -> None:
        await table.connected.wait()
        await trio.sleep(0.5)
        ended.append(trio.current_time())
        if call == "stop":
            table.stop("the server stops")
        else:
            table.forfeit(2, "seat 2's process crashed")

    result, players = play_table(config(), [silent_bot] * 4, during=end)
    ending = pb.ENDING_STOPPED if call == "stop" else pb.ENDING_FORFEIT
    for player in players:
        ((at, over),) = player.timed("match_over")
        assert at == ended[0] == exactly(0.5) and over.ending == ending
    if call == "stop":
        assert (result.outcome.winner, result.outcome.forfeited_by) == (None, None)
        assert result.outcome.reason == "the server stops"
    else:
        assert (result.outcome.winner, result.outcome.forfeited_by) == (1, 2)
        assert result.outcome.reason == "seat 2's process crashed"
