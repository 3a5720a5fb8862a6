"""The ``arena`` command line: one sub-command per job, each with its own ``--help``."""

from __future__ import annotations

import argparse
import importlib.metadata
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table

from arena.selfplay import play_random_match
from engine.presets import PRESETS, preset


def _presets(args: argparse.Namespace) -> int:
    console = Console()
    if args.name:
        try:
            console.print(preset(args.name).describe(), markup=False, highlight=False)
        except ValueError as err:
            Console(stderr=True).print(f"arena presets: {err}", markup=False, style="red")
            return 2
        return 0
    table = Table(title="Rule presets (arena presets NAME lists every option)")
    table.add_column("name")
    table.add_column("seed text")
    table.add_column("summary")
    for p in PRESETS.values():
        table.add_row(p.name, p.source, p.summary)
    console.print(table)
    return 0


def _selfplay(args: argparse.Namespace) -> int:
    console = Console()
    try:
        rules = preset(args.preset)
    except ValueError as err:
        Console(stderr=True).print(f"arena selfplay: {err}", markup=False, style="red")
        return 2
    started = time.perf_counter()
    stats = [play_random_match(rules, args.seed + i, args.hands) for i in range(args.matches)]
    elapsed = time.perf_counter() - started
    hands = sum(s.hands for s in stats)
    actions = sum(s.actions for s in stats)
    points = [p for s in stats for p in s.defenders_points]
    table = Table(
        title=f"Random self-play, preset {rules.name}: {args.matches} matches "
        f"(at most {args.hands} hands each) from seed {args.seed}"
    )
    table.add_column("figure")
    table.add_column("value", justify="right")
    wins = [sum(s.winner == team for s in stats) for team in (0, 1)]
    table.add_row(
        "matches won by seats 0+2 / 1+3 / drawn",
        f"{wins[0]} / {wins[1]} / {args.matches - sum(wins)}",
    )
    table.add_row("hands played", f"{hands}")
    table.add_row("actions (all checked by the engine)", f"{actions}")
    table.add_row("defenders' points per hand, mean", f"{statistics.fmean(points):.1f}")
    if len(points) > 1:
        table.add_row("defenders' points per hand, stdev", f"{statistics.stdev(points):.1f}")
    table.add_row("failed throws per hand", f"{sum(s.failed_throws for s in stats) / hands:.2f}")
    table.add_row("actions/s", f"{actions / elapsed:,.0f}")
    console.print(table)
    return 0


def _serve(args: argparse.Namespace) -> int:
    from arena.serve import serve_command

    return serve_command(args)


def _version() -> str:
    try:
        return importlib.metadata.version("chaodipi-arena")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree, not installed
        return "(not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena",
        description="The arena where 炒地皮 (Chao Dipi) bots play.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    presets = commands.add_parser(
        "presets",
        help="list the rule presets, or every option of one",
        description="List the rule presets (one per seed room or text), or with NAME every "
        "option of that preset.",
    )
    presets.add_argument("name", nargs="?", help="a preset name, e.g. anchao")
    presets.set_defaults(run=_presets)
    selfplay = commands.add_parser(
        "selfplay",
        help="play random matches in-process and print what happened",
        description="Play whole matches between four random players in-process, every action "
        "checked by the rules engine, and print a summary.",
    )
    selfplay.add_argument(
        "--preset", default="classic", help=f"rule preset: {', '.join(PRESETS)} (default classic)"
    )
    selfplay.add_argument("--matches", type=int, default=20, help="matches to play (default 20)")
    selfplay.add_argument(
        "--hands", type=int, default=10, help="cut each match after this many hands (default 10)"
    )
    selfplay.add_argument("--seed", type=int, default=1, help="seed of the first match (default 1)")
    selfplay.set_defaults(run=_selfplay)
    serve = commands.add_parser(
        "serve",
        help="serve tables that bots join over gRPC",
        description="Serve TABLES tables of the chosen preset over gRPC. Each seat has a ticket "
        "(a secret): the tickets are printed as JSON lines (or written to --tickets). Bots "
        "connect with `Arena.Play` and present their seat's ticket. The server exits when every "
        "table's match is over (or on Ctrl-C), printing each result.",
    )
    serve.add_argument("--address", default="127.0.0.1:50051", help="host:port to listen on")
    serve.add_argument("--preset", default="classic", help=f"rule preset: {', '.join(PRESETS)}")
    serve.add_argument("--tables", type=int, default=1, help="tables to open (default 1)")
    serve.add_argument("--seed", type=int, default=1, help="deal seed of the first table")
    serve.add_argument("--hands", type=int, default=0, help="cut matches after N hands (0: no)")
    serve.add_argument("--decision-ms", type=int, default=1000, help="time per decision")
    serve.add_argument("--bank-ms", type=int, default=30_000, help="time bank per seat and match")
    serve.add_argument("--max-strikes", type=int, default=3, help="timeouts before a forfeit")
    serve.add_argument(
        "--connect-timeout", type=float, default=60.0, help="seconds to wait for four bots"
    )
    serve.add_argument("--tls-cert", type=Path, help="PEM server certificate (with --tls-key)")
    serve.add_argument("--tls-key", type=Path, help="PEM private key of the certificate")
    serve.add_argument(
        "--plaintext", action="store_true", help="serve without TLS (only for trusted networks)"
    )
    serve.add_argument("--tickets", type=Path, help="write the tickets here instead of stdout")
    serve.add_argument("--replays", type=Path, help="write each table's replay (JSON lines) here")
    serve.add_argument("--log-level", default="info", help="debug, info, warning or error")
    serve.set_defaults(run=_serve)
    from arena.run import add_commands

    add_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code: int = args.run(args)
    except KeyboardInterrupt:  # outside the commands' own handling: nothing was half-written
        print(f"arena {args.command}: interrupted", file=sys.stderr)
        return 130
    return code
