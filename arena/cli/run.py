"""``arena run``: its command line. Bots come from ``--bot NAME=COMMAND`` or a TOML config
file (both: the options win), every config key is an option (made from
:data:`chaodipi.arena.tournament.config.KEYS`), and nothing heavy is imported here: the run
itself is :mod:`chaodipi.arena.cli.run_job`, imported when it starts, so that ``arena run
--help`` answers at once.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from chaodipi.arena.cli.arguments import (
    LOG_LEVELS,
    add_spectator_token_option,
    bot,
    config_value,
    host,
    output_folder,
    sprt_hypotheses,
    time_control,
    whole,
)
from chaodipi.arena.tournament import KEYS, config_help

__all__ = ["add_command", "run_command"]


def run_command(args: argparse.Namespace) -> int:
    from chaodipi.arena.cli.run_job import run_job

    return run_job(args)


CONFIG_HELP = f"""\
a tournament from the command line alone, 20 deals of two bots, a game's progress on stderr:

  arena run -b random='python3 -m chaodipi.sample_bots.random_bot' \\
            -b heuristic='python3 -m chaodipi.sample_bots.heuristic_bot' -n 20 --tc 500+10000

a config file, every key with its default (each is also an option above, which wins):

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
  [bots.trusted]
  command = "py:package.module:decide"   # an in-process bot (below)

a command bot runs as a pool of long-lived processes started with --address ADDRESS (also in
ARENA_ADDRESS) and its session token in the environment only, ARENA_TOKEN (never on the command
line, which every user of the machine can read; a fresh = true bot gets ARENA_TICKET): each
opens a session (ArenaService.Enter) and is offered seats game after game, several at once if
it asks; a process is never given two seats of one deal, so it may remember what it saw. A
process that dies is replaced; a bot that fails to start (to take its seat) or whose processes
die in 3 games in a row stops the run; a seat not taken while the server refused streams for
lack of room (at its cap) is not counted against the bot. Each process's stderr goes to
<database stem>-logs/NAME#N.stderr.

in-process bots: a command py:MODULE:NAME (-b mine=py:package.module:decide) names a Python
callable in a module, decide(view) for every seat, or a class made once per seat and game whose
instances decide; the module is imported from the config file's folder first. A game between
two such bots is played in a worker process (--workers, one per core by default), its table
calling decide itself with the seat's view: no process per bot, no socket, no conversion, the
speed of in-process play, by the same clocks, strikes, fallbacks and forfeits (a decide that
raises is its bot's crash; one still running when its seat would have struck out is stopped,
and its team forfeits). Its stderr goes to <database stem>-logs/NAME#wK.stderr (worker K), its
stdout nowhere. Such a bot shares memory with its table, in the arena's worker, and with every
seat of its game (it could read the whole deal): for trusted bots only, yours (docs/trust.md).
Against any other bot, or with --workers 0, it plays as a process over the link (python3 -m
chaodipi.bot.callables MODULE:NAME).

bot commands run in the config file's folder (without a file: the current one), with the
arena's environment (PATH included); a command starting with python3 (or python) runs with
the interpreter running the arena, so it has the arena's packages; spell out another
(/usr/bin/python3, python3.12) to use that one.

deals come from a secret key made for each tournament and kept in its database: --resume
plays the same cards, and no bot can work out a deal from its number. A game in which a bot
never took its seat (it could not start, or exited or did not connect within connect_timeout
seconds, before it was sent its hand) is void: kept out of the statistics and played again on
--resume. Once a seat has been sent its hand, every failure counts, at the bot's first decision
as later: an illegal answer is refused and counted, a timeout is a strike, and a process that
exits (a crash, a decide that raised, a bridge that gave up on a refused answer) forfeits the
game ("crashed after it was sent its hand" in the log), so no bot can make a deal it dislikes
no result.
Ctrl-C stops cleanly (exit code 130):
the games in flight are dropped, and --resume goes on.

--deals-file FILE (the deals_file key) plays a public deal set's deals instead of a secret
key's (docs/deal-sets.md; standard: the preset's shipped set; arena deals export writes one):
for research between bots that do not memorize them, not for contests.

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


def add_command(commands: Any) -> None:
    """Add ``run`` and its options to the ``arena`` command's sub-parsers."""
    run = commands.add_parser(
        "run",
        help="run a tournament (bots from --bot or a TOML config)",
        description="Run a tournament: every pairing plays the same deals, each twice with "
        "the teams' seats swapped (duplicate deals). Bots are commands the arena keeps running as "
        "pools of processes that play game after game in sessions (--address, and ARENA_TOKEN "
        "in their environment), or "
        "external bots whose processes connect with a token. Results go to SQLite as each game "
        "ends; after each game a line `Score of A vs B: W - L - D [score] N` goes to stderr.",
        epilog=CONFIG_HELP + "\n" + RUN_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument(
        "config",
        type=Path,
        nargs="?",
        help="the tournament's TOML file (default: none, the bots given with --bot)",
    )
    run.add_argument(
        "-b",
        "--bot",
        type=bot,
        action="append",
        default=[],
        metavar="NAME=COMMAND",
        help="a bot the arena starts, e.g. -b mine='python3 my_bot.py', or a trusted Python bot "
        "it calls in-process, -b mine=py:package.module:decide (below); repeat it for each bot "
        "(default: the config file's [bots])",
    )
    run.add_argument(
        "--resume",
        action="store_true",
        help="continue the tournament stored in the database, or grow it (more deals, another "
        "bot, another schedule): only the games not stored yet are played; with none left, the "
        "report is printed and nothing is started. Without a config file or --bot, the config "
        "the database's last run stored is the config (the options still win): arena run -d "
        "DB --resume",
    )
    run.add_argument(
        "--sprt",
        type=sprt_hypotheses,
        metavar="ELO0,ELO1,ALPHA,BETA",
        help="stop a two-bot match once the SPRT decides; stored with the run (default: none, "
        "or with --resume the stored run's)",
    )
    run.add_argument(
        "--report-every",
        type=whole(1),
        metavar="K",
        help="print the standings on stderr after every K games (default: only at the end)",
    )
    run.add_argument("--json", action="store_true", help="print the report as JSON")
    run.add_argument(
        "--csv",
        type=output_folder,
        metavar="DIR",
        help="also write the report as CSV, standings.csv, pairings.csv and games.csv, into "
        "this folder (default: none)",
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
    keys = run.add_argument_group(
        "config keys",
        "every key of the config file, which these win over (default: the file's value, else "
        "the one shown; a path given here is relative to the current folder)",
    )
    for key in KEYS:
        flags = [key.flag] if key.short is None else [key.short, key.flag]
        metavar = {
            "whole": "N", "seconds": "SECONDS", "file": "FILE", "folder": "DIR", "deal_set": "FILE"
        }.get(
            key.kind, "NAME"
        )
        default = "" if key.default is None else f" (default {key.default})"
        keys.add_argument(
            *flags,
            dest=key.name,
            type=config_value(key),
            metavar=metavar,
            help=f"{key.help}{default}",
        )
    keys.add_argument(
        "-t",
        "--tc",
        type=time_control,
        metavar="DECISION_MS[+BANK_MS]",
        help="the time control: decision_ms, and bank_ms after a +",
    )
    keys.add_argument("--seeds", type=whole(1), dest="deals", help=argparse.SUPPRESS)
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
    run.set_defaults(run=run_command)
