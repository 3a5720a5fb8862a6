"""``arena bench`` itself, once its command line is read (:mod:`chaodipi.arena.cli.bench`): each
run played by the tournament driver on this machine, a line per game on stderr, and the one
table at the end."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import Any

import anyio
from rich.console import Console
from rich.table import Table

from chaodipi.arena.cli.bench import duration_text, estimate_s, reproduce
from chaodipi.arena.cli.run_job import Tally, game_notes
from chaodipi.arena.errors import ArenaError
from chaodipi.arena.logs import configure_logging
from chaodipi.arena.report import (
    MIN_PAIRS,
    Column,
    build_report,
    fitted_tables,
    los_text,
    score_text,
    signed_text,
    unestimated_text,
    unmeasured_text,
)
from chaodipi.arena.results import GameKey, GameRow, game_label, stored
from chaodipi.arena.serving import tune_garbage_collector
from chaodipi.arena.tournament import (
    LocalBackend,
    RunResult,
    TournamentConfig,
    games_left,
    run_tournament,
    rung,
    schedule,
)
from chaodipi.records import visible

__all__ = ["BenchRow", "bench_job", "bench_rows"]


@dataclass(frozen=True, slots=True)
class BenchRow:
    """One row of the table: the first bot's results against the second over their games."""

    label: str
    games: int
    wins: int
    losses: int
    draws: int
    score: float
    score_low: float
    score_high: float
    elo: float
    elo_error: float
    los: float
    levels_per_hand: float
    points_per_defended_hand: float
    void: int
    not_estimated: str | None = None
    """Why the score interval, Elo and LOS are NaN (the report's ``PairLine.not_estimated``:
    too few pairs), or None."""


def bench_rows(rows: list[GameRow], pairs: list[tuple[str, str, str]]) -> list[BenchRow]:
    """A row per (label, bot, opponent) of ``pairs``, from the stored games of that pairing."""
    out = []
    for label, bot, other in pairs:
        mine = [r for r in rows if (r.key.bot_a, r.key.bot_b) == (bot, other)]
        report = build_report(mine, [bot, other])
        pair = next((p for p in report.pairs if p.bot_a == bot), None)
        line = next(b for b in report.bots if b.bot == bot)
        if pair is None:  # nothing stored yet
            nan = math.nan
            row = BenchRow(label, 0, 0, 0, 0, nan, nan, nan, nan, nan, nan, nan, nan, 0)
            out.append(replace(row, not_estimated=f"needs ≥ {MIN_PAIRS} pairs"))
            continue
        out.append(
            BenchRow(
                label,
                pair.wins + pair.losses + pair.draws,
                pair.wins,
                pair.losses,
                pair.draws,
                pair.score,
                pair.score_low,
                pair.score_high,
                pair.elo,
                pair.elo_error,
                pair.los,
                line.levels_per_hand,
                line.points_per_defended_hand,
                pair.void,
                pair.not_estimated,
            )
        )
    return out


def _elo(row: BenchRow) -> str:
    if row.not_estimated is not None:
        return unestimated_text(row.not_estimated, "")
    if math.isinf(row.elo):
        return signed_text(row.elo, ".1f")  # a note under the table says what ∞ means
    if math.isnan(row.elo):
        return "—"
    error = "?" if math.isinf(row.elo_error) else f"{row.elo_error:.1f}"
    return f"{signed_text(row.elo, '.1f')} ± {error}"


def _number(value: float, spec: str) -> str:
    return "—" if math.isnan(value) else format(value, spec)


def bench_tables(title: str, first: str, rows: list[BenchRow], width: int) -> list[Table]:
    """The bench's table within ``width`` columns (the report's layout: a table too wide is
    continued in another led by the same rung column, and no cell is cut)."""
    key = Column(first, [row.label for row in rows], justify="left")
    strength = [
        Column(
            "games", [f"{r.games}" + (f" (+{r.void} void)" if r.void else "") for r in rows]
        ),
        Column("W-L-D", [f"{r.wins}-{r.losses}-{r.draws}" for r in rows]),
        Column(
            "score % [95 %]", [score_text(r.score, r.score_low, r.score_high) for r in rows]
        ),
    ]
    elo = [
        Column("Elo ± 95 %", [_elo(r) for r in rows]),
        Column("LOS", [unestimated_text(r.not_estimated, los_text(r.los)) for r in rows]),
    ]
    play = [
        Column("levels/hand", [_number(r.levels_per_hand, "+.3f") for r in rows]),
        Column("pts/def. hand", [_number(r.points_per_defended_hand, ".1f") for r in rows]),
    ]
    return fitted_tables(title, [key], [strength, elo, play], width)


def bench_notes(rows: list[BenchRow]) -> list[str]:
    """The lines under the table that say where its numbers come from."""
    notes = ["score interval, Elo ± 95 % and LOS: from the pairs of games on one deal"]
    if any(math.isinf(row.elo) for row in rows):
        notes.append("±∞: no pair lost (or none won), so no finite Elo")
    unmeasured = [
        f"{row.label}: {unmeasured_text(row.score_low, row.score_high)}"
        for row in rows
        if row.not_estimated is None and math.isfinite(row.elo) and math.isinf(row.elo_error)
    ]
    if unmeasured:
        notes.append(
            "± ?: the Elo's error cannot be measured, as its score interval reaches 0 % or "
            "100 % (where Elo is infinite) or every pair ended alike (no spread): "
            + "; ".join(unmeasured)
        )
    if any(row.not_estimated is not None for row in rows):
        notes.append(
            f"— (needs ≥ {MIN_PAIRS} pairs): too few pairs for an interval, Elo or LOS that "
            "means anything (docs/report.md)"
        )
    return notes


def estimate_line(jobs: list[tuple[str, TournamentConfig]], resume: bool, ladder: bool) -> str:
    """What ``arena bench`` says before it starts: the games to play and roughly how long."""
    config = jobs[0][1]
    games: list[GameKey] = []
    for _, job in jobs:
        left = games_left(job) if resume else None
        games += schedule(job) if left is None else left
    hands = _count(config.hands, "hand") if config.hands else "a whole match"
    line = f"{_count(len(games), 'game')} to play, {hands} each"
    pairs = [(key.bot_a, key.bot_b) for key in games]
    seconds = estimate_s(pairs, config.hands, config.concurrency)
    if seconds is None:
        return f"{line} (no estimate of the time: whole matches vary in length)"
    pace = "the rungs' pace" + ("" if ladder else "; a bot slower than they are takes longer")
    time = duration_text(seconds)
    return f"{line}: roughly {time} on 2 cores at -j {config.concurrency} ({pace})"


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _say(line: str) -> None:
    print(f"arena bench: {visible(line, lines=True)}", file=sys.stderr, flush=True)


def _play(
    config: TournamentConfig, args: argparse.Namespace, on_start: Callable[[], None]
) -> RunResult:
    """One run, by the tournament driver on this machine, a line per game on stderr;
    ``on_start()`` once it has claimed its database and is ready to play, before any game."""
    try:
        rows, _ = stored(config.database)
    except ArenaError:
        rows = []
    tally = Tally(r for r in rows if r.void is None)

    def on_game(row: GameRow, done: int, total: int) -> None:
        key = row.key
        swapped = ", seats swapped" if key.swapped else ""
        what = "void" if row.void is not None else f"{row.hands} hands, {row.seconds:.1f} s"
        where = f"{key.bot_a} vs {key.bot_b}, deal {key.deal}{swapped}"
        lines = [f"game {row.id} of {total}, {game_label(key)} ({where}): {what}"]
        lines += [f"  {line}" for line in game_notes(row)]
        if row.void is None:
            tally.add(key, row.score_a)
            lines.append(tally.line(key))
        print("\n".join(visible(line) for line in lines), file=sys.stderr, flush=True)

    backend = LocalBackend("127.0.0.1:0", log_level=args.log_level, on_open=on_start)
    return anyio.run(
        lambda: run_tournament(config, backend, resume=args.resume, on_game=on_game),
        backend="asyncio",  # grpc.aio's loop: the table server runs on it
    )


def _faults(rows: list[GameRow]) -> list[str]:
    """The crashes and forfeits among ``rows``, one item per bot."""
    counts: dict[str, list[int]] = {}
    for row in rows:
        for bot, crashes in ((row.key.bot_a, row.crashes_a), (row.key.bot_b, row.crashes_b)):
            counts.setdefault(bot, [0, 0])[0] += crashes
        if row.forfeit is not None:
            counts.setdefault(row.forfeit, [0, 0])[1] += 1
    return [
        f"{bot}: {crashes} crashes, {forfeits} forfeits"
        for bot, (crashes, forfeits) in counts.items()
        if crashes or forfeits
    ]


def bench_job(args: argparse.Namespace, jobs: list[tuple[str, TournamentConfig]]) -> int:
    configure_logging(args.log_level)
    tune_garbage_collector()
    why: list[str] = []
    said: list[str] = []

    def estimate() -> None:  # once, as the first run starts (its database claimed)
        if not said:
            said.append(estimate_line(jobs, args.resume, args.ladder))
            _say(said[0])

    for label, config in jobs:
        if label:
            _say(f"{label}, into {config.database}")
        try:
            run_result = _play(config, args, estimate)
        except ArenaError as err:
            return _fail(str(err), err.exit_code)
        if run_result.interrupted:
            _say("interrupted; the games in flight were dropped: run it again with --resume")
            return 130
        if run_result.stopped is not None:
            why.append(f"stopped: {run_result.stopped}")
        if run_result.void:
            why.append(f"{run_result.void} void games, to play again with --resume")
    table_rows: list[BenchRow] = []
    commands: list[str] = []
    for label, config in jobs:
        rows, _ = stored(config.database)
        why += _faults(rows)
        if args.ladder:
            upper, lower = (b.name for b in config.bots)
            table_rows += bench_rows(rows, [(label, upper, lower)])
            commands.append(f"{label}: {reproduce(args, (rung(lower), rung(upper)), None)}")
        else:
            table_rows += bench_rows(rows, [(r.name, args.name, r.name) for r in args.rungs])
            commands.append(reproduce(args, args.rungs, args.command))
    config = jobs[0][1]
    deal_set = config.deal_set
    assert deal_set is not None
    if args.json:
        print(json.dumps(_document(config, table_rows, commands), ensure_ascii=False, indent=2))
        return _verdict(why)
    console = Console()
    console = console if console.is_terminal else Console(width=150)
    what = "the ladder" if args.ladder else f"{args.name} against the ladder's rungs"
    console.print(
        f"{what}: preset {config.preset}, {_count(config.deals, 'deal')} of {deal_set.name} "
        f"(sha256 {deal_set.sha256[:12]}…) each played twice, "
        f"{_count(config.hands, 'hand') if config.hands else 'whole matches'} a game, "
        f"{config.decision_ms}+{config.bank_ms} ms",
        markup=False,
        highlight=False,
    )
    first = "rung" if args.ladder else "against"
    for table in bench_tables(what, first, table_rows, console.width):
        console.print(table)
    for note in bench_notes(table_rows):
        print(note)
    print("reproduce:" if len(commands) == 1 else "reproduce each row:")
    for command in commands:
        print(f"  {command}")
    return _verdict(why)


def _verdict(why: list[str]) -> int:
    if why:
        _say(f"exit code 1: {'; '.join(why)}")
        return 1
    return 0


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _document(
    config: TournamentConfig, rows: list[BenchRow], commands: list[str]
) -> dict[str, Any]:
    """``--json``: what the table says, a non-finite number as null (an unbounded Elo has
    ``elo_unbounded``: "above" or "below")."""
    assert config.deal_set is not None
    out = []
    for row in rows:
        item: dict[str, Any] = {
            k: (_finite(v) if isinstance(v, float) else v) for k, v in asdict(row).items()
        }
        item["elo_unbounded"] = (
            None if not math.isinf(row.elo) else "above" if row.elo > 0 else "below"
        )
        out.append(item)
    return {
        "preset": config.preset,
        "deals_file": config.deal_set.identity(),
        "first_deal": config.first_deal,
        "deals": config.deals,
        "hands": config.hands,
        "decision_ms": config.decision_ms,
        "bank_ms": config.bank_ms,
        "rows": out,
        "reproduce": commands,
    }


def _fail(message: str, code: int = 2) -> int:
    print(f"arena bench: {visible(message, lines=True)}", file=sys.stderr)
    return code
