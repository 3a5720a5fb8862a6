"""Seating instances: no process ever holds two seats of one deal, over whole schedules.

The pools are driven directly (no processes, no gRPC): games on the schedule's deals are
seated as the runner seats them, held for a random number of scheduler turns, and let go in
whatever order they finish."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import SimpleNamespace

import pytest
import trio
import trio.testing

from chaodipi.arena.errors import NoSeat
from chaodipi.arena.serving.sessions import Door
from chaodipi.arena.tournament.config import BotSpec, TournamentConfig, parse_config, schedule
from chaodipi.arena.tournament.pools import Instance, Instances, seats_per_deal
from chaodipi.arena.v2 import arena_pb2 as pb
from tests.table_support import ListPort


@dataclass
class FakeServer:
    """What the pools use of a server: doors for session tokens."""

    address: str = "127.0.0.1:1"
    doors: list[Door] = field(default_factory=list)

    def open_door(self, token: str, label: str, **kwargs: object) -> Door:
        door = Door(token, label, **kwargs)  # type: ignore[arg-type]
        self.doors.append(door)
        return door

    def close_door(self, door: Door) -> None:
        door.closed = True


class FakeTable:
    config = SimpleNamespace(preset=SimpleNamespace(name="classic"))
    result = None

    def __init__(self, name: str) -> None:
        self.name = name
        self.seats = [SimpleNamespace(stats=SimpleNamespace(decisions=1)) for _ in range(4)]

    def ticket(self, seat: int) -> str:
        return f"{self.name}/{seat}/secret"


def config(bots: int, deals: int, concurrency: int, **bot_keys: object) -> TournamentConfig:
    data = {
        "deals": deals,
        "concurrency": concurrency,
        "bots": {f"bot{i}": {"command": "python3 -m nothing", **bot_keys} for i in range(bots)},
    }
    return parse_config(data, Path("."))


async def play_schedule(
    cfg: TournamentConfig, rng: random.Random
) -> tuple[list[tuple[str, int, str, int]], Instances]:
    """Seat every game of the schedule, ``concurrency`` at a time; return (instance, deal, game,
    seat) for every seat given."""
    server = FakeServer()
    given: list[tuple[str, int, str, int]] = []
    bots = {b.name: b for b in cfg.bots}
    limiter = trio.CapacityLimiter(cfg.concurrency)
    async with trio.open_nursery() as nursery:
        instances = Instances(cfg, server, nursery, Path("/nonexistent"))  # type: ignore[arg-type]

        async def game(number: int, a: str, b: str, deal: int, swapped: int) -> None:
            team0, team1 = (a, b) if not swapped else (b, a)
            specs = [bots[team0 if seat % 2 == 0 else team1] for seat in range(4)]
            async with limiter:
                seated = await instances.seat(deal, specs, wait_s=60)
                table = FakeTable(f"g{number}")
                for seat, instance in enumerate(seated):
                    given.append((instance.name, deal, table.name, seat))
                    instances.hold(instance, table, seat, deal, lambda p, c: None)  # type: ignore[arg-type]
                for _ in range(rng.randrange(1, 30)):
                    await trio.lowlevel.checkpoint()
                for seat in range(4):
                    instances.let_go(table, seat)  # type: ignore[arg-type]

        for number, key in enumerate(schedule(cfg)):
            nursery.start_soon(game, number, key.bot_a, key.bot_b, key.deal, key.swapped)
    return given, instances


def assert_no_process_holds_two_seats_of_a_deal(given: list[tuple[str, int, str, int]]) -> None:
    seats = Counter((instance, deal) for instance, deal, _, _ in given)
    twice = {k: n for k, n in seats.items() if n > 1}
    assert not twice, f"processes given two seats of one deal: {twice}"


@pytest.mark.parametrize(("bots", "concurrency"), [(2, 1), (2, 4), (3, 2), (4, 3), (5, 8)])
def test_a_whole_round_robin_never_gives_a_process_two_seats_of_one_deal(
    bots: int, concurrency: int
) -> None:
    cfg = config(bots, deals=6, concurrency=concurrency)
    given, instances = trio.run(play_schedule, cfg, random.Random(bots * 100 + concurrency))
    assert len(given) == 4 * len(schedule(cfg))
    assert_no_process_holds_two_seats_of_a_deal(given)
    # partners are two processes, and the pools were big enough never to replace one
    per_deal = seats_per_deal(cfg)
    names = {instance for instance, _, _, _ in given}
    for spec in cfg.bots:
        mine = {n for n in names if n.startswith(f"{spec.name}#")}
        assert len(mine) <= min(per_deal[spec.name], 16)
    if max(per_deal.values()) <= 16:
        assert all(not p.retired for pool in instances._pools.values() for p in pool.instances)


def test_a_small_pool_replaces_processes_rather_than_reuse_one_on_a_deal() -> None:
    cfg = config(3, deals=5, concurrency=2, processes=2)
    given, instances = trio.run(play_schedule, cfg, random.Random(7))
    assert_no_process_holds_two_seats_of_a_deal(given)
    retired = [p for pool in instances._pools.values() for p in pool.instances if p.retired]
    assert retired, "a pool of 2 for 8 seats per deal must replace processes"
    # a retired process is never seated again: each one's seats all come before it was retired
    for pool in instances._pools.values():
        assert len(pool.live()) <= 2


def test_a_fresh_bot_gets_a_new_player_for_every_seat() -> None:
    cfg = config(2, deals=3, concurrency=2, fresh=True)
    given, _ = trio.run(play_schedule, cfg, random.Random(3))
    names = [instance for instance, _, _, _ in given]
    assert len(names) == len(set(names)) == 4 * len(schedule(cfg))


def test_an_external_bot_with_one_session_cannot_be_seated_and_is_told_why() -> None:
    data = {
        "deals": 1,
        "connect_timeout": 5,
        "bots": {"mine": {"command": "python3 -m nothing"}, "theirs": {"token": "secret-123"}},
    }
    cfg = parse_config(data, Path("."))
    server = FakeServer()

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            instances = Instances(cfg, server, nursery, Path("/nonexistent"))  # type: ignore[arg-type]
            door = next(d for d in server.doors if d.token == "secret-123")
            session = door.session("one")
            session.entered.set()
            session.connection = object()  # type: ignore[assignment]
            assert door.on_enter is not None
            door.on_enter(session)
            specs = [cfg.bots[0], cfg.bots[1], cfg.bots[0], cfg.bots[1]]
            with pytest.raises(NoSeat) as caught:
                await instances.seat(0, specs, wait_s=cfg.connect_timeout)
            message = str(caught.value)
            assert caught.value.bot == "theirs"
            assert "external bot 'theirs'" in message
            assert "1 open" in message and "run 4 processes" in message

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def test_an_instance_that_held_a_deal_is_not_offered_it_again_even_when_idle() -> None:
    spec = BotSpec("b", ("x",))
    instance = Instance(spec, "b#1")
    instance.deals.add(4)
    assert not instance.can_take(4)
    assert instance.can_take(5)
    instance = replace(instance, gone=True)
    assert not instance.can_take(5)


def _enter(door: Door, instance: str) -> ListPort:
    """A process enters through ``door`` with its instance id; its stream, as a list."""
    connection = ListPort()
    request = pb.EnterRequest(token=door.token, capacity=4, instance=instance, bot_name="x")
    door.enter(connection, request)  # type: ignore[arg-type]
    return connection


def _offered(connection: ListPort) -> list[str]:
    return [m.seat.ticket for m in connection.sent if m.WhichOneof("message") == "seat"]


def test_an_external_sessions_open_seat_goes_to_a_restarted_process_never_to_one_on_its_deal() -> (
    None
):
    """docs/trust.md's one-deal rule and issue 19: a session (``a``) that dies holding a seat
    of deal 1 gets a new instance id when its operator restarts it. Its seat is offered to a
    live session of the same bot that has held no seat of deal 1 (``d``, the restarted
    process), never to one that holds a seat of that deal (``b``), and is not offered again
    to ``a``'s old instance."""
    data = {
        "deals": 1,
        "bots": {"mine": {"command": "python3 -m nothing"}, "theirs": {"token": "secret-123"}},
    }
    cfg = parse_config(data, Path("."))
    server = FakeServer()

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            instances = Instances(cfg, server, nursery, Path("/nonexistent"))  # type: ignore[arg-type]
            door = next(d for d in server.doors if d.token == "secret-123")
            streams = {name: _enter(door, name) for name in ("a", "b")}
            theirs = cfg.bots[1]
            specs = [cfg.bots[0], theirs, cfg.bots[0], theirs]
            seated = await instances.seat(1, specs, wait_s=5)
            table = FakeTable("g1")
            for seat, instance in enumerate(seated):
                instances.hold(instance, table, seat, 1, lambda p, c: None)  # type: ignore[arg-type]
            by_stream = {
                name: next(s for s in (1, 3) if _offered(stream) == [table.ticket(s)])
                for name, stream in streams.items()
            }
            dead = by_stream["a"]
            door.leave(streams["a"])  # type: ignore[arg-type]
            assert _offered(streams["b"]) == [table.ticket(by_stream["b"])]  # not its deal's twin
            restarted = _enter(door, "a-restarted")
            assert _offered(restarted) == [table.ticket(dead)]
            assert instances.holder(table, dead) is not seated[dead]  # type: ignore[arg-type]
            again = _enter(door, "a")  # the old instance comes back too late: not offered it
            assert _offered(again) == []
            nursery.cancel_scope.cancel()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def test_a_session_that_comes_back_first_keeps_its_seat() -> None:
    data = {
        "deals": 1,
        "bots": {"mine": {"command": "python3 -m nothing"}, "theirs": {"token": "secret-123"}},
    }
    cfg = parse_config(data, Path("."))
    server = FakeServer()

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            instances = Instances(cfg, server, nursery, Path("/nonexistent"))  # type: ignore[arg-type]
            door = next(d for d in server.doors if d.token == "secret-123")
            streams = {name: _enter(door, name) for name in ("a", "b")}
            theirs = cfg.bots[1]
            seated = await instances.seat(1, [cfg.bots[0], theirs, cfg.bots[0], theirs], wait_s=5)
            table = FakeTable("g1")
            for seat, instance in enumerate(seated):
                instances.hold(instance, table, seat, 1, lambda p, c: None)  # type: ignore[arg-type]
            mine = _offered(streams["a"])
            door.leave(streams["a"])  # type: ignore[arg-type]
            back = _enter(door, "a")  # a dropped stream, the same process: its seats again
            assert _offered(back) == mine
            newcomer = _enter(door, "c")
            assert _offered(newcomer) == []
            nursery.cancel_scope.cancel()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def test_a_deal_over_for_good_is_forgotten_by_every_instance() -> None:
    """A standing ladder never deals a deal twice: once its games are over its instances
    forget it, so a pool that lives for a semester does not remember every deal."""
    cfg = config(bots=2, deals=1, concurrency=1)
    spec = cfg.bots[0]

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            instances = Instances(cfg, FakeServer(), nursery, Path("."))  # type: ignore[arg-type]
            seated = await instances.seat(7, [spec] * 4, wait_s=1)
            assert len(seated) == 4 and all(7 in i.deals for i in seated)
            instances.forget_deal(7)
            assert not any(i.deals for i in seated)
            nursery.cancel_scope.cancel()

    trio.run(main)


def test_a_bots_stderr_past_its_bound_keeps_its_end_and_what_the_bot_writes_next(
    tmp_path: Path,
) -> None:
    from chaodipi.arena.files import open_private
    from chaodipi.arena.tournament.processes import bound_stderr

    path = tmp_path / "chatty@1#1.stderr"
    with open_private(path) as bot:  # the bot's end: appends, as a child's stderr does
        for n in range(2000):
            bot.write(f"line {n:04d} {'x' * 80}\n".encode())
        bot.flush()
        assert bound_stderr(path, bound=200_000, kept=1_000) == 0  # under the bound: as it was
        assert path.stat().st_size > 150_000
        cut = bound_stderr(path, bound=50_000, kept=1_000)
        bot.write(b"after the cut\n")
        bot.flush()
    text = path.read_text()
    lines = text.splitlines()
    assert lines[0] == f"[the arena cut the {cut} bytes before this line]"
    assert lines[-2].startswith("line 1999 ") and lines[-1] == "after the cut"
    assert all(line.startswith("line 19") for line in lines[1:-1])  # whole lines of its end
    assert len(text) < 1_200 and oct(path.stat().st_mode & 0o777) == "0o600"
