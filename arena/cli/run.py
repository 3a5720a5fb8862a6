"""``arena run`` and ``arena report``: a tournament from a config file, and its report."""

from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import trio
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from chaodipi.arena.cli.arguments import LOG_LEVELS, host, output_file, output_folder, whole
from chaodipi.arena.cli.serve import add_spectator_token_option, publish_spectator_token
from chaodipi.arena.errors import (
    AddressError,
    ArenaError,
    ClusterError,
    ConfigError,
    DatabaseError,
    MissingExtraError,
)
from chaodipi.arena.logs import configure_logging
from chaodipi.arena.report.stats import SprtTest
from chaodipi.arena.report.summary import Report, build_report, print_report, report_csv
from chaodipi.arena.serving.addresses import check_can_listen
from chaodipi.arena.serving.server import new_spectator_token, tune_garbage_collector
from chaodipi.arena.tournament.backend import Backend
from chaodipi.arena.tournament.config import (
    ConfigDeprecation,
    TournamentConfig,
    config_help,
    load_config,
    schedule,
)
from chaodipi.arena.tournament.driver import prepare_log_dir, run_tournament
from chaodipi.arena.tournament.local import LocalBackend
from chaodipi.arena.tournament.ray_backend import RayBackend
from chaodipi.arena.tournament.ray_cluster import import_ray, parse_address
from chaodipi.arena.tournament.recorder import Outcome
from chaodipi.arena.tournament.results import GameKey, GameRow, ResultsDB, game_label


def _fail(command: str, message: str, code: int = 2) -> int:
    print(f"arena {command}: {message}", file=sys.stderr)
    return code


def _parse_sprt(text: str) -> SprtTest:
    try:
        elo0, elo1, alpha, beta = (float(x) for x in text.split(","))
        if not all(math.isfinite(x) for x in (elo0, elo1, alpha, beta)):
            raise ValueError("not finite")
    except ValueError:
        raise ValueError(
            f"--sprt {text!r}: write elo0,elo1,alpha,beta, e.g. 0,50,0.05,0.05"
        ) from None
    if not (0 < alpha < 1 and 0 < beta < 1) or elo1 <= elo0:
        raise ValueError(f"--sprt {text!r}: need elo0 < elo1 and 0 < alpha, beta < 1")
    return SprtTest(elo0, elo1, alpha, beta)


OVERRIDES = ("preset", "hands", "deals", "concurrency")
"""Config keys the command line may override (``--deals 50`` wins over ``deals = 10``)."""


def _overrides(args: argparse.Namespace) -> dict[str, object]:
    return {k: getattr(args, k) for k in OVERRIDES if getattr(args, k) is not None}


def run_command(args: argparse.Namespace) -> int:
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConfigDeprecation)
            config = load_config(args.config, _overrides(args))
        sprt = _parse_sprt(args.sprt) if args.sprt else None
    except (ConfigError, ValueError) as err:
        return _fail("run", str(err))
    for warning in caught:
        print(f"arena run: {args.config}: {warning.message}", file=sys.stderr)
    if sprt is not None and len(config.bots) != 2:
        return _fail("run", "--sprt compares exactly two bots")
    problem = _ray_problem(args)
    if problem is not None:
        return _fail("run", problem)
    if args.ray is None:
        try:
            check_can_listen(_address(args))
        except AddressError as err:
            return _fail("run", f"--host/--port: {err}")
    configure_logging(args.log_level)
    total = len(schedule(config))
    console = Console(stderr=True)
    interactive = console.is_terminal
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeRemainingColumn(),
        console=console,
        disable=not interactive,
    )
    task = progress.add_task("games", total=total)

    def on_game(row: GameRow, done: int, all_games: int) -> None:
        progress.update(task, completed=done)
        if not interactive:
            key = row.key
            verdict = {1.0: f"{key.bot_a} wins", 0.0: f"{key.bot_b} wins", 0.5: "drawn"}.get(
                row.score_a if row.score_a is not None else -1.0, row.reason
            )
            if row.void is not None:
                verdict = f"void, played again on --resume ({row.void})"
            print(
                f"game {done}/{all_games}: {key.bot_a} vs {key.bot_b}, deal {key.deal}"
                f"{' (seats swapped)' if key.swapped else ''}: {verdict}, {row.hands} hands, "
                f"{row.seconds:.1f} s",
                file=sys.stderr,
                flush=True,
            )

    spectator_token = None
    path = None
    if args.spectator_token is not None:
        spectator_token = new_spectator_token()
        given = args.spectator_token
        path = given if isinstance(given, Path) else _spectator_token_path(config)
        try:
            publish_spectator_token(spectator_token, path, "run")
        except OSError as err:
            return _fail("run", f"cannot write the spectator token: {err}")
    tune_garbage_collector()
    try:
        with progress:
            outcome = _play(args, config, sprt, spectator_token, on_game, path)
    except (ClusterError, ConnectionError) as err:  # no Ray cluster answered (or Ray said so)
        return _fail("run", f"--ray {args.ray}: no Ray cluster there ({err})")
    except ArenaError as err:
        return _fail("run", str(err), err.exit_code)
    stored = f"{outcome.played} games played now"
    if outcome.void:
        stored += f" (and {outcome.void} void, to play again)"
    stored += f", {outcome.skipped} already stored in {config.database}"
    if outcome.interrupted:
        print(
            f"arena run: interrupted; {stored}; the games in flight were dropped: run it again "
            "with --resume to go on",
            file=sys.stderr,
        )
        return 130
    db = ResultsDB(config.database, read_only=True)
    report = build_report(db.rows(), [b.name for b in config.bots], sprt=sprt)
    db.close()
    _emit(report, args)
    for problem in outcome.problems[:20]:
        print(f"arena run: {problem}", file=sys.stderr)
    if len(outcome.problems) > 20:
        print(f"arena run: … and {len(outcome.problems) - 20} more problems", file=sys.stderr)
    if outcome.stopped is not None:
        print(f"arena run: stopped: {outcome.stopped}", file=sys.stderr)
    print(f"arena run: {stored}", file=sys.stderr)
    why = _why_not_clean(report, outcome)
    if why:
        print(f"arena run: exit code 1: {'; '.join(why)}", file=sys.stderr)
        return 1
    return 0


def _why_not_clean(report: Report, outcome: Outcome) -> list[str]:
    """What keeps a finished run from exit code 0, one item each (empty: nothing)."""
    why = []
    for bot in report.bots:
        faults = [(bot.forfeits, "forfeits"), (bot.crashes, "crashes")]
        if any(n for n, _ in faults):
            why.append(f"{bot.bot}: " + ", ".join(f"{n} {what}" for n, what in faults if n))
    if outcome.void:
        why.append(f"{outcome.void} void games, to play again with --resume")
    if outcome.stopped is not None:
        why.append("the run was stopped before its end (above)")
    if outcome.problems and not why:  # (a game's problems are its crashes and why it is void)
        why.append(f"{len(outcome.problems)} problems (above)")
    return why


def _address(args: argparse.Namespace) -> str:
    """Where the local run serves (``--host``, ``--port``)."""
    return f"{args.host}:{args.port}"


def _spectator_token_path(config: TournamentConfig) -> Path:
    """Where ``arena run --spectator-token`` writes the token by default: the run's private
    log folder (``<database stem>-logs``, mode 0700)."""
    return prepare_log_dir(config, None) / "spectator-token"


def _say(line: str) -> None:
    print(f"arena run: {line}", file=sys.stderr, flush=True)


def _play(
    args: argparse.Namespace,
    config: TournamentConfig,
    sprt: SprtTest | None,
    spectator_token: str | None,
    on_game: Callable[[GameRow, int, int], None],
    token_path: Path | None = None,
) -> Outcome:
    """The run itself: on this machine, or on Ray with ``--ray``; with a spectator token
    (written to ``token_path``), each table's name and how to watch it as it opens."""
    backend: Backend
    if args.ray is not None:
        backend = RayBackend(
            config,
            args.ray,
            on_start=_say,
            deals_per_shard=args.ray_shard_deals,
            working_dir=args.ray_working_dir,
            log_level=args.log_level,
        )
    else:
        served: list[str] = []

        def listening(address: str) -> None:
            served.append(address)
            _say(f"serving on {address}")

        def table_opened(table: str, key: GameKey) -> None:
            if token_path is not None:
                _say(watch_hint(served[-1], table, key, token_path))

        backend = LocalBackend(
            _address(args),
            on_listening=listening,
            spectator_token=spectator_token,
            on_table=table_opened,
        )
    return trio.run(
        lambda: run_tournament(config, backend, resume=args.resume, sprt_test=sprt, on_game=on_game)
    )


def watch_hint(address: str, table: str, key: GameKey, token_path: Path) -> str:
    """How to watch a game's table, said as it opens (its events come once its deal is over).

    >>> print(watch_hint("127.0.0.1:5", "gAb", GameKey("a", "b", 3, True), Path("/my logs/t")))
    ... # doctest: +NORMALIZE_WHITESPACE
    game a-b-d3-b is table gAb: arena watch 127.0.0.1:5 gAb --token-file '/my logs/t'
    (its events come once every game on deal 3 has ended)
    """
    return (
        f"game {game_label(key)} is table {table}: arena watch {address} {table} --token-file "
        f"{shlex.quote(str(token_path))} (its events come once every game on deal {key.deal} "
        "has ended)"
    )


def _ray_problem(args: argparse.Namespace) -> str | None:
    """What in the command line cannot go with (or without) --ray."""
    if args.ray is None:
        if args.ray_shard_deals is not None or args.ray_working_dir is not None:
            return "--ray-shard-deals and --ray-working-dir go with --ray ADDRESS"
        return None
    if args.spectator_token is not None:
        return (
            "--spectator-token: with --ray the tables run on the cluster's nodes, where no "
            "spectator can reach them; run without --ray to watch"
        )
    if args.host != "127.0.0.1" or args.port != 0:
        return (
            "--host and --port: with --ray each shard serves its tables on its own node's "
            "loopback; drop them"
        )
    try:
        parse_address(args.ray)
    except ValueError as err:
        return f"--ray: {err}"
    try:
        import_ray()
    except MissingExtraError as err:
        return f"--ray: {err}"
    return None


def _emit(report: Report, args: argparse.Namespace) -> None:
    if args.json:
        print(json.dumps(report.as_dict(), ensure_ascii=False, indent=2, allow_nan=False))
    else:
        console = Console()
        print_report(report, console if console.is_terminal else Console(width=150))
    if args.csv is not None:
        args.csv.write_text(report_csv(report), encoding="utf-8")


def report_command(args: argparse.Namespace) -> int:
    try:
        db = ResultsDB(args.database, read_only=True)
    except DatabaseError as err:
        return _fail("report", str(err))
    rows = db.rows()
    db.close()
    if not rows:
        return _fail("report", f"{args.database} holds no games yet")
    report = build_report(rows)
    _emit(report, args)
    if args.plot is not None:
        from chaodipi.arena.report.plots import write_plots

        try:
            paths = write_plots(report, args.plot)
        except RuntimeError as err:
            return _fail("report", str(err))
        print(f"arena report: wrote {', '.join(str(p) for p in paths)}", file=sys.stderr)
    return 0


CONFIG_HELP = f"""\
a config file, every key with its default:

{config_help()}

  [bots.mine]
  command = "python3 my_bot.py"      # or a list of arguments
  processes = 8                      # optional: the most processes at once (default: the
                                     #   seats it plays on one deal, at most 16)
  [bots.oneshot]
  command = "./one_game_bot"
  fresh = true                       # a new process per seat and game, given ARENA_TICKET
  [bots.visitor]
  token = "a-secret-of-8+-chars"     # its processes connect by themselves to the address printed

a command bot runs as a pool of long-lived processes started with --address ADDRESS (also in
ARENA_ADDRESS) and its session token in the environment only, ARENA_TOKEN (never on the command
line, which every user of the machine can read; a fresh = true bot gets ARENA_TICKET): each
opens a session (ArenaService.Enter) and is offered seats game after game, several at once if
it asks; a process is never given two seats of one deal, so it may remember what it saw. A
process that dies is replaced; one that dies or fails to start in 3 games in a row stops the
run. Each process's stderr goes to <database stem>-logs/NAME#N.stderr.

bot commands run in the config file's folder, with the arena's environment (PATH included); a
command starting with python3 (or python) runs with the interpreter running the arena, so it
has the arena's packages; spell out another (/usr/bin/python3, python3.12) to use that one.

deals come from a secret key made for each tournament and kept in its database: --resume
plays the same cards, and no bot can work out a deal from its number. A game in which a bot
never played (it could not start, exited before its first decision or did not connect in
connect_timeout seconds) is void: kept out of the statistics and played again on --resume.
Ctrl-C stops cleanly (exit code 130):
the games in flight are dropped, and --resume goes on.

--spectator-token writes an operator token for ArenaService.Watch to a file readable by you only and
prints the file's name, never the token (as arena serve does); a spectator sees a table only
once every game of the run on its deal has ended, and each table's name is logged as
game_started (--log-level info).
"""


RUN_EXIT_CODES = """\
exit codes:
  0    the run is complete: every game played, none void, no bot crashed or forfeited
  1    the run ended, but not cleanly: a bot crashed or forfeited a game (the games stored,
       this run's and earlier ones', count), a problem was reported, void games are left to
       play with --resume, or the run was stopped (a bot kept failing to start or dying); the
       last line on stderr says which
  2    the command line, the config or the database cannot run (the line on stderr says why),
       or the server cannot listen on --host/--port; nothing was played
  130  interrupted (Ctrl-C, SIGTERM): the games in flight were dropped; --resume goes on"""

REPORT_EXIT_CODES = """\
exit codes:
  0    the report was printed (and the files asked for written)
  2    the database cannot be read or holds no games, the plots cannot be made, or another
       bad argument (the line on stderr says why)"""


def add_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    run = commands.add_parser(
        "run",
        help="run a tournament from a TOML config and print the report",
        description="Run a tournament: every pairing plays the same deals, each twice with "
        "the teams' seats swapped (duplicate deals). Bots are commands the arena keeps running as "
        "pools of processes that play game after game in sessions (--address, and ARENA_TOKEN "
        "in their environment), or "
        "external bots whose processes connect with a token. Results go to SQLite as each game "
        "ends.",
        epilog=CONFIG_HELP + "\n" + RUN_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("config", type=Path, help="the tournament's TOML file")
    run.add_argument("--resume", action="store_true", help="continue an interrupted tournament")
    run.add_argument(
        "--sprt", help="elo0,elo1,alpha,beta: stop a two-bot match once decided (default: none)"
    )
    run.add_argument("--json", action="store_true", help="print the report as JSON")
    run.add_argument(
        "--csv",
        type=output_file,
        help="also write the report as CSV to this file (default: none)",
    )
    run.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        default="warning",
        help="how much to log, on stderr (default warning)",
    )
    run.add_argument(
        "--host",
        type=host,
        default="127.0.0.1",
        help="address to serve on; bots with a token connect here (default 127.0.0.1)",
    )
    run.add_argument(
        "--port",
        type=whole(0, 65535),
        default=0,
        help="port to serve on (default 0: any free one)",
    )
    add_spectator_token_option(run, "spectator-token in the run's <database stem>-logs folder")
    ray = run.add_argument_group(
        "Ray",
        "play the games on a Ray cluster (docs/running-on-ray.md; needs the ray extra: "
        "pip install -e '.[ray]'); results are stored here, as without Ray",
    )
    ray.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="auto (the cluster `ray start` runs on this machine, or $RAY_ADDRESS), local (start "
        "one here for the run) or HOST:PORT of the head node (default: no Ray, the games run here)",
    )
    ray.add_argument(
        "--ray-shard-deals",
        type=whole(1),
        metavar="N",
        help="deals per shard, the unit of work a node plays with bot processes of its own "
        "(default: about 3 shards per slot, 16 to 100 deals each)",
    )
    ray.add_argument(
        "--ray-working-dir",
        type=Path,
        metavar="DIR",
        help="ship this folder (it must hold the config file's) to every node with Ray's "
        "runtime_env; bot commands run in the config's folder inside it. Default: the project "
        "and the bots are at the same path on every node",
    )
    overrides = run.add_argument_group(
        "config overrides",
        "these win over the config file's keys of the same name (default: the file's value)",
    )
    overrides.add_argument("--preset", help="rule preset (see `arena presets`)")
    overrides.add_argument("--hands", type=whole(0), help="hands per game; 0 plays whole matches")
    overrides.add_argument(
        "--deals", type=whole(1), help="deals, each played twice (seats swapped)"
    )
    overrides.add_argument("--concurrency", type=whole(1), help="games at once")
    overrides.add_argument("--seeds", type=whole(1), dest="deals", help=argparse.SUPPRESS)
    run.set_defaults(run=run_command)
    report = commands.add_parser(
        "report",
        help="print the report of a results database",
        description="Reprint a tournament's report from its SQLite results.",
        epilog=REPORT_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    report.add_argument("database", type=Path, help="the results file (config key database)")
    report.add_argument("--json", action="store_true", help="print the report as JSON")
    report.add_argument(
        "--csv",
        type=output_file,
        help="also write the report as CSV to this file (default: none)",
    )
    report.add_argument(
        "--plot",
        type=output_folder,
        metavar="DIR",
        help="write PNG plots (ratings, head to head) into this folder (default: none)",
    )
    report.set_defaults(run=report_command)
