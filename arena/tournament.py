"""The tournament runner: duplicate deals, bot sessions, one table per game, results to SQLite.

Every pairing plays the same deals, and each deal twice with the teams' seats swapped, so card
luck cancels in the pair (``docs/architecture.md``). Deal ``n``'s cards come from the
tournament's secret key (:mod:`arena.deals`), kept in its database: no bot can guess them from
the deal number, and ``--resume`` deals them again. A game starts a table on the in-process
server and seats four players from the bots' pools of long-lived processes
(:mod:`arena.pools`: a process is never given two seats of one deal). It waits for the match,
then stores one row before the next game needs the slot (``concurrency`` games at once).

A game in which a bot never played (it could not start, exited before its first decision, or
did not connect in time) is void: stored with the reason, left out of every statistic, played
again on ``--resume``. A process that dies mid-game forfeits the games it held seats in and is
replaced. A bot that fails to start, or dies, in several games in a row stops the run.

Nothing of a deal leaves the run while a game on that deal still plays: a table's replay is
moved into the replays folder, and spectators see the table, only once every game of this run
on its deal has ended.
"""

from __future__ import annotations

import functools
import secrets
import signal
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import trio

from arena.config import BotSpec, TournamentConfig
from arena.deals import DealKey
from arena.logs import get_logger
from arena.pools import NoSeat, Player, Players
from arena.processes import BotFailures, stderr_tail
from arena.recorder import Outcome, Recorder, game_label, prepare_log_dir, schedule
from arena.results import GameKey, GameRow, ResultsDB
from arena.server import ArenaServer, open_server
from arena.stats import SprtTest
from arena.table import Table, TableConfig, TableResult
from engine.match import Ending
from engine.presets import PRESETS

__all__ = ["DealOver", "Outcome", "game_label", "play_games", "run_tournament", "schedule"]

DealOver = Callable[[dict[GameKey, Path | None]], None]
"""Told once every game of a deal has ended, with each game's replay file (None without one;
the file is deleted when the call returns)."""


@dataclass(slots=True)
class _Deals:
    """Which deals still have games playing in this run; spectators and replays of a deal wait
    for all of them."""

    left: Counter[int]
    over: dict[int, trio.Event] = field(default_factory=dict)
    ended: dict[int, list[tuple[Table, GameKey]]] = field(default_factory=dict)

    def spectators_after(self, deal: int) -> trio.Event:
        return self.over.setdefault(deal, trio.Event())

    def game_ended(self, table: Table, key: GameKey) -> list[tuple[Table, GameKey]]:
        """Record a finished game; return the deal's tables once its last game has ended."""
        deal = key.seed
        self.ended.setdefault(deal, []).append((table, key))
        self.left[deal] -= 1
        if self.left[deal] > 0:
            return []
        self.spectators_after(deal).set()
        return self.ended.pop(deal)


@dataclass(slots=True)
class _Run:
    """What every game of one run shares."""

    config: TournamentConfig
    server: ArenaServer
    players: Players
    deal_key: DealKey
    staging: Path
    deals: _Deals
    failures: BotFailures
    stop: Callable[[str], None]
    deaths: set[str] = field(default_factory=set)
    """Players whose death was counted already (a process may die holding several seats)."""


@dataclass(slots=True)
class _Game:
    """One game's seats and what went wrong with its bots."""

    key: GameKey
    specs: list[BotSpec]
    table: Table
    label: str
    players: list[Player | None] = field(default_factory=lambda: [None] * 4)
    void: list[str] = field(default_factory=list)
    """Why the game is not a result, one line per seat whose bot never played."""
    failed: dict[str, tuple[BotSpec, str, Path | None]] = field(default_factory=dict)
    crashes: list[int] = field(default_factory=lambda: [0, 0])
    crashed: dict[int, Player] = field(default_factory=dict)
    """Seats whose process died mid-game."""
    problems: list[str] = field(default_factory=list)

    def never_played(self, seat: int, why: str, stderr: Path | None) -> None:
        spec = self.specs[seat]
        tail = "" if stderr is None else f": {stderr_tail(stderr)}"
        self.void.append(f"{spec.name} (seat {seat}, game {self.label}) {why}{tail}")
        self.failed.setdefault(spec.name, (spec, why, stderr))
        self.table.stop(f"void: {spec.name} (seat {seat}) {why}")

    def player_gone(self, seat: int, player: Player, code: int | None) -> None:
        """A process holding one of this game's seats exited: if it never made a decision (in
        any game) it did not start and the game is void; otherwise it crashed (the seat
        forfeits)."""
        table = self.table
        if table.result is not None:
            return
        stats = table.seats[seat].stats
        if stats.decisions == 0 and not player.played:
            what = "exited before connecting" if stats.connects == 0 else "exited before its turn"
            self.never_played(seat, f"{what} (exit code {code})", player.stderr)
            return
        self.crashes[seat % 2] += 1
        self.crashed[seat] = player
        tail = "(no stderr)" if player.stderr is None else stderr_tail(player.stderr)
        self.problems.append(
            f"{player.spec.name} ({player.name}, seat {seat}, game {self.label}) crashed "
            f"mid-game, exit code {code}: {tail}"
        )
        table.forfeit(seat, f"{player.spec.name} (seat {seat}) crashed, exit code {code}")


async def _watch_connect(run: _Run, game: _Game, timeout: float) -> None:
    """Every seat must connect within ``timeout`` seconds of the game's start; a process that
    did not is ended (a fresh one takes its place next time)."""
    with trio.move_on_after(timeout):
        await game.table.connected.wait()
        return
    for seat, state in enumerate(game.table.seats):
        if state.stats.connects == 0 and game.table.result is None:
            player = game.players[seat]
            game.never_played(
                seat,
                f"did not connect within {timeout:g} s",
                None if player is None else player.stderr,
            )
            if player is not None and player.process is not None:
                run.players.retire(player, "it did not connect its seat in time")


async def _play_game(run: _Run, key: GameKey) -> tuple[GameRow, Table]:
    config = run.config
    bots = {b.name: b for b in config.bots}
    team0, team1 = (key.bot_a, key.bot_b) if key.swapped == 0 else (key.bot_b, key.bot_a)
    specs = [bots[team0 if seat % 2 == 0 else team1] for seat in range(4)]
    seated: list[Player] | NoSeat
    try:
        seated = await run.players.seat(key.seed, specs, wait_s=config.connect_timeout)
    except NoSeat as err:
        seated = err
    table_config = TableConfig(
        PRESETS[config.preset],
        seed=run.deal_key.seed(key.seed),
        max_hands=config.hands or None,
        decision_ms=config.decision_ms,
        bank_ms=config.bank_ms,
        max_strikes=config.max_strikes,
        # the runner decides about late bots (void games); the table only must not start early
        connect_timeout_s=config.connect_timeout + 60.0,
        replay_dir=run.staging if config.replays is not None else None,
    )
    label = game_label(key)
    table = run.server.start_table(
        table_config,
        # a ticket names its table, so the twin game's must not be guessable; and a ticket must
        # not start with "-", which a bot's argument parser would take for an option
        name=f"g{secrets.token_urlsafe(12)}",
        spectators_after=run.deals.spectators_after(key.seed),
    )
    game = _Game(key, specs, table, label)
    log = get_logger(table=table.name)
    log.info("game_started", game=label)  # the name, for spectators
    started = time.perf_counter()
    try:
        if isinstance(seated, NoSeat):
            game.never_played(specs.index(seated.spec), str(seated), None)
        else:
            await _seat_players(run, game, seated)
        async with trio.open_nursery() as watchers:
            watchers.start_soon(_watch_connect, run, game, config.connect_timeout)
            result = await run.server.wait(table)
            watchers.cancel_scope.cancel()
    finally:
        for seat, player in enumerate(game.players):
            if player is not None:
                run.players.let_go(table, seat)
    _count_failures(run, game)
    return _row(key, team0, result, game, time.perf_counter() - started), table


async def _seat_players(run: _Run, game: _Game, players: list[Player]) -> None:
    """Give each player its seat, then start the processes that do not run yet."""
    table = game.table
    for seat, player in enumerate(players):
        game.players[seat] = player
        get_logger(table=table.name).info("seat_given", seat=seat, session=player.name)
        run.players.hold(
            player, table, seat, game.key.seed, functools.partial(game.player_gone, seat)
        )
    for seat, player in enumerate(players):
        try:
            ticket = table.ticket(seat) if player.spec.fresh else None
            await run.players.start(player, ticket=ticket)
        except OSError as err:
            run.players.retire(player, "it could not be started")
            game.never_played(seat, f"could not start: {err}", None)
            return


def _count_failures(run: _Run, game: _Game) -> None:
    """Feed the failure counter; stop the run when a bot keeps failing to start or dying."""
    for spec, why, stderr in game.failed.values():
        message = run.failures.failed(spec, why, stderr)
        if message is not None:
            run.stop(message)
            return
    for player in game.crashed.values():
        if player.name in run.deaths:
            continue  # one process dying in several games at once is one failure
        run.deaths.add(player.name)
        code = None if player.process is None else player.process.exit_code
        message = run.failures.failed(
            player.spec, f"{player.name}, exit code {code}", player.stderr, started=True
        )
        if message is not None:
            run.stop(message)
            return
    died = {player.spec.name for player in game.crashed.values()}
    for seat, spec in enumerate(game.specs):
        if (
            spec.name not in game.failed
            and spec.name not in died
            and game.table.seats[seat].stats.decisions > 0
        ):
            run.failures.played(spec)  # a game it played through: the count starts again


def _row(key: GameKey, team0: str, result: TableResult, game: _Game, seconds: float) -> GameRow:
    a_team = 0 if team0 == key.bot_a else 1
    b_team = 1 - a_team
    void = "; ".join(game.void) or None
    score_a = None if result.winner is None else (1.0 if result.winner == a_team else 0.0)
    if result.winner is None and result.ending is Ending.PLAYED_OUT:
        score_a = 0.5
    if void is not None:
        score_a = None
    defended = [0, 0]
    points = [0, 0]
    for record in result.hand_records:
        defenders = 1 - record.dealer % 2
        defended[defenders] += 1
        points[defenders] += record.total
    strikes = [sum(result.seats[s].strikes for s in (t, t + 2)) for t in (0, 1)]
    illegal = [sum(result.seats[s].illegal for s in (t, t + 2)) for t in (0, 1)]
    forfeit = None
    if result.forfeited_by is not None and void is None:
        forfeit = key.bot_a if result.forfeited_by % 2 == a_team else key.bot_b
    return GameRow(
        key=key,
        score_a=score_a,
        hands=result.hands,
        levels_a=result.progress[a_team],
        levels_b=result.progress[b_team],
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
        reason=result.reason,
        errors="\n".join(game.void + game.problems),
        seconds=seconds,
        void=void,
    )


def _release_deal(
    run: _Run, tables: list[tuple[Table, GameKey]], on_deal_over: DealOver | None
) -> None:
    """Every game on a deal has ended: its replays may be seen now (moved to the replays
    folder, or handed to ``on_deal_over``)."""
    replays = run.config.replays
    files: dict[GameKey, Path | None] = {}
    for table, key in tables:
        replay = table.result.replay if table.result is not None else None
        files[key] = replay
        if on_deal_over is None and replays is not None and replay is not None:
            replays.mkdir(parents=True, exist_ok=True)
            replay.replace(replays / f"{game_label(key)}.jsonl")
    if on_deal_over is not None:
        on_deal_over(files)
    for table, _ in tables:
        run.server.release(table)


async def _stop_on_signal(outcome: Outcome, scope: trio.CancelScope) -> None:
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for _ in signals:
            outcome.interrupted = True
            scope.cancel()
            return


async def run_tournament(
    config: TournamentConfig,
    *,
    address: str = "127.0.0.1:0",
    on_listening: Callable[[str], None] | None = None,
    spectator_token: str | None = None,
    resume: bool = False,
    sprt_test: SprtTest | None = None,
    on_game: Callable[[GameRow, int, int], None] | None = None,
    log_dir: Path | None = None,
) -> Outcome:
    """Play every game not yet stored; ``on_game(row, done, total)`` after each one.

    ``spectator_token``: the operator's credential for ``Watch`` (None: nobody may watch). A
    spectator sees nothing of a table until every game of the run on its deal has ended.

    Ctrl-C (SIGINT) or SIGTERM, when this runs in the main thread, drops the games in flight
    and returns with ``interrupted`` set; what was stored stays, and ``--resume`` goes on."""
    db = ResultsDB(config.database)
    try:
        db.claim(config.fingerprint(), resume=resume)
        deal_key = db.deal_key()
        return await _run(
            config,
            db,
            deal_key,
            address,
            spectator_token,
            on_listening,
            sprt_test,
            on_game,
            log_dir,
        )
    finally:
        db.close()


async def play_games(
    config: TournamentConfig,
    deal_key: DealKey,
    keys: Sequence[GameKey],
    *,
    server: ArenaServer,
    log_dir: Path,
    on_game: Callable[[GameRow], None],
    stop: Callable[[str], None],
    on_deal_over: DealOver | None = None,
    detach_bots: bool = True,
) -> int:
    """Play ``keys`` on ``server``, ``config.concurrency`` at a time and started in their
    order, with the bots' pools (:mod:`arena.pools`); ``on_game(row)`` as each game ends (void
    ones too), before the next game takes its slot. ``stop(message)`` is called when a bot
    keeps failing: it should cancel the caller's scope. Replays and spectators of a deal wait
    until every game of ``keys`` on that deal has ended; then the replays are moved into
    ``config.replays``, or handed to ``on_deal_over`` if given. ``detach_bots=False`` keeps
    the bot processes in this process's group (a Ray worker). Returns the bot processes
    started. The local runner and a Ray worker both play their games through this."""
    slots = trio.Semaphore(config.concurrency)
    with tempfile.TemporaryDirectory(prefix="arena-replays-") as staging:
        async with trio.open_nursery() as nursery:
            players = Players(config, server, nursery, log_dir, detach=detach_bots)
            run = _Run(
                config,
                server,
                players,
                deal_key,
                Path(staging),
                _Deals(Counter(k.seed for k in keys)),
                BotFailures(),
                stop,
            )

            async def one(key: GameKey) -> None:
                try:
                    row, table = await _play_game(run, key)
                finally:
                    slots.release()
                on_game(row)
                _release_deal(run, run.deals.game_ended(table, key), on_deal_over)

            try:
                async with trio.open_nursery() as playing:
                    for key in keys:
                        await slots.acquire()  # games start in order: deal after deal
                        playing.start_soon(one, key)
            finally:
                # every game ended (or the caller stopped): sessions end, processes exit or
                # are killed
                cancelled = trio.current_effective_deadline() == -float("inf")
                await players.close(grace=not cancelled)
            nursery.cancel_scope.cancel()  # the process watchers
    return players.started


async def _run(
    config: TournamentConfig,
    db: ResultsDB,
    deal_key: DealKey,
    address: str,
    spectator_token: str | None,
    on_listening: Callable[[str], None] | None,
    sprt_test: SprtTest | None,
    on_game: Callable[[GameRow, int, int], None] | None,
    log_dir: Path | None,
) -> Outcome:
    outcome = Outcome()
    recorder = Recorder(config, db, outcome, sprt_test=sprt_test, on_game=on_game)
    log_dir = prepare_log_dir(config, log_dir)
    async with (
        open_server(address, spectator_token=spectator_token) as server,
        trio.open_nursery() as nursery,
    ):
        if on_listening is not None:
            on_listening(server.address)
        if threading.current_thread() is threading.main_thread():
            nursery.start_soon(_stop_on_signal, outcome, nursery.cancel_scope)

        def stop(message: str) -> None:
            recorder.stop(message)
            nursery.cancel_scope.cancel()

        def keep(row: GameRow) -> None:
            if recorder.keep(row):  # the SPRT has decided
                nursery.cancel_scope.cancel()

        try:
            outcome.processes = await play_games(
                config,
                deal_key,
                recorder.pending,
                server=server,
                log_dir=log_dir,
                on_game=keep,
                stop=stop,
            )
        finally:
            nursery.cancel_scope.cancel()  # every game ended: stop listening for signals
    return outcome
