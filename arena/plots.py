"""``arena report --plot DIR``: PNG plots of a report (matplotlib, the ``plot`` extra).

* ``ratings.png``: each bot's rating with the 95 % interval of its win rate turned into Elo;
* ``head_to_head.png``: a heatmap of each pairing's score, row bot's view.
"""

from __future__ import annotations

from pathlib import Path

from arena.report import Report
from arena.stats import elo

__all__ = ["write_plots"]


def write_plots(report: Report, folder: Path) -> list[Path]:
    """Write the plots into ``folder``; return their paths."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise RuntimeError("plots need matplotlib: python3 -m pip install -e '.[plot]'") from None
    folder.mkdir(parents=True, exist_ok=True)
    names = [b.bot for b in report.bots]
    ratings = [b.rating for b in report.bots]
    lows = [b.rating + (elo(b.win_low) - elo(b.win_rate)) for b in report.bots]
    highs = [b.rating + (elo(b.win_high) - elo(b.win_rate)) for b in report.bots]
    figure, axes = plt.subplots(figsize=(6, 1 + 0.5 * len(names)))
    axes.errorbar(
        ratings,
        range(len(names)),
        xerr=[
            [r - lo for r, lo in zip(ratings, lows, strict=True)],
            [hi - r for r, hi in zip(ratings, highs, strict=True)],
        ],
        fmt="o",
        capsize=4,
    )
    axes.set_yticks(range(len(names)), names)
    axes.invert_yaxis()
    axes.axvline(0, color="grey", linewidth=0.5)
    axes.set_xlabel("Elo (joint rating; bars: 95 % interval of the win rate)")
    axes.set_title(f"Ratings ({report.games} games)")
    figure.tight_layout()
    ratings_path = folder / "ratings.png"
    figure.savefig(ratings_path, dpi=120)
    plt.close(figure)

    index = {name: i for i, name in enumerate(names)}
    grid = [[float("nan")] * len(names) for _ in names]
    for pair in report.pairs:
        games = pair.wins + pair.losses + pair.draws
        if games:
            score = (pair.wins + pair.draws / 2) / games
            grid[index[pair.bot_a]][index[pair.bot_b]] = score
            grid[index[pair.bot_b]][index[pair.bot_a]] = 1 - score
    figure, axes = plt.subplots(figsize=(2 + 0.8 * len(names), 1.5 + 0.8 * len(names)))
    image = axes.imshow(grid, vmin=0, vmax=1, cmap="RdYlGn")
    axes.set_xticks(range(len(names)), names, rotation=45, ha="right")
    axes.set_yticks(range(len(names)), names)
    for i, row in enumerate(grid):
        for j, value in enumerate(row):
            if value == value:  # not NaN
                axes.text(j, i, f"{value:.0%}", ha="center", va="center")
    figure.colorbar(image, ax=axes, label="score of the row bot")
    axes.set_title("Head to head")
    figure.tight_layout()
    heatmap_path = folder / "head_to_head.png"
    figure.savefig(heatmap_path, dpi=120)
    plt.close(figure)
    return [ratings_path, heatmap_path]
