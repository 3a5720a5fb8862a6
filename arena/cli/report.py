"""``arena report``: reprint a tournament's report from its results database, with the config
its last run ran with and its SPRT (or another one, ``--sprt``, computed on the stored pairs);
and :func:`emit`, the printing both ``arena report`` and ``arena run`` do. The report's modules
(scipy for the ratings, matplotlib for the plots) are imported when it runs."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chaodipi.arena.cli.arguments import output_folder, sprt_hypotheses
from chaodipi.arena.errors import DatabaseError
from chaodipi.arena.results import GameRow, StoredRun, bot_names, stored, stored_sprt
from chaodipi.arena.tournament import KEYS
from chaodipi.records import visible

if TYPE_CHECKING:
    from chaodipi.arena.report import Report

__all__ = ["add_command", "emit", "report_command"]


def emit(
    report: Report,
    rows: list[GameRow],
    runs: list[StoredRun],
    args: argparse.Namespace,
    *,
    live: bool = False,
) -> None:
    """Print ``report`` as tables (with the config of the last of ``runs``) or as ``--json``
    (with it as ``config``), and write ``--csv``. ``live``: for ``arena run``, which printed
    the void games and problems as they came, and knows its config: neither is repeated."""
    from rich.console import Console

    from chaodipi.arena.report import print_report, write_csv

    config = runs[-1].config if runs else None
    if args.json:
        document: dict[str, Any] = {**report.as_dict(), "config": config}
        print(json.dumps(document, ensure_ascii=False, indent=2, allow_nan=False))
    else:
        console = Console()
        console = console if console.is_terminal else Console(width=150)
        print_report(report, console, failures=not live)
        if runs and not live:
            shown = visible(_config_text(runs[-1]), lines=True)
            console.print(shown, markup=False, highlight=False)
    if args.csv is not None:
        paths = write_csv(report, rows, args.csv)
        print(f"arena {args.command}: wrote {', '.join(map(str, paths))}", file=sys.stderr)


def _config_text(run: StoredRun) -> str:
    """The config the run ran with, as the TOML it could have been written in.

    >>> run = StoredRun("2026-12-01 14:00:00", True, {"hands": 2, "gauntlet": None, "bots": [
    ...     {"name": "a", "command": ["./a"]}, {"name": "b", "token": True}]}, None)
    >>> print(_config_text(run))
    config of the last run (2026-12-01 14:00:00 UTC, resumed):
      hands = 2
      [bots.a] command = ["./a"]
      [bots.b] token = …
    """
    config = run.config
    resumed = ", resumed" if run.resumed else ""
    lines = [f"config of the last run ({run.started_at} UTC{resumed}):"]
    for key in KEYS:
        value = config.get(key.name)
        if value is not None:
            lines.append(f"  {key.name} = {json.dumps(value, ensure_ascii=False)}")
    for bot in config.get("bots", []):
        if bot.get("token"):
            lines.append(f"  [bots.{bot['name']}] token = …")
            continue
        line = f"  [bots.{bot['name']}] command = {json.dumps(bot['command'], ensure_ascii=False)}"
        if bot.get("fresh"):
            line += ", fresh = true"
        if bot.get("processes") is not None:
            line += f", processes = {bot['processes']}"
        lines.append(line)
    return "\n".join(lines)


def _fail(message: str) -> int:
    print(f"arena report: {message}", file=sys.stderr)
    return 2


def report_command(args: argparse.Namespace) -> int:
    from chaodipi.arena.report import build_report
    from chaodipi.arena.results import SprtTest

    try:
        rows, runs = stored(args.database)
    except DatabaseError as err:
        return _fail(str(err))
    if not rows:
        return _fail(f"{args.database} holds no games yet")
    names = bot_names(rows, runs)
    sprt = SprtTest(*args.sprt) if args.sprt is not None else stored_sprt(runs)
    if sprt is not None and len(names) != 2:
        if args.sprt is not None:
            return _fail(
                f"--sprt compares exactly two bots; {args.database} holds {len(names)}: "
                f"{', '.join(names)}"
            )
        sprt = None
    report = build_report(rows, names, sprt=sprt)
    try:
        emit(report, rows, runs, args)
    except OSError as err:
        return _fail(f"cannot write {err.filename}: {err.strerror}")
    if not args.json:
        print(
            f"To browse the games: arena games {visible(str(args.database))} --html DIR writes "
            "DIR/index.html, linking a page per game"
        )
    if args.plot is not None:
        from chaodipi.arena.report import write_plots

        try:
            paths = write_plots(report, args.plot)
        except RuntimeError as err:
            return _fail(str(err))
        except OSError as err:
            return _fail(f"cannot write {err.filename}: {err.strerror}")
        print(f"arena report: wrote {', '.join(str(p) for p in paths)}", file=sys.stderr)
    return 0


EXIT_CODES = """\
exit codes:
  0    the report was printed (and the files asked for written)
  2    the database cannot be read or holds no games, the plots cannot be made, --sprt is
       asked of more than two bots, or another bad argument (the line on stderr says why)"""


def add_command(commands: Any) -> None:
    """Add ``report`` and its options to the ``arena`` command's sub-parsers."""
    report = commands.add_parser(
        "report",
        help="print the report of a results database",
        description="Reprint a tournament's report from its SQLite results, with the config "
        "its last run ran with and its SPRT, if it had one.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    report.add_argument("database", type=Path, help="the results file (config key database)")
    report.add_argument("--json", action="store_true", help="print the report as JSON")
    report.add_argument(
        "--csv",
        type=output_folder,
        metavar="DIR",
        help="also write the report as CSV, standings.csv, pairings.csv and games.csv, into "
        "this folder (default: none)",
    )
    report.add_argument(
        "--plot",
        type=output_folder,
        metavar="DIR",
        help="write PNG plots (ratings, head to head) into this folder (default: none)",
    )
    report.add_argument(
        "--sprt",
        type=sprt_hypotheses,
        metavar="ELO0,ELO1,ALPHA,BETA",
        help="the SPRT of a two-bot tournament on its stored pairs, the first bot of its config "
        "tested for being stronger (default: the last run's SPRT, if it had one)",
    )
    report.set_defaults(run=report_command)
