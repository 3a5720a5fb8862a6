"""The tournament runner: duplicate deals, bot processes, one table per game, results to SQLite.

Every pairing plays the same deal seeds, and each seed twice with the teams' seats swapped, so
card luck cancels in the pair (``docs/architecture.md``). A game starts a table on the in-process
server and launches the four bot processes. It waits for the match, then stores one row before
the next game needs the slot (``concurrency`` games at once, a ``trio.CapacityLimiter``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import trio

from arena.config import BotSpec, TournamentConfig
from arena.logs import get_logger
from arena.results import GameKey, GameRow, ResultsDB
from arena.server import ArenaServer, open_server
from arena.stats import SprtTest as Sprt
from arena.stats import pentanomial
from arena.stats import sprt as sprt_result
from arena.table import Table, TableConfig, TableResult
from engine.presets import PRESETS

__all__ = ["Outcome", "Sprt", "run_tournament", "schedule"]

STDERR_TAIL = 2000
EXIT_GRACE_S = 3.0


@dataclass(slots=True)
class Outcome:
    """What a run did: games played now, problems seen, and an SPRT verdict if one was asked."""

    played: int = 0
    skipped: int = 0
    problems: list[str] = field(default_factory=list)
    sprt: str | None = None


def schedule(config: TournamentConfig) -> list[GameKey]:
    """Every game of the tournament: pairings × seeds × (as dealt, swapped)."""
    return [
        GameKey(a, b, config.seed_base + seed, swapped)
        for seed in range(config.seeds)
        for a, b in config.pairings()
        for swapped in (0, 1)
    ]


async def _launch(
    spec: BotSpec, address: str, ticket: str, log_dir: Path, label: str
) -> tuple[trio.Process, Path]:
    stderr_path = log_dir / f"{label}.stderr"
    stderr = stderr_path.open("wb")
    try:
        process = await trio.lowlevel.open_process(
            [*spec.command, "--address", address, "--ticket", ticket],
            env={**os.environ, "ARENA_ADDRESS": address, "ARENA_TICKET": ticket},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            start_new_session=True,
        )
    finally:
        stderr.close()
    return process, stderr_path


async def _seat_gone_if_dead(table: Table, seat: int, process: trio.Process) -> None:
    """A bot that exits before the match is over will not connect: stop waiting for it."""
    await process.wait()
    table.seat_gone(seat)


def _tail(path: Path) -> str:
    try:
        data = path.read_bytes()[-STDERR_TAIL:]
    except OSError:
        return ""
    return data.decode("utf-8", "replace").strip()


async def _play_game(
    server: ArenaServer,
    config: TournamentConfig,
    key: GameKey,
    log_dir: Path,
) -> GameRow:
    bots = {b.name: b for b in config.bots}
    team0, team1 = (key.bot_a, key.bot_b) if key.swapped == 0 else (key.bot_b, key.bot_a)
    table_config = TableConfig(
        PRESETS[config.preset],
        seed=key.seed,
        max_hands=config.hands or None,
        decision_ms=config.decision_ms,
        bank_ms=config.bank_ms,
        max_strikes=config.max_strikes,
        connect_timeout_s=30.0,
        replay_dir=config.replays,
    )
    name = f"{key.bot_a}-{key.bot_b}-s{key.seed}-{'b' if key.swapped else 'a'}"
    table = server.start_table(table_config, name=name)
    started = time.perf_counter()
    processes: list[tuple[trio.Process | None, Path]] = []
    problems: list[str] = []
    try:
        for seat in range(4):
            spec = bots[team0 if seat % 2 == 0 else team1]
            if spec.token is not None:
                server.expect(spec.token, table, seat)
                processes.append((None, log_dir / "external"))
                continue
            try:
                processes.append(
                    await _launch(
                        spec, server.address, table.ticket(seat), log_dir, f"{name}-{seat}"
                    )
                )
            except OSError as err:
                problems.append(f"{spec.name} could not start: {err}")
                processes.append((None, log_dir / "missing"))
        async with trio.open_nursery() as watchers:
            for seat, (process, path) in enumerate(processes):
                if process is None:
                    if path.name != "external":
                        table.seat_gone(seat)
                else:
                    watchers.start_soon(_seat_gone_if_dead, table, seat, process)
            result = await server.wait(table)
            watchers.cancel_scope.cancel()
        with trio.move_on_after(EXIT_GRACE_S):
            for process, _ in processes:
                if process is not None:
                    await process.wait()
    finally:
        for process, _ in processes:
            if process is not None and process.returncode is None:
                with trio.CancelScope(shield=True):
                    process.send_signal(signal.SIGKILL)
                    await process.wait()
    crashes = [0, 0]
    for seat, (process, stderr_path) in enumerate(processes):
        bot = team0 if seat % 2 == 0 else team1
        if process is None:
            if stderr_path.name == "external":
                if result.seats[seat].connects == 0:
                    problems.append(f"{bot} (seat {seat}, game {name}) never connected")
            else:
                crashes[seat % 2] += 1
            continue
        if process.returncode not in (0, -signal.SIGKILL):
            crashes[seat % 2] += 1
            never = result.seats[seat].connects == 0
            what = "could not start" if never else "crashed"
            problems.append(
                f"{bot} (seat {seat}, game {name}) {what}, exit code {process.returncode}: "
                f"{_tail(stderr_path) or '(no stderr)'}"
            )
    records = [(r.dealer, r.total) for r in table.match.records]
    return _row(key, team0, result, crashes, problems, time.perf_counter() - started, records)


def _row(
    key: GameKey,
    team0: str,
    result: TableResult,
    crashes: list[int],
    problems: list[str],
    seconds: float,
    records: list[tuple[int, int]],
) -> GameRow:
    a_team = 0 if team0 == key.bot_a else 1
    b_team = 1 - a_team
    score_a = None if result.winner is None else (1.0 if result.winner == a_team else 0.0)
    if result.winner is None and result.reason == "played to the end":
        score_a = 0.5
    defended = [0, 0]
    points = [0, 0]
    for dealer, total in records:
        defenders = 1 - dealer % 2
        defended[defenders] += 1
        points[defenders] += total
    strikes = [sum(result.seats[s].strikes for s in (t, t + 2)) for t in (0, 1)]
    illegal = [sum(result.seats[s].illegal for s in (t, t + 2)) for t in (0, 1)]
    forfeit = None
    if result.forfeited_by is not None:
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
        crashes_a=crashes[a_team],
        crashes_b=crashes[b_team],
        forfeit=forfeit,
        reason=result.reason,
        errors="\n".join(problems),
        seconds=seconds,
    )


def _sprt_verdict(db: ResultsDB, test: Sprt) -> str | None:
    pairs: dict[tuple[str, str, int], list[float]] = {}
    for row in db.rows():
        if row.score_a is not None:
            pairs.setdefault((row.key.bot_a, row.key.bot_b, row.key.seed), []).append(row.score_a)
    result = sprt_result(test, pentanomial(sum(s) for s in pairs.values() if len(s) == 2))
    return None if result.verdict is None else str(result)


async def run_tournament(
    config: TournamentConfig,
    *,
    address: str = "127.0.0.1:0",
    on_listening: Callable[[str], None] | None = None,
    resume: bool = False,
    sprt: Sprt | None = None,
    on_game: Callable[[GameRow, int, int], None] | None = None,
    log_dir: Path | None = None,
) -> Outcome:
    """Play every game not yet stored; ``on_game(row, done, total)`` after each one."""
    db = ResultsDB(config.database)
    db.claim(config.fingerprint(), resume=resume)
    outcome = Outcome()
    games = schedule(config)
    done = db.done()
    pending = [g for g in games if g not in done]
    outcome.skipped = len(games) - len(pending)
    log = get_logger(database=str(config.database))
    log_dir = log_dir or config.database.parent / f"{config.database.stem}-logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    limiter = trio.CapacityLimiter(config.concurrency)
    finished = outcome.skipped
    try:
        async with open_server(address) as server, trio.open_nursery() as nursery:
            if on_listening is not None:
                on_listening(server.address)

            async def one(key: GameKey) -> None:
                nonlocal finished
                async with limiter:
                    row = await _play_game(server, config, key, log_dir)
                db.add(row)
                finished += 1
                outcome.played += 1
                if row.errors:
                    outcome.problems.append(row.errors)
                log.info(
                    "game_over",
                    game=f"{key.bot_a}-{key.bot_b}-{key.seed}-{key.swapped}",
                    score_a=row.score_a,
                    hands=row.hands,
                    reason=row.reason,
                )
                if on_game is not None:
                    on_game(row, finished, len(games))
                if sprt is not None and key.swapped == 1:
                    verdict = _sprt_verdict(db, sprt)
                    if verdict is not None:
                        outcome.sprt = verdict
                        nursery.cancel_scope.cancel()

            for key in pending:
                nursery.start_soon(one, key)
    finally:
        db.close()
    return outcome
