"""``arena show SOURCE [GAME]``: one game's transcript, for a terminal of 80 columns.

SOURCE is a results database (then GAME names the game: its number in ``arena games``, or its
name such as ``alpha-beta-d3-a``) or a game record file (``.jsonl``, as ``arena serve
--records`` and the ``replays`` folder hold). ``--seat N`` tells only what seat N knew,
``--hand K`` only hand K (from 1); ``--html PATH`` writes the game as one page to step
through, and ``--review`` puts the game's review (``arena review``'s, every seat) in it. Heavy
modules are imported only when the command runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from chaodipi.arena.cli.arguments import output_file, whole
from chaodipi.arena.cli.review import add_budget

if TYPE_CHECKING:
    from chaodipi.records import Line

__all__ = ["add_command", "is_database", "load_game", "stored_lines"]

SHOW_EXIT_CODES = """\
exit codes:
  0    shown
  2    no such database, game or record, a record held back (its deal is still being
       played), or a bad argument (the line on stderr says why)"""

SQLITE_MAGIC = b"SQLite format 3\x00"


def add_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    show = commands.add_parser(
        "show",
        help="print one game's transcript (from a results database or a record file)",
        description="Print a game's transcript for an 80-column terminal: the hands as "
        "dealt, the auction, the kitty, each trick on a line with its winner, points and the "
        "defenders' running total, each hand's result, and the bots' notes. SOURCE is a "
        "results database (GAME: a number or name from `arena games`) or a record file.",
        epilog=SHOW_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    show.add_argument("source", type=Path, help="a results database, or a game record file")
    show.add_argument("game", nargs="?", help="with a database: the game's number or name")
    show.add_argument(
        "--seat", type=whole(0, 3), help="tell only what this seat (0-3) knew (default: all)"
    )
    show.add_argument("--hand", type=whole(1), help="only this hand, from 1 (default: all)")
    show.add_argument("--times", action="store_true", help="show each decision's time")
    show.add_argument(
        "--width", type=whole(40), default=80, help="the terminal's width (default 80)"
    )
    show.add_argument(
        "--html",
        type=output_file,
        metavar="PATH",
        help="write the game instead as one self-contained HTML page to step through "
        "(docs/seeing-a-game.md), opening at --hand in --seat's view (default: none)",
    )
    show.add_argument(
        "--review",
        action="store_true",
        help="with --html: review every decision of the game (as arena review does, every "
        "seat) and show each one's verdict beside its step, and the value of the position "
        "through each hand (default: no review)",
    )
    add_budget(show)
    show.set_defaults(run=show_command)


def is_database(source: Path) -> bool:
    """Whether ``source`` is a SQLite file (a results database) rather than a record file;
    :class:`chaodipi.arena.errors.UsageError` when it cannot be read."""
    from chaodipi.arena.errors import UsageError

    try:
        with source.open("rb") as start:
            return start.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError as err:
        raise UsageError(f"cannot read {source}: {err.strerror}") from None


def stored_lines(label: str, blob: bytes) -> list[Line]:
    """A stored record's lines, unpacked and checked; ``UsageError`` naming game ``label``
    when it is damaged."""
    from chaodipi.arena.errors import UsageError
    from chaodipi.engine import ReplayError
    from chaodipi.records import check_lines, unpack

    try:
        lines = unpack(blob)
        check_lines(lines)
    except ReplayError as err:
        raise UsageError(f"game {label}'s stored record is damaged: {err}") from None
    return lines


def load_game(source: Path, game: str | None) -> list[Line]:
    """A game's record lines from a results database (``game``: its number or name in
    ``arena games``) or a record file; a :class:`chaodipi.arena.errors.UsageError` (or
    ``DatabaseError``) says in one line what is wrong."""
    from chaodipi.arena.cli.games import find_game
    from chaodipi.arena.errors import UsageError
    from chaodipi.arena.results import ResultsDB, game_label
    from chaodipi.engine import ReplayError
    from chaodipi.records import read_file

    if not is_database(source):
        if game is not None:
            raise UsageError(f"{source} is a record file, which holds one game: give no GAME")
        try:
            return read_file(source)
        except ReplayError as err:
            raise UsageError(str(err)) from None
    if game is None:
        raise UsageError(f"{source} is a results database: name the GAME (see arena games)")
    db = ResultsDB(source, read_only=True)
    try:
        row = find_game(db.rows(), game)
        if row is None:
            raise UsageError(f"{source} holds no game {game!r} (see arena games {source})")
        blob = db.record(row.key)
    finally:
        db.close()
    label = game_label(row.key)
    if blob is None:
        raise UsageError(
            f"game {label} has no record to show: its deal is still being played (a record "
            "is shown once every game on its deal is stored, or once the run has ended), or an "
            "older arena stored it"
        )
    return stored_lines(label, blob)


def show_command(args: argparse.Namespace) -> int:
    from chaodipi.arena.errors import DatabaseError, UsageError
    from chaodipi.records import hands_in, transcript

    try:
        lines = load_game(args.source, args.game)
    except (UsageError, DatabaseError) as err:
        print(f"arena show: {err}", file=sys.stderr)
        return 2
    if args.review and args.html is None:
        print(
            "arena show: --review goes with --html (arena review prints a review as text)",
            file=sys.stderr,
        )
        return 2
    begun, finished = hands_in(lines)
    if args.hand is not None and not 1 <= args.hand <= begun:
        print(
            f"arena show: the game has no hand {args.hand} (it has {begun}, {finished} "
            "finished)",
            file=sys.stderr,
        )
        return 2
    if args.html is not None:
        from chaodipi.arena.files import write_private
        from chaodipi.records import render_html

        review = None
        if args.review:
            from chaodipi.arena.cli.review import reviewed
            from chaodipi.engine import ReplayError
            from chaodipi.review import review_json

            try:
                review = review_json(reviewed(args, lines))
            except ReplayError as err:
                print(f"arena show: the record does not re-play: {err}", file=sys.stderr)
                return 2
        try:
            page = render_html(lines, seat=args.seat, hand=args.hand, review=review)
            write_private(args.html, page, replace=True)
        except OSError as err:
            print(f"arena show: cannot write {args.html}: {err.strerror}", file=sys.stderr)
            return 2
        print(f"arena show: wrote {args.html}", file=sys.stderr)
        return 0
    text = transcript(lines, seat=args.seat, hand=args.hand, width=args.width, times=args.times)
    print("\n".join(text))
    return 0
