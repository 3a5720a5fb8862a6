"""The local backend: a tournament's games played here, on one table server, by the bots' pools.

Every pairing plays the same deals, and each deal twice with the teams' seats swapped, so card
luck cancels in the pair (``docs/architecture.md``). Deal ``n``'s cards come from the
tournament's secret key (:mod:`chaodipi.arena.deals`), which the driver
(:mod:`chaodipi.arena.tournament.driver`) hands over with the games to play. A game starts a table
on the in-process server and seats four instances from the bots' pools of long-lived processes
(:mod:`chaodipi.arena.tournament.pools`: a process is never given two seats of one deal). When the
match ends, :func:`play_games` hands the driver the game's
:class:`chaodipi.arena.tournament.backend.GameResult` (its row, its record, its bots' failures)
before the next game takes the slot (``concurrency`` games at once). The driver stores it; this
module stores and counts nothing.

A game in which a bot never took its seat (it could not start, or exited before it was sent its
hand: :meth:`Table.void`; or did not connect in time: the rule of
:mod:`chaodipi.arena.serving.hosting`, which ``arena serve`` voids by too) is void: its row says
why, and it is played again on ``--resume``. A process that dies holding a
seat it was sent its hand in (at its first decision as later) forfeits that game and is
replaced. Each of these is a :class:`chaodipi.arena.tournament.backend.BotFailure` in the game's
result; a seat not taken while the server refused streams for lack of room is not the bot's
failure (:attr:`FailureKind.REFUSED`).

Spectators see a table only once every game of these games on its deal has ended, and the
tables of a deal are released then. A Ray node plays its shard through :func:`play_games` too
(:mod:`chaodipi.arena.tournament.ray_shard`).
"""

from __future__ import annotations

import functools
import secrets
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio

from chaodipi.arena.deals import DealSource
from chaodipi.arena.errors import BackendFailed, NoSeat
from chaodipi.arena.logs import get_logger
from chaodipi.arena.results import GameKey, GameRow, game_label
from chaodipi.arena.serving import (
    Admission,
    ArenaServer,
    Table,
    TableConfig,
    TableResult,
    open_server,
    table_record,
    void_unseated,
)
from chaodipi.arena.tournament.backend import (
    Assignment,
    BotFailure,
    FailureKind,
    GameResult,
    OnResult,
)
from chaodipi.arena.tournament.config import BotSpec, TournamentConfig
from chaodipi.arena.tournament.pools import Instance, Instances
from chaodipi.arena.tournament.processes import stderr_tail
from chaodipi.arena.tournament.workers import Workers, in_process, open_workers
from chaodipi.engine import PRESETS, SEATS, other_team, team_of, team_seats
from chaodipi.records import pack

__all__ = ["Games", "LocalBackend", "play_games"]


@dataclass(slots=True)
class _Deals:
    """Which deals still have games playing; the spectators and the tables of a deal wait for
    all of them."""

    left: Counter[int]
    over: dict[int, anyio.Event] = field(default_factory=dict)
    ended: dict[int, list[Table]] = field(default_factory=dict)

    def spectators_after(self, deal: int) -> anyio.Event:
        return self.over.setdefault(deal, anyio.Event())

    def game_ended(self, table: Table | None, key: GameKey) -> list[Table]:
        """Record a finished game (``table``: its table on the server, None for one played in
        a worker); return the deal's tables once its last game has ended."""
        deal = key.deal
        if table is not None:
            self.ended.setdefault(deal, []).append(table)
        self.left[deal] -= 1
        if self.left[deal] > 0:
            return []
        self.spectators_after(deal).set()
        return self.ended.pop(deal, [])


@dataclass(slots=True)
class Games:
    """Games played one at a time on a server by the bots' pools, all under one config's
    table settings (preset, hands, clocks, strikes, connect timeout): :meth:`play` plays one
    and hands back its result. :func:`play_games` plays a run's games with it; a standing
    ladder plays its pairs with it (its bots' pools change as versions come and go)."""

    config: TournamentConfig
    server: ArenaServer
    instances: Instances
    deal_key: DealSource
    run_tag: str = field(default_factory=lambda: secrets.token_hex(6))
    """Tells this call's processes from those of other shards (a process's name is unique only
    in its pools)."""
    on_table: Callable[[str, GameKey], None] | None = None
    """Told each game's table name as the table opens (``arena run`` prints how to watch it)."""

    async def play(
        self,
        key: GameKey,
        bots: Mapping[str, BotSpec],
        *,
        spectators_after: anyio.Event,
        seated: list[Instance] | NoSeat | None = None,
    ) -> tuple[GameResult, Table]:
        """Play the game ``key`` (its bots by name in ``bots``): seat it from the pools (or
        with ``seated``, the instances :meth:`seat` chose), wait for its end, and return its
        result and its table (release the table once every game on its deal is over; its
        spectators wait for ``spectators_after``)."""
        return await _play_game(self, key, bots, spectators_after, seated)

    async def seat(self, key: GameKey, bots: Mapping[str, BotSpec]) -> list[Instance] | NoSeat:
        """Choose the game's four instances now (waiting while the pools are busy), for
        :meth:`play`: a game's seats are all taken at once or not at all."""
        try:
            return await self.instances.seat(
                key.deal, _seat_specs(key, bots), wait_s=self.config.connect_timeout
            )
        except NoSeat as err:
            return err


@dataclass(slots=True)
class _Game:
    """One game's seats and what went wrong with its bots."""

    key: GameKey
    specs: list[BotSpec]
    table: Table
    label: str
    run_tag: str
    admission: Admission | None
    """The server's, which counts the streams it refused for lack of room (None: the game is
    played in a worker, where no stream is refused)."""
    refused_before: int = 0
    """The server's refusals when the game began."""
    instances: list[Instance | None] = field(default_factory=lambda: [None] * 4)
    void: list[str] = field(default_factory=list)
    """Why the game is not a result, one line per seat whose bot never took it."""
    failures: list[BotFailure] = field(default_factory=list)
    crashes: list[int] = field(default_factory=lambda: [0, 0])
    problems: list[str] = field(default_factory=list)

    def unseated(
        self, seat: int, why: str, stderr: Path | None, instance: Instance | None = None
    ) -> None:
        """The bot of ``seat`` did not take it (it was never sent its hand): the game is void
        (:meth:`Table.void`), and :meth:`note_unseated`."""
        self.note_unseated(seat, why, stderr, instance)
        self.table.void([seat], f"{self.who([seat])} {why}")

    def who(self, seats: Sequence[int]) -> str:
        """The bots of ``seats``, as a void table's reason names them: ``alpha (seat 1)``."""
        return ", ".join(f"{self.specs[seat].name} (seat {seat})" for seat in seats)

    def note_unseated(
        self, seat: int, why: str, stderr: Path | None, instance: Instance | None = None
    ) -> None:
        """Keep why the bot of ``seat`` did not take it, for the game's row: the bot's failure
        unless the server refused streams for lack of room since the game (or ``instance``'s
        process) began."""
        spec = self.specs[seat]
        tail = None if stderr is None else stderr_tail(stderr)
        since = self.refused_before
        if instance is not None and instance.refused_before is not None:
            since = min(since, instance.refused_before)
        refused = 0 if self.admission is None else self.admission.refused - since
        kind = FailureKind.UNSEATED
        if refused > 0:
            kind = FailureKind.REFUSED
            why += (
                f", while the server refused {refused} stream{'s' * (refused > 1)} for lack of "
                "room (not counted against the bot)"
            )
        line = f"{spec.name} (seat {seat}, game {self.label}) {why}"
        self.void.append(line if tail is None else f"{line}; its stderr ends:\n{tail}")
        process = "" if instance is None else f"{instance.name}@{self.run_tag}"
        self.failures.append(BotFailure(spec.name, kind, why, tail, process))

    def instance_gone(self, seat: int, instance: Instance, code: int | None) -> None:
        """A process holding one of this game's seats exited: if the seat was never sent its
        hand, the game is void; otherwise the process crashed (the seat forfeits), at its
        first decision as later."""
        table = self.table
        if table.result is not None:
            return
        if not table.seated(seat):
            why = f"exited before connecting (exit code {code})"
            self.unseated(seat, why, instance.stderr, instance)
            return
        process = f"{instance.name}@{self.run_tag}"
        self.crashed(seat, instance.name, f"exit code {code}", instance.stderr, process)

    def crashed(self, seat: int, who: str, how: str, stderr: Path | None, process: str) -> None:
        """The bot of ``seat`` crashed after it was sent its hand (``who``: its process, or
        its instance in a worker, whose ``decide`` raised; ``how``: the exit code, or what it
        raised), at its first decision as later: its team forfeits."""
        name = self.specs[seat].name
        self.crashes[team_of(seat)] += 1
        when = "mid-game"
        if self.table.seats[seat].stats.decisions == 0:
            when = "after it was sent its hand, before its first move was done"
        tail = None if stderr is None else stderr_tail(stderr)
        self.failures.append(
            BotFailure(
                name, FailureKind.CRASHED, f"{who} crashed {when}, {how}", tail, process=process
            )
        )
        self.problems.append(
            f"{name} ({who}, seat {seat}, game {self.label}) crashed {when}, {how}; its stderr "
            f"ends:\n{tail or '(no stderr)'}"
        )
        self.table.forfeit(seat, f"{name} (seat {seat}) crashed, {how}")

    def result(self, row: GameRow) -> GameResult:
        """The game's result for the driver, with its record."""
        record = None
        if self.table.result is not None:
            lines = table_record(
                self.table,
                bots=[spec.name for spec in self.specs],
                about={"game": self.label, "deal": self.key.deal},
            )
            record = pack(lines)
        seated = {spec.name for seat, spec in enumerate(self.specs) if self.table.seated(seat)}
        return GameResult(row, record, tuple(self.failures), frozenset(seated))


async def _watch_connect(run: Games, game: _Game, timeout: float) -> None:
    """Every seat must be taken within ``timeout`` seconds of the game's start, or the game is
    void (:func:`chaodipi.arena.serving.hosting.void_unseated`); a process that did not take
    its seat is ended (a fresh one takes its place next time)."""
    void = await void_unseated(game.table, timeout, who=game.who)
    for seat in () if void is None else void.seats:
        instance = game.instances[seat]
        stderr = None if instance is None else instance.stderr
        game.note_unseated(seat, f"did not connect within {timeout:g} s", stderr, instance)
        if instance is not None and instance.process is not None:
            run.instances.retire(instance, "it did not connect its seat in time")


def _seat_specs(key: GameKey, bots: Mapping[str, BotSpec]) -> list[BotSpec]:
    """Each seat's bot: bot_a's team in seats 0 and 2, or 1 and 3 when swapped."""
    team0, team1 = (key.bot_a, key.bot_b) if not key.swapped else (key.bot_b, key.bot_a)
    return [bots[team0 if team_of(seat) == 0 else team1] for seat in SEATS]


async def _play_game(
    run: Games,
    key: GameKey,
    bots: Mapping[str, BotSpec],
    spectators_after: anyio.Event,
    chosen: list[Instance] | NoSeat | None,
) -> tuple[GameResult, Table]:
    config = run.config
    team0 = key.bot_a if not key.swapped else key.bot_b
    specs = _seat_specs(key, bots)
    seated = chosen if chosen is not None else await run.seat(key, bots)
    table_config = TableConfig(
        PRESETS[config.preset],
        seed=run.deal_key.seed(key.deal),
        max_hands=config.hands or None,
        decision_ms=config.decision_ms,
        bank_ms=config.bank_ms,
        max_strikes=config.max_strikes,
        # the runner decides about late bots (void games); the table only must not start early
        connect_timeout_s=config.connect_timeout + 60.0,
        bots=tuple(spec.name for spec in specs),  # for spectators
    )
    label = game_label(key)
    table = run.server.start_table(
        table_config,
        # a ticket names its table, so the twin game's must not be guessable; and a ticket must
        # not start with "-", which a bot's argument parser would take for an option
        name=f"g{secrets.token_urlsafe(12)}",
        spectators_after=spectators_after,
    )
    admission = run.server.admission
    game = _Game(key, specs, table, label, run.run_tag, admission, admission.refused)
    log = get_logger(table=table.name)
    log.info("game_started", game=label)  # the name, for spectators
    if run.on_table is not None:
        run.on_table(table.name, key)
    started = time.perf_counter()
    try:
        if isinstance(seated, NoSeat):
            game.unseated([s.name for s in specs].index(seated.bot), str(seated), None)
        else:
            await _seat_instances(run, game, seated)
        async with anyio.create_task_group() as watchers:
            watchers.start_soon(_watch_connect, run, game, config.connect_timeout)
            result = await run.server.wait(table)
            watchers.cancel_scope.cancel()
    finally:
        for seat, instance in enumerate(game.instances):
            if instance is not None:
                run.instances.let_go(table, seat)
    row = _row(key, team0, result, game, time.perf_counter() - started)
    # the record of a whole match takes tens of milliseconds to make: in a worker thread, so
    # that the tables still playing are not held up meanwhile (the ended match is not touched)
    return await anyio.to_thread.run_sync(game.result, row), table


async def _seat_instances(run: Games, game: _Game, instances: list[Instance]) -> None:
    """Give each instance its seat, then start the processes that do not run yet."""
    table = game.table
    for seat, instance in enumerate(instances):
        game.instances[seat] = instance
        get_logger(table=table.name).info("seat_given", seat=seat, session=instance.name)
        run.instances.hold(
            instance, table, seat, game.key.deal, functools.partial(game.instance_gone, seat)
        )
    for seat, instance in enumerate(instances):
        try:
            ticket = table.ticket(seat) if instance.spec.fresh else None
            await run.instances.start(instance, ticket=ticket)
        except OSError as err:
            run.instances.retire(instance, "it could not be started")
            game.unseated(seat, f"could not start: {err}", None, instance)
            return


def _row(key: GameKey, team0: str, result: TableResult, game: _Game, seconds: float) -> GameRow:
    a_team = 0 if team0 == key.bot_a else 1
    b_team = other_team(a_team)
    outcome = result.outcome
    void = None if result.void is None else "\n".join(game.void)
    score_a = None if void is not None else outcome.score(a_team)
    defended = [0, 0]
    points = [0, 0]
    for record in result.hand_records:
        defenders = other_team(team_of(record.dealer))
        defended[defenders] += 1
        points[defenders] += record.total
    strikes = [sum(result.seats[s].strikes for s in team_seats(t)) for t in (0, 1)]
    illegal = [sum(result.seats[s].illegal for s in team_seats(t)) for t in (0, 1)]
    fallbacks = [sum(result.seats[s].fallbacks for s in team_seats(t)) for t in (0, 1)]
    forfeit = None
    if outcome.forfeited_by is not None and void is None:
        forfeit = key.bot_a if team_of(outcome.forfeited_by) == a_team else key.bot_b
    return GameRow(
        key=key,
        score_a=score_a,
        hands=outcome.hands,
        levels_a=outcome.progress[a_team],
        levels_b=outcome.progress[b_team],
        defended_a=defended[a_team],
        points_a=points[a_team],
        defended_b=defended[b_team],
        points_b=points[b_team],
        strikes_a=strikes[a_team],
        strikes_b=strikes[b_team],
        illegal_a=illegal[a_team],
        illegal_b=illegal[b_team],
        crashes_a=game.crashes[a_team],
        crashes_b=game.crashes[b_team],
        forfeit=forfeit,
        reason=outcome.reason,
        errors="\n".join(([] if void is not None else game.void) + game.problems),
        seconds=seconds,
        void=void,
        fallbacks_a=fallbacks[a_team],
        fallbacks_b=fallbacks[b_team],
    )


async def play_games(
    config: TournamentConfig,
    deal_key: DealSource,
    keys: Sequence[GameKey],
    *,
    server: ArenaServer | None,
    log_dir: Path,
    on_result: OnResult,
    detach_bots: bool = True,
    on_table: Callable[[str, GameKey], None] | None = None,
    workers: Workers | None = None,
) -> int:
    """Play ``keys`` on ``server``, ``config.concurrency`` at a time and started in their
    order, with the bots' pools (:mod:`chaodipi.arena.tournament.pools`), and the games
    between in-process bots (:func:`~chaodipi.arena.tournament.workers.in_process`) in
    ``workers`` (:func:`~chaodipi.arena.tournament.workers.open_workers`; ``server`` may be None
    when every game is one); ``on_result(result)`` as each game ends (void ones too), before
    the next game takes its slot. Spectators of a deal wait until every game of ``keys`` on
    that deal has ended; its tables are released then. ``detach_bots=False`` keeps the bot
    processes in this process's group (a Ray worker); ``on_table(name, key)`` as each game's
    table opens. Returns the bot processes started. Cancel it to stop: the games in flight are
    dropped and every bot process ends. Raises :class:`~chaodipi.arena.errors.BackendFailed`
    when a worker cannot go on."""
    slots = anyio.Semaphore(config.concurrency)
    deals = _Deals(Counter(k.deal for k in keys))
    bots = {b.name: b for b in config.bots}
    here = {key for key in keys if workers is not None and in_process(config, key)}
    started = 0
    try:
        async with AsyncExitStack() as stack:
            if workers is not None:
                await stack.enter_async_context(workers.running())
            nursery = await stack.enter_async_context(anyio.create_task_group())
            instances = None
            if server is not None:
                instances = Instances(config, server, nursery, log_dir, detach=detach_bots)
                run = Games(config, server, instances, deal_key, on_table=on_table)

            async def one(key: GameKey) -> None:
                table = None
                try:
                    if workers is not None and key in here:
                        result = await workers.play(key, deal_key.seed(key.deal))
                    else:
                        after = deals.spectators_after(key.deal)
                        result, table = await run.play(key, bots, spectators_after=after)
                finally:
                    slots.release()
                on_result(result)
                for done in deals.game_ended(table, key):
                    assert server is not None
                    server.release(done)

            try:
                async with anyio.create_task_group() as playing:
                    for key in keys:
                        await slots.acquire()  # games start in order: deal after deal
                        playing.start_soon(one, key)
            finally:
                # every game ended (or the caller stopped): sessions end, processes exit or
                # are killed
                if instances is not None:
                    cancelled = anyio.current_effective_deadline() == -float("inf")
                    await instances.close(grace=not cancelled)
                    started = instances.started
            nursery.cancel_scope.cancel()  # the process watchers
    except* BackendFailed as failed:  # a worker's: the run stops saying why
        raise failed.exceptions[0] from None
    return started


@dataclass(slots=True)
class LocalBackend:
    """The games played here (:func:`play_games`): on a table server at ``address``
    (``on_listening(address)`` once it listens; ``spectator_token``: the operator's credential
    for ``Watch``, None: nobody may watch; ``on_table(name, key)`` as each game's table
    opens), and those between in-process bots in worker processes (with no server when every
    game is one)."""

    address: str = "127.0.0.1:0"
    on_listening: Callable[[str], None] | None = None
    spectator_token: str | None = None
    on_table: Callable[[str, GameKey], None] | None = None
    log_level: str = "warning"
    """The worker processes' (their tables' log lines)."""
    on_open: Callable[[], None] | None = None
    """Told once the backend is ready to play: its first worker started, or its server
    listening."""

    @asynccontextmanager
    async def open(self, assignment: Assignment) -> AsyncIterator[_LocalGames]:
        config, games = assignment.config, assignment.games
        async with open_workers(
            config, games, assignment.log_dir, log_level=self.log_level
        ) as workers:
            if all(in_process(config, key) for key in games):  # no server needed
                if self.on_open is not None:
                    self.on_open()
                yield _LocalGames(assignment, None, workers)
                return
            async with open_server(self.address, spectator_token=self.spectator_token) as server:
                if self.on_listening is not None:
                    self.on_listening(server.address)
                if self.on_open is not None:
                    self.on_open()
                yield _LocalGames(assignment, server, workers, self.on_table)


@dataclass(slots=True)
class _LocalGames:
    assignment: Assignment
    server: ArenaServer | None
    workers: Workers | None
    on_table: Callable[[str, GameKey], None] | None = None
    processes: int = 0

    async def play(self, on_result: OnResult) -> None:
        work = self.assignment
        self.processes = await play_games(
            work.config,
            work.deal_key,
            work.games,
            server=self.server,
            log_dir=work.log_dir,
            on_result=on_result,
            on_table=self.on_table,
            workers=self.workers,
        )
