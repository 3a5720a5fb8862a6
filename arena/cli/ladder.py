"""``arena ladder``: a standing ladder (docs/ladder.md).

``serve`` runs it until it is stopped; ``status`` prints its standings and what is playing;
``add``, ``pause``, ``resume``, ``retire`` and ``freeze`` ask the running ladder (its pages'
operator API, with the operator's token from the file ``serve`` wrote); ``export`` writes its
ratings and pairs as CSV or JSON. Every command takes the ladder's config file first.

The operator's token is made by the first ``serve`` and written beside the config
(``NAME-operator.token`` for ``NAME.toml``, owner-only); the ladder keeps only its digest. A
resident bot's token is written by ``add`` to a file readable by its owner only
(``tokens/BOT.token`` beside the config unless ``--token-file`` says where), never printed.
"""

from __future__ import annotations

import argparse
import json
import secrets
import ssl
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from chaodipi.arena.cli.arguments import LOG_LEVELS, ArenaParser, output_file, output_folder, whole
from chaodipi.arena.errors import ArenaError, LadderRefused, SetupError
from chaodipi.arena.extra import missing
from chaodipi.arena.files import make_private_folder, write_private

__all__ = ["add_command", "operator_token_file"]

LADDER_MODULES = {
    "openskill": "openskill",
    "starlette": "starlette",
    "hypercorn": "hypercorn",
    "sqlalchemy": "sqlalchemy",
    "jinja2": "jinja2",
    "sse-starlette": "sse_starlette",
    "psycopg": "psycopg",
}
"""The ``ladder`` extra's distributions and the module each gives."""

EXIT_CODES = """\
exit codes:
  0    done (serve: stopped by Ctrl-C or SIGTERM, everything finished stored)
  1    the running ladder refused the request (the line on stderr says why), or cannot be
       reached
  2    the command line, the config or the database cannot be used (one line says why)"""


def operator_token_file(config_path: Path) -> Path:
    """Where ``serve`` keeps the operator's token: beside the config.

    >>> operator_token_file(Path("/srv/class/ladder.toml"))
    PosixPath('/srv/class/ladder-operator.token')
    """
    return config_path.with_name(f"{config_path.stem}-operator.token")


def add_command(commands: Any) -> None:
    parser = commands.add_parser(
        "ladder",
        help="run a standing ladder: bots that stay, a rating that moves, pages on the web",
        description="A standing ladder: resident bots connect with a token the operator "
        "issued, hosted bots are commands it starts; each new version plays a validation "
        "game, then pairs (one secret deal twice, the seats swapped) chosen to keep every bot "
        "playing; a live rating moves after each pair and an order-free refit publishes each "
        "rating with its 95 % interval (docs/ladder.md).",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")

    def action(name: str, summary: str) -> ArenaParser:
        sub: ArenaParser = actions.add_parser(
            name,
            help=summary,
            description=summary,
            epilog=EXIT_CODES,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        sub.add_argument("config", type=Path, metavar="LADDER.toml", help="the ladder's config")
        return sub

    serve = action(
        "serve", "run the ladder until Ctrl-C or SIGTERM (its pages on the config's web address)"
    )
    serve.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        default="info",
        help="info (the default): the ladder's own lines (pairs, versions, the operator's "
        "requests) and every warning; debug adds each table's and bot session's lines",
    )
    serve.set_defaults(run=_serve)
    status = action("status", "print the standings and what is playing")
    status.add_argument("--json", action="store_true", help="print JSON instead of a table")
    status.set_defaults(run=_status)
    add = action("add", "add a resident bot; its token goes to a file only you can read")
    add.add_argument("name", help="the bot's name (letters, digits and _.+-)")
    add.add_argument(
        "--token-file",
        type=output_file,
        metavar="PATH",
        help="where to write its token (default: tokens/NAME.token beside the config)",
    )
    add.add_argument(
        "--max-sessions",
        type=whole(4),
        help="sessions it may hold at once (default: the config's sessions_per_bot)",
    )
    add.add_argument(
        "--max-tables",
        type=whole(4),
        help="tables it may play at once (default: the config's tables_per_bot)",
    )
    add.set_defaults(run=_add)
    for name, summary in (
        ("pause", "keep a bot out of the schedule (its games in play go on)"),
        ("resume", "schedule a paused bot again (a version paused for its faults too)"),
        ("retire", "take a bot off the ladder for good (its pages stay)"),
    ):
        sub = action(name, summary)
        sub.add_argument("name", help="the bot's name")
        if name == "pause":
            sub.add_argument(
                "--reason",
                default="paused by the operator",
                help="shown on its page (default: 'paused by the operator')",
            )
        sub.set_defaults(run=_operator_action)
    freeze = action("freeze", "end the season: no new versions, a final schedule, a final table")
    freeze.add_argument(
        "--pairs", type=whole(1), default=20, help="final pairs per version (default: 20)"
    )
    freeze.set_defaults(run=_freeze)
    export = action("export", "write the ratings and every pair as CSV files or JSON")
    export.add_argument(
        "--csv",
        type=output_folder,
        metavar="DIR",
        help="write ratings.csv and pairs.csv there (default: none)",
    )
    export.add_argument(
        "--json", type=output_file, metavar="FILE", help="write one JSON document (default: none)"
    )
    export.set_defaults(run=_export)
    parser.set_defaults(run=_missing_action)


def _missing_action(args: argparse.Namespace) -> int:
    return 2


def _fail(args: argparse.Namespace, message: str, code: int) -> int:
    print(f"arena ladder {args.action}: {message}", file=sys.stderr)
    return code


def _extra(args: argparse.Namespace) -> str | None:
    absent = missing(LADDER_MODULES)
    if absent:
        return (
            f"{', '.join(absent)} not installed: install the arena's `ladder` extra, `pip "
            "install -e '.[ladder]'` from a clone of the arena"
        )
    return None


def _config(args: argparse.Namespace) -> Any:
    from chaodipi.arena.ladder import load_ladder

    return load_ladder(args.config)


def _store(config: Any, *, create: bool) -> Any:
    from chaodipi.arena.ladder import Store, database_url

    return Store.open(database_url(config.storage, config.folder), create=create)


# -- serve -------------------------------------------------------------------------------------


def _serve(args: argparse.Namespace) -> int:
    absent = _extra(args)
    if absent:
        return _fail(args, absent, 2)
    import anyio

    from chaodipi.arena.ladder import Ladder, ray_tables
    from chaodipi.arena.logs import configure_logging
    from chaodipi.arena.serving import check_can_listen, token_digest, tune_garbage_collector
    from chaodipi.arena.signals import stop_on_signals

    try:
        config = _config(args)
        check_can_listen(config.address)
        if config.web:
            check_can_listen(config.web)
        store = _store(config, create=True)
        store.claim()
    except ArenaError as err:
        return _fail(args, str(err), err.exit_code)
    token_path = operator_token_file(args.config)
    try:
        token = _operator_token(token_path, store)
    except OSError as err:
        store.close()
        return _fail(args, f"cannot write the operator's token {token_path}: {err}", 2)
    configure_logging(args.log_level, tables_at_info=False)
    tune_garbage_collector()
    log_dir = config.folder / f"{args.config.stem}-logs"
    log_dir.mkdir(mode=0o700, parents=True, exist_ok=True)

    def ready(address: str, web: str) -> None:
        scheme = "https" if config.tls is not None else "http"
        tls = "" if config.tls is None else f" over TLS ({config.tls[0]})"
        pages = f"its pages are at {scheme}://{web}/" if web else "it serves no pages"
        print(
            f"ladder {config.name!r}: resident bots connect to {address}{tls}; {pages}; the "
            f"operator's token is in {token_path}; Ctrl-C stops it",
            file=sys.stderr,
            flush=True,
        )

    async def main(ladder: Ladder) -> None:
        async with anyio.create_task_group() as nursery:
            await nursery.start(stop_on_signals, nursery.cancel_scope.cancel)
            await ladder.run()

    try:
        # Ray first: it takes SIGTERM as it connects, and the ladder's own handler comes after
        with ray_tables(config, log_dir) as cluster:
            ladder = Ladder(
                config,
                store,
                log_dir,
                operator_digest=token_digest(token),
                on_ready=ready,
                ray=cluster,
            )
            anyio.run(main, ladder, backend="asyncio")
    except ArenaError as err:
        return _fail(args, str(err), err.exit_code)
    finally:
        store.close()
    print(
        f"arena ladder serve: stopped; every finished pair is stored in {store.where}",
        file=sys.stderr,
    )
    return 0


def _operator_token(path: Path, store: Any) -> str:
    """The operator's token: the file's, or a new one written there (owner-only); the ladder
    keeps its digest."""
    from chaodipi.arena.serving import token_digest

    if path.exists():
        token = path.read_text(encoding="utf-8").strip()
    else:
        token = secrets.token_urlsafe(32)
        write_private(path, token + "\n")
    store.set_meta("operator_digest", token_digest(token))
    return token


# -- status and export -------------------------------------------------------------------------


def _status(args: argparse.Namespace) -> int:
    absent = _extra(args)
    if absent:
        return _fail(args, absent, 2)
    from chaodipi.arena.ladder import status_document

    try:
        config = _config(args)
        store = _store(config, create=False)
    except ArenaError as err:
        return _fail(args, str(err), err.exit_code)
    try:
        document = status_document(store, config, now=time.time())
    except ArenaError as err:
        return _fail(args, str(err), err.exit_code)
    finally:
        store.close()
    if args.json:
        print(json.dumps(document, indent=2, ensure_ascii=False))
        return 0
    _print_status(document)
    return 0


def _print_status(document: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    now = document["at"]
    table = Table(
        title=f"{document['name']}: {document['pairs']} rated pairs",
        caption="* provisional: its interval is still wide",
    )
    for column in ("#", "version", "Elo", "95 %", "pairs", "last played", "faults"):
        left = column == "version"
        table.add_column(column, justify="left" if left else "right", no_wrap=True)
    for row in document["standings"]:
        rating = row["rating"]
        if rating is None:
            elo, interval = "—", "—"
        elif row["pinned"]:
            elo, interval = f"{rating['elo']:+.0f}", "pinned"
        else:
            elo = f"{rating['elo']:+.0f}"
            interval = f"[{rating['low']:+.0f}, {rating['high']:+.0f}]"
        table.add_row(
            str(row["rank"]),
            row["version"] + (" *" if row["provisional"] else ""),
            elo,
            interval,
            str(row["pairs"]),
            _ago(now, row["last_played"]),
            f"{row['faults']['rate']:.0%}",
        )
    console.print(table)
    for row in document["apart"]:
        console.print(f"{row['version']}: {row['state']}: {row['reason']}", markup=False)
    final = document.get("final")
    if final is not None:
        console.print(f"the season's final table ({final['pairs']} pairs):")
        for place, row in enumerate(final["table"], start=1):
            console.print(
                f"  {place}. {row['version']} {row['elo']:+.0f} "
                f"[{row['low']:+.0f}, {row['high']:+.0f}]",
                markup=False,
            )
    if not document["running"]:
        console.print("the ladder is not running (arena ladder serve starts it)")
    elif document["playing"]:
        console.print("playing now:")
        for p in document["playing"]:
            console.print(
                f"  {p['kind']} pair {p['pair']}: {p['version_a']} vs {p['version_b']}",
                markup=False,
            )
    else:
        console.print("playing now: nothing")


def _ago(now: float, then: float | None) -> str:
    """How long ago, as a person says it: ``never``, ``12 s ago``, ``3 min ago``, ``2 h ago``.

    >>> _ago(1000.0, 988.0), _ago(1000.0, None), _ago(10_000.0, 2_000.0)
    ('12 s ago', 'never', '2 h ago')
    """
    if then is None:
        return "never"
    seconds = max(0.0, now - then)
    for unit, size in (("d", 86_400), ("h", 3_600), ("min", 60)):
        if seconds >= size:
            return f"{seconds // size:.0f} {unit} ago"
    return f"{seconds:.0f} s ago"


def _export(args: argparse.Namespace) -> int:
    absent = _extra(args)
    if absent:
        return _fail(args, absent, 2)
    if args.csv is None and args.json is None:
        return _fail(args, "give --csv DIR, --json FILE or both", 2)
    from chaodipi.arena.ladder import PAIR_COLUMNS, RATING_COLUMNS, export_document
    from chaodipi.arena.report import write_table

    try:
        config = _config(args)
        store = _store(config, create=False)
    except ArenaError as err:
        return _fail(args, str(err), err.exit_code)
    try:
        document = export_document(store, config, now=time.time())
    finally:
        store.close()
    if args.json is not None:
        write_private(
            args.json, json.dumps(document, indent=2, ensure_ascii=False) + "\n", replace=True
        )
    if args.csv is not None:
        make_private_folder(args.csv)
        write_table(args.csv / "ratings.csv", RATING_COLUMNS, document["ratings"])
        write_table(args.csv / "pairs.csv", PAIR_COLUMNS, document["pairs"])
    return 0


# -- the operator's requests -------------------------------------------------------------------


def _request(args: argparse.Namespace, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """POST ``body`` to the running ladder's operator API with the operator's token."""
    config = _config(args)
    token_path = operator_token_file(args.config)
    try:
        token = token_path.read_text(encoding="utf-8").strip()
    except OSError:
        raise SetupError(
            f"no operator token at {token_path}: the ladder writes it when it first serves "
            f"(arena ladder serve {args.config})"
        ) from None
    host, _, port = config.web.rpartition(":")
    if host in ("0.0.0.0", "::", "[::]", ""):
        host = "127.0.0.1"
    scheme, context = "http", None
    if config.tls is not None:  # trust exactly the ladder's own certificate
        scheme = "https"
        context = ssl.create_default_context(cafile=str(config.tls[0]))
        context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN  # the certificate is the anchor
        context.check_hostname = False
    url = f"{scheme}://{host}:{port}/api/operator/{path}"
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30, context=context) as response:
            answer: dict[str, Any] = json.loads(response.read() or b"{}")
            return answer
    except urllib.error.HTTPError as err:
        try:
            why = json.loads(err.read()).get("error", err.reason)
        except ValueError:
            why = err.reason
        raise LadderRefused(str(why)) from None
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        raise LadderRefused(
            f"the ladder's pages at {scheme}://{host}:{port}/ do not answer ({reason}): is it "
            f"running? (arena ladder serve {args.config})"
        ) from None


def _ask(args: argparse.Namespace, path: str, body: dict[str, Any]) -> dict[str, Any] | int:
    absent = _extra(args)
    if absent:
        return _fail(args, absent, 2)
    try:
        return _request(args, path, body)
    except ArenaError as err:
        return _fail(args, str(err), err.exit_code)


def _add(args: argparse.Namespace) -> int:
    from chaodipi.arena.results import BOT_NAME, BOT_NAME_RULE

    if not BOT_NAME.fullmatch(args.name):
        return _fail(args, f"bot name {args.name!r}: {BOT_NAME_RULE}", 2)
    path = args.token_file or args.config.resolve().parent / "tokens" / f"{args.name}.token"
    if path.exists():
        return _fail(args, f"{path} exists: give another --token-file, or remove it", 2)
    body = {"name": args.name, "max_sessions": args.max_sessions, "max_tables": args.max_tables}
    answer = _ask(args, "bots", body)
    if isinstance(answer, int):
        return answer
    make_private_folder(path.parent)
    write_private(path, answer["token"] + "\n")
    config = _config(args)
    tls = "" if config.tls is None else " --root-certificate CA.pem"
    print(
        f"bot {args.name} added; its token is in {path} (readable by you only: hand it to the "
        f"bot's owner, never on a command line). Its processes connect with\n"
        f"  python3 my_bot.py --address {config.address} --token-file {path}{tls} "
        "--bot-version v1\n"
        f"four at least (a pair seats four copies of a bot, each in a process of its own); a "
        f"new --bot-version starts a new rated version"
        + (
            ""
            if config.tls is None
            else f"; CA.pem is {config.tls[0]} when it is self-signed, else its CA's certificate"
        )
    )
    return 0


def _operator_action(args: argparse.Namespace) -> int:
    body = {"reason": args.reason} if args.action == "pause" else {}
    answer = _ask(args, f"bots/{args.name}/{args.action}", body)
    if isinstance(answer, int):
        return answer
    print(
        f"bot {args.name}: {args.action}d" if args.action != "pause" else f"bot {args.name}: paused"
    )
    return 0


def _freeze(args: argparse.Namespace) -> int:
    answer = _ask(args, "freeze", {"final_pairs": args.pairs})
    if isinstance(answer, int):
        return answer
    print(f"the season is frozen: each active version plays {args.pairs} final pairs")
    return 0
