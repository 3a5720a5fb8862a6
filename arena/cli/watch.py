"""``arena watch ADDRESS TABLE``: follow a live table in the terminal, as a spectator.

A spectator holds the server's operator token (``arena serve --spectator-token``, ``arena run
--spectator-token``), which it reads from a file (``--token-file PATH``) or the environment
(``$ARENA_SPECTATOR_TOKEN``), never from the command line: every user of the machine can read a
command line. It sees the public events only (no hand until the hand is over, when every card
is shown), printed as they come in the transcript ``arena show`` prints, under the bots' names
by seat when the server knows them (a tournament's tables); a table of a tournament shows
nothing until every game on its deal has ended, which it says as it attaches.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from chaodipi.arena.cli.arguments import whole
from chaodipi.arena.errors import ArenaError, SetupError, UsageError
from chaodipi.bot import read_token_file

__all__ = ["SPECTATOR_TOKEN_ENV", "add_command", "read_spectator_token", "watch_command"]

SPECTATOR_TOKEN_ENV = "ARENA_SPECTATOR_TOKEN"
"""The environment variable ``arena watch`` reads the spectator token from."""

DESCRIPTION = f"""\
Follow the table TABLE (a name `arena serve` prints, or `arena run --spectator-token` logs) of
the arena at ADDRESS as it plays: its public events, printed as they come in the transcript
`arena show` prints (each hand's cards once the hand is over, when they are shown to everyone),
then the match's result; a tournament's table names the bots of its seats. The spectator
token comes from --token-file PATH or ${SPECTATOR_TOKEN_ENV}, never from the command line,
which every user of the machine can read. A tournament's table shows nothing until every game
on its deal has ended (it says so as it attaches): then its events come at once."""

EXIT_CODES = """\
exit codes:
  0    the match ended and its result was printed
  1    the stream ended before the match's end (the server went away or released the table)
  2    the command line cannot run: no token, a token file that cannot be read, a token the
       server refused, no such table, or no arena at ADDRESS (the line on stderr says which)
  130  interrupted (Ctrl-C)"""


def read_spectator_token(token_file: Path | None, environ: Mapping[str, str] = os.environ) -> str:
    """The spectator token: the first line of ``token_file``, else ``$ARENA_SPECTATOR_TOKEN``.

    >>> read_spectator_token(None, {"ARENA_SPECTATOR_TOKEN": " s3cret "})
    's3cret'
    >>> read_spectator_token(None, {})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    chaodipi.arena.errors.UsageError: no spectator token: pass --token-file PATH ... or set ...
    """
    if token_file is not None:
        try:
            token = read_token_file(token_file)
        except (OSError, UnicodeDecodeError) as err:
            raise SetupError(f"--token-file {token_file}: cannot read it ({err})") from None
        if not token:
            raise UsageError(f"--token-file {token_file} is empty")
        return token
    token = environ.get(SPECTATOR_TOKEN_ENV, "").strip()
    if not token:
        raise UsageError(
            "no spectator token: pass --token-file PATH (the file arena serve or arena run "
            f"--spectator-token wrote) or set {SPECTATOR_TOKEN_ENV}"
        )
    return token


def _read_ca(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as err:
        raise SetupError(f"--tls-ca {path}: cannot read it ({err})") from None


def watch_command(args: argparse.Namespace) -> int:
    import grpc

    from chaodipi.arena.cli.live import open_watch, refusal, spectating_text, watch_table
    from chaodipi.arena.v2.convert import Spectating

    try:
        token = read_spectator_token(args.token_file)
        root = None if args.tls_ca is None else _read_ca(args.tls_ca)
    except ArenaError as err:
        print(f"arena watch: {err}", file=sys.stderr)
        return err.exit_code
    channel, call = open_watch(args.address, args.table, token, root)
    accepted = False

    def attached(spectating: Spectating) -> None:
        nonlocal accepted
        accepted = True
        line = spectating_text(args.table, args.address, spectating)
        print(f"arena watch: {line}", file=sys.stderr, flush=True)

    try:
        call.initial_metadata()  # the server has taken the spectator in, or refused it
        accepted = not call.done()
        end = watch_table(call, args.table, sys.stdout, width=args.width, on_attach=attached)
    except grpc.RpcError as err:
        print(f"arena watch: {refusal(err, args.address)}", file=sys.stderr)
        return 1 if accepted else 2
    except KeyboardInterrupt:
        call.cancel()
        print("arena watch: interrupted", file=sys.stderr)
        return 130
    finally:
        channel.close()
    if end is None:
        print("arena watch: the stream ended before the match did", file=sys.stderr)
        return 1
    return 0


def add_command(commands: Any) -> None:
    """Add ``watch`` and its options to the ``arena`` command's sub-parsers."""
    watch = commands.add_parser(
        "watch",
        help="follow a live table in the terminal, as a spectator",
        description=DESCRIPTION,
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    watch.add_argument("address", help="the arena's HOST:PORT (arena serve and arena run print it)")
    watch.add_argument("table", help="the table's name")
    watch.add_argument(
        "--token-file",
        type=Path,
        metavar="PATH",
        help=f"read the spectator token from this file (default: ${SPECTATOR_TOKEN_ENV})",
    )
    watch.add_argument(
        "--tls-ca",
        type=Path,
        metavar="PATH",
        help="PEM certificate to check the server's TLS certificate against (default: none, "
        "plaintext, as arena run and arena serve --plaintext serve)",
    )
    watch.add_argument(
        "--width", type=whole(40), default=80, help="the terminal's width (default 80)"
    )
    watch.add_argument(
        "--token",
        action=_NeverOnTheCommandLine,
        help="not taken: every user of the machine can read a command line (the token comes "
        f"from --token-file or, by default, ${SPECTATOR_TOKEN_ENV})",
    )
    watch.set_defaults(run=watch_command)


class _NeverOnTheCommandLine(argparse.Action):
    """``--token``: refused, saying where the token goes instead (a command line is public)."""

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        parser.error(
            "--token: a token on the command line is readable by every user of the machine; "
            f"pass --token-file PATH or set {SPECTATOR_TOKEN_ENV}"
        )
