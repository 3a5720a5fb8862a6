"""The tournament report, computed from the stored games alone: tables, JSON and CSV.

Per pairing: W-L-D, the pentanomial pair counts, the score with its 95 % interval, Elo ± 95 %
and LOS (all from pairs, since the two games of a duplicate deal are not independent), and the
variance that pairing removed. Per bot: games, score, win rate with a 95 % Wilson interval over
its games, a joint maximum-likelihood rating, levels and points per hand, and strikes,
fallbacks, illegal moves, crashes and forfeits. A void game (a bot never took its seat) is no
result: it is counted and listed with its reason, and left out of every statistic.
docs/report.md explains each number.

``Report.as_dict()`` is strict JSON: a number that is infinite or undefined is ``null``, with a
flag saying why (``"unbounded": true`` for a rating with no finite maximum).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from chaodipi.arena.report.cells import (
    elo_text,
    fixed_text,
    los_text,
    score_text,
    signed_text,
    unestimated_text,
)
from chaodipi.arena.report.stats import (
    MIN_PAIRS,
    EloEstimate,
    Rating,
    elo_estimate,
    joint_ratings,
    pentanomial_estimate,
    wilson_interval,
)
from chaodipi.arena.results import GameRow, SprtResult, SprtTest, game_label, pentanomial
from chaodipi.arena.results import sprt as sprt_of_counts
from chaodipi.records import visible

__all__ = [
    "BotLine",
    "Column",
    "PairLine",
    "Report",
    "VoidLine",
    "build_report",
    "fitted_tables",
    "played_for_note",
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
    games_low: float
    games_high: float
    """The first bot's score's 95 % interval from the single games, as if independent."""
    variance_reduction: float | None
    """1 − (variance of a pair's mean score) / (variance of a single game's score / 2)."""
    void: int = 0
    """Games of this pairing that are no result (left out of everything above)."""
    pairs: int = 0
    """Its complete pairs (both games of a deal are results)."""
    not_estimated: str | None = None
    """Why the estimates (score interval, Elo, LOS, variance removed) are NaN: ``needs ≥ 10
    pairs`` below :data:`MIN_PAIRS` complete pairs; None when they are given."""

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
    fallbacks: int
    """Answers the bot's kit chose for it (``Answer.fallback``: too late, no action, refused)."""
    illegal: int
    crashes: int
    forfeits: int

    @property
    def unbounded(self) -> bool:
        return math.isinf(self.rating)

    @property
    def played_for(self) -> int:
        """Moves played for the bot, not by it: its strikes (the table's default move) and
        fallbacks (its kit's). Its results are not its own play alone when there are any."""
        return self.timeouts + self.fallbacks

    def as_dict(self) -> dict[str, Any]:
        out = _strict(asdict(self))
        out["unbounded"] = self.unbounded
        out["unbounded_side"] = (
            None if not self.unbounded else "above" if self.rating > 0 else "below"
        )
        return out


@dataclass(frozen=True, slots=True)
class VoidLine:
    """A game that is no result, and why; ``id`` and ``game``: its number and name."""

    bot_a: str
    bot_b: str
    deal: int
    swapped: bool
    reason: str
    id: int | None = None
    game: str = ""


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


def _unestimated(estimate: EloEstimate) -> EloEstimate:
    """``estimate`` with only its score: too few pairs to tell more."""
    nan = math.nan
    return EloEstimate(nan, nan, nan, estimate.score, estimate.n, (nan, nan))


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
    removed = _variance_removed(scores, pair_totals)
    too_few = None
    if len(pair_totals) < MIN_PAIRS:
        too_few = f"needs ≥ {MIN_PAIRS} pairs"
        paired, single, removed = _unestimated(paired), _unestimated(single), None
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
        *single.score_interval,
        removed,
        len(rows) - len(played),
        len(pair_totals),
        too_few,
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
        fallbacks=side("fallbacks_a", "fallbacks_b"),
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
        VoidLine(
            r.key.bot_a, r.key.bot_b, r.key.deal, r.key.swapped, r.void, r.id, game_label(r.key)
        )
        for r in rows
        if r.void is not None
    ]
    problems = [r.errors for r in rows if r.errors]  # (why a game is void: in ``voids``)
    result = None if sprt is None else _sprt_of(sprt, names, pair_lines)
    return Report(len(played), pair_lines, bots, problems, voids, result)


# --- printing -------------------------------------------------------------------------------
#
# The tables fit the console's width with every number on one line and no bot name cut: the
# columns come in groups of related numbers, as many groups to a table as fit, and a table that
# cannot hold the next group is continued in another led by the same bot or pairing column.
# The bot columns never wrap; only a column too wide to fit even alone with them is wrapped.


def _rating_text(bot: BotLine) -> str:
    if bot.unbounded:
        return f"{signed_text(bot.rating, '.0f')} (unbounded)"
    if math.isnan(bot.rating):
        return "— (unrated)"
    error = "?" if math.isinf(bot.rating_error) else f"{bot.rating_error:.0f}"
    return f"{signed_text(bot.rating, '.0f')} ± {error}"


@dataclass(frozen=True, slots=True)
class Column:
    """A column to print: its header, its cells (a cell may hold lines), and its alignment."""

    header: str
    cells: list[str]
    justify: Literal["left", "right"] = "right"

    @property
    def width(self) -> int:
        """Its widest line, header included, in terminal cells (a CJK character takes two)."""
        return max(
            cell_len(visible(line))
            for text in (self.header, *self.cells)
            for line in text.split("\n")
        )


def _table_width(columns: Sequence[Column]) -> int:
    """The width of a table of ``columns`` unwrapped: rich's default box and padding put a
    space on each side of every column and a rule between columns and at both edges."""
    return sum(c.width for c in columns) + 3 * len(columns) + 1


def _pack(keys: list[Column], groups: list[list[Column]], width: int) -> list[list[Column]]:
    """The columns of each table: whole groups while they fit beside ``keys`` in ``width``,
    a group too wide for a table of its own split column by column."""
    tables: list[list[Column]] = [[]]
    for group in groups:
        if tables[-1] and _table_width([*keys, *tables[-1], *group]) > width:
            tables.append([])
        for column in group:
            if tables[-1] and _table_width([*keys, *tables[-1], column]) > width:
                tables.append([])
            tables[-1].append(column)
    return tables


def fitted_tables(
    title: str, keys: list[Column], groups: list[list[Column]], width: int
) -> list[Table]:
    """Tables that show every column of ``groups`` within ``width``, each led by ``keys``."""
    tables = []
    for number, columns in enumerate(_pack(keys, groups, width)):
        table = Table(title=title if number == 0 else f"{title}, continued")
        for key in keys:
            table.add_column(key.header, justify=key.justify, no_wrap=True, min_width=key.width)
        for column in columns:
            table.add_column(column.header, justify=column.justify, overflow="fold")
        for cells in zip(*(c.cells for c in [*keys, *columns]), strict=True):
            # as they are: a bot named "[b]x" is no markup, and a control character shows
            table.add_row(*(Text(visible(cell, lines=True)) for cell in cells))
        tables.append(table)
    return tables


def _standings_tables(report: Report, width: int) -> list[Table]:
    bots = report.bots
    void = f", {report.void} void" if report.void else ""
    keys = [
        Column("rank", [str(rank) for rank in range(1, len(bots) + 1)]),
        Column("bot", [f"{b.bot} {PLAYED_FOR}" if b.played_for else b.bot for b in bots], "left"),
    ]
    strength = [
        Column("rating ± 95 %", [_rating_text(b) for b in bots]),
        Column(
            "score % [95 %]",
            ["—" if b.games == 0 else score_text(b.win_rate, b.win_low, b.win_high) for b in bots],
        ),
    ]
    play = [
        Column("games", [str(b.games) for b in bots]),
        Column("score", [f"{b.score:g}" for b in bots]),
        Column("levels/hand", [fixed_text(b.levels_per_hand, ".2f") for b in bots]),
        Column("pts/def. hand", [fixed_text(b.points_per_defended_hand, ".1f") for b in bots]),
    ]
    return fitted_tables(f"Standings ({report.games} games{void})", keys, [strength, play], width)


PLAYED_FOR = "*"
"""The standings' mark on a bot some of whose moves were played for it (:func:`played_for_note`
says which and how many)."""


def played_for_note(report: Report) -> str | None:
    """The line under the standings naming each bot whose results include moves it did not
    choose (strikes, fallbacks), so that its score is not read as its own play alone; None
    when no bot's do.

    >>> bot = BotLine("slow", 2, 2.0, 1.0, 0.3, 1.0, math.inf, math.inf, 5.5, 267.5, 0, 85, 0,
    ...               0, 0)
    >>> print(played_for_note(Report(2, [], [bot], [], [])))  # doctest: +NORMALIZE_WHITESPACE
    * moves played for the bot, not by it: slow (85 fallbacks); a fallback is its kit's safe
    answer (decide too late, no action, or refused), a strike the table's (its clock ran out):
    its score is not its own play alone
    """
    said = []
    for bot in report.bots:
        if bot.played_for:
            counts = [(bot.timeouts, FAULTS["timeouts"]), (bot.fallbacks, FAULTS["fallbacks"])]
            said.append(f"{bot.bot} (" + ", ".join(f"{n} {name}" for n, name in counts if n) + ")")
    if not said:
        return None
    return (
        f"{PLAYED_FOR} moves played for the bot, not by it: {', '.join(said)}; a fallback is its "
        "kit's safe answer (decide too late, no action, or refused), a strike the table's (its "
        "clock ran out): its score is not its own play alone"
    )


FAULTS = {
    "timeouts": "strikes",
    "fallbacks": "fallbacks",
    "illegal": "illegal",
    "crashes": "crashes",
    "forfeits": "forfeits",
}
"""The fault counts of a bot: each as its BotLine names it (so do ``--json`` and
``standings.csv``), and as the faults table and ``arena run``'s last line say it (a missed
deadline is a strike)."""


def _faults_tables(report: Report, width: int) -> list[Table]:
    """The bots' faults, a table of the bots that had any (none: no table)."""
    faulty = [b for b in report.bots if any(getattr(b, name) for name in FAULTS)]
    if not faulty:
        return []
    keys = [Column("bot", [b.bot for b in faulty], "left")]
    counts = [
        Column(said, [str(getattr(b, kind)) for b in faulty]) for kind, said in FAULTS.items()
    ]
    return fitted_tables("Faults (over the games that are results)", keys, [counts], width)


def _pairing_key(pairs: list[PairLine], groups: list[list[Column]], width: int) -> Column:
    """The pairing column: ``a vs b`` on one line, or on two (``vs b`` below) when that packs
    the other columns into fewer tables."""
    one_line = Column("pairing", [f"{p.bot_a} vs {p.bot_b}" for p in pairs], "left")
    two_lines = Column("pairing", [f"{p.bot_a}\nvs {p.bot_b}" for p in pairs], "left")
    return min(
        (one_line, two_lines), key=lambda key: len(_pack([key], groups, width))
    )  # the first of equals: one line


def _pairs_tables(report: Report, width: int) -> list[Table]:
    pairs = report.pairs

    def estimates(cells: list[str]) -> list[str]:
        return [unestimated_text(p.not_estimated, c) for p, c in zip(pairs, cells, strict=True)]

    result = [
        Column("W-L-D", [f"{p.wins}-{p.losses}-{p.draws}" for p in pairs]),
        Column(
            "score % [95 %]\n(pairs)",
            [score_text(p.score, p.score_low, p.score_high) for p in pairs],
        ),
        Column(
            "Elo ± 95 %\n(pairs)",
            estimates([elo_text(p.elo, p.elo_error, (p.score_low, p.score_high)) for p in pairs]),
        ),
        Column("LOS", estimates([los_text(p.los) for p in pairs])),
    ]
    detail = [
        Column("Ptnml [0-2]", [str(list(p.pentanomial)) for p in pairs]),
        Column(
            "Elo ± 95 %\n(games)",
            estimates(
                [
                    elo_text(p.elo_games, p.elo_games_error, (p.games_low, p.games_high))
                    for p in pairs
                ]
            ),
        ),
        Column(
            "variance\nremoved",
            estimates(
                [
                    "—" if p.variance_reduction is None else fixed_text(p.variance_reduction, ".0%")
                    for p in pairs
                ]
            ),
        ),
        Column("void", [str(p.void) for p in pairs]),
    ]
    keys = [_pairing_key(pairs, [result, detail], width)]
    title = "Head to head (first bot's view; duplicate deals)"
    return fitted_tables(title, keys, [result, detail], width)


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
    """The standings alone (``arena run --report-every``), within the console's width, and
    the bots some of whose moves were played for them (:func:`played_for_note`)."""
    for table in _standings_tables(report, console.width):
        console.print(table)
    note = played_for_note(report)
    if note is not None:
        console.print(visible(note), markup=False, highlight=False)


def print_report(report: Report, console: Console, failures: bool = True) -> None:
    """The standings, the faults, the head-to-head table, void games, the SPRT and problems,
    each table within the console's width (continued in another where it would not fit);
    without ``failures`` the void games and problems are left out, for a run that printed
    them as they came."""
    width = console.width
    print_standings(report, console)
    faults = _faults_tables(report, width)
    if not faults:
        console.print(
            "faults: none (no strikes, fallbacks, illegal moves, crashes or forfeits)",
            highlight=False,
        )
    for table in [*faults, *_pairs_tables(report, width)]:
        console.print(table)
    if report.void and failures:
        console.print(
            f"[yellow]void games:[/yellow] {report.void}, no result (a bot never took its seat): "
            "left out of every number above and played again on --resume",
            markup=True,
            highlight=False,
        )
        for line in _void_lines(report.voids):
            shown = visible(line, lines=True).replace("\n", "\n    ")
            console.print("  " + shown, markup=False, highlight=False)
    if report.sprt is not None:
        console.print(f"SPRT: {visible(str(report.sprt))}", markup=False, highlight=False)
    for problem in report.problems[:10] if failures else []:
        console.print("[red]problem:[/red] ", end="", markup=True, highlight=False)
        shown = visible(problem, lines=True).replace("\n", "\n  ")
        console.print(shown, markup=False, highlight=False)
