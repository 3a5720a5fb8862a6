"""``arena serve``: open tables, hand out tickets, run until every match is over.

Each run deals from a secret key of its own (:class:`chaodipi.arena.deals.DealKey`):
table ``i`` (counting from 0) plays ``key.seed(i)``, so no bot can find the deal from the cards it
holds. The key is shown to nobody unless asked (``--deal-key-file``); a game record holds its
table's derived seed only. Watching needs an operator token, made only when asked
(``--spectator-token``). Each table is released as soon as it ends: its result is kept and its
game record written into the records folder (``--records``: ``<table>.jsonl``, the format of
``docs/game-record.md``; every table deals its own cards, so no record shows a deal another
table still plays), and nothing else of it stays in memory. The tables are hosted by
:func:`chaodipi.arena.serving.hosting.host_tables`, which voids a table by the one rule
(:func:`~chaodipi.arena.serving.hosting.void_unseated`); this module reads the command line and
prints.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio

from chaodipi.arena.cli.arguments import (
    LOG_LEVELS,
    add_spectator_token_option,
    listen_address,
    milliseconds,
    output_file,
    output_folder,
    seconds,
    whole,
)
from chaodipi.arena.deals import DealKey
from chaodipi.arena.errors import AddressError, UsageError
from chaodipi.arena.files import make_private_folder, write_private, write_record
from chaodipi.arena.logs import configure_logging
from chaodipi.arena.serving import (
    ArenaServer,
    Table,
    TableConfig,
    TableResult,
    check_can_listen,
    host_tables,
    new_spectator_token,
    table_record,
    tune_garbage_collector,
)
from chaodipi.engine import PRESETS, Ending, preset
from chaodipi.records import visible

__all__ = [
    "add_command",
    "add_spectator_token_option",
    "publish_spectator_token",
    "serve_command",
]

DESCRIPTION = """\
Serve TABLES tables of the chosen preset over gRPC. Each seat has a ticket (a secret): the
tickets are printed as JSON lines (or written to --tickets). Bots connect with
`ArenaService.Play` and present their seat's ticket. A table begins once its four seats are
connected; a table with a seat that has not connected within --connect-timeout seconds is void:
it ends undecided at once ("void: seat 3 did not connect within 60 s", MatchOver ending
ENDING_STOPPED to the seats that came), as a game in `arena run` whose bot never connected. Only
that voids a table: a seat that connected was sent its hand, and from then on what its bot does
counts (an illegal answer, a timeout, a strike, a forfeit), at its first decision as later. The
server exits when every table's match is over (or on Ctrl-C), printing each result as a JSON
line ("void": true for a void table); each table is released from memory as it ends, and a
ticket of a table whose match is over gets NOT_FOUND.

Deals come from a secret key made for this run (table i plays deal i of the key), so no bot can
work out the other hands from its own cards. The key is printed nowhere: --deal-key-file saves
it (readable by you only) so that --reuse-deal-key can deal the very same cards again later.

Spectators (`ArenaService.Watch`) need an operator token, which bots never get: --spectator-token
makes one for this run and writes it to a file readable by you only (PATH, beside the tickets
file, or a temporary file), printing only its name, as `arena run --spectator-token` does.
Without it, Watch is refused."""

EXIT_CODES = """\
exit codes:
  0    every table's match was played to its end
  1    some table's was not: a forfeit, a void table, the server stopped (Ctrl-C, SIGTERM) or
       a table failed; a line on stderr names each such table and why
  2    the command line cannot run (a bad option, unreadable TLS files, an address the server
       cannot listen on, such as a port another server holds); nothing was served
  130  interrupted before serving began"""


def add_command(commands: Any) -> None:
    """Add ``serve`` and its options to the ``arena`` command's sub-parsers."""
    serve = commands.add_parser(
        "serve",
        help="serve tables that bots join over gRPC",
        description=DESCRIPTION,
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    serve.add_argument(
        "--address",
        type=listen_address,
        default="127.0.0.1:50051",
        help="HOST:PORT to listen on; port 0: any free one (default 127.0.0.1:50051)",
    )
    serve.add_argument(
        "--preset", default="classic", help=f"rule preset: {', '.join(PRESETS)} (default classic)"
    )
    serve.add_argument("--tables", type=whole(1), default=1, help="tables to open (default 1)")
    serve.add_argument(
        "--hands", type=whole(0), default=0, help="cut matches after N hands (default 0: never)"
    )
    serve.add_argument(
        "--decision-ms",
        type=milliseconds(1),
        default=1000,
        help="time per decision, in ms (default 1000)",
    )
    serve.add_argument(
        "--bank-ms",
        type=milliseconds(0),
        default=30_000,
        help="time bank per seat and match, in ms (default 30000)",
    )
    serve.add_argument(
        "--max-strikes", type=whole(1), default=3, help="timeouts before a forfeit (default 3)"
    )
    serve.add_argument(
        "--connect-timeout",
        type=seconds,
        default=60.0,
        help="seconds for a table's four bots to connect; a table with a seat still missing "
        "then is void (default 60)",
    )
    serve.add_argument(
        "--tls-cert", type=Path, help="PEM server certificate (with --tls-key; default: none)"
    )
    serve.add_argument(
        "--tls-key", type=Path, help="PEM private key of the certificate (default: none)"
    )
    serve.add_argument(
        "--plaintext", action="store_true", help="serve without TLS (only for trusted networks)"
    )
    serve.add_argument(
        "--tickets",
        type=output_file,
        help="write the tickets here (readable by you only; default: stdout)",
    )
    serve.add_argument(
        "--records",
        type=output_folder,
        metavar="DIR",
        help="write each table's game record (docs/game-record.md) into DIR as it ends "
        "(default: TICKETS-records beside --tickets, or arena-records here without it)",
    )
    keys = serve.add_mutually_exclusive_group()
    keys.add_argument(
        "--deal-key-file",
        type=output_file,
        metavar="PATH",
        help="save this run's secret deal key to PATH (a new file, readable by you only), to "
        "deal the same cards again with --reuse-deal-key; never give it to a bot (default: not "
        "saved)",
    )
    keys.add_argument(
        "--reuse-deal-key",
        type=Path,
        metavar="PATH",
        help="deal from the key saved by an earlier run's --deal-key-file: table i gets the "
        "same cards as that run's table i (bots that played that run have seen them; default: "
        "a new key)",
    )
    add_spectator_token_option(
        serve,
        "TICKETS.spectator beside --tickets, or a new temporary file without it",
    )
    serve.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        default="info",
        help="how much to log, on stderr (default info)",
    )
    serve.set_defaults(run=serve_command)


def serve_command(args: argparse.Namespace) -> int:
    """Run ``arena serve`` (its exit codes: :data:`EXIT_CODES`)."""
    try:
        configs, tls = _prepare(args)
    except UsageError as err:
        print(f"arena serve: {err}", file=sys.stderr)
        return 2
    configure_logging(args.log_level)
    tune_garbage_collector()
    token = new_spectator_token() if args.spectator_token else None
    try:
        results = _host(args, configs, tls, token)
    except (RuntimeError, OSError) as err:
        print(f"arena serve: {err}", file=sys.stderr)
        return 2
    for result in results:
        print(json.dumps(_summary(result, args.records), ensure_ascii=False))
    unfinished = [r for r in results if r.outcome.ending is not Ending.PLAYED_OUT]
    if not unfinished:
        return 0
    print(
        f"arena serve: exit code 1: {len(unfinished)} of {len(results)} tables did not play "
        "to the end: " + visible("; ".join(f"{r.table} ({r.outcome.reason})" for r in unfinished)),
        file=sys.stderr,
    )
    return 1


def _prepare(
    args: argparse.Namespace,
) -> tuple[list[TableConfig], tuple[bytes, bytes] | None]:
    """Check the command line; the tables' configurations (dealing from this run's key) and
    the TLS pair."""
    try:
        rules = preset(args.preset)
    except ValueError as err:
        raise UsageError(str(err)) from None
    if (args.tls_cert is None) != (args.tls_key is None):
        raise UsageError("give both --tls-cert and --tls-key, or neither")
    if args.tls_cert is None and not args.plaintext:
        raise UsageError(
            "no TLS certificate given: pass --tls-cert and --tls-key, or --plaintext to serve "
            "without encryption (fine on 127.0.0.1)"
        )
    try:
        tls = (args.tls_cert.read_bytes(), args.tls_key.read_bytes()) if args.tls_cert else None
    except OSError as err:
        raise UsageError(f"cannot read the TLS files: {err}") from None
    try:
        check_can_listen(args.address)  # before a file is written
    except AddressError as err:
        raise UsageError(str(err)) from None
    if args.records is None:
        tickets = args.tickets
        beside = None if tickets is None else tickets.with_name(f"{tickets.name}-records")
        args.records = beside or Path("arena-records")
    try:
        make_private_folder(args.records)
    except OSError as err:
        raise UsageError(f"--records {args.records}: {err.strerror}") from None
    key = _deal_key(args)
    configs = [
        TableConfig(
            rules,
            seed=key.seed(i),
            max_hands=args.hands or None,
            decision_ms=args.decision_ms,
            bank_ms=args.bank_ms,
            max_strikes=args.max_strikes,
            connect_timeout_s=args.connect_timeout,
        )
        for i in range(args.tables)
    ]
    return configs, tls


def _deal_key(args: argparse.Namespace) -> DealKey:
    """This run's deal key: read (``--reuse-deal-key``), or new and maybe saved."""
    if args.reuse_deal_key is not None:
        try:
            return DealKey.from_hex(args.reuse_deal_key.read_text(encoding="ascii"))
        except (OSError, ValueError) as err:
            raise UsageError(f"cannot read the deal key {args.reuse_deal_key}: {err}") from None
    key = DealKey.new()
    if args.deal_key_file is not None:
        try:
            write_private(args.deal_key_file, key.hex() + "\n")
        except FileExistsError:
            raise UsageError(
                f"{args.deal_key_file} exists: choose a new file for this run's key (to deal "
                "that key's cards again, pass it with --reuse-deal-key)"
            ) from None
        except OSError as err:
            raise UsageError(f"cannot write the deal key: {err}") from None
    return key


def _host(
    args: argparse.Namespace,
    configs: list[TableConfig],
    tls: tuple[bytes, bytes] | None,
    spectator_token: str | None,
) -> list[TableResult]:
    """Serve the tables (:func:`chaodipi.arena.serving.hosting.host_tables`): the spectator
    token's file and the tickets once the server listens, each table's game record as it ends."""

    def announce(server: ArenaServer, tables: list[Table]) -> None:
        if spectator_token is not None:  # first: the tickets file says the server is ready
            path = _spectator_token_path(args.spectator_token, args.tickets)
            publish_spectator_token(spectator_token, path, "serve")
        lines = [
            json.dumps(
                {"table": t.name, "seat": s, "ticket": t.ticket(s), "address": server.address}
            )
            for t in tables
            for s in range(4)
        ]
        _publish(lines, args.tickets)

    def ended(table: Table) -> None:
        write_record(_record_path(args.records, table.name), table_record(table))

    def stopping() -> None:
        print("arena serve: stopping", file=sys.stderr)

    return anyio.run(
        functools.partial(
            host_tables,
            args.address,
            configs,
            tls=tls,
            spectator_token=spectator_token,
            announce=announce,
            ended=ended,
            stopping=stopping,
        ),
        backend="asyncio",
    )


def _record_path(records: Path, table: str) -> Path:
    return records / f"{table}.jsonl"


def _publish(lines: list[str], path: Path | None) -> None:
    if path is None:
        print("\n".join(lines), flush=True)
        return
    write_private(path, "\n".join(lines) + "\n", replace=True)
    print(f"arena serve: {len(lines)} tickets written to {path}", file=sys.stderr, flush=True)


def publish_spectator_token(token: str, path: Path, command: str) -> None:
    """Write the operator's Watch token to ``path`` (readable by its owner only, replacing
    what was there) and say where on stderr: the token itself is never printed."""
    write_private(path, token + "\n", replace=True)
    print(
        f"arena {command}: spectator token written to {path} (readable by you only)",
        file=sys.stderr,
        flush=True,
    )


def _spectator_token_path(given: Path | bool, tickets: Path | None) -> Path:
    """Where ``arena serve`` writes the spectator token: PATH, beside the tickets file, or
    a new temporary file (made readable by its owner only)."""
    if isinstance(given, Path):
        return given
    if tickets is not None:
        return tickets.with_name(tickets.name + ".spectator")
    descriptor, name = tempfile.mkstemp(prefix="arena-serve-", suffix=".spectator")
    os.close(descriptor)
    return Path(name)


def _summary(result: TableResult, records: Path) -> dict[str, object]:
    outcome = result.outcome
    return {
        "table": result.table,
        "winner": outcome.winner,
        "hands": outcome.hands,
        "progress": list(outcome.progress),
        "forfeited_by": outcome.forfeited_by,
        "reason": outcome.reason,
        "void": result.void is not None,
        "strikes": [s.strikes for s in result.seats],
        "fallbacks": [s.fallbacks for s in result.seats],
        "illegal": [s.illegal for s in result.seats],
        "record": str(_record_path(records, result.table)),
    }
