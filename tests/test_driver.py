"""The tournament driver's own rules (chaodipi.arena.tournament.driver), with backends that play no game: a scripted
one that hands over results one (mock) second apart, and the real Ray backend's loop
(chaodipi.arena.tournament.ray_backend) over a stand-in for ``ray`` whose shards yield scripted results. What is
stored, what is counted, which records are released when, and when and how the backend is
stopped: the same whichever backend the results come from."""

from __future__ import annotations

import random
import signal
import sqlite3
import zlib
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from chaodipi.arena.cli.main import main
from chaodipi.arena.errors import BackendFailed
from chaodipi.arena.results.database import ResultsDB
from chaodipi.arena.results.rows import GameKey, GameRow, game_label
from chaodipi.arena.results.sprt import SprtTest
from chaodipi.arena.tournament import ray_backend
from chaodipi.arena.tournament.backend import (
    Assignment,
    BotFailure,
    FailureKind,
    GameResult,
    OnResult,
)
from chaodipi.arena.tournament.config import TournamentConfig, load_config, schedule
from chaodipi.arena.tournament.driver import run_tournament
from chaodipi.arena.tournament.ray_backend import RayBackend
from chaodipi.arena.tournament.ray_shard import Shard, ShardResult
from chaodipi.arena.tournament.recorder import RunResult
from chaodipi.engine.match import Match
from chaodipi.engine.presets import PRESETS
from chaodipi.records import dump_lines, record_lines
from tests.test_tournament import write_config

BROKEN_STOP = (
    "bot 'broken' failed to start 3 games in a row (exited before connecting (exit code 3); "
    "command: ./broken --fast) (if this bot can play only one game per process, give it "
    "`fresh = true` in the config); the tail of its stderr:\nmissing weights.bin"
)
"""What stops a run whose bot ``broken`` never played in 3 games in a row (the rule, the
command and the stderr tail, whichever backend the games came from)."""


def tournament(tmp_path: Path, **settings: object) -> TournamentConfig:
    """A two-bot tournament whose commands never run (the backends here play nothing)."""
    bots = {"good": "./good", "broken": "./broken --fast"}
    tmp_path.mkdir(parents=True, exist_ok=True)
    return load_config(write_config(tmp_path / "t.toml", bots=bots, **settings))


def row(key: GameKey, *, void: str | None = None, score_a: float | None = 1.0) -> GameRow:
    return GameRow(
        key, None if void else score_a, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, None,
        "played to the end", void or "", 0.1, void,
    )  # fmt: skip


def never_played(bot: str = "broken") -> BotFailure:
    return BotFailure(
        bot,
        FailureKind.UNSEATED,
        why="exited before connecting (exit code 3)",
        stderr="missing weights.bin",
    )


def void(key: GameKey) -> GameResult:
    """A game in which both of broken's seats never played."""
    why = "broken (seat 1) exited before connecting"
    return GameResult(row(key, void=why), failures=(never_played(), never_played()))


def played(key: GameKey, score_a: float = 1.0, replay: bytes | None = None) -> GameResult:
    """A game both bots played through."""
    return GameResult(
        row(key, score_a=score_a),
        None if replay is None else zlib.compress(replay),
        seated=frozenset({"good", "broken"}),
    )


@dataclass
class Scripted:
    """A backend that hands the driver ``results``, one mock second apart, calling
    ``after(i)`` once the driver has taken result ``i``; it records how it was stopped."""

    results: list[GameResult]
    after: Callable[[int], None] = lambda index: None
    fail_after: BackendFailed | None = None
    handed: int = 0
    cancelled: bool = False
    assignment: Assignment | None = None
    processes: int = 0

    @asynccontextmanager
    async def open(self, assignment: Assignment) -> AsyncIterator[Scripted]:
        self.assignment = assignment
        yield self

    async def play(self, on_result: OnResult) -> None:
        try:
            for index, result in enumerate(self.results):
                await trio.sleep(1)
                on_result(result)
                self.handed += 1
                self.after(index)
            if self.fail_after is not None:
                raise self.fail_after
            self.processes = 8
        except trio.Cancelled:
            self.cancelled = True
            raise


def run(config: TournamentConfig, backend: Any, **options: Any) -> RunResult:
    clock = trio.testing.MockClock(autojump_threshold=0)
    return trio.run(lambda: run_tournament(config, backend, **options), clock=clock)


def stored(config: TournamentConfig) -> list[GameKey]:
    db = ResultsDB(config.database, read_only=True)
    try:
        return [r.key for r in db.rows()]
    finally:
        db.close()


def test_the_backend_is_given_the_games_left_in_order_with_the_stored_deal_key(
    tmp_path: Path,
) -> None:
    config = tournament(tmp_path, deals=3)
    keys = schedule(config)
    first = Scripted([played(keys[0]), played(keys[1])])
    run_result = run(config, first)
    assert first.assignment is not None and first.assignment.games == tuple(keys)
    assert (run_result.played, run_result.processes, run_result.stopped) == (2, 8, None)
    again = Scripted([])
    run_result = run(config, again, resume=True)
    assert again.assignment is not None and again.assignment.games == tuple(keys[2:])
    assert again.assignment.deal_key == first.assignment.deal_key
    assert run_result.skipped == 2


def test_a_bot_failing_to_start_in_three_games_in_a_row_stops_the_run(tmp_path: Path) -> None:
    """A game it played through starts the count again; its two seats that never played in one
    game are one failure; the third game in a row stops the run, cancels the backend, and
    nothing after it is stored."""
    config = tournament(tmp_path, deals=5)
    keys = schedule(config)
    results = [void(keys[0]), void(keys[1]), played(keys[2])]
    results += [void(key) for key in keys[3:]]
    backend = Scripted(results)
    run_result = run(config, backend)
    assert run_result.stopped == BROKEN_STOP
    assert backend.cancelled and backend.handed == 6
    assert stored(config) == keys[:6]
    assert (run_result.played, run_result.void, run_result.interrupted) == (1, 5, False)


def test_a_seat_not_taken_while_the_server_refused_streams_is_not_counted(
    tmp_path: Path,
) -> None:
    """The server at its stream cap ("try again later") is the server's refusal, not the
    bot's failure to start: five such void games in a row never stop the run, and do not
    start its count again either."""
    config = tournament(tmp_path, deals=4)
    keys = schedule(config)
    refused = BotFailure(
        "broken",
        FailureKind.REFUSED,
        "exited before connecting (exit code 1), while the server refused 3 streams for lack "
        "of room (not counted against the bot)",
        "RESOURCE_EXHAUSTED",
    )
    why = "broken (seat 1) exited before connecting"
    results = [void(keys[0]), void(keys[1])]
    results += [GameResult(row(key, void=why), failures=(refused,)) for key in keys[2:7]]
    results += [void(keys[7])]
    backend = Scripted(results)
    run_result = run(config, backend)
    assert run_result.stopped == BROKEN_STOP and backend.handed == 8  # the third failure: the last
    assert (run_result.played, run_result.void) == (0, 8)


def test_one_process_dying_in_two_games_at_once_is_one_failure(tmp_path: Path) -> None:
    config = tournament(tmp_path, deals=3)
    keys = schedule(config)

    def died(key: GameKey, process: str) -> GameResult:
        failure = BotFailure(
            "broken", FailureKind.CRASHED, f"{process}, exit code 1", "oom", process
        )
        # it took its seat in the game it died in: that is no game played through
        return GameResult(row(key), failures=(failure,), seated=frozenset({"good", "broken"}))

    processes = ["broken#1", "broken#1", "broken#2", "broken#3", "broken#4"]
    backend = Scripted([died(key, process) for key, process in zip(keys, processes, strict=False)])
    run_result = run(config, backend)
    assert backend.handed == 4 and backend.cancelled
    assert run_result.stopped == (
        "bot 'broken' kept dying: it died in 3 games in a row (broken#3, exit code 1; command: "
        "./broken --fast); the tail of its stderr:\noom"
    )


def test_replays_are_written_once_every_game_of_their_deal_is_stored(tmp_path: Path) -> None:
    """The twin game plays the same cards: no replay of a deal may appear while a game on it
    has not ended (docs/trust.md), in whatever order the games end."""
    config = tournament(tmp_path, deals=2, replays="replays")
    d1a, d1b, d2a, d2b = schedule(config)
    order = [d1a, d2a, d2b, d1b]
    folder = tmp_path / "replays"
    seen: list[list[str]] = []

    def look(index: int) -> None:
        seen.append(sorted(p.name for p in folder.glob("*.jsonl")))

    backend = Scripted([played(key, replay=f"{game_label(key)}\n".encode()) for key in order])
    run(config, backend, on_game=lambda row, done, total: look(done))  # each game committed
    assert seen == [
        [],
        [],
        ["good-broken-d2-a.jsonl", "good-broken-d2-b.jsonl"],
        [f"good-broken-d{d}-{s}.jsonl" for d in (1, 2) for s in "ab"],
    ]
    assert (folder / "good-broken-d1-b.jsonl").read_text() == "good-broken-d1-b\n"


def test_a_deal_left_unfinished_leaves_its_replays_once_the_run_has_ended(tmp_path: Path) -> None:
    """While the run plays, deal 1's twin is in play: its first game's replay waits; once the
    run has ended (the backend failed), nothing of deal 1 is in play, and it is written."""
    config = tournament(tmp_path, deals=2, replays="replays")
    d1a, _d1b, d2a, d2b = schedule(config)
    folder = tmp_path / "replays"
    written: list[list[str]] = []
    backend = Scripted(
        [played(k, replay=b"{}\n") for k in (d1a, d2a, d2b)],
        after=lambda index: written.append(sorted(p.name for p in folder.glob("*.jsonl"))),
    )
    backend.fail_after = BackendFailed("shard 0 (deals 1-1) failed on the cluster: lost")
    run_result = run(config, backend)
    assert run_result.stopped == "shard 0 (deals 1-1) failed on the cluster: lost"
    assert stored(config) == [d1a, d2a, d2b]  # what was stored stays
    assert "good-broken-d1-a.jsonl" not in written[-1]
    assert sorted(p.name for p in folder.iterdir()) == [
        "good-broken-d1-a.jsonl",
        "good-broken-d2-a.jsonl",
        "good-broken-d2-b.jsonl",
    ]


def recorded(config: TournamentConfig) -> list[GameKey]:
    """The games whose record a reader of the database may see (``arena games``, ``arena
    show``), read as they would: read-only, while the run writes."""
    db = ResultsDB(config.database, read_only=True)
    try:
        return sorted(db.recorded(), key=lambda k: (k.deal, k.swapped))
    finally:
        db.close()


def test_records_are_stored_in_the_database_and_readable_once_their_deal_is_stored(
    tmp_path: Path,
) -> None:
    """Every game's record is kept with its row (no config needed), and shown to a reader of
    the database only once every game on its deal is stored (docs/trust.md)."""
    config = tournament(tmp_path, deals=2)
    d1a, d1b, d2a, d2b = schedule(config)
    order = [d1a, d2a, d2b, d1b]
    seen: list[list[GameKey]] = []
    backend = Scripted([played(key, replay=f"{game_label(key)}\n".encode()) for key in order])
    # looked at as each game's writes are committed (they are made off the loop's thread)
    run(config, backend, on_game=lambda row, done, total: seen.append(recorded(config)))
    assert seen == [[], [], [d2a, d2b], [d1a, d1b, d2a, d2b]]
    db = ResultsDB(config.database, read_only=True)
    try:
        assert zlib.decompress(db.record(d1b) or b"") == b"good-broken-d1-b\n"
    finally:
        db.close()


def test_a_deal_a_stopped_run_left_unfinished_is_released_as_it_ends(tmp_path: Path) -> None:
    """Once the run has ended no game of it is in play: the games it finished on a deal it
    left unfinished can be seen, and a resumed run plays the rest."""
    config = tournament(tmp_path, deals=2)
    d1a, d1b, d2a, d2b = schedule(config)
    backend = Scripted([played(k, replay=b"{}\n") for k in (d1a, d2a, d2b)])
    backend.fail_after = BackendFailed("shard 0 (deals 1-1) failed on the cluster: lost")
    run(config, backend)
    assert recorded(config) == [d1a, d2a, d2b]
    run(config, Scripted([played(d1b, replay=b"{}\n")]), resume=True)
    assert recorded(config) == [d1a, d1b, d2a, d2b]


def test_a_run_stopped_by_a_bot_failing_to_start_leaves_its_finished_games_showable(
    tmp_path: Path, capsys: Any
) -> None:
    """Deal 1's first game is played, then broken fails to start in 3 games in a row: the run
    stops with deal 1's twin unplayed, and the game it did play is listed as recorded and
    shown by ``arena show`` (and written into the replays folder)."""
    config = tournament(tmp_path, deals=3, replays="replays")
    d1a, _, d2a, d2b, d3a, d3b = schedule(config)
    match = Match(PRESETS["classic"], seed=1, max_hands=1)
    while not match.over:
        match.apply(match.to_play, match.legal_actions().sample(random.Random(1)))
    record = dump_lines(record_lines(match, bots=("good", "broken", "good", "broken")))
    backend = Scripted(
        [played(d1a, replay=record.encode()), void(d2a), void(d2b), void(d3a), void(d3b)]
    )
    run_result = run(config, backend)
    assert run_result.stopped == BROKEN_STOP and backend.cancelled
    assert recorded(config) == [d1a]
    assert main(["show", str(config.database), game_label(d1a)]) == 0
    assert capsys.readouterr().out.startswith("game · preset classic")
    assert (config.replays / f"{game_label(d1a)}.jsonl").read_text(encoding="utf-8") == record


def test_an_old_database_without_records_is_read_as_having_none(tmp_path: Path) -> None:
    """A results file an older arena wrote has no ``records`` table: reading it works and
    finds no record; a run that resumes it adds the table."""
    config = tournament(tmp_path, deals=1)
    run(config, Scripted([played(k) for k in schedule(config)]))
    with sqlite3.connect(config.database) as raw:
        raw.execute("DROP TABLE records")
    assert recorded(config) == []
    db = ResultsDB(config.database, read_only=True)
    try:
        assert db.record(schedule(config)[0]) is None and len(db.rows()) == 2
    finally:
        db.close()
    ResultsDB(config.database).close()  # opened for writing: the table is made again
    assert recorded(config) == []


def test_a_result_received_twice_is_stored_counted_and_written_once(tmp_path: Path) -> None:
    """What a shard that Ray ran again can send: counted as a failure twice, it would stop the
    run here."""
    config = tournament(tmp_path, deals=2, replays="replays")
    keys = schedule(config)
    again = void(keys[0])
    backend = Scripted([again, again, void(keys[1]), played(keys[2])])
    run_result = run(config, backend)
    assert run_result.stopped is None and backend.handed == 4
    assert (run_result.void, run_result.played, run_result.duplicates) == (2, 1, 1)
    assert stored(config) == keys[:3]


def test_the_sprt_decision_cancels_the_backend_at_a_complete_pair(tmp_path: Path) -> None:
    config = tournament(tmp_path, deals=40)
    keys = schedule(config)
    backend = Scripted([played(key) for key in keys])
    run_result = run(config, backend, sprt_test=SprtTest(0, 100, 0.05, 0.05))
    assert run_result.sprt is not None and run_result.sprt.verdict == "H1"
    assert backend.cancelled and run_result.stopped is None
    kept = stored(config)
    assert kept == keys[: backend.handed] and len(kept) % 2 == 0 and len(kept) < len(keys)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_cancels_the_backend_and_keeps_what_is_stored(
    tmp_path: Path, signum: int
) -> None:
    config = tournament(tmp_path, deals=3)
    keys = schedule(config)

    def interrupt(index: int) -> None:
        if index == 1:
            signal.raise_signal(signum)

    backend = Scripted([played(key) for key in keys], after=interrupt)
    run_result = run(config, backend)
    assert run_result.interrupted and backend.cancelled and backend.handed == 2
    assert stored(config) == keys[:2] and run_result.stopped is None
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # given back


# The Ray backend's loop, over a stand-in for ray: every stream is always ready.


class FakeRayError(Exception):
    pass


@dataclass(eq=False)
class FakeStream:
    shard: Shard
    items: Iterator[Any]
    cancelled: bool = False

    def __next__(self) -> Any:
        return next(self.items)  # an item is its own object ref


@dataclass
class FakeRay:
    """What chaodipi.arena.tournament.ray_backend calls of ray, in this process: ``remote(task).options(...)
    .remote(shard)`` is the task's generator."""

    streams: list[FakeStream] = field(default_factory=list)

    class exceptions:  # as ray spells it
        RayError = FakeRayError

    def remote(self, task: Callable[[Shard], Iterator[ShardResult]]) -> Any:
        ray = self

        class Task:
            def options(self, **options: Any) -> Task:
                return self

            def remote(self, shard: Shard) -> FakeStream:
                stream = FakeStream(shard, task(shard))
                ray.streams.append(stream)
                return stream

        return Task()

    def wait(self, streams: list[Any], **options: Any) -> tuple[list[Any], list[Any]]:
        return list(streams), []

    def get(self, ref: Any) -> Any:
        if isinstance(ref, Exception):
            raise ref
        return ref

    def cancel(self, stream: FakeStream, *, force: bool) -> None:
        stream.cancelled = True

    def nodes(self) -> list[dict[str, Any]]:
        return [{"Alive": True, "Resources": {"CPU": 2.0}}]


@dataclass
class FakeConnection:
    address: str = "127.0.0.1:6379"
    nodes: int = 1
    cpus: float = 2.0


@pytest.fixture
def fake_ray(monkeypatch: pytest.MonkeyPatch) -> FakeRay:
    ray = FakeRay()

    @contextmanager
    def connect(address: str, **options: Any) -> Iterator[FakeConnection]:
        yield FakeConnection()

    monkeypatch.setattr(ray_backend, "import_ray", lambda: ray)
    monkeypatch.setattr(ray_backend, "connect", connect)
    return ray


def on_ray(
    config: TournamentConfig, results: dict[GameKey, GameResult | Exception], **options: Any
) -> RayBackend:
    """Shards of one deal each whose games yield ``results`` (an exception: the shard fails
    there, as Ray raises it)."""

    def shard_task(shard: Shard) -> Iterator[Any]:
        for index, key in enumerate(shard.games):
            found = results[key]
            if isinstance(found, Exception):
                yield found
                return
            yield ShardResult(shard.index, index, found, node="n1", processes=2)

    return RayBackend(config, "auto", deals_per_shard=1, task=shard_task, **options)


def test_on_ray_a_bot_failing_on_several_shards_stops_the_run_as_locally(
    tmp_path: Path, fake_ray: FakeRay
) -> None:
    """Shards of one deal (two games): the third failure in a row, in the second shard, stops
    the run with the message a local run gives; the shards in flight are cancelled, the others
    never sent."""
    config = tournament(tmp_path / "ray", deals=6)
    keys = schedule(config)
    results = {key: void(key) for key in keys}
    lines: list[str] = []
    run_result = trio.run(
        lambda: run_tournament(config, on_ray(config, results, on_start=lines.append))
    )
    assert run_result.stopped == BROKEN_STOP
    assert stored(config) == keys[:3]
    assert lines == [
        "on Ray at 127.0.0.1:6379 (1 nodes, 2 CPUs): 12 games in 6 shards of 1 deals, 1 at "
        "once (4 games and 2 CPUs each)"
    ]
    assert [s.shard.index for s in fake_ray.streams] == [0, 1]  # in flight: two per slot
    assert [s.cancelled for s in fake_ray.streams] == [False, True]  # the first had ended
    local = tournament(tmp_path / "local", deals=6)
    here = run(local, Scripted([void(key) for key in schedule(local)]))
    assert here.stopped == run_result.stopped


def test_on_ray_a_shard_that_fails_for_good_stops_the_run_with_its_reason(
    tmp_path: Path, fake_ray: FakeRay
) -> None:
    config = tournament(tmp_path, deals=3)
    keys = schedule(config)
    results: dict[GameKey, GameResult | Exception] = {key: played(key) for key in keys}
    results[keys[3]] = FakeRayError("the worker died\nWorkerCrashedError: out of retries")
    run_result = trio.run(lambda: run_tournament(config, on_ray(config, results)))
    assert run_result.stopped == (
        "shard 1 (deals 2-2) failed on the cluster: FakeRayError: WorkerCrashedError: out of "
        "retries; the games stored stay, and --resume plays the others"
    )
    assert stored(config) == keys[:3]
    assert all(s.cancelled for s in fake_ray.streams[2:])


def test_on_ray_the_sprt_cancels_the_shards_in_flight(tmp_path: Path, fake_ray: FakeRay) -> None:
    config = tournament(tmp_path, deals=40)
    keys = schedule(config)
    results: dict[GameKey, GameResult | Exception] = {key: played(key) for key in keys}
    run_result = trio.run(
        lambda: run_tournament(
            config, on_ray(config, results), sprt_test=SprtTest(0, 100, 0.05, 0.05)
        )
    )
    assert run_result.sprt is not None and run_result.sprt.verdict == "H1"
    assert len(stored(config)) < len(keys) and fake_ray.streams[-1].cancelled
    assert len(fake_ray.streams) < 40  # the rest were never sent
    # the same decision, at the same game, as from the scripted backend
    local = tournament(tmp_path / "local", deals=40)
    here = run(
        local, Scripted([played(key) for key in keys]), sprt_test=SprtTest(0, 100, 0.05, 0.05)
    )
    assert len(stored(local)) == len(stored(config)) and here.sprt == run_result.sprt


def test_on_ray_nothing_to_play_connects_to_no_cluster(
    tmp_path: Path, fake_ray: FakeRay, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tournament(tmp_path, deals=1)
    keys = schedule(config)
    run(config, Scripted([played(key) for key in keys]))

    def no_cluster(address: str, **options: Any) -> None:
        raise AssertionError("connected")

    monkeypatch.setattr(ray_backend, "connect", no_cluster)
    run_result = trio.run(lambda: run_tournament(config, on_ray(config, {}), resume=True))
    assert (run_result.skipped, run_result.played, fake_ray.streams) == (2, 0, [])
