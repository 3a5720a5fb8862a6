"""``arena games DB``: the games a results database holds, to pick one for ``arena show``.

One row per stored game, by number (the order the games were stored: a number never changes,
and a void game played again keeps its own): its number and name (either names it to ``arena
show``; the live log of ``arena run`` gives both), the bots by team, the deal, the result, how
it ended, the hands played, the time it took, each bot's faults (strikes, fallbacks, illegal
answers, crashes: a column shown when a listed game has any), and whether its record can be
shown yet.
Filters: ``--bot`` (a bot in it), ``--pairing A,B`` (these two, either way round),
``--forfeits``, ``--voids``. ``--html DIR`` writes the listed games as browsable pages instead:
``DIR/index.html``, the list (written first), each game linking to its own page ``DIR/N.html``
by its number (the page ``arena show --html`` writes). Heavy modules are imported only when the
command runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from chaodipi.arena.cli.arguments import output_folder

if TYPE_CHECKING:
    from rich.table import Table

    from chaodipi.arena.results import GameKey, GameRow, ResultsDB

__all__ = ["add_command", "find_game"]

GAMES_EXIT_CODES = """\
exit codes:
  0    listed (perhaps no game matched), or the pages written
  2    no such database, a folder --html cannot write in, or a bad argument (the line on
       stderr says why)"""


def add_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    games = commands.add_parser(
        "games",
        help="list the games a results database holds",
        description="List the games stored in a results database (arena run writes it) by "
        "number, the order they were stored (newest last; a void game played again keeps its "
        "number): the number and name to give `arena show DB GAME` (arena run's log line "
        "for the game gives both; neither changes when the run grows), the bots (team of "
        "seats 0+2 first), the deal, the result, how it ended, hands, time, each bot's "
        "faults when a listed game has any (strikes, fallbacks: answers its kit chose for it, "
        "illegal answers, crashes), and whether its record can be shown yet (a record is "
        "shown once every game on its deal is stored).",
        epilog=GAMES_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    games.add_argument("database", type=Path, help="the results database (SQLite)")
    games.add_argument("--bot", help="only games this bot played (default: any)")
    games.add_argument(
        "--pairing",
        metavar="A,B",
        help="only games between these two bots, either way round (default: any)",
    )
    games.add_argument("--forfeits", action="store_true", help="only games a team forfeited")
    games.add_argument(
        "--voids", action="store_true", help="only void games (a bot never took its seat)"
    )
    games.add_argument(
        "--html",
        type=output_folder,
        metavar="DIR",
        help="write the listed games instead as pages to browse: DIR/index.html lists them "
        "(number, name, bots, result), each linking to its own page DIR/N.html by its number, "
        "the page arena show --html writes (docs/seeing-a-game.md); DIR is made if new, "
        "readable by you only, as the pages are (default: none)",
    )
    games.set_defaults(run=games_command)


def _matches(row: GameRow, args: argparse.Namespace, pairing: set[str] | None) -> bool:
    key = row.key
    if args.bot is not None and args.bot not in (key.bot_a, key.bot_b):
        return False
    if pairing is not None and {key.bot_a, key.bot_b} != pairing:
        return False
    if args.forfeits and row.forfeit is None:
        return False
    return not (args.voids and row.void is None)


def ending_of(row: GameRow) -> str:
    """How a stored game ended, in a word: played (out), forfeit (by the team that lost),
    undecided (stopped), void."""
    if row.void is not None:
        return "void"
    if row.forfeit is not None:
        return "forfeit"  # by the loser's team
    if row.score_a is None:
        return "undecided"
    return "played"


def result_of(row: GameRow) -> str:
    key = row.key
    if row.score_a is None:
        return "—"
    if row.score_a == 0.5:
        return "draw"
    winner = key.bot_a if row.score_a == 1.0 else key.bot_b
    return f"{winner} won"


def teams_of(key: GameKey) -> tuple[str, str]:
    """The bots of seats 0+2 and of seats 1+3."""
    return (key.bot_b, key.bot_a) if key.swapped else (key.bot_a, key.bot_b)


def games_command(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.measure import Measurement

    from chaodipi.arena.errors import DatabaseError
    from chaodipi.arena.results import ResultsDB

    pairing = None
    if args.pairing is not None:
        names = [n.strip() for n in args.pairing.split(",")]
        if len(names) != 2 or not all(names):
            print(f"arena games: --pairing {args.pairing!r}: name two bots, A,B", file=sys.stderr)
            return 2
        pairing = set(names)
    try:
        db = ResultsDB(args.database, read_only=True)
        try:
            rows = sorted(db.rows(), key=lambda row: row.id or 0)
            recorded = db.recorded()
            listed = [row for row in rows if _matches(row, args, pairing)]
            if args.html is not None:
                return _write_pages(args, db, listed, recorded)
        finally:
            db.close()
    except DatabaseError as err:
        print(f"arena games: {err}", file=sys.stderr)
        return 2
    console = Console(highlight=False)
    table = _games_table(args.database, listed, recorded, narrow=False)
    if Measurement.get(console, console.options, table).maximum > console.width:
        table = _games_table(args.database, listed, recorded, narrow=True)
    shown = len(listed)
    if shown:
        console.print(table)
    print(f"{shown} of {len(rows)} games", file=sys.stderr if shown else sys.stdout)
    return 0


def _games_table(
    database: Path, listed: list[GameRow], recorded: set[GameKey], *, narrow: bool
) -> Table:
    """The games as a table; ``narrow``: the columns holding bot names only as wide as the
    longest name, so that they wrap between words ("heuristic v" over "montecarlo") rather
    than squeeze the other columns or cut a name."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    from chaodipi.arena.results import game_label
    from chaodipi.records import visible

    table = Table(
        title=Text(visible(f"Games in {database}")),
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        show_edge=False,
        padding=(0, 0),  # the box's own space between columns is the gap: names need the room
    )
    longest = max(
        (len(visible(n)) for row in listed for n in (row.key.bot_a, row.key.bot_b)), default=0
    )
    faults = [row.faults or "—" for row in listed]
    faulty = any(text != "—" for text in faults)
    for name, right, fold, narrowed in (
        ("#", True, False, None),
        ("game", False, False, None),
        ("deal", True, False, None),
        ("0+2 v 1+3", False, True, longest + 2),
        ("result", False, True, longest),
        ("ending", False, False, None),
        ("hands", True, False, None),
        ("time", True, False, None),
        *([("faults", False, True, None)] if faulty else []),
        ("rec", False, False, None),
    ):
        table.add_column(
            name,
            justify="right" if right else "left",
            no_wrap=not fold,
            overflow="fold",
            width=narrowed if narrow else None,
        )
    for row, row_faults in zip(listed, faults, strict=True):
        first, second = teams_of(row.key)
        cells = (
            str(row.id),
            game_label(row.key),
            str(row.key.deal),
            f"{first} v {second}",
            result_of(row),
            ending_of(row),
            str(row.hands),
            f"{row.seconds:.0f}s",
            *([row_faults] if faulty else []),
            "yes" if row.key in recorded else "no",
        )
        table.add_row(*(Text(visible(cell)) for cell in cells))  # bots' names: no markup
    return table


def _write_pages(
    args: argparse.Namespace, db: ResultsDB, listed: list[GameRow], recorded: set[GameKey]
) -> int:
    """``--html DIR``: ``DIR/index.html`` listing every listed game, then each listed game with
    a record as its page, ``DIR/N.html`` by its number (a file's name comes from a number
    alone, never from a name the database holds). The index is written first, linking every
    page to come, and again at the end (a record that would not re-play listed without its
    link): a run cut short leaves an index whose first pages are there."""
    import html

    from chaodipi.arena.files import make_private_folder, write_private
    from chaodipi.engine import ReplayError
    from chaodipi.records import check_lines, render_html, unpack, visible

    folder: Path = args.html
    index = folder / "index.html"
    database = html.escape(visible(str(args.database)))
    pages: dict[int | None, str] = {
        row.id: f"{row.id}.html" for row in listed if row.key in recorded and row.id is not None
    }
    try:
        make_private_folder(folder)
        write_private(index, _index_page(database, _cells(listed, pages), done=False), replace=True)
        for row in listed:
            if row.id not in pages:
                continue
            blob = db.record(row.key)
            try:
                lines = None if blob is None else unpack(blob)
                if lines is not None:
                    check_lines(lines)
            except ReplayError:
                lines = None
            if lines is None:
                del pages[row.id]
                continue
            write_private(folder / pages[row.id], render_html(lines), replace=True)
        write_private(index, _index_page(database, _cells(listed, pages), done=True), replace=True)
    except OSError as err:
        where = err.filename if err.filename is not None else folder
        print(f"arena games: cannot write {where}: {err.strerror}", file=sys.stderr)
        return 2
    print(f"arena games: wrote {index} ({len(listed)} games, {len(pages)} pages)", file=sys.stderr)
    return 0


def _cells(listed: list[GameRow], pages: dict[int | None, str]) -> list[tuple[str, ...]]:
    """Each listed game's cells in the index, HTML: its name links its page, if it has one."""
    import html

    from chaodipi.arena.results import game_label
    from chaodipi.records import visible

    cells: list[tuple[str, ...]] = []
    for row in listed:
        first, second = teams_of(row.key)
        name = html.escape(visible(game_label(row.key)))
        page = pages.get(row.id)
        cells.append((
            str(row.id),
            f'<a href="{page}">{name}</a>' if page else f"{name} (no record)",
            html.escape(visible(f"{first} v {second}")),
            html.escape(visible(result_of(row))),
            ending_of(row),
            str(row.hands),
        ))  # fmt: skip
    return cells


WRITING = (
    " The pages are being written: a link whose page is missing was not written yet (write"
    " them again with arena games --html)."
)
"""What the index says until every page it links is written."""


def _index_page(database: str, cells: list[tuple[str, ...]], *, done: bool) -> str:
    """The page listing a tournament's games (``cells``: each row's cells, HTML already);
    ``done``: every page it links is written."""
    head = ("#", "game", "0+2 v 1+3", "result", "ending", "hands")
    rows = "\n".join(
        "<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in cells
    )
    labels = " ".join(  # on a phone, each value after its column's name
        f'td:nth-child({i})::before {{ content: "{name}: "; color: #6b6b6b; }}'
        for i, name in enumerate(head, start=1)
        if i > 2
    )
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="chaodipi arena games --html">
<title>Games in {database}</title>
<style>
body {{ margin: 0; padding: 12px 16px; font: 14px/1.4 system-ui, "Noto Sans", sans-serif;
  background: #eef0ea; color: #1d1d1d; }}
h1 {{ font-size: 18px; margin: 0 0 8px; overflow-wrap: anywhere; }}
.box {{ overflow-x: auto; background: #fff; border: 1px solid #d6d9d0; border-radius: 10px; }}
table {{ border-collapse: collapse; width: 100%; }}
th {{ text-align: left; font-weight: 500; color: #6b6b6b; }}
th, td {{ padding: 4px 8px; border-bottom: 1px solid #f0f1ec; white-space: nowrap; }}
a {{ color: #17543a; font-weight: 600; }}
/* a phone: a game a block, every cell in sight with its column's name */
@media (max-width: 600px) {{
  thead {{ display: none; }}
  tr {{ display: flex; flex-wrap: wrap; column-gap: 10px; padding: 6px 8px;
    border-bottom: 1px solid #e3e5de; }}
  td {{ padding: 1px 0; border: 0; white-space: normal; overflow-wrap: anywhere; }}
  td:nth-child(3) {{ width: 100%; }}
  {labels}
}}
</style>
</head>
<body>
<h1>Games in {database}</h1>
<p>{len(cells)} games; each name opens its game, step by step.{"" if done else WRITING}</p>
<div class="box"><table>
<thead><tr>{"".join(f"<th>{name}</th>" for name in head)}</tr></thead>
<tbody>
{rows}
</tbody>
</table></div>
</body>
</html>
"""


def find_game(rows: list[GameRow], game: str) -> GameRow | None:
    """The stored game ``game`` names: its number, or its name."""
    from chaodipi.arena.results import game_label

    if game.isdigit():
        return next((row for row in rows if row.id == int(game)), None)
    return next((row for row in rows if game_label(row.key) == game), None)
