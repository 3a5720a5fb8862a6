"""``arena deals``: write a public deal set (``export``) and print one (``show``).

A set's format is ``docs/deal-sets.md``; ``arena run --deals-file FILE`` (or the config's
``deals_file``) plays it. The key a set is dealt from is published in the set: it comes from
``--key-file`` (never from the command line, which other users can read) or is made afresh.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

from chaodipi.arena.cli.arguments import output_file, whole
from chaodipi.arena.deals import DealKey
from chaodipi.arena.tournament import (
    DealSetError,
    export_document,
    load_deal_set,
    resolve_deal_set,
    write_document,
)
from chaodipi.engine import PRESETS

__all__ = ["add_command"]

EXPORT_EXIT_CODES = """\
exit codes:
  0    written
  2    a bad argument, a key file that cannot be read or is not a key, or FILE exists already
       (nothing is overwritten) or cannot be written"""

DEALS_EXIT_CODES = """\
exit codes:
  0    done
  2    a bad argument, or a set that cannot be read or does not match the engine's deal
       (arena deals ACTION --help says each ACTION's)"""

SHOW_EXIT_CODES = """\
exit codes:
  0    printed
  2    the set cannot be read, does not match the engine's deal, or has no deal N"""


def _fail(command: str, message: str) -> int:
    print(f"arena deals {command}: {message}", file=sys.stderr)
    return 2


def _export(args: argparse.Namespace) -> int:
    if args.key_file is None:
        key = DealKey.new()
    else:
        try:
            key = DealKey.from_hex(args.key_file.read_text(encoding="ascii"))
        except (OSError, UnicodeDecodeError) as err:
            return _fail("export", f"--key-file {args.key_file}: cannot read it ({err})")
        except ValueError as err:
            return _fail("export", f"--key-file {args.key_file}: {err}")
    exists = f"{args.output} exists: nothing overwritten (choose another -o)"
    if args.output.exists():
        return _fail("export", exists)
    document = export_document(
        args.preset, key, first=args.first, count=args.count, hands=args.hands
    )
    try:
        write_document(document, args.output)
    except FileExistsError:  # made meanwhile, or a link planted there
        return _fail("export", exists)
    except OSError as err:
        return _fail("export", f"cannot write {args.output}: {err.strerror or err}")
    digest = hashlib.sha256(args.output.read_bytes()).hexdigest()
    hands = f"{args.hands} hand{'' if args.hands == 1 else 's'}"
    print(
        f"wrote {args.count} deals of preset {args.preset} (numbers {args.first} to "
        f"{args.first + args.count - 1}, the cards of {hands} each) to {args.output}, "
        f"sha256 {digest}; play them with: arena run --deals-file {args.output} -p {args.preset}"
    )
    return 0


def _show(args: argparse.Namespace) -> int:
    try:
        deal_set = load_deal_set(resolve_deal_set(args.file, args.preset))
    except DealSetError as err:
        return _fail("show", str(err))
    numbers = deal_set.numbers()
    print(
        f"{deal_set.name}: preset {deal_set.preset}, {len(numbers)} deals (numbers "
        f"{min(numbers)} to {max(numbers)}), key {deal_set.key or '(none: seeds only)'}, "
        f"sha256 {deal_set.sha256}"
    )
    if args.number is None:
        return 0
    if args.number not in numbers:
        return _fail("show", f"{deal_set.name} has no deal {args.number}")
    deal = deal_set.deals[numbers.index(args.number)]
    print(f"deal {deal.number}: seed {deal.seed}")
    for hand, cards in enumerate(deal.hands):
        print(f"  hand {hand + 1} (position 0 is the dealer's seat; seat 0 in hand 1):")
        for position, text in enumerate(cards.positions):
            print(f"    position {position}: {text}")
        print(f"    kitty:      {cards.kitty}")
    return 0


def add_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    deals = commands.add_parser(
        "deals",
        help="write a public deal set, or print one",
        description="Public deal sets (docs/deal-sets.md): deals anyone can play again, for "
        "research between bots that do not memorize them; contests deal from a secret key "
        "(docs/trust.md).",
        epilog=DEALS_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = deals.add_subparsers(dest="deals_command", required=True, metavar="ACTION")
    export = actions.add_parser(
        "export",
        help="write a deal set",
        description="Write a deal set: each deal's number and seed, the key they come from "
        "(published in the file), and the cards of the first hands of each deal.",
        epilog=EXPORT_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    export.add_argument(
        "-p",
        "--preset",
        choices=tuple(PRESETS),
        default="classic",
        help="the rules the set is for (default classic)",
    )
    export.add_argument(
        "-n",
        "--count",
        metavar="N",
        type=whole(1),
        default=1000,
        help="how many deals (default 1000)",
    )
    export.add_argument(
        "--first", metavar="N", type=whole(0), default=1, help="the first deal's number (default 1)"
    )
    export.add_argument(
        "--hands",
        metavar="N",
        type=whole(0, 100),
        default=1,
        help="list the cards of this many hands of each deal (default 1; the seed deals them all)",
    )
    export.add_argument(
        "--key-file",
        type=Path,
        metavar="PATH",
        help="deal from the key in this file (64 hex digits), which the set then publishes: "
        "never a contest's key while its deals are in play (default: a new random key)",
    )
    export.add_argument(
        "-o",
        "--output",
        type=output_file,
        required=True,
        metavar="FILE",
        help="the file to write (required: no default; gzip-compressed when it ends in .gz; never "
        "overwritten)",
    )
    export.set_defaults(run=_export)
    show = actions.add_parser(
        "show",
        help="check a deal set and print it, or one deal's cards",
        description="Check a deal set against the engine's deal and print what it holds; "
        "with N, deal N's seed and cards.",
        epilog=SHOW_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    show.add_argument("file", metavar="FILE", help="a deal set's file, or standard")
    show.add_argument(
        "number", type=whole(0), nargs="?", metavar="N", help="a deal's number (default: none)"
    )
    show.add_argument(
        "-p",
        "--preset",
        choices=tuple(PRESETS),
        default="classic",
        help="with FILE standard: whose shipped set (default classic)",
    )
    show.set_defaults(run=_show)
