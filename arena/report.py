"""The tournament report, computed from the stored games alone: tables, JSON and CSV.

Per pairing: W-L-D, the pentanomial pair counts, the score with its 95 % interval, Elo ± 95 %
and LOS (all from pairs, since the two games of a duplicate deal are not independent), and the
variance that pairing removed. Per bot: games, score, win rate with a 95 % Wilson interval over
its games, a joint maximum-likelihood rating, levels and points per hand, and timeouts, illegal
moves, crashes and forfeits.
"""

from __future__ import annotations

import csv
import io
import statistics
from dataclasses import asdict, dataclass
from typing import Any

from rich.console import Console
from rich.table import Table

from arena.results import GameRow
from arena.stats import (
    elo_estimate,
    joint_ratings,
    pentanomial,
    pentanomial_estimate,
    wilson_interval,
)

__all__ = ["BotLine", "PairLine", "Report", "build_report", "print_report", "report_csv"]


@dataclass(frozen=True, slots=True)
class PairLine:
    bot_a: str
    bot_b: str
    wins: int
    losses: int
    draws: int
    unfinished: int
    pentanomial: tuple[int, int, int, int, int]
    score: float
    """The first bot's mean score per game (a win 1, a draw ½), and its 95 % interval from
    pairs."""
    score_low: float
    score_high: float
    elo: float
    elo_error: float
    los: float
    elo_games: float
    elo_games_error: float
    variance_reduction: float | None
    """1 − (variance of a pair's mean score) / (variance of a single game's score / 2)."""


@dataclass(frozen=True, slots=True)
class BotLine:
    bot: str
    games: int
    score: float
    win_rate: float
    win_low: float
    win_high: float
    rating: float
    levels_per_hand: float
    points_per_defended_hand: float
    timeouts: int
    illegal: int
    crashes: int
    forfeits: int


@dataclass(frozen=True, slots=True)
class Report:
    games: int
    pairs: list[PairLine]
    bots: list[BotLine]
    problems: list[str]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _pair_line(a: str, b: str, rows: list[GameRow]) -> PairLine:
    scores = [r.score_a for r in rows if r.score_a is not None]
    wins = sum(1 for s in scores if s == 1.0)
    losses = sum(1 for s in scores if s == 0.0)
    draws = sum(1 for s in scores if s == 0.5)
    by_seed: dict[int, list[float]] = {}
    for row in rows:
        if row.score_a is not None:
            by_seed.setdefault(row.key.seed, []).append(row.score_a)
    pair_totals = [sum(s) for s in by_seed.values() if len(s) == 2]
    counts = pentanomial(pair_totals)
    paired = pentanomial_estimate(counts)
    single = elo_estimate(wins, losses, draws)
    reduction = None
    if len(scores) > 1 and len(pair_totals) > 1:
        single_var = statistics.pvariance(scores)
        pair_var = statistics.pvariance([t / 2 for t in pair_totals])
        if single_var > 0:
            reduction = 1 - pair_var / (single_var / 2)
    return PairLine(
        a,
        b,
        wins,
        losses,
        draws,
        len(rows) - len(scores),
        counts,
        paired.score,
        *paired.score_interval,
        paired.elo,
        paired.error,
        paired.los,
        single.elo,
        single.error,
        reduction,
    )


def build_report(rows: list[GameRow], bot_names: list[str] | None = None) -> Report:
    """Everything the report shows, from stored games."""
    names = bot_names or sorted({r.key.bot_a for r in rows} | {r.key.bot_b for r in rows})
    pairs: dict[tuple[str, str], list[GameRow]] = {}
    for row in rows:
        pairs.setdefault((row.key.bot_a, row.key.bot_b), []).append(row)
    pair_lines = [_pair_line(a, b, pair_rows) for (a, b), pair_rows in pairs.items()]
    games = [(r.key.bot_a, r.key.bot_b, r.score_a) for r in rows if r.score_a is not None]
    ratings = joint_ratings(names, games) if games else dict.fromkeys(names, 0.0)
    bots = []
    for name in names:
        mine = [(r, "a") for r in rows if r.key.bot_a == name]
        mine += [(r, "b") for r in rows if r.key.bot_b == name]
        scored = [
            (r.score_a if side == "a" else 1 - r.score_a)
            for r, side in mine
            if r.score_a is not None
        ]
        total = sum(scored)
        low, high = wilson_interval(total, len(scored))
        hands = sum(r.hands for r, _ in mine) or 1
        levels = sum((r.levels_a if s == "a" else r.levels_b) for r, s in mine)
        defended = sum((r.defended_a if s == "a" else r.defended_b) for r, s in mine) or 1
        points = sum((r.points_a if s == "a" else r.points_b) for r, s in mine)
        bots.append(
            BotLine(
                bot=name,
                games=len(mine),
                score=total,
                win_rate=total / len(scored) if scored else 0.0,
                win_low=low,
                win_high=high,
                rating=ratings.get(name, 0.0),
                levels_per_hand=levels / hands,
                points_per_defended_hand=points / defended,
                timeouts=sum((r.strikes_a if s == "a" else r.strikes_b) for r, s in mine),
                illegal=sum((r.illegal_a if s == "a" else r.illegal_b) for r, s in mine),
                crashes=sum((r.crashes_a if s == "a" else r.crashes_b) for r, s in mine),
                forfeits=sum(1 for r, _ in mine if r.forfeit == name),
            )
        )
    bots.sort(key=lambda b: -b.rating)
    problems = [r.errors for r in rows if r.errors]
    return Report(len(rows), pair_lines, bots, problems)


def print_report(report: Report, console: Console) -> None:
    standings = Table(title=f"Standings ({report.games} games)")
    for column in (
        "rank",
        "bot",
        "rating",
        "games",
        "score",
        "win rate (95 %)",
        "levels/hand",
        "pts/def. hand",
        "timeouts",
        "illegal",
        "crashes",
        "forfeits",
    ):
        standings.add_column(column, justify="left" if column == "bot" else "right")
    for rank, b in enumerate(report.bots, start=1):
        standings.add_row(
            str(rank),
            b.bot,
            f"{b.rating:+.0f}",
            str(b.games),
            f"{b.score:g}",
            f"{b.win_rate:.1%} [{b.win_low:.1%}, {b.win_high:.1%}]",
            f"{b.levels_per_hand:.2f}",
            f"{b.points_per_defended_hand:.1f}",
            str(b.timeouts),
            str(b.illegal),
            str(b.crashes),
            str(b.forfeits),
        )
    console.print(standings)
    pairs = Table(title="Head to head (first bot's view; duplicate deals)")
    for column in (
        "pairing",
        "W-L-D",
        "score [95 %] (pairs)",
        "Elo ± 95 % (pairs)",
        "LOS",
        "Ptnml [0-2]",
        "Elo ± 95 % (games)",
        "variance removed",
    ):
        pairs.add_column(column, justify="left" if column == "pairing" else "right")
    for p in report.pairs:
        reduction = "—" if p.variance_reduction is None else f"{p.variance_reduction:.0%}"
        pairs.add_row(
            f"{p.bot_a} vs {p.bot_b}",
            f"{p.wins}-{p.losses}-{p.draws}",
            f"{p.score:.1%} [{p.score_low:.1%}, {p.score_high:.1%}]",
            f"{p.elo:+.1f} ± {p.elo_error:.1f}",
            f"{p.los:.1%}",
            str(list(p.pentanomial)),
            f"{p.elo_games:+.1f} ± {p.elo_games_error:.1f}",
            reduction,
        )
    console.print(pairs)
    for problem in report.problems[:10]:
        console.print(f"[red]problem:[/red] {problem}", markup=True, highlight=False)


def report_csv(report: Report) -> str:
    """The standings and the pairings as CSV (two sections, a header row each)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(list(BotLine.__dataclass_fields__))
    for b in report.bots:
        writer.writerow(list(asdict(b).values()))
    writer.writerow([])
    writer.writerow(list(PairLine.__dataclass_fields__))
    for p in report.pairs:
        writer.writerow(list(asdict(p).values()))
    return out.getvalue()
