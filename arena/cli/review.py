"""``arena review SOURCE [GAME]``: what each decision cost, judged from what its seat knew.

With a GAME (or a record file), every decision of the game (``--seat``, ``--hand``), printed
as it is judged: the candidates the reviewer weighed with their values, the bot's choice, its
cost and mark, the better move, and the step of the game's page that shows it. With a results
database and no GAME, ``--games K`` of its games (all by default, or ``--bot``'s) reviewed, a
line printed as each game's review ends, then each bot's decision quality and, with
``--worst K``, the costliest decisions. Heavy modules are imported only when the command
runs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chaodipi.arena.cli.arguments import whole
from chaodipi.arena.cli.review_text import (
    GamePrinter,
    game_line,
    quality_json,
    quality_text,
    worst_text,
)

if TYPE_CHECKING:
    from chaodipi.review import GameReview, Reviewed

__all__ = ["add_budget", "add_command", "reviewed"]

REVIEW_EXIT_CODES = """\
exit codes:
  0    reviewed
  2    no such database, game or record, a record held back, or a bad argument (the line
       on stderr says why)"""

DESCRIPTION = """\
Judge each decision of a game from what its seat knew then: worlds drawn among the deals
consistent with the seat's view (never the real hidden hands), each candidate move played out
in each world to the end of the hand by the playouts of chaodipi.search, scored for the seat's
team in levels (the points a tie-break): the judge {judge} (version {version}), which the
review's text, JSON and page name. A decision's cost is the value of the reviewer's best
candidate less the value of the bot's move, ± one standard error of the paired difference; it
is marked ?! (inaccuracy, ≥ 0.1 level), ? (mistake, ≥ 0.25) or ?? (blunder, ≥ 0.5) when it is
also more than two standard errors; where the cost is within two standard errors of a mark's
line, the best and the chosen move meet more worlds, up to four times the budget. Every
decision is judged, the auction's too; a forced move is no decision. Each decision is named by
its hand and step as the game's page numbers them (the page arena show … --html PAGE writes;
PAGE#hand=1&step=26 opens it there). The move best with every card open (hindsight, no seat's
information) is shown only when every seat is reviewed. The same --seed and --simulations give
the same review on any machine. Progress goes to stderr: a bar on a terminal, else a line at
each tenth of the way.

With a results database and no GAME: reviews --games K games (all by default; with --bot
NAME, only NAME's games and seats), printing a line as each game's review ends, then, per
bot, the mean cost per decision with its 95 % interval, the mark rates and how often it
chose the reviewer's move, by phase; and its hindsight agreement: of the decisions where the
best move with every card open differs from the best on the seat's own information, how often
it chose the former (a bot that sees hidden cards does it often; it is a sign, not a proof).
--worst K then lists the K worst decisions (of --phase P only, when given): marked ones
first, ?? before ? before ?!, each kind costliest first, each with its game, its step and the
command that writes the page showing it. The values are the reviewer's judgement with its
playout policy, not the game's optimum."""


def add_budget(parser: argparse.ArgumentParser) -> None:
    """A review's budget, seed and workers (``arena review``, ``arena show --review``)."""
    from chaodipi.review import DEFAULT_SIMULATIONS

    parser.add_argument(
        "--simulations",
        type=whole(2),
        default=DEFAULT_SIMULATIONS,
        help=f"playouts a decision is judged with (default {DEFAULT_SIMULATIONS}, as the "
        "search bot's; as many again for hindsight; up to 4 times as many for the best and "
        "the chosen move where the cost is near a mark's line)",
    )
    parser.add_argument("--seed", type=whole(0), default=1, help="the review's seed (default 1)")
    parser.add_argument(
        "-j",
        "--workers",
        type=whole(1),
        default=os.cpu_count() or 1,
        help="processes judging decisions (default: one per core)",
    )


def add_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from chaodipi.review import JUDGE_NAME, JUDGE_VERSION, PHASES

    review = commands.add_parser(
        "review",
        help="judge each decision of a game (or a tournament's bots) from what its seat knew",
        description=DESCRIPTION.format(judge=JUDGE_NAME, version=JUDGE_VERSION),
        epilog=REVIEW_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    review.add_argument("source", type=Path, help="a results database, or a game record file")
    review.add_argument(
        "game",
        nargs="?",
        help="with a database: the game's number or name (none: review --games of them)",
    )
    review.add_argument(
        "--seat", type=whole(0, 3), help="only this seat's decisions (default: all)"
    )
    review.add_argument("--hand", type=whole(1), help="only this hand, from 1 (default: all)")
    review.add_argument(
        "--games",
        type=whole(1),
        metavar="K",
        help="with a database and no GAME: review K games drawn by --seed (default: all)",
    )
    review.add_argument(
        "--bot",
        metavar="NAME",
        help="with a database and no GAME: only the games NAME played, only its seats' "
        "decisions (default: every bot's)",
    )
    review.add_argument(
        "--worst",
        type=whole(1),
        metavar="K",
        help="with a database and no GAME: list the K worst decisions reviewed (of --bot's), "
        "each with its game, step and the command that shows it (default: none listed)",
    )
    review.add_argument(
        "--phase",
        choices=PHASES,
        help="with --worst: only decisions of this phase (bidding covers frying; default: "
        "every phase)",
    )
    add_budget(review)
    review.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="with a database and no GAME: review the games on a Ray cluster, a game a task "
        "(auto: the cluster `ray start` runs here, or $RAY_ADDRESS; local: start one here; "
        "HOST:PORT: the head's GCS; docs/running-on-ray.md; needs the ray extra); the same "
        "review as without it (default: none, the games are reviewed on this machine)",
    )
    review.add_argument(
        "--json",
        action="store_true",
        help="print the review as JSON (with a database: a line per game as it ends, then "
        "one of the bots' figures)",
    )
    review.add_argument(
        "--width", type=whole(40), default=80, help="the terminal's width (default 80)"
    )
    review.set_defaults(run=review_command)


def review_command(args: argparse.Namespace) -> int:
    from chaodipi.arena.cli.show import is_database, load_game
    from chaodipi.arena.errors import ArenaError, UsageError
    from chaodipi.engine import ReplayError

    try:
        if args.game is None and is_database(args.source):
            return _review_games(args)
        for flag, given in (
            ("--games", args.games),
            ("--ray", args.ray),
            ("--bot", args.bot),
            ("--worst", args.worst),
        ):
            if given is not None:
                raise UsageError(f"{flag} reviews a database's games: give no GAME")
        if args.phase is not None:
            raise UsageError("--phase goes with --worst")
        lines = load_game(args.source, args.game)
    except ArenaError as err:
        print(f"arena review: {err}", file=sys.stderr)
        return err.exit_code
    try:
        if args.json:
            from chaodipi.review import review_json

            review = _review(args, lines)
            print(json.dumps(review_json(review), ensure_ascii=False, indent=1))
            return 0
        printer = GamePrinter(args.width, hindsight=args.seat is None)
        page = _page(args, None if args.game is None else str(lines[0].get("game", args.game)))
        for text in printer.title(lines[0], args.simulations, args.seed, page):
            print(text, flush=True)

        def each(decision: Reviewed) -> None:
            for text in printer.decision(decision):
                print(text, flush=True)

        review = _review(args, lines, each=each)
    except ReplayError as err:
        print(f"arena review: the record does not re-play: {err}", file=sys.stderr)
        return 2
    for text in printer.summary(review):
        print(text)
    return 0


def _page(args: argparse.Namespace, game: str | None = None) -> str:
    """The command that writes the page a review's steps are named in."""
    source = shlex.quote(str(args.source))
    game = game if game is not None else args.game
    name = Path(game or args.source.stem).name.removesuffix(".html") + ".html"
    return " ".join(
        ["arena show", source, *([shlex.quote(game)] if game else []), "--html", shlex.quote(name)]
    )


def _review(
    args: argparse.Namespace,
    lines: Any,
    label: str = "decisions",
    each: Callable[[Reviewed], None] | None = None,
) -> GameReview:
    return reviewed(
        args,
        lines,
        seats=range(4) if args.seat is None else (args.seat,),
        hand=None if args.hand is None else args.hand - 1,
        label=label,
        each=each,
    )


def reviewed(
    args: argparse.Namespace,
    lines: Any,
    *,
    seats: Iterable[int] = range(4),
    hand: int | None = None,
    label: str = "decisions",
    each: Callable[[Reviewed], None] | None = None,
) -> GameReview:
    """The review of the ``seats``' decisions (in ``hand``, from 0, when given) of the record
    ``lines``, with the budget of ``args`` (:func:`add_budget`), its progress on stderr (a bar
    on a terminal, else a line now and then); ``each`` is given each decision as it comes."""
    from chaodipi.review import review_game

    with _progress(label, getattr(args, "command", "review")) as advance:
        return review_game(
            lines,
            seats=seats,
            hand=hand,
            simulations=args.simulations,
            seed=args.seed,
            workers=args.workers,
            progress=advance,
            each=each,
        )


def _review_games(args: argparse.Namespace) -> int:
    from chaodipi.arena.cli.show import stored_lines
    from chaodipi.arena.errors import UsageError
    from chaodipi.arena.results import ResultsDB, game_label
    from chaodipi.engine import ReplayError
    from chaodipi.review import decision_json, quality, review_json, worst

    if args.phase is not None and args.worst is None:
        raise UsageError("--phase goes with --worst")
    db = ResultsDB(args.source, read_only=True)
    try:
        rows = db.rows()
        if args.bot is not None:
            names = sorted({name for row in rows for name in (row.key.bot_a, row.key.bot_b)})
            if args.bot not in names:
                raise UsageError(
                    f"{args.source} holds no game of a bot named {args.bot!r} (its bots: "
                    f"{', '.join(names) or 'none'})"
                )
            rows = [row for row in rows if args.bot in (row.key.bot_a, row.key.bot_b)]
        stored = [(row, db.record(row.key)) for row in rows]
    finally:
        db.close()
    games = [(row, blob) for row, blob in stored if blob is not None]
    if not games:
        raise UsageError(f"{args.source} holds no game with a record to review")
    if args.games is not None and args.games < len(games):
        drawn = random.Random(args.seed).sample(games, args.games)
        games = sorted(drawn, key=lambda game: game[0].id or 0)
    records: list[tuple[str, list[Any], tuple[int, ...]]] = []
    for row, blob in games:
        label = game_label(row.key)
        lines = stored_lines(label, blob)
        records.append((label, lines, _seats(args, lines)))
    reviews: list[tuple[str, GameReview]] = []

    def ended(label: str, review: GameReview) -> None:
        reviews.append((label, review))
        if args.json:
            print(json.dumps({"label": label, **review_json(review)}, ensure_ascii=False))
        else:
            print(game_line(label, review, len(reviews), len(records)), flush=True)

    try:
        if args.ray is not None:
            _review_on_ray(args, records, ended)
        else:
            for number, (label, lines, seats) in enumerate(records, start=1):
                progress = f"game {number}/{len(records)} {label}"
                ended(label, reviewed(args, lines, seats=seats, hand=_hand(args), label=progress))
    except ReplayError as err:
        raise UsageError(f"a stored record does not re-play: {err}") from None
    figures = quality(review for _, review in reviews)
    labels = {id(review): label for label, review in reviews}
    found: list[tuple[str, Reviewed, str]] = []  # the worst: game, decision, its page's command
    if args.worst is not None:
        for review, decision in worst(
            (review for _, review in reviews), args.worst, bot=args.bot, phase=args.phase
        ):
            label = labels[id(review)]
            found.append((label, decision, _page(args, label)))
    if args.json:
        bots = {name: quality_json(q) for name, q in figures.items()}
        listed = [
            {"game": label, **decision_json(decision), "page": page}
            for label, decision, page in found
        ]
        print(json.dumps({"bots": bots, "worst": listed}, ensure_ascii=False))
        return 0
    for text in quality_text(figures, len(reviews), args.simulations, args.width):
        print(text)
    if args.worst is not None:
        for text in worst_text(found, args.bot, args.phase, args.width):
            print(text)
    return 0


def _hand(args: argparse.Namespace) -> int | None:
    return None if args.hand is None else args.hand - 1


def _seats(args: argparse.Namespace, lines: Any) -> tuple[int, ...]:
    """The seats to review in a game: --seat's, --bot's (as its record names them), or all."""
    seats = range(4) if args.seat is None else (args.seat,)
    if args.bot is None:
        return tuple(seats)
    named = {bot["seat"] for bot in lines[0].get("bots", ()) if bot.get("name") == args.bot}
    return tuple(seat for seat in seats if seat in named)


def _review_on_ray(
    args: argparse.Namespace,
    records: list[tuple[str, list[Any], tuple[int, ...]]],
    ended: Callable[[str, GameReview], None],
) -> None:
    """Each game reviewed by a task of its own on a Ray cluster, ``ended`` called with each
    as it ends."""

    from chaodipi.arena.errors import UsageError
    from chaodipi.arena.tournament import connect, import_ray, parse_address
    from chaodipi.review import review_game

    try:
        address = parse_address(args.ray)
    except ValueError as err:
        raise UsageError(f"--ray: {err}") from None
    ray = import_ray()
    task = ray.remote(num_cpus=1)(review_game)
    with connect(address), _progress("games", "review") as advance:
        advance(0, len(records))
        labels = {}
        for label, lines, seats in records:
            ref = task.remote(
                lines, seats=seats, hand=_hand(args), simulations=args.simulations, seed=args.seed
            )
            labels[ref] = label
        waiting = list(labels)
        while waiting:
            done, waiting = ray.wait(waiting, num_returns=1)
            for ref in done:
                ended(labels[ref], ray.get(ref))
            advance(len(records) - len(waiting), len(records))


@contextmanager
def _progress(label: str, command: str) -> Iterator[Callable[[int, int], None]]:
    """Progress on stderr: a bar on a terminal; else a line at each tenth of the way (so a
    log shows a long review going on), said by ``arena COMMAND``."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    console = Console(stderr=True)
    if console.is_terminal:
        with Progress(
            TextColumn(label),
            BarColumn(),
            TextColumn("{task.completed}/{task.total}"),
            TimeRemainingColumn(),
            console=console,
        ) as bar:
            task = bar.add_task(label)
            yield lambda done, total: bar.update(task, completed=done, total=total)
        return
    said = -1

    def line(done: int, total: int) -> None:
        nonlocal said
        tenth = 10 * done // total if total else 10
        if tenth > said and (done or not total):
            said = tenth
            print(f"arena {command}: {label}: {done}/{total}", file=sys.stderr, flush=True)

    yield line
