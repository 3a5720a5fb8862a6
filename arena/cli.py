"""The ``arena`` command line: one sub-command per job, each with its own ``--help``."""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from arena.selfplay import play_random_hand


def _selfplay(args: argparse.Namespace) -> int:
    console = Console()
    started = time.perf_counter()
    hands = [play_random_hand(args.seed + i) for i in range(args.hands)]
    elapsed = time.perf_counter() - started
    actions = sum(h.actions for h in hands)
    points = [h.defender_points + h.penalty_points for h in hands]
    table = Table(title=f"Random self-play: {args.hands} hands from seed {args.seed}")
    table.add_column("figure")
    table.add_column("value", justify="right")
    table.add_row("plays (actions)", f"{actions}")
    table.add_row("defenders' points per hand, mean", f"{statistics.fmean(points):.1f}")
    if len(points) > 1:
        table.add_row("defenders' points per hand, stdev", f"{statistics.stdev(points):.1f}")
    table.add_row("defenders reach 80", f"{sum(p >= 80 for p in points) / len(points):.1%}")
    table.add_row(
        "failed throws per hand", f"{statistics.fmean(h.failed_throws for h in hands):.2f}"
    )
    table.add_row("actions/s (checked)", f"{actions / elapsed:,.0f}")
    console.print(table)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena",
        description="The arena where 炒地皮 (Chao Dipi) bots play.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    selfplay = commands.add_parser(
        "selfplay",
        help="play random hands in-process and print what happened",
        description="Deal seeded hands and play every trick with random legal plays, "
        "checking each play with the rules engine; print a summary.",
    )
    selfplay.add_argument("--hands", type=int, default=200, help="hands to play (default 200)")
    selfplay.add_argument("--seed", type=int, default=1, help="seed of the first hand (default 1)")
    selfplay.set_defaults(run=_selfplay)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    code: int = args.run(args)
    return code
