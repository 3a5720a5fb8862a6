"""Whenever a spectator attaches (before the table starts, between the first forced moves,
mid-hand, between hands, after the end) it receives every public event of the match exactly
once, in order, then the end: the history it is sent and its live events are cut at one
cursor, in one step on the loop. The same for a seat's stream after a reconnect, from its
snapshot on. Tables are driven under trio's MockClock with list-backed ports; spectators and
reconnects are made both from inside the table's own step (around each action the match
applies, forced ones included) and from a task at random points of whole matches."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
import trio
import trio.testing

from chaodipi.arena.serving.port import StreamEnd
from chaodipi.arena.serving.table import Table, TableConfig
from chaodipi.engine.presets import PRESETS

from .table_support import (
    ListPort,
    Player,
    config,
    delivered_events,
    kind_of,
    legal_of,
    seat_bots,
)


def public_seqs(table: Table) -> list[int]:
    return [e.seq for e in table.match.log if e.public]


def around_each_action(table: Table, hook: Callable[[str], None]) -> None:
    """Call ``hook("before")`` and ``hook("after")`` inside the table's own step, just before
    and just after each action the match applies (forced moves too, which the table plays
    without a Decision or an await): after, the action's events are recorded and not yet
    shown; before, what came earlier has been shown."""
    match = table.match
    base = type(match)

    def apply(self: Any, seat: int, action: Any) -> None:
        hook("before")
        base.apply(self, seat, action)
        hook("after")

    # the match's class keeps its slots: a subclass of the same layout, with apply hooked
    match.__class__ = type("Hooked", (base,), {"__slots__": (), "apply": apply})


async def following_bot(player: Player) -> None:
    """Answers each Decision at once with a random legal move, on whichever stream is the
    seat's now: when the table closes one (a reconnect took it over), it reads the newest."""
    player.connect()
    while True:
        port = player.port
        async for message in port:
            kind = kind_of(message)
            if kind == "match_over":
                return
            if kind == "decision" and port is player.port:
                decision = message.decision
                player.answer(decision.decision_id, legal_of(decision).sample(player.rng))
        if port is player.port:
            return


def check_spectator(table: Table, spectator: ListPort, public: list[int] | None = None) -> None:
    """Every public event of the match (``public``, when given), once, in order, then the end."""
    events = [m.event.seq for m in spectator.sent if kind_of(m) == "event"]
    assert events == (public_seqs(table) if public is None else public), spectator.peer
    assert spectator.kinds()[-1] == "match_over", spectator.peer
    assert spectator.kinds().count("match_over") == 1, spectator.peer
    assert spectator.closed == (StreamEnd.DONE, ""), spectator.peer


def check_reconnected(table: Table, seat: int, port: ListPort, log: list[Any]) -> None:
    """A stream a seat reconnected: its snapshot's hand so far, then every event the seat may
    see after it, each once, in order (nothing of an earlier hand, nothing skipped), up to
    the end of the match or, for a stream a later reconnect took over, up to then."""
    snapshot = port.of("snapshot")[0]
    seen = [e.seq for e in delivered_events(port.sent)]
    expected = [
        e.seq
        for e in log
        if seat in e.audience and e.hand >= snapshot.hand_number
    ]
    if port.closed == (StreamEnd.DONE, ""):
        assert seen == expected, port.peer
    else:
        assert port.closed is not None and port.closed[0] is StreamEnd.TAKEN_OVER, port.peer
        assert seen == expected[: len(seen)], port.peer


def run_table(
    table_config: TableConfig,
    during: Callable[[Table, list[Player], trio.Nursery], Any],
    *,
    embargo: bool = False,
) -> tuple[Table, ListPort]:
    """Play one table with :func:`following_bot` at every seat; ``during(table, players,
    nursery)`` is called before anything runs (the table has not started). Once the match is
    over (and its embargo lifted), a last spectator attaches: the table and that spectator."""

    async def main() -> tuple[Table, ListPort]:
        lifted = trio.Event() if embargo else None
        table = Table("t", table_config, spectators_after=lifted)
        async with trio.open_nursery() as nursery:
            during(table, [], nursery)
            nursery.start_soon(table.run)
            if lifted is not None:
                nursery.start_soon(table.embargo)
            players = seat_bots(nursery, table, [following_bot] * 4)
            table.players = players  # type: ignore[attr-defined]
            await table.finished.wait()
            if lifted is not None:
                await trio.sleep(1)
                lifted.set()
                # before the embargo's task has run: this one waits with the others
                between = ListPort(peer="between the lift and its step")
                table.watch(between)
                table.between = between  # type: ignore[attr-defined]
            await trio.sleep(1)
            late = ListPort(peer="after the end")
            table.watch(late)
            nursery.cancel_scope.cancel()
        return table, late

    return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_spectator_attached_around_each_of_the_first_actions_sees_every_public_event_once(
    preset: str,
) -> None:
    """Before the table starts, then just before and just after each of the first 40 actions
    the match applies (the 扛旗 hand's forced passes in the declaring stage among them, played
    at once without a Decision), and after the end: every spectator gets the match's public
    events exactly once, in order, then the end."""
    spectators: list[ListPort] = []

    def attach(table: Table) -> None:
        spectator = ListPort(peer=f"spectator {len(spectators)} at {table.match.log.cursor}")
        spectators.append(spectator)
        table.watch(spectator)

    def during(table: Table, players: list[Player], nursery: trio.Nursery) -> None:
        attach(table)
        actions = [0]

        def hook(when: str) -> None:
            if actions[0] < 80:
                attach(table)
            actions[0] += 1

        around_each_action(table, hook)

    table, late = run_table(config(preset, seed=5, max_hands=2), during)
    assert table.result is not None and table.result.outcome.reason == "played to the end"
    for spectator in [*spectators, late]:
        check_spectator(table, spectator)


def test_kangqi_opens_with_forced_passes_that_a_spectator_attached_between_them_sees() -> None:
    """The case that was lost: 扛旗's first public event after the hand begun is seat 0's
    pass in the declaring stage, a forced move. A spectator attached once the table has shown
    it (just before the next action) gets it, as history."""
    seen: list[ListPort] = []

    def during(table: Table, players: list[Player], nursery: trio.Nursery) -> None:
        def hook(when: str) -> None:
            if not seen and when == "before" and len(public_seqs(table)) > 1:
                spectator = ListPort(peer="after the first action's public event")
                seen.append(spectator)
                table.watch(spectator)

        around_each_action(table, hook)

    table, _ = run_table(config("kangqi", seed=1, max_hands=1), during)
    begun, first = [e for e in table.match.log if e.public][:2]
    assert begun.kind.value == "hand_begun"
    assert first.kind.value == "pass" and first.seat == 0
    check_spectator(table, seen[0])


@pytest.mark.parametrize("embargo", [False, True], ids=["live", "embargo"])
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_spectators_and_reconnects_at_random_points_of_whole_matches(
    preset: str, embargo: bool
) -> None:
    """A whole match (to its end) of every preset, with and without an embargo: spectators
    attach at random points of it (from a task between the table's steps, and from inside
    them around random actions), and seats reconnect; each spectator gets every public
    event once, in order, and each reconnected stream every event its seat may see from its
    snapshot on. (Reconnects come only between the table's steps, where a bot's stream can.)"""
    rng = random.Random(f"{preset}/{embargo}")
    spectators: list[ListPort] = []
    reconnects: list[tuple[int, ListPort]] = []
    tables: list[Table] = []

    def attach(table: Table) -> None:
        spectator = ListPort(peer=f"spectator {len(spectators)} at {table.match.log.cursor}")
        spectators.append(spectator)
        table.watch(spectator)

    def reconnect(table: Table) -> None:
        players: list[Player] = getattr(table, "players", [])
        if not players or table.result is not None:
            return
        player = players[rng.randrange(4)]
        if player.ports:
            reconnects.append((player.seat, player.connect()))

    def during(table: Table, players: list[Player], nursery: trio.Nursery) -> None:
        tables.append(table)

        def hook(when: str) -> None:
            if rng.random() < 0.002:
                attach(table)

        around_each_action(table, hook)

        async def at_random_points() -> None:
            """Spectators and reconnects as the log passes random points of it, each after a
            random number of the loop's turns more."""
            for target in sorted(rng.sample(range(1, 1200), 40)):
                while table.match.log.cursor < target and table.result is None:
                    await trio.lowlevel.checkpoint()
                for _ in range(rng.randrange(10)):
                    await trio.lowlevel.checkpoint()
                if table.result is not None:
                    return
                if rng.random() < 0.5:
                    attach(table)
                else:
                    reconnect(table)

        nursery.start_soon(at_random_points)

    table, late = run_table(
        config(preset, seed=rng.randrange(1000), max_hands=None), during, embargo=embargo
    )
    assert table.result is not None and table.result.outcome.reason == "played to the end"
    assert spectators and reconnects
    if embargo:
        spectators.append(table.between)  # type: ignore[attr-defined]
    public = public_seqs(table)
    for spectator in [*spectators, late]:
        check_spectator(table, spectator, public)
    log = list(table.match.log)
    for seat, port in reconnects:
        check_reconnected(table, seat, port, log)
