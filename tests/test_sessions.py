"""Sessions (``Enter`` streams) without gRPC: what a session is sent and in which order, a
reconnect taking the session over, the door closing, and which Enter is which session."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import trio

from chaodipi.arena.serving.port import StreamEnd
from chaodipi.arena.serving.sessions import CLOSED_MESSAGE, MAX_CAPACITY, Door, Session
from chaodipi.arena.serving.table import Table
from chaodipi.arena.v2 import arena_pb2 as pb
from chaodipi.arena.v2 import convert
from chaodipi.arena.v2.convert import PROTOCOL_VERSION

from .table_support import ListPort, config


def enter(door: Door, instance: str = "", capacity: int = 2, name: str = "bot") -> ListPort:
    """A process enters through ``door``; its stream, as a list."""
    port = ListPort(peer=f"process {instance}")
    request = convert.enter_request(door.token, bot_name=name, capacity=capacity, instance=instance)
    door.enter(port, request)
    return port


def tickets(port: ListPort) -> list[str]:
    return [offer.ticket for offer in port.of("seat")]


def in_loop(test: Callable[[], Any]) -> Any:
    async def main() -> Any:
        return test()

    return trio.run(main)


def test_a_session_is_told_it_entered_first_then_each_seat_as_it_is_offered() -> None:
    """Entered (with the session's name and the capacity granted, clamped to 1..64) comes
    first; each offer goes out when it is made; the bot's name is cut at 64 characters."""

    def test() -> None:
        entered: list[Session] = []
        door = Door("token", "alpha", on_enter=entered.append)
        table = Table("t1", config())
        port = enter(door, capacity=500, name="x" * 100)
        (session,) = entered
        assert port.kinds() == ["entered"]
        assert port.of("entered")[0] == pb.Entered(
            session="alpha", capacity=MAX_CAPACITY, protocol_version=PROTOCOL_VERSION
        )
        assert session.bot_name == "x" * 64 and session.connected
        session.offer(table, 2)
        session.offer(table, 0)
        assert port.kinds() == ["entered", "seat", "seat"]
        assert tickets(port) == [table.ticket(2), table.ticket(0)]
        assert [o.seat for o in port.of("seat")] == [2, 0]
        assert {o.preset for o in port.of("seat")} == {"classic"}
        assert enter(Door("other", "beta"), capacity=0).of("entered")[0].capacity == 1

    in_loop(test)


def test_a_reconnect_takes_the_session_over_and_is_offered_the_open_seats_again() -> None:
    """A second Enter of the same session: the first stream is closed (taken over, saying
    why), and the new one gets Entered, then the seats still open, in the order they were
    offered (not those whose game is over, and those offered while it was away). The old
    stream's end changes nothing; ``on_enter`` ran once, ``on_leave`` runs when the
    session's own stream ends."""

    def test() -> None:
        entered: list[Session] = []
        left: list[Session] = []
        door = Door("token", "alpha", on_enter=entered.append, on_leave=left.append)
        table = Table("t1", config())
        first = enter(door)
        (session,) = entered
        for seat in (0, 1, 2):
            session.offer(table, seat)
        session.seat_over(table, 1)
        second = enter(door)
        assert first.closed == (StreamEnd.TAKEN_OVER, "a newer Enter took this session over")
        assert second.kinds() == ["entered", "seat", "seat"]
        assert tickets(second) == [table.ticket(0), table.ticket(2)]
        door.leave(first)
        assert session.connection is second and left == []
        door.leave(second)
        assert not session.connected and left == [session]
        session.offer(table, 3)  # while it is away: kept
        third = enter(door)
        assert tickets(third) == [table.ticket(0), table.ticket(2), table.ticket(3)]
        assert entered == [session]

    in_loop(test)


def test_a_closed_door_ends_its_sessions_normally_and_turns_later_ones_away() -> None:
    """Closing the door ends every open session's stream normally (its games in hand go
    on); an Enter with the token afterwards is turned away with the reason, and so is one
    of a session ended on its own while the door stays open."""

    def test() -> None:
        door = Door("token", "alpha", single=False)
        one, two = enter(door, "one"), enter(door, "two")
        door.sessions["two"].end()
        assert two.closed == (StreamEnd.DONE, "")
        again = enter(door, "two")
        assert (again.kinds(), again.closed) == ([], (StreamEnd.NO_MORE_GAMES, CLOSED_MESSAGE))
        door.close()
        assert one.closed == (StreamEnd.DONE, "")
        late = enter(door, "three")
        assert (late.kinds(), late.closed) == ([], (StreamEnd.NO_MORE_GAMES, CLOSED_MESSAGE))
        assert set(door.sessions) == {"one", "two"}

    in_loop(test)


def test_which_enter_is_which_session() -> None:
    """A single door (a process the runner started) has one session whatever the instance
    id; another door has one session per instance id, named after the door and a number."""

    def test() -> None:
        single = Door("token-1", "alpha")
        enter(single, "a")
        enter(single, "b")
        assert [s.name for s in single.sessions.values()] == ["alpha"]
        several = Door("token-2", "theirs", single=False)
        for instance in ("a", "b", "a"):
            enter(several, instance)
        names = {key: s.name for key, s in several.sessions.items()}
        assert names == {"a": "theirs/1", "b": "theirs/2"}

    in_loop(test)
