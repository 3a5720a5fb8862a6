"""The ``arena`` command line: one sub-command per job, each with its own ``--help``.

It needs the ``arena`` extra (:mod:`chaodipi.arena.extra`); without it, :func:`main` says so in one
line before importing anything the extra gives.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import statistics
import sys
import time
from collections.abc import Sequence

from chaodipi.arena.cli.arguments import ArenaParser, whole
from chaodipi.arena.cli.selfplay import play_random_match
from chaodipi.arena.extra import INSTALL_HINT, missing
from chaodipi.engine import PRESETS, preset


def _presets(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if args.name:
        try:
            console.print(preset(args.name).describe(), markup=False, highlight=False)
        except ValueError as err:
            print(f"arena presets: {err}", file=sys.stderr)  # one line, never wrapped
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
    from rich.console import Console
    from rich.table import Table

    console = Console()
    try:
        rules = preset(args.preset)
    except ValueError as err:
        print(f"arena selfplay: {err}", file=sys.stderr)
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


def _version() -> str:
    try:
        return importlib.metadata.version("chaodipi-arena")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree, not installed
        return "(not installed)"


PRESETS_EXIT_CODES = """\
exit codes:
  0    listed
  2    no preset of that NAME (the line on stderr lists them), or another bad argument"""

SELFPLAY_EXIT_CODES = """\
exit codes:
  0    played, and the summary printed
  2    the command line cannot run (the line on stderr says why)
  130  interrupted (Ctrl-C)"""

STDIO_EXIT_CODES = """\
exit codes:
  0    the match or the session played to its end
  1    the bot failed, or the arena refused it or could not be reached
  2    the command line cannot run (the line on stderr says why)"""

TOP_EPILOG = """\
every command's --help lists its options with their defaults and its exit codes. All of them
exit 2 on a command line they cannot run, with one line on stderr naming what is wrong, and
130 when interrupted (Ctrl-C) before they could stop cleanly."""


LAZY_COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("chaodipi.arena.cli.serve", "serve tables that bots join over gRPC"),
    "run": ("chaodipi.arena.cli.run", "run a tournament (bots from --bot or a TOML config)"),
    "report": ("chaodipi.arena.cli.report", "print the report of a results database"),
    "init": ("chaodipi.arena.cli.init", "write a starter tournament config and bot into a folder"),
    "games": ("chaodipi.arena.cli.games", "list the games a results database holds"),
    "show": (
        "chaodipi.arena.cli.show",
        "print one game's transcript (from a results database or a record file)",
    ),
    "review": (
        "chaodipi.arena.cli.review",
        "judge each decision of a game (or a tournament's bots) from what its seat knew",
    ),
    "watch": ("chaodipi.arena.cli.watch", "follow a live table in the terminal, as a spectator"),
    "deals": ("chaodipi.arena.cli.deals", "write a public deal set, or print one"),
    "bench": ("chaodipi.arena.cli.bench", "play a bot against the reference ladder's rungs"),
    "ladder": (
        "chaodipi.arena.cli.ladder",
        "run a standing ladder: bots that stay, a rating that moves, pages on the web",
    ),
}
"""The commands defined in modules of their own: name → (the module, whose ``add_command``
adds the command's parser, with the same one-line help). ``arena --help`` and another
command's run import none of them (``arena run`` need not load the server's gRPC), so that
``--help`` answers at once."""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``arena`` parser: every command in full, or with ``only``, every command of
    :data:`LAZY_COMMANDS` but that one listed by name and help alone (its module not
    imported)."""
    parser = ArenaParser(
        prog="arena",
        description="The arena where 炒地皮 (Chao Dipi) bots play.",
        epilog=TOP_EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    presets = commands.add_parser(
        "presets",
        help="list the rule presets, or every option of one",
        description="List the rule presets (one per seed room or text), or with NAME every "
        "option of that preset.",
        epilog=PRESETS_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    presets.add_argument("name", nargs="?", help="a preset name, e.g. anchao")
    presets.set_defaults(run=_presets)
    selfplay = commands.add_parser(
        "selfplay",
        help="play random matches in-process and print what happened",
        description="Play whole matches between four random players in-process, every action "
        "checked by the rules engine, and print a summary.",
        epilog=SELFPLAY_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    selfplay.add_argument(
        "--preset", default="classic", help=f"rule preset: {', '.join(PRESETS)} (default classic)"
    )
    selfplay.add_argument(
        "--matches", type=whole(1), default=20, help="matches to play (default 20)"
    )
    selfplay.add_argument(
        "--hands",
        type=whole(1),
        default=10,
        help="cut each match after this many hands (default 10)",
    )
    selfplay.add_argument("--seed", type=int, default=1, help="seed of the first match (default 1)")
    selfplay.set_defaults(run=_selfplay)
    for name, (module, summary) in LAZY_COMMANDS.items():
        if only is None or name == only:
            importlib.import_module(module).add_command(commands)
        else:  # listed by `arena --help`; its module is imported only when it runs
            commands.add_parser(name, help=summary, add_help=False)
    commands.add_parser(  # run by main() itself, with the bridge's own arguments
        "stdio",
        help="play a bot that speaks JSON lines on stdin/stdout (arena stdio --help)",
        epilog=STDIO_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    return parser


def _command_in(argv: Sequence[str]) -> str:
    """The command ``argv`` names (``arena`` takes no option with a value before it), or
    ``""`` for none."""
    return next((a for a in argv if not a.startswith("-")), "")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``arena`` command with ``argv`` (default: the process's arguments); return its
    exit code (each command's --help lists its own; 2: a command line it cannot run)."""
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["stdio"]:  # the SDK's bridge: its own arguments, no arena extra needed
        from chaodipi.bot.stdio import main as stdio

        return stdio(words[1:], prog="arena stdio")
    absent = missing()
    if absent:
        print(f"arena: {', '.join(absent)} not installed: {INSTALL_HINT}", file=sys.stderr)
        return 2
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(only=_command_in(argv)).parse_args(argv)
    try:
        code: int = args.run(args)
    except KeyboardInterrupt:  # outside the commands' own handling: nothing was half-written
        print(f"arena {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`arena show … | head`): not an error
        _quiet_stdout()
        return 0
    return code


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush at exit raises no
    second BrokenPipeError (the way the Python docs advise)."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
