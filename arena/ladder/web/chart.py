"""A bot's rating over time as an SVG chart, drawn by the page's template from the geometry
computed here: each version's live Elo after each of its pairs (a line) and its 95 % interval
(a band), on one axis of the bot's rated pairs in the order they were played, a version's
first pair marked by its name.

An inline SVG rather than matplotlib's: the names on it are escaped by the page's templates
like every other name, it scales with the page (a ``viewBox``), it costs microseconds, and
its colours are the page's own. The axis has round ticks (1, 2 or 5 × 10ⁿ apart).

>>> chart = rating_chart([("a@1", [RatingPoint(1, 0.0, 1000.0, 50.0),
...                                RatingPoint(4, 9.0, 1100.0, 40.0)])])
>>> [t.label for t in chart.y_ticks]
['950', '1000', '1050', '1100', '1150']
>>> chart.series[0].last.label
'1100'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from chaodipi.arena.ladder.board import RatingPoint

__all__ = ["Chart", "Mark", "Series", "Tick", "nice_step", "rating_chart"]

WIDTH = 480
HEIGHT = 220
LEFT, RIGHT, TOP, BOTTOM = 54, 14, 10, 30
"""The plot's margins inside the view box: room for the ticks' labels."""
BAR = 3
"""Half the width of the bar a version's one rated pair shows its interval by."""
MOST_POINTS = 400
"""A version's line keeps at most about this many points (every k-th, and its last)."""
COLOURS = 6
"""Series are coloured ``series-0`` … ``series-5`` (the page's style), in turn."""


@dataclass(frozen=True, slots=True)
class Tick:
    at: float
    """Its place along the axis, in the view box."""
    label: str


@dataclass(frozen=True, slots=True)
class Mark:
    x: float
    y: float
    label: str


@dataclass(frozen=True, slots=True)
class Series:
    """One version's line and band."""

    name: str
    colour: int
    line: str
    """The polyline's points (``x,y x,y …``)."""
    band: str
    """The interval's polygon."""
    start: Mark
    """Its first pair: where its name is written."""
    last: Mark
    """Its latest rating."""

    @property
    def label_on_left(self) -> bool:
        """Whether the latest rating's label goes left of its dot (where there is room)."""
        return self.last.x > (WIDTH + LEFT) / 2


@dataclass(frozen=True, slots=True)
class Chart:
    width: int
    height: int
    left: int
    right: float
    top: int
    bottom: float
    """The plot's edges in the view box."""
    series: tuple[Series, ...]
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    pairs: int
    """The bot's rated pairs charted."""


def nice_step(span: float, count: int = 5) -> float:
    """A round step (1, 2 or 5 × 10ⁿ) cutting ``span`` into about ``count`` parts.

    >>> nice_step(300), nice_step(7, 4), nice_step(0.9)
    (100.0, 2.0, 0.2)
    """
    raw = max(span, 1e-9) / count
    magnitude = 10.0 ** math.floor(math.log10(raw))
    for multiple in (1.0, 2.0, 5.0, 10.0):
        if multiple * magnitude >= raw * (1 - 1e-9):
            return multiple * magnitude
    return 10.0 * magnitude


def _ticks(low: float, high: float, count: int) -> list[float]:
    step = nice_step(high - low, count)
    first = math.floor(low / step) * step
    ticks = []
    value = first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 9))
        value += step
    if ticks[-1] < high:
        ticks.append(ticks[-1] + step)
    return ticks


def _thinned(points: Sequence[RatingPoint]) -> list[RatingPoint]:
    if len(points) <= MOST_POINTS:
        return list(points)
    every = math.ceil(len(points) / MOST_POINTS)
    kept = list(points[::every])
    if kept[-1] is not points[-1]:
        kept.append(points[-1])
    return kept


def rating_chart(history: Sequence[tuple[str, Sequence[RatingPoint]]]) -> Chart | None:
    """The chart of each named version's ratings (None: no version has a rated pair). The x
    axis counts the bot's rated pairs in the order they were played (by pair number, which is
    the order they began)."""
    drawn = [(name, points) for name, points in history if points]
    if not drawn:
        return None
    order = sorted({p.pair for _, points in drawn for p in points})
    place = {pair: index + 1 for index, pair in enumerate(order)}
    lows = [p.elo - p.error for _, points in drawn for p in points]
    highs = [p.elo + p.error for _, points in drawn for p in points]
    y_values = _ticks(min(lows), max(highs), 5)
    if len(y_values) < 2:
        y_values = [y_values[0] - 50, y_values[0] + 50]
    x_last = max(len(order), 2)
    right, bottom = WIDTH - RIGHT, HEIGHT - BOTTOM

    def x_of(pair: int) -> float:
        return LEFT + (place[pair] - 1) / (x_last - 1) * (right - LEFT)

    def y_of(elo: float) -> float:
        low, high = y_values[0], y_values[-1]
        return bottom - (elo - low) / (high - low) * (bottom - TOP)

    series = []
    for index, (name, points) in enumerate(sorted(drawn, key=lambda d: d[1][0].pair)):
        kept = _thinned(points)
        line = " ".join(f"{x_of(p.pair):.1f},{y_of(p.elo):.1f}" for p in kept)
        upper = [f"{x_of(p.pair):.1f},{y_of(p.elo + p.error):.1f}" for p in kept]
        lower = [f"{x_of(p.pair):.1f},{y_of(p.elo - p.error):.1f}" for p in kept]
        if len(kept) == 1:  # one pair: its interval is a bar
            (point,) = kept
            x, high, low = (
                x_of(point.pair),
                y_of(point.elo + point.error),
                y_of(point.elo - point.error),
            )
            upper = [f"{x - BAR:.1f},{high:.1f}", f"{x + BAR:.1f},{high:.1f}"]
            lower = [f"{x - BAR:.1f},{low:.1f}", f"{x + BAR:.1f},{low:.1f}"]
        first, last = kept[0], kept[-1]
        series.append(
            Series(
                name,
                index % COLOURS,
                line,
                " ".join(upper + lower[::-1]),
                Mark(round(x_of(first.pair), 1), TOP, name),
                Mark(round(x_of(last.pair), 1), round(y_of(last.elo), 1), f"{last.elo:.0f}"),
            )
        )
    x_step = max(1, int(nice_step(len(order) - 1, 5))) if len(order) > 1 else 1
    x_ticks = tuple(
        Tick(round(LEFT + (n - 1) / (x_last - 1) * (right - LEFT), 1), str(n))
        for n in range(1, len(order) + 1)
        if n == 1 or n % x_step == 0
    )
    y_ticks = tuple(Tick(round(y_of(v), 1), f"{v:.0f}") for v in y_values)
    return Chart(
        WIDTH, HEIGHT, LEFT, right, TOP, bottom, tuple(series), x_ticks, y_ticks, len(order)
    )
