"""``arena bench CMD``: a bot against each rung of the reference ladder, on a public deal set.

It is ``arena run`` with a fixed shape: a gauntlet of the bot against the rungs of
:data:`chaodipi.arena.tournament.rungs.RUNGS` that play the preset (``rungs_of``: a learned rung
only where a model for the preset is shipped; ``--rungs`` picks some), on the preset's shipped
standard deal set (``--deal-set``), each deal played twice with the seats swapped, stored in a
results database like any run (``--resume`` goes on, ``arena report`` reprints it). It prints
one table, a row per rung: the bot's score with its 95 % interval, Elo ± its 95 % error and
the likelihood of superiority, all from the duplicate pairs (``docs/report.md``; below 10
pairs each says ``— (needs ≥ 10 pairs)``), and the bot's levels gained per hand and its team's
points per hand it defended.

``--ladder`` plays each chosen rung against the one below it instead (no CMD), one database
per row, and prints each row's command to play it again: that is how the README's ladder is
made.

When the bot is an in-process bot (CMD ``py:MODULE:NAME``), and with ``--ladder``, the rungs are
played in-process too (each rung's ``callable``), every game in a worker process beside its
table (docs/architecture.md, "In-process bots"); ``--workers 0`` plays every bot as a process,
the rungs by their commands.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from chaodipi.arena.cli.arguments import (
    LOG_LEVELS,
    database_file,
    deal_set_file,
    milliseconds,
    whole,
)
from chaodipi.arena.results import BOT_NAME, BOT_NAME_RULE
from chaodipi.arena.tournament import RUNGS, Rung, rung, rungs_of
from chaodipi.engine import PRESETS

if TYPE_CHECKING:
    from chaodipi.arena.tournament import TournamentConfig

__all__ = ["add_command", "bench_command", "duration_text", "estimate_s"]

BENCH_EXIT_CODES = """\
exit codes:
  0    every game played and stored, none void, no bot crashed or forfeited
  1    the games stored, but not cleanly: a bot crashed or forfeited, void games are left to
       play with --resume, or the run was stopped (a bot kept failing to start); the line on
       stderr says which
  2    the command line cannot run, the deal set is missing or does not match the engine's
       deal, or the database holds another run (the line on stderr says why); nothing played
  130  interrupted (Ctrl-C, SIGTERM): the games in flight were dropped; --resume goes on"""

DEALS = 100
"""``-n``'s default: deals of the set, each played twice per rung."""
HANDS = 2
"""``--hands``'s default."""
JOBS = 2
"""``-j``'s default: games at once."""

BENCH_EPILOG = """\
the rungs (chaodipi/arena/tournament/rungs.py), weakest first, each by its command and as an
in-process bot (played so when CMD is one too, and with --ladder):
{rungs}

the rungs of each preset (the default --rungs; a learned rung plays a model trained on one
preset, and is a rung only where a model for the preset is shipped):
{presets}

how long: the default bench is {games} games of {hands} hands ({deals} deals, each twice,
against each of classic's {rung_count} rungs), roughly {time} on 2 cores; it says its own estimate
(the games to play, roughly how long) before it starts. Fewer deals (-n), rungs (--rungs) or
hands (--hands) make it shorter.

the bot's budget is the time control: --decision-ms per decision and --bank-ms per game,
the same for every seat; the rungs think at the fixed budgets above (playouts a decision)
whatever the time control, capped at 500 ms a decision: keep --decision-ms at 600 or more.
Results compare between machines and labs only with the same preset, deal set, --deals,
--hands and time control; give your bot a fixed budget of its own (simulations rather than
milliseconds) in CMD to make its play the same on a faster machine.

the deal set is public: a bench measures bots that do not memorize it (docs/trust.md).
"""


def _rungs(text: str) -> tuple[Rung, ...]:
    """``--rungs``: names of :data:`RUNGS`, comma-separated, in the ladder's order."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    known = [r.name for r in RUNGS]
    for name in names:
        if name not in known:
            raise argparse.ArgumentTypeError(f"no rung {name!r}; the rungs: {', '.join(known)}")
    if len(set(names)) != len(names) or not names:
        raise argparse.ArgumentTypeError(
            f"name each rung once, e.g. random,heuristic, not {text!r}"
        )
    return tuple(sorted((rung(n) for n in names), key=RUNGS.index))


def _chosen(args: argparse.Namespace) -> tuple[Rung, ...]:
    """The rungs to play: ``--rungs``, or the preset's (:func:`rungs_of`)."""
    return rungs_of(args.preset) if args.rungs is None else tuple(args.rungs)


def _name(text: str) -> str:
    if not BOT_NAME.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text!r}: {BOT_NAME_RULE}")
    return text


def _fail(message: str, code: int = 2) -> int:
    print(f"arena bench: {message}", file=sys.stderr)
    return code


def _ladder_database(database: Path, upper: Rung, lower: Rung) -> Path:
    """A ladder row's database, beside ``database``: ``STEM-UPPER-vs-LOWER.sqlite``."""
    return database.with_name(f"{database.stem}-{upper.name}-vs-{lower.name}{database.suffix}")


def in_process(args: argparse.Namespace) -> bool:
    """Whether the rungs play in-process: the bot is an in-process bot (or there is none, with
    ``--ladder``), and ``--workers`` is not 0.

    >>> in_process(argparse.Namespace(ladder=False, command="py:mine:Bot", workers=None))
    True
    >>> in_process(argparse.Namespace(ladder=False, command="python3 mine.py", workers=None))
    False
    """
    bot = args.ladder or str(args.command).startswith("py:")
    return bool(bot) and args.workers != 0


def rung_command(args: argparse.Namespace, chosen: Rung) -> str:
    """A rung's command in this bench: its in-process form or its process's command."""
    return chosen.callable if in_process(args) else chosen.command


def _jobs(args: argparse.Namespace) -> list[tuple[str, TournamentConfig]]:
    """The runs to play: (what the table's row is called, its config); raises ConfigError."""
    from chaodipi.arena.tournament import load_config

    keys: dict[str, object] = {
        "preset": args.preset,
        "hands": args.hands,
        "deals": args.deals,
        "first_deal": args.first_deal,
        "concurrency": args.concurrency,
        "decision_ms": args.decision_ms,
        "bank_ms": args.bank_ms,
        "deals_file": str(args.deal_set),
        "workers": args.workers,
    }
    database = args.database
    if args.ladder:
        pairs = list(zip(args.rungs[1:], args.rungs[:-1], strict=True))
        return [
            (
                f"{upper.name} vs {lower.name}",
                load_config(
                    None,
                    {**keys, "database": str(_ladder_database(database, upper, lower))},
                    {u.name: rung_command(args, u) for u in (upper, lower)},
                ),
            )
            for upper, lower in pairs
        ]
    bots = {args.name: args.command, **{r.name: rung_command(args, r) for r in args.rungs}}
    config = load_config(
        None,
        {**keys, "database": str(database), "schedule": "gauntlet", "gauntlet": args.name},
        bots,
    )
    return [("", config)]


def missing_module(command: str) -> str | None:
    """The module a ``python3 -m MODULE …`` command runs, when this install has none such
    (a rung of a newer ladder than the installed bots); None otherwise.

    >>> missing_module("python3 -m chaodipi.sample_bots.no_such_bot --fast")
    'chaodipi.sample_bots.no_such_bot'
    >>> missing_module("python3 -m chaodipi.sample_bots.random_bot"), missing_module("./bot")
    (None, None)
    """
    import importlib.util

    words = shlex.split(command)
    if len(words) < 3 or words[0] not in ("python3", "python") or words[1] != "-m":
        return None
    try:
        found = importlib.util.find_spec(words[2])
    except (ImportError, ValueError):
        found = None
    return words[2] if found is None else None


def _problem(args: argparse.Namespace) -> str | None:
    """What in the command line cannot run, before anything is read or played."""
    if args.ladder:
        if args.command is not None:
            return "--ladder plays the rungs against each other: give no CMD"
        if len(args.rungs) < 2:
            return "--ladder needs at least two rungs (--rungs)"
    elif args.command is None:
        return "give the bot's command, CMD (or --ladder)"
    else:
        try:
            if not shlex.split(args.command):
                return "CMD is empty"
        except ValueError as err:
            return f"CMD cannot be split ({err})"
        if args.name in {r.name for r in args.rungs}:
            return f"--name {args.name}: a rung is called so; give the bot another name"
    for chosen in args.rungs:
        if args.preset not in chosen.presets():
            having = ", ".join(chosen.presets()) or "none in this install"
            return (
                f"rung {chosen.name} plays a model trained on one preset and has none for "
                f"{args.preset} (it has one for: {having}): leave it out of --rungs"
            )
    for chosen in args.rungs if not in_process(args) else ():
        module = missing_module(chosen.command)
        if module is not None:
            return (
                f"rung {chosen.name}: this install has no {module} to run; leave the rung out "
                "(--rungs)"
            )
    return None


def estimate_s(games: Iterable[tuple[str, str]], hands: int, concurrency: int) -> float | None:
    """Roughly how many seconds ``games`` (each its two bots' names) of ``hands`` hands take
    on a 2-core machine, at each rung's pace (:attr:`chaodipi.arena.tournament.rungs.Rung.hand_s`;
    a game of two rungs at the mean of theirs); None for whole matches, whose length is not
    known.

    >>> default = [("bot", r.name) for r in RUNGS for _ in range(2 * 100)]
    >>> len(default), round(estimate_s(default, 2, 2) / 3600, 2)
    (1000, 2.67)
    """
    if not hands:
        return None
    paces = {r.name: r.hand_s for r in RUNGS}
    total = 0.0
    for bots in games:
        known = [paces[name] for name in bots if name in paces]
        total += hands * sum(known) / max(len(known), 1)
    return total * 2 / min(concurrency, 2)


def duration_text(seconds: float) -> str:
    """A rough duration: to 5 minutes from an hour on, to the minute below.

    >>> duration_text(9000), duration_text(4000), duration_text(2500), duration_text(20)
    ('2 h 30 min', '1 h 5 min', '42 min', 'under a minute')
    """
    if seconds < 60:
        return "under a minute"
    if seconds < 3600:
        return f"{round(seconds / 60)} min"
    hours, minutes = divmod(round(seconds / 300) * 5, 60)
    return f"{hours} h" + (f" {minutes} min" if minutes else "")


def bench_command(args: argparse.Namespace) -> int:
    from chaodipi.arena.cli.bench_job import bench_job
    from chaodipi.arena.errors import ConfigError

    args.rungs = _chosen(args)
    problem = _problem(args)
    if problem is not None:
        return _fail(problem)
    try:
        jobs = _jobs(args)
    except ConfigError as err:
        return _fail(str(err))
    return bench_job(args, jobs)


def reproduce(args: argparse.Namespace, rungs: tuple[Rung, ...], command: str | None) -> str:
    """The command line that plays the same bench again (its database aside).

    >>> args = argparse.Namespace(preset="classic", deal_set="standard", deals=10, hands=2,
    ...     first_deal=1, decision_ms=1000, bank_ms=30000, name="mine", workers=None)
    >>> print(reproduce(args, RUNGS[::2], "python3 my_bot.py"))  # doctest: +NORMALIZE_WHITESPACE
    python3 -m chaodipi.arena bench 'python3 my_bot.py' --name mine --rungs random,dmc,search
    -p classic -n 10 --hands 2 --decision-ms 1000 --bank-ms 30000
    """
    words = ["python3", "-m", "chaodipi.arena", "bench"]
    words += ["--ladder"] if command is None else [command, "--name", args.name]
    words += ["--rungs", ",".join(r.name for r in rungs), "-p", args.preset]
    if str(args.deal_set) != "standard":
        words += ["--deal-set", str(args.deal_set)]
    words += ["-n", str(args.deals), "--hands", str(args.hands)]
    if args.first_deal != 1:
        words += ["--first-deal", str(args.first_deal)]
    words += ["--decision-ms", str(args.decision_ms), "--bank-ms", str(args.bank_ms)]
    if args.workers == 0:  # the rungs by their commands: other bots than the callables
        words += ["--workers", "0"]
    return shlex.join(words)


def add_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    width = max(len(r.name) for r in RUNGS)
    classic = rungs_of("classic")
    default = [("bot", r.name) for r in classic for _ in range(2 * DEALS)]
    wide = max(len(name) for name in PRESETS)
    bench = commands.add_parser(
        "bench",
        help="play a bot against the reference ladder's rungs",
        description="Play a bot (CMD, a command as arena run -b NAME=CMD takes it) against "
        "each rung of the reference ladder on the preset's standard deal set, duplicate "
        "deals, stored like any run, and print one table: per rung the bot's score, Elo ± "
        "95 % and LOS from the pairs (given from 10 pairs on), its levels per hand and points "
        "per defended hand.",
        epilog=BENCH_EPILOG.format(
            rungs="\n".join(
                f"  {r.name:<{width}}  {r.command}\n  {'':<{width}}  {r.callable}" for r in RUNGS
            ),
            presets="\n".join(
                f"  {preset:<{wide}}  {','.join(r.name for r in rungs_of(preset))}"
                for preset in PRESETS
            ),
            games=len(default),
            deals=DEALS,
            rung_count=len(classic),
            hands=HANDS,
            time=duration_text(estimate_s(default, HANDS, JOBS) or 0.0),
        )
        + "\n"
        + BENCH_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    bench.add_argument(
        "command",
        nargs="?",
        metavar="CMD",
        help="the bot's command, e.g. 'python3 my_bot.py', or a trusted in-process bot, "
        "py:package.module:decide (default: none, with --ladder)",
    )
    bench.add_argument(
        "--name",
        type=_name,
        default="bot",
        help="the bot's name in the database and the table (default bot)",
    )
    bench.add_argument(
        "--rungs",
        type=_rungs,
        default=None,
        metavar="NAME,…",
        help="the rungs to play (default: every rung of the preset, listed below)",
    )
    bench.add_argument(
        "--ladder",
        action="store_true",
        help="play each rung against the one below it (no CMD), one database per row, and "
        "print each row's command",
    )
    bench.add_argument(
        "-p",
        "--preset",
        choices=tuple(PRESETS),
        default="classic",
        help="the rules (default classic)",
    )
    bench.add_argument(
        "--deal-set",
        type=deal_set_file,
        default="standard",
        metavar="FILE",
        help="the deal set (docs/deal-sets.md; default standard: the preset's shipped set)",
    )
    bench.add_argument(
        "-n",
        "--deals",
        type=whole(1),
        metavar="N",
        default=DEALS,
        help=f"how many deals of the set, each played twice per rung (default {DEALS})",
    )
    bench.add_argument(
        "--first-deal",
        metavar="N",
        type=whole(0),
        default=1,
        help="the set's first deal played (default 1)",
    )
    bench.add_argument(
        "--hands",
        metavar="N",
        type=whole(0),
        default=HANDS,
        help=f"hands per game; 0 plays whole matches (default {HANDS})",
    )
    bench.add_argument(
        "--decision-ms",
        metavar="MS",
        type=milliseconds(10),
        default=1000,
        help="time per decision, every seat's (default 1000)",
    )
    bench.add_argument(
        "--bank-ms",
        metavar="MS",
        type=milliseconds(0),
        default=30_000,
        help="time bank per seat and game (default 30000)",
    )
    bench.add_argument(
        "-j",
        "--concurrency",
        metavar="N",
        type=whole(1),
        default=JOBS,
        help=f"games at once (default {JOBS})",
    )
    bench.add_argument(
        "--workers",
        metavar="N",
        type=whole(0),
        default=None,
        help="worker processes for in-process play (when CMD is py:MODULE:NAME, and with "
        "--ladder, the rungs play in-process too, by the second form above); 0 plays every bot "
        "as a process, the rungs by their commands (default: one per core, at most -j)",
    )
    bench.add_argument(
        "-d",
        "--database",
        type=database_file,
        default=Path("bench.sqlite"),
        metavar="FILE",
        help="the results database (default bench.sqlite; with --ladder, "
        "bench-UPPER-vs-LOWER.sqlite beside it for each row)",
    )
    bench.add_argument(
        "--resume",
        action="store_true",
        help="go on with the bench stored in the database: only the games not stored yet "
        "are played",
    )
    bench.add_argument(
        "--json",
        action="store_true",
        help="print the table as JSON, with the deal set's identity and the options (default: "
        "a table)",
    )
    bench.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        default="warning",
        help="how much to log, on stderr (default warning)",
    )
    bench.set_defaults(run=bench_command)
