"""``arena report --plot DIR``: PNG plots of a report (matplotlib, from the ``arena`` extra).

* ``ratings.png``: each bot's joint rating with its 95 % interval; a bot whose rating is
  unbounded (it took every point from the bots below it) is an open-ended arrow marked +∞
  (−∞ for one that lost every point), and a bot its games do not place is marked unrated;
* ``head_to_head.png``: a heatmap of each pairing's score from the row bot's view, each cell
  with its 95 % interval (from pairs) and the games played.

Colours are colour-blind safe: the heatmap uses "cividis", the markers Okabe and Ito's palette.
"""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any

from chaodipi.arena.files import make_private_folder, write_private
from chaodipi.arena.report.summary import BotLine, PairLine, Report

__all__ = ["head_to_head_figure", "ratings_figure", "write_plots"]

BLUE = "#0072B2"  # Okabe–Ito blue: a finite rating
VERMILLION = "#D55E00"  # Okabe–Ito vermillion: an unbounded rating
GREY = "#999999"  # an unrated bot, an empty cell


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise RuntimeError("plots need matplotlib: python3 -m pip install -e '.[arena]'") from None
    return plt


def _finite_span(bots: list[BotLine]) -> tuple[float, float]:
    """The x range the finite ratings and their intervals need (±100 if none)."""
    ends = [0.0]
    for b in bots:
        if math.isfinite(b.rating):
            ends.append(b.rating)
            if math.isfinite(b.rating_error):
                ends += [b.rating - b.rating_error, b.rating + b.rating_error]
    low, high = min(ends), max(ends)
    width = max(high - low, 200.0)
    middle = (low + high) / 2
    return middle - width / 2, middle + width / 2


def ratings_figure(report: Report) -> Any:
    """The ratings plot as a matplotlib figure (x limits always finite)."""
    plt = _pyplot()
    bots = report.bots
    figure, axes = plt.subplots(figsize=(7, 1.2 + 0.5 * max(len(bots), 1)))
    low, high = _finite_span(bots)
    pad = (high - low) * 0.4
    left, right = low - pad, high + pad
    for y, b in enumerate(bots):
        if math.isfinite(b.rating):
            error = b.rating_error if math.isfinite(b.rating_error) else None
            axes.errorbar(b.rating, y, xerr=error, fmt="o", color=BLUE, capsize=4)
            if error is None:
                axes.annotate("± ?", (b.rating, y), (6, 6), textcoords="offset points")
        elif math.isinf(b.rating):
            above = b.rating > 0
            start, end = (high, right) if above else (low, left)
            axes.annotate(
                "",
                xy=(end, y),
                xytext=(start, y),
                arrowprops={"arrowstyle": "-|>", "color": VERMILLION, "linewidth": 2},
            )
            axes.text(
                start,
                y - 0.15,
                "+∞ unbounded" if above else "−∞ unbounded",
                color=VERMILLION,
                ha="left" if above else "right",
                va="bottom",
            )
        else:
            axes.text(0, y, "unrated (its games do not place it)", color=GREY, ha="center")
    axes.set_xlim(left, right)
    axes.set_ylim(len(bots) - 0.5, -0.7)
    axes.set_yticks(range(len(bots)), [b.bot for b in bots])
    axes.axvline(0, color=GREY, linewidth=0.5)
    axes.set_xlabel("Elo (joint maximum-likelihood rating, bars: 95 % interval)")
    void = f", {report.void} void" if report.void else ""
    axes.set_title(f"Ratings ({report.games} games{void})")
    figure.tight_layout()
    return figure


def _cell(pair: PairLine, flip: bool) -> tuple[float, str] | None:
    """The row bot's score and the cell's text (score, 95 % interval, games), or None."""
    games = pair.wins + pair.losses + pair.draws
    if games == 0:
        return None
    if math.isnan(pair.score):  # no complete pair: the games' score, no interval
        score = (pair.wins + pair.draws / 2) / games
        interval = "no complete pair"
    elif pair.not_estimated is not None:  # too few pairs for an interval
        score, interval = pair.score, pair.not_estimated
    else:
        score = pair.score
        low, high = pair.score_low, pair.score_high
        interval = f"[{low:.0%}, {high:.0%}]"
    if flip:
        score = 1 - score
        if not math.isnan(pair.score_low):
            interval = f"[{1 - pair.score_high:.0%}, {1 - pair.score_low:.0%}]"
    return score, f"{score:.0%}\n{interval}\n{games} games"


def head_to_head_figure(report: Report) -> Any:
    """The head-to-head heatmap as a matplotlib figure."""
    plt = _pyplot()
    names = [b.bot for b in report.bots]
    index = {name: i for i, name in enumerate(names)}
    grid = [[math.nan] * len(names) for _ in names]
    texts: dict[tuple[int, int], str] = {}
    for pair in report.pairs:
        for row, column, flip in ((pair.bot_a, pair.bot_b, False), (pair.bot_b, pair.bot_a, True)):
            cell = _cell(pair, flip)
            if cell is not None:
                grid[index[row]][index[column]], texts[index[row], index[column]] = cell
    size = 2.5 + 1.3 * len(names)
    figure, axes = plt.subplots(figsize=(size + 1.5, size))
    colours = plt.get_cmap("cividis").with_extremes(bad="#eeeeee")
    image = axes.imshow(grid, vmin=0, vmax=1, cmap=colours)
    axes.set_xticks(range(len(names)), names, rotation=45, ha="right")
    axes.set_yticks(range(len(names)), names)
    for (i, j), text in texts.items():
        dark = grid[i][j] < 0.55  # cividis is dark blue at 0, light yellow at 1
        axes.text(
            j, i, text, ha="center", va="center", fontsize=8, color="white" if dark else "black"
        )
    for i in range(len(names)):
        for j in range(len(names)):
            if (i, j) not in texts and i != j:
                axes.text(j, i, "no games", ha="center", va="center", fontsize=8, color=GREY)
    figure.colorbar(image, ax=axes, label="score of the row bot (95 % interval from pairs)")
    axes.set_title("Head to head")
    figure.tight_layout()
    return figure


def write_plots(report: Report, folder: Path) -> list[Path]:
    """Write the plots into ``folder`` (as every file the arena writes:
    :mod:`chaodipi.arena.files`); return their paths."""
    plt = _pyplot()
    make_private_folder(folder)
    paths = []
    for name, make in (("ratings.png", ratings_figure), ("head_to_head.png", head_to_head_figure)):
        figure = make(report)
        image = io.BytesIO()
        figure.savefig(image, format="png", dpi=120)
        plt.close(figure)
        path = folder / name
        write_private(path, image.getvalue(), replace=True)
        paths.append(path)
    return paths
