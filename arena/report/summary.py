"""The tournament report, computed from the stored games alone: tables, JSON and CSV.

Per pairing: W-L-D, the pentanomial pair counts, the score with its 95 % interval, Elo ± 95 %
and LOS (all from pairs, since the two games of a duplicate deal are not independent), and the
variance that pairing removed. Per bot: games, score, win rate with a 95 % Wilson interval over
its games, a joint maximum-likelihood rating, levels and points per hand, and timeouts, illegal
moves, crashes and forfeits. A void game (a bot never played) is no result: it is counted and
listed with its reason, and left out of every statistic. docs/report.md explains each number.

``Report.as_dict()`` is strict JSON: a number that is infinite or undefined is ``null``, with a
flag saying why (``"unbounded": true`` for a rating with no finite maximum).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from rich.console import Console
from rich.table import Table

from chaodipi.arena.report.stats import (
    Rating,
    SprtResult,
    SprtTest,
    elo_estimate,
    joint_ratings,
    pentanomial,
    pentanomial_estimate,
    wilson_interval,
)
from chaodipi.arena.report.stats import sprt as sprt_of_counts
from chaodipi.arena.tournament.results import GameRow

__all__ = [
    "BotLine",
    "PairLine",
    "Report",
    "VoidLine",
    "build_report",
    "print_report",
    "print_standings",
]


@dataclass(frozen=True, slots=True)
class PairLine:
    """One pairing, the first bot's view. Floats may be infinite or NaN (see ``as_dict``)."""

    bot_a: str
    bot_b: str
    wins: int
    losses: int
    draws: int
    unfinished: int
    pentanomial: tuple[int, int, int, int, int]
    score: float
    """The first bot's mean score per game (a win 1, a draw ½) over complete pairs, and its
    95 % interval from pairs; NaN with no complete pair."""
    score_low: float
    score_high: float
    elo: float
    """Elo from pairs: ±inf when every pair went one way, NaN with no complete pair."""
    elo_error: float
    """95 % half-width: inf when it cannot be measured (no spread, or the interval reaches a
    score of 0 or 1)."""
    los: float
    elo_games: float
    elo_games_error: float
    variance_reduction: float | None
    """1 − (variance of a pair's mean score) / (variance of a single game's score / 2)."""
    void: int = 0
    """Games of this pairing that are no result (left out of everything above)."""

    def as_dict(self) -> dict[str, Any]:
        out = _strict(asdict(self))
        out["elo_unbounded"] = math.isinf(self.elo)
        out["elo_games_unbounded"] = math.isinf(self.elo_games)
        return out


@dataclass(frozen=True, slots=True)
class BotLine:
    """One bot's standing, over its games that are results."""

    bot: str
    games: int
    score: float
    win_rate: float
    win_low: float
    win_high: float
    rating: float
    """The joint rating: finite, ±inf when unbounded, NaN when its games do not place it."""
    rating_error: float
    """Its 95 % half-width; inf when unknown."""
    levels_per_hand: float
    points_per_defended_hand: float
    timeouts: int
    illegal: int
    crashes: int
    forfeits: int

    @property
    def unbounded(self) -> bool:
        return math.isinf(self.rating)

    def as_dict(self) -> dict[str, Any]:
        out = _strict(asdict(self))
        out["unbounded"] = self.unbounded
        out["unbounded_side"] = (
            None if not self.unbounded else "above" if self.rating > 0 else "below"
        )
        return out


@dataclass(frozen=True, slots=True)
class VoidLine:
    """A game that is no result, and why."""

    bot_a: str
    bot_b: str
    deal: int
    swapped: bool
    reason: str


@dataclass(frozen=True, slots=True)
class Report:
    games: int
    """Games that are results (void games not included)."""
    pairs: list[PairLine]
    bots: list[BotLine]
    problems: list[str]
    voids: list[VoidLine]
    sprt: SprtResult | None = None

    @property
    def void(self) -> int:
        return len(self.voids)

    def as_dict(self) -> dict[str, Any]:
        """One strict-JSON-safe document (no Infinity or NaN anywhere)."""
        return _strict(
            {
                "games": self.games,
                "void": self.void,
                "pairs": [p.as_dict() for p in self.pairs],
                "bots": [b.as_dict() for b in self.bots],
                "voids": [asdict(v) for v in self.voids],
                "problems": self.problems,
                "sprt": None if self.sprt is None else self.sprt.as_dict(),
            }
        )


def _strict(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with every infinite or NaN float, however deep, turned into None (null)."""
    return {key: _strict_value(value) for key, value in document.items()}


def _strict_value(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return _strict(value)
    if isinstance(value, list | tuple):
        return [_strict_value(v) for v in value]
    return value


def _pair_totals(rows: Iterable[GameRow]) -> list[float]:
    """The first bot's points in each complete pair (both games of a seed are results)."""
    by_deal: dict[int, list[float]] = {}
    for row in rows:
        if row.score_a is not None and row.void is None:
            by_deal.setdefault(row.key.deal, []).append(row.score_a)
    return [sum(s) for s in by_deal.values() if len(s) == 2]


def _variance_removed(scores: list[float], pair_totals: list[float]) -> float | None:
    if len(scores) < 2 or len(pair_totals) < 2:
        return None
    single = statistics.pvariance(scores)
    if single == 0:
        return None
    return 1 - statistics.pvariance([t / 2 for t in pair_totals]) / (single / 2)


def _pair_line(a: str, b: str, rows: list[GameRow]) -> PairLine:
    played = [r for r in rows if r.void is None]
    scores = [r.score_a for r in played if r.score_a is not None]
    wins = sum(1 for s in scores if s == 1.0)
    losses = sum(1 for s in scores if s == 0.0)
    draws = sum(1 for s in scores if s == 0.5)
    pair_totals = _pair_totals(played)
    counts = pentanomial(pair_totals)
    paired = pentanomial_estimate(counts)
    single = elo_estimate(wins, losses, draws)
    return PairLine(
        a,
        b,
        wins,
        losses,
        draws,
        len(played) - len(scores),
        counts,
        paired.score,
        *paired.score_interval,
        paired.elo,
        paired.error,
        paired.los,
        single.elo,
        single.error,
        _variance_removed(scores, pair_totals),
        len(rows) - len(played),
    )


def _bot_line(name: str, rows: list[GameRow], rating: Rating) -> BotLine:
    """A bot's line over its games that are results (``rows`` holds no void game)."""
    mine = [(r, r.key.bot_a == name) for r in rows if name in (r.key.bot_a, r.key.bot_b)]
    scored = [r.score_a if is_a else 1 - r.score_a for r, is_a in mine if r.score_a is not None]
    total = sum(scored)
    low, high = wilson_interval(total, len(scored))

    def side(field_a: str, field_b: str) -> int:
        return sum(int(getattr(r, field_a if is_a else field_b)) for r, is_a in mine)

    hands = sum(r.hands for r, _ in mine)
    defended = side("defended_a", "defended_b")
    return BotLine(
        bot=name,
        games=len(mine),
        score=total,
        win_rate=total / len(scored) if scored else math.nan,
        win_low=low,
        win_high=high,
        rating=rating.elo,
        rating_error=rating.error,
        levels_per_hand=side("levels_a", "levels_b") / hands if hands else math.nan,
        points_per_defended_hand=side("points_a", "points_b") / defended if defended else math.nan,
        timeouts=side("strikes_a", "strikes_b"),
        illegal=side("illegal_a", "illegal_b"),
        crashes=side("crashes_a", "crashes_b"),
        forfeits=sum(1 for r, _ in mine if r.forfeit == name),
    )


def _standing(bot: BotLine) -> tuple[int, float, str]:
    """Sort key: unbounded above first, then by rating, unbounded below, unplaced last."""
    if math.isnan(bot.rating):
        return (3, 0.0, bot.bot)
    if bot.rating == math.inf:
        return (0, -bot.win_rate, bot.bot)
    if bot.rating == -math.inf:
        return (2, -bot.win_rate, bot.bot)
    return (1, -bot.rating, bot.bot)


def _sprt_of(test: SprtTest, names: list[str], pairs: list[PairLine]) -> SprtResult:
    """The SPRT of a two-bot tournament, on its one pairing's pentanomial counts."""
    if len(names) != 2:
        raise ValueError(f"an SPRT compares exactly two bots, not {len(names)}")
    counts = [0, 0, 0, 0, 0]
    for pair in pairs:
        if {pair.bot_a, pair.bot_b} == set(names):
            # the test is the first named bot's view
            ordered = pair.pentanomial if pair.bot_a == names[0] else pair.pentanomial[::-1]
            counts = [c + o for c, o in zip(counts, ordered, strict=True)]
    return sprt_of_counts(test, counts)


def _problem(row: GameRow) -> str:
    """What went wrong in a game but why it is void (which the void games list), or ``""``."""
    if row.void is not None and row.errors.startswith(row.void):
        return row.errors[len(row.void) :].strip()
    return row.errors


def build_report(
    rows: list[GameRow], bot_names: list[str] | None = None, *, sprt: SprtTest | None = None
) -> Report:
    """Everything the report shows, from stored games; with ``sprt``, the SPRT of the two
    bots' pairing (the first bot of ``bot_names`` is the one tested for being stronger)."""
    names = bot_names or sorted({r.key.bot_a for r in rows} | {r.key.bot_b for r in rows})
    by_pairing: dict[tuple[str, str], list[GameRow]] = {}
    for row in rows:
        by_pairing.setdefault((row.key.bot_a, row.key.bot_b), []).append(row)
    pair_lines = [_pair_line(a, b, pair_rows) for (a, b), pair_rows in by_pairing.items()]
    played = [r for r in rows if r.void is None]
    ratings = joint_ratings(
        names, ((r.key.bot_a, r.key.bot_b, r.score_a) for r in played if r.score_a is not None)
    )
    bots = sorted((_bot_line(name, played, ratings[name]) for name in names), key=_standing)
    voids = [
        VoidLine(r.key.bot_a, r.key.bot_b, r.key.deal, r.key.swapped, r.void)
        for r in rows
        if r.void is not None
    ]
    problems = [problem for r in rows if (problem := _problem(r))]
    result = None if sprt is None else _sprt_of(sprt, names, pair_lines)
    return Report(len(played), pair_lines, bots, problems, voids, result)


# --- printing -------------------------------------------------------------------------------


def _signed(value: float, spec: str) -> str:
    """A signed number with a real minus sign; ±∞ as such; NaN as a dash."""
    if math.isnan(value):
        return "—"
    if math.isinf(value):
        return "+∞" if value > 0 else "−∞"
    if float(format(value, spec)) == 0:
        value = 0.0  # no "−0.0"
    return format(value, "+" + spec).replace("-", "−")


def _rating_text(bot: BotLine) -> str:
    if bot.unbounded:
        return f"{_signed(bot.rating, '.0f')} (unbounded)"
    if math.isnan(bot.rating):
        return "— (unrated)"
    error = "?" if math.isinf(bot.rating_error) else f"{bot.rating_error:.0f}"
    return f"{_signed(bot.rating, '.0f')} ± {error}"


def _elo_text(value: float, error: float) -> str:
    if math.isnan(value):
        return "—"
    if math.isinf(value):
        return f"{_signed(value, '.1f')} (unbounded)"
    if math.isinf(error):
        return f"{_signed(value, '.1f')} ± ? (no spread)"
    return f"{_signed(value, '.1f')} ± {error:.1f}"


def _percent(value: float) -> str:
    return "—" if math.isnan(value) else f"{value:.1%}"


def _standings_table(report: Report) -> Table:
    void = f", {report.void} void" if report.void else ""
    table = Table(title=f"Standings ({report.games} games{void})")
    columns = (
        "rank",
        "bot",
        "rating ± 95 %",
        "games",
        "score",
        "win rate (95 %)",
        "levels/hand",
        "pts/def. hand",
        "timeouts",
        "illegal",
        "crashes",
        "forfeits",
    )
    for column in columns:
        table.add_column(column, justify="left" if column == "bot" else "right")
    for rank, b in enumerate(report.bots, start=1):
        win = "—" if b.games == 0 else f"{b.win_rate:.1%} [{b.win_low:.1%}, {b.win_high:.1%}]"
        table.add_row(
            str(rank),
            b.bot,
            _rating_text(b),
            str(b.games),
            f"{b.score:g}",
            win,
            "—" if math.isnan(b.levels_per_hand) else f"{b.levels_per_hand:.2f}",
            "—" if math.isnan(b.points_per_defended_hand) else f"{b.points_per_defended_hand:.1f}",
            str(b.timeouts),
            str(b.illegal),
            str(b.crashes),
            str(b.forfeits),
        )
    return table


def _pairs_table(report: Report) -> Table:
    table = Table(title="Head to head (first bot's view; duplicate deals)")
    columns = (
        "pairing",
        "W-L-D",
        "score [95 %] (pairs)",
        "Elo ± 95 % (pairs)",
        "LOS",
        "Ptnml [0-2]",
        "Elo ± 95 % (games)",
        "variance removed",
        "void",
    )
    for column in columns:
        table.add_column(column, justify="left" if column == "pairing" else "right")
    for p in report.pairs:
        reduction = (
            "—" if p.variance_reduction is None else f"{p.variance_reduction:.0%}".replace("-", "−")
        )
        score = "—" if math.isnan(p.score) else f"{p.score:.1%}"
        if not math.isnan(p.score):
            score += f" [{p.score_low:.1%}, {p.score_high:.1%}]"
        table.add_row(
            f"{p.bot_a} vs {p.bot_b}",
            f"{p.wins}-{p.losses}-{p.draws}",
            score,
            _elo_text(p.elo, p.elo_error),
            _percent(p.los),
            str(list(p.pentanomial)),
            _elo_text(p.elo_games, p.elo_games_error),
            reduction,
            str(p.void),
        )
    return table


def _void_lines(voids: list[VoidLine], limit: int = 10) -> list[str]:
    """Void games grouped by pairing and reason: ``3 × a vs b (deals 1, 2): reason``."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for v in voids:
        deal = f"{v.deal}{' swapped' if v.swapped else ''}"
        groups.setdefault((v.bot_a, v.bot_b, v.reason), []).append(deal)
    lines = [
        f"{len(deals)} × {a} vs {b} (deal{'s' * (len(deals) > 1)} {', '.join(deals)}): {reason}"
        for (a, b, reason), deals in groups.items()
    ]
    if len(lines) > limit:
        lines = [*lines[:limit], f"… and {len(lines) - limit} more"]
    return lines


def print_standings(report: Report, console: Console) -> None:
    """The standings alone (``arena run --report-every``)."""
    console.print(_standings_table(report))


def print_report(report: Report, console: Console, failures: bool = True) -> None:
    """The standings, the head-to-head table, void games, the SPRT and problems (without
    ``failures``: the void games and problems left out, for a run that printed them as they
    came)."""
    console.print(_standings_table(report))
    console.print(_pairs_table(report))
    if report.void and failures:
        console.print(
            f"[yellow]void games:[/yellow] {report.void}, no result (a bot never played): "
            "left out of every number above and played again on --resume",
            markup=True,
            highlight=False,
        )
        for line in _void_lines(report.voids):
            console.print("  " + line.replace("\n", "\n    "), markup=False, highlight=False)
    if report.sprt is not None:
        console.print(f"SPRT: {report.sprt}", markup=False, highlight=False)
    for problem in report.problems[:10] if failures else []:
        console.print("[red]problem:[/red] ", end="", markup=True, highlight=False)
        console.print(problem.replace("\n", "\n  "), markup=False, highlight=False)
