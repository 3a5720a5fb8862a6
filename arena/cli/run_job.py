"""``arena run`` itself, once its command line is read (:mod:`chaodipi.arena.cli.run`): the
config from the file and the options, the run on this machine or on Ray, what it prints as it
goes, and the report at the end.

As it goes, on stderr, in the manner of cutechess-cli: a line for each finished game, named by
its number and name in the results file (as ``arena games`` lists it and ``arena show`` takes
it), what went wrong in it (once: the report at the end does not repeat it), each bot's faults
in it in one line (strikes and fallbacks: the moves it did not choose; the tables log each at
``--log-level info``, and the game record keeps each turn's), the pairing's running score

    Finished game 3 of 12, alpha-beta-d2-a (alpha vs beta, deal 2): alpha wins {…}, 4 hands, 1.2 s
      faults: alpha: 2 strikes, 14 fallbacks
    Score of alpha vs beta: 2 - 1 - 0  [0.667] 3

and with ``--report-every K`` the standings after every K games.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path

import anyio
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from chaodipi.arena.cli.report import emit
from chaodipi.arena.cli.serve import publish_spectator_token
from chaodipi.arena.errors import (
    AddressError,
    ArenaError,
    ClusterError,
    ConfigError,
    DatabaseError,
    MissingExtraError,
)
from chaodipi.arena.logs import configure_logging
from chaodipi.arena.report import FAULTS, Report, build_report, print_standings
from chaodipi.arena.results import (
    GameKey,
    GameRow,
    SprtTest,
    StoredRun,
    bot_names,
    game_label,
    sprt_to_run,
    stored,
)
from chaodipi.arena.serving import check_can_listen, new_spectator_token, tune_garbage_collector
from chaodipi.arena.tournament import (
    KEYS,
    Backend,
    ConfigDeprecation,
    LocalBackend,
    RunResult,
    TournamentConfig,
    games_left,
    load_config,
    prepare_log_dir,
    run_tournament,
    schedule,
    stored_config,
)
from chaodipi.records import visible

__all__ = ["Tally", "finished_line", "game_notes", "run_job", "stored_config_line"]


def _fail(message: str, code: int = 2) -> int:
    print(f"arena run: {visible(message, lines=True)}", file=sys.stderr)
    return code


def _say(line: str) -> None:
    print(f"arena run: {visible(line, lines=True)}", file=sys.stderr, flush=True)


def _overrides(args: argparse.Namespace) -> dict[str, object]:
    """The config keys the command line gives (a path relative to the current folder)."""
    given: dict[str, object] = {}
    whole = args.config is not None or _from_database(args)  # the config's folder is not here
    for key in KEYS:
        value = getattr(args, key.name)
        if value is None:
            continue
        if isinstance(value, Path):
            value = str(value.absolute() if whole else value)
        given[key.name] = value
    if args.tc is not None:
        decision, bank = args.tc
        for name, value in (("decision_ms", decision), ("bank_ms", bank)):
            if value is None:
                continue
            if name in given:
                flag = name.replace("_", "-")
                raise ConfigError(f"--tc and --{flag} both set {name}: give one of them")
            given[name] = value
    return given


def _from_database(args: argparse.Namespace) -> bool:
    """``--resume`` with neither a config file nor ``--bot``: the database's stored config is
    the config (:func:`chaodipi.arena.tournament.stored_config`)."""
    return bool(args.resume and args.config is None and not args.bot)


def _config(args: argparse.Namespace) -> TournamentConfig:
    """The run's config: the file's (or none) with the command line's keys and bots, or with
    ``--resume`` alone the one the database's last run stored, the command line's keys
    winning."""
    if not _from_database(args):
        return load_config(args.config, _overrides(args), _bots(args))
    given = _overrides(args)
    default = next(key.default for key in KEYS if key.name == "database")
    return stored_config(Path(str(given.pop("database", default))), given)


def stored_config_line(config: TournamentConfig) -> str:
    """What a run resuming from its database alone says before it starts anything: the bots,
    with the commands it will run and where (they came from the file, not the command line).

    >>> from chaodipi.arena.tournament import parse_config
    >>> config = parse_config({"bots": {"a": {"command": "./a -x"}, "b": {"command": "./b"}},
    ...                        "database": "/games/r.sqlite"}, Path("/games"))
    >>> stored_config_line(config)
    'resuming the config stored in /games/r.sqlite: a = ./a -x, b = ./b (run in /games)'
    """
    bots = ", ".join(f"{bot.name} = {shlex.join(bot.command)}" for bot in config.bots)
    return f"resuming the config stored in {config.database}: {bots} (run in {config.folder})"


def _bots(args: argparse.Namespace) -> dict[str, str]:
    bots: dict[str, str] = {}
    for name, command in args.bot:
        if name in bots:
            raise ConfigError(f"--bot {name}=…: a bot named {name!r} is given twice")
        bots[name] = command
    return bots


def _stored(database: Path) -> tuple[list[GameRow], list[StoredRun]]:
    """What the database holds already (nothing if it cannot be read: the run then says why,
    as it claims the file)."""
    try:
        return stored(database)
    except DatabaseError:
        return [], []


class Tally:
    """Each pairing's running W-L-D, bot_a's view, over its games that are results.

    >>> tally = Tally()
    >>> tally.add(GameKey("a", "b", 1, False), 1.0)
    >>> tally.add(GameKey("a", "b", 1, True), 0.5)
    >>> tally.line(GameKey("a", "b", 2, False))
    'Score of a vs b: 1 - 0 - 1  [0.750] 2'
    """

    def __init__(self, rows: Iterable[GameRow] = ()) -> None:
        self._counts: dict[tuple[str, str], list[int]] = {}
        for row in rows:
            if row.void is None:
                self.add(row.key, row.score_a)

    def add(self, key: GameKey, score_a: float | None) -> None:
        counts = self._counts.setdefault((key.bot_a, key.bot_b), [0, 0, 0])
        if score_a is not None:
            counts[{1.0: 0, 0.0: 1}.get(score_a, 2)] += 1

    def line(self, key: GameKey) -> str:
        """cutechess-cli's ``Score of A vs B: W - L - D  [score] N``."""
        wins, losses, draws = self._counts.get((key.bot_a, key.bot_b), [0, 0, 0])
        games = wins + losses + draws
        score = (wins + draws / 2) / games if games else 0.0
        return (
            f"Score of {key.bot_a} vs {key.bot_b}: {wins} - {losses} - {draws}  "
            f"[{score:.3f}] {games}"
        )


def finished_line(row: GameRow, total: int) -> str:
    """The live log's line for a stored game: its number (``row.id``) and name, as ``arena
    games`` lists them, of the ``total`` games of the schedule; a bot's text in it is shown
    visibly (:func:`chaodipi.records.visible`).

    >>> row = GameRow(GameKey("a", "b", 2, True), 1.0, 4, 3, 0, 2, 80, 2, 40, 0, 0, 0, 0, 0, 0,
    ...               None, "out", "", 1.23, None, 7)
    >>> finished_line(row, 12)
    'Finished game 7 of 12, a-b-d2-b (a vs b, deal 2, seats swapped): a wins {out}, 4 hands, 1.2 s'
    """
    return visible(_finished_text(row, total))


def game_notes(row: GameRow) -> list[str]:
    """What the live log says under a finished game's line: what went wrong in it (why it is
    void, a crash with the end of its stderr), then each bot's faults in one line, so that
    "slow wins" is never read without its fallbacks.

    >>> row = GameRow(GameKey("slow", "random", 6, False), 1.0, 1, 2, 0, 1, 80, 0, 0, 2, 0, 0,
    ...               0, 0, 0, None, "played to the end", "", 1.0, fallbacks_a=14)
    >>> game_notes(row)
    ['faults: slow: 2 strikes, 14 fallbacks']
    """
    notes = row.trouble.splitlines()
    if row.faults:
        notes.append(f"faults: {row.faults}")
    return notes


def _finished_text(row: GameRow, total: int) -> str:
    key = row.key
    where = f"{key.bot_a} vs {key.bot_b}, deal {key.deal}{', seats swapped' if key.swapped else ''}"
    game = f"Finished game {row.id} of {total}, {game_label(key)} ({where})"
    if row.void is not None:
        return f"{game}: void, played again on --resume"
    verdict = {1.0: f"{key.bot_a} wins", 0.0: f"{key.bot_b} wins", 0.5: "drawn"}.get(
        -1.0 if row.score_a is None else row.score_a, "undecided"
    )
    return f"{game}: {verdict} {{{row.reason}}}, {row.hands} hands, {row.seconds:.1f} s"


def _report(database: Path, sprt: SprtTest | None) -> Report:
    """The report of what ``database`` holds now."""
    rows, runs = _stored(database)
    return build_report(rows, bot_names(rows, runs), sprt=sprt)


def run_job(args: argparse.Namespace) -> int:
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConfigDeprecation)
            config = _config(args)
    except (ConfigError, DatabaseError) as err:
        return _fail(str(err))
    for warning in caught:
        print(f"arena run: {args.config}: {warning.message}", file=sys.stderr)
    if _from_database(args):  # what it will start came from the file: say it first
        _say(stored_config_line(config))
    if config.deal_set is not None:  # a public set (docs/deal-sets.md): say which
        _say(f"deals from the deal set {config.deal_set.name} (sha256 {config.deal_set.sha256})")
    stored_rows, runs = _stored(config.database)
    sprt = None if args.sprt is None else SprtTest(*args.sprt)
    if sprt is not None and len(config.bots) != 2:
        return _fail("--sprt compares exactly two bots")
    choice = sprt_to_run(sprt, runs, len(config.bots), resume=args.resume)
    sprt = choice.test
    if choice.said is not None:
        _say(choice.said)
    problem = _ray_problem(args)
    if problem is not None:
        return _fail(problem)
    if args.resume and games_left(config) == []:  # the report alone: no server, no bar
        configure_logging(args.log_level)
        return _finish(args, config, sprt, RunResult(skipped=len(schedule(config))))
    if args.ray is None:
        try:
            check_can_listen(_address(args))
        except AddressError as err:
            return _fail(f"--host/--port: {err}")
    configure_logging(args.log_level)
    console = Console(stderr=True, soft_wrap=True)
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeRemainingColumn(),
        console=console,
        disable=not console.is_terminal,
    )
    task = progress.add_task("games", total=len(schedule(config)))
    tally = Tally(stored_rows)
    played_now = 0

    def on_game(row: GameRow, done: int, all_games: int) -> None:
        nonlocal played_now
        progress.update(task, completed=done)
        lines = [finished_line(row, all_games)]
        lines += [f"  {visible(line)}" for line in game_notes(row)]
        if row.void is None:
            tally.add(row.key, row.score_a)
            lines.append(visible(tally.line(row.key)))
        console.print("\n".join(lines), markup=False, highlight=False)
        played_now += 1
        if args.report_every is not None and played_now % args.report_every == 0:
            wide = console if console.is_terminal else Console(stderr=True, width=150)
            print_standings(_report(config.database, None), wide)

    spectator_token = None
    path = None
    if args.spectator_token is not None:
        spectator_token = new_spectator_token()
        given = args.spectator_token
        path = given if isinstance(given, Path) else _spectator_token_path(config)
        try:
            publish_spectator_token(spectator_token, path, "run")
        except OSError as err:
            return _fail(f"cannot write the spectator token: {err}")
    tune_garbage_collector()
    try:
        with progress:
            run_result = _play(args, config, sprt, spectator_token, on_game, path)
    except (ClusterError, ConnectionError) as err:  # no Ray cluster answered (or Ray said so)
        return _fail(f"--ray {args.ray}: no Ray cluster there ({err})")
    except ArenaError as err:
        return _fail(str(err), err.exit_code)
    return _finish(args, config, sprt, run_result)


def _finish(
    args: argparse.Namespace, config: TournamentConfig, sprt: SprtTest | None, run_result: RunResult
) -> int:
    """The run's end: the report of what the database holds, and the last line (what was
    played now, the faults, why the exit code is not 0)."""
    stored = f"{run_result.played} games played now"
    if run_result.void:
        stored += f" (and {run_result.void} void, to play again)"
    stored += f", {run_result.skipped} already stored in {config.database}"
    if run_result.interrupted:
        _say(
            f"interrupted; {stored}; the games in flight were dropped: run it again with "
            "--resume to go on"
        )
        return 130
    rows, runs = _stored(config.database)
    report = build_report(rows, bot_names(rows, runs), sprt=sprt)
    emit(report, rows, runs, args, live=True)
    if run_result.stopped is not None:
        _say(f"stopped: {run_result.stopped}")
    stored += faults_said(report)
    why = _why_not_clean(report, run_result)
    if why:
        _say(f"{stored}; exit code 1: {'; '.join(why)}")
        return 1
    _say(stored)
    return 0


FAILING = ("forfeits", "crashes")
"""The fault counts (of the report's ``FAULTS``) that keep a run from exit code 0."""


def _counted(report: Report, kinds: Iterable[str]) -> list[str]:
    """``bot: 3 illegal, 1 strikes`` for each bot with any of these fault counts."""
    said = []
    for bot in report.bots:
        counts = [(getattr(bot, kind), FAULTS[kind]) for kind in kinds]
        if any(n for n, _ in counts):
            said.append(f"{bot.bot}: " + ", ".join(f"{n} {name}" for n, name in counts if n))
    return said


def faults_said(report: Report) -> str:
    """The run's last line on the faults its table counts that do not fail the run (those
    that do are said as the reason for exit code 1): every fault kind counted is said.

    >>> from chaodipi.arena.report.summary import FAULTS
    >>> [FAULTS[kind] for kind in FAULTS if kind not in FAILING]
    ['strikes', 'fallbacks', 'illegal']
    """
    said = _counted(report, [kind for kind in FAULTS if kind not in FAILING])
    return f"; faults: {'; '.join(said)}" if said else ""


def _why_not_clean(report: Report, run_result: RunResult) -> list[str]:
    """What keeps a finished run from exit code 0, one item each (empty: nothing)."""
    why = _counted(report, FAILING)
    if run_result.void:
        why.append("void games are left to play with --resume")
    if run_result.stopped is not None:
        why.append("the run was stopped before its end (above)")
    if run_result.problems and not why:  # (a game's problems are its crashes and why it is void)
        why.append(f"{len(run_result.problems)} problems (above)")
    return why


def _address(args: argparse.Namespace) -> str:
    """Where the local run serves (``--host``, ``--port``)."""
    return f"{args.host}:{args.port}"


def _spectator_token_path(config: TournamentConfig) -> Path:
    """Where ``arena run --spectator-token`` writes the token by default: the run's private
    log folder (``<database stem>-logs``, mode 0700)."""
    return prepare_log_dir(config, None) / "spectator-token"


def _play(
    args: argparse.Namespace,
    config: TournamentConfig,
    sprt: SprtTest | None,
    spectator_token: str | None,
    on_game: Callable[[GameRow, int, int], None],
    token_path: Path | None = None,
) -> RunResult:
    """The run itself: on this machine, or on Ray with ``--ray``; with a spectator token
    (written to ``token_path``), each table's name and how to watch it as it opens."""
    backend: Backend
    if args.ray is not None:
        from chaodipi.arena.tournament import RayBackend

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
            log_level=args.log_level,
        )
    return anyio.run(
        lambda: run_tournament(
            config, backend, resume=args.resume, sprt_test=sprt, on_game=on_game
        ),
        backend="asyncio",  # grpc.aio's loop: the table server runs on it
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
    from chaodipi.arena.tournament import import_ray, parse_address

    try:
        parse_address(args.ray)
    except ValueError as err:
        return f"--ray: {err}"
    try:
        import_ray()
    except MissingExtraError as err:
        return f"--ray: {err}"
    return None
