"""``arena review SOURCE [GAME]``: what each decision cost, judged from what its seat knew.

With a GAME (or a record file), every decision of the game (``--seat``, ``--hand``): the
candidates the reviewer weighed with their values, the bot's choice, its cost and mark, the
better move. With a results database and no GAME, ``--games K`` of its games (all by default)
reviewed, and each bot's decision quality printed. Heavy modules are imported only when the
command runs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import textwrap
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chaodipi.arena.cli.arguments import whole

if TYPE_CHECKING:
    from rich.progress import Progress

    from chaodipi.review import BotQuality, GameReview

__all__ = ["add_budget", "add_command", "reviewed"]

REVIEW_EXIT_CODES = """\
exit codes:
  0    reviewed
  2    no such database, game or record, a record held back, or a bad argument (the line
       on stderr says why)"""

DESCRIPTION = """\
Judge each decision of a game from what its seat knew then: worlds drawn among the deals
consistent with the seat's view (never the real hidden hands), each candidate move played out
in each world to the end of the hand by the search bot's playout policy, scored for the seat's
team in levels (the points a tie-break). A decision's cost is the value of the reviewer's best
candidate less the value of the bot's move, ± one standard error of the paired difference;
it is marked ?! (inaccuracy, ≥ 0.1 level), ? (mistake, ≥ 0.25) or ?? (blunder, ≥ 0.5) when
it is also more than two standard errors. Declaring, and frying while bids are hidden, are
not judged. The same --seed and --simulations give the same review on any machine.

With a results database and no GAME: reviews --games K games (all by default) and prints,
per bot, the mean cost per decision with its 95 % interval, the mark rates and how often it
chose the reviewer's move, by phase; and its hindsight agreement: of the decisions where the
best move with every card open differs from the best on the seat's own information, how often
it chose the former (a bot that sees hidden cards does it often; it is a sign, not a proof).
The values are the reviewer's judgement with its playout policy, not the game's optimum."""


def add_budget(parser: argparse.ArgumentParser) -> None:
    """A review's budget, seed and workers (``arena review``, ``arena show --review``)."""
    from chaodipi.review import DEFAULT_SIMULATIONS

    parser.add_argument(
        "--simulations",
        type=whole(2),
        default=DEFAULT_SIMULATIONS,
        help=f"playouts a decision is judged with (default {DEFAULT_SIMULATIONS}, as the "
        "search bot's; as many again for hindsight)",
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
    review = commands.add_parser(
        "review",
        help="judge each decision of a game (or a tournament's bots) from what its seat knew",
        description=DESCRIPTION,
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
    add_budget(review)
    review.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="with a database and no GAME: review the games on a Ray cluster, a game a task "
        "(auto: the cluster `ray start` runs here, or $RAY_ADDRESS; local: start one here; "
        "HOST:PORT: the head's GCS; docs/running-on-ray.md; needs the ray extra); the same "
        "review as without it (default: none, the games are reviewed on this machine)",
    )
    review.add_argument("--json", action="store_true", help="print the review as JSON")
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
        if args.games is not None or args.ray is not None:
            flag = "--games" if args.games is not None else "--ray"
            raise UsageError(f"{flag} reviews a database's games: give no GAME")
        lines = load_game(args.source, args.game)
    except ArenaError as err:
        print(f"arena review: {err}", file=sys.stderr)
        return err.exit_code
    try:
        review = _review(args, lines)
    except ReplayError as err:
        print(f"arena review: the record does not re-play: {err}", file=sys.stderr)
        return 2
    if args.json:
        from chaodipi.review import review_json

        print(json.dumps(review_json(review), ensure_ascii=False, indent=1))
        return 0
    for text in game_text(review, args.width):
        print(text)
    return 0


def _review(args: argparse.Namespace, lines: Any, label: str = "decisions") -> GameReview:
    return reviewed(
        args,
        lines,
        seats=range(4) if args.seat is None else (args.seat,),
        hand=None if args.hand is None else args.hand - 1,
        label=label,
    )


def reviewed(
    args: argparse.Namespace,
    lines: Any,
    *,
    seats: Iterable[int] = range(4),
    hand: int | None = None,
    label: str = "decisions",
) -> GameReview:
    """The review of the ``seats``' decisions (in ``hand``, from 0, when given) of the record
    ``lines``, with the budget of ``args`` (:func:`add_budget`), a progress bar on stderr when
    it is a terminal."""
    from chaodipi.review import review_game

    with _progress(label) as progress:
        task = progress.add_task(label)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        return review_game(
            lines,
            seats=seats,
            hand=hand,
            simulations=args.simulations,
            seed=args.seed,
            workers=args.workers,
            progress=advance,
        )


def _review_games(args: argparse.Namespace) -> int:
    from chaodipi.arena.cli.show import stored_lines
    from chaodipi.arena.errors import UsageError
    from chaodipi.arena.results import ResultsDB, game_label
    from chaodipi.engine import ReplayError
    from chaodipi.review import quality, review_json

    db = ResultsDB(args.source, read_only=True)
    try:
        rows = db.rows()
        stored = [(row, db.record(row.key)) for row in rows]
    finally:
        db.close()
    games = [(row, blob) for row, blob in stored if blob is not None]
    if not games:
        raise UsageError(f"{args.source} holds no game with a record to review")
    if args.games is not None and args.games < len(games):
        drawn = random.Random(args.seed).sample(games, args.games)
        games = sorted(drawn, key=lambda game: game[0].id or 0)
    records = []
    for row, blob in games:
        label = game_label(row.key)
        records.append((label, stored_lines(label, blob)))
    try:
        if args.ray is not None:
            reviews = _review_on_ray(args, [lines for _, lines in records])
        else:
            reviews = [
                _review(args, lines, f"game {number}/{len(records)} {label}")
                for number, (label, lines) in enumerate(records, start=1)
            ]
    except ReplayError as err:
        raise UsageError(f"a stored record does not re-play: {err}") from None
    figures = quality(reviews)
    if args.json:
        print(
            json.dumps(
                {
                    "games": [review_json(r) for r in reviews],
                    "bots": {name: _quality_json(q) for name, q in figures.items()},
                },
                ensure_ascii=False,
                indent=1,
            )
        )
        return 0
    for text in quality_text(figures, len(reviews), args.simulations, args.width):
        print(text)
    return 0


def _review_on_ray(args: argparse.Namespace, records: list[Any]) -> list[GameReview]:
    """Each game reviewed by a task of its own on a Ray cluster, in the order given."""

    from chaodipi.arena.errors import UsageError
    from chaodipi.arena.tournament import connect, import_ray, parse_address
    from chaodipi.review import review_game

    try:
        address = parse_address(args.ray)
    except ValueError as err:
        raise UsageError(f"--ray: {err}") from None
    ray = import_ray()
    task = ray.remote(num_cpus=1)(review_game)
    with connect(address), _progress("games") as progress:
        bar = progress.add_task("games", total=len(records))
        seats = range(4) if args.seat is None else (args.seat,)
        hand = None if args.hand is None else args.hand - 1
        pending = [
            task.remote(lines, seats=seats, hand=hand, simulations=args.simulations, seed=args.seed)
            for lines in records
        ]
        waiting = list(pending)
        while waiting:
            done, waiting = ray.wait(waiting, num_returns=1)
            progress.advance(bar, len(done))
        return list(ray.get(pending))


def _progress(label: str) -> Progress:
    """A progress bar on stderr, shown only when it is a terminal."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    console = Console(stderr=True)
    return Progress(
        TextColumn(label),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeRemainingColumn(),
        console=console,
        disable=not console.is_terminal,
    )


# -- printing -------------------------------------------------------------------------------


def game_text(review: GameReview, width: int = 80) -> list[str]:
    """A game's review for a terminal of ``width`` columns: a title, then each decision
    judged, a line for its verdict and one for the candidates."""
    from chaodipi.records import visible

    header = review.header
    game = visible(str(header.get("game") or "the game"))
    title = f"review of {game} · preset {header.get('preset')}"
    out = textwrap.wrap(title, width) + textwrap.wrap(
        f"{review.simulations} playouts a decision, seed {review.seed}; values in levels for "
        "the seat's team (points/80 a tie-break), ± one standard error; ?! inaccuracy, "
        "? mistake, ?? blunder",
        width,
    )
    hand = None
    unjudged = 0
    for decision in review.decisions:
        judged = decision.judged
        if judged is None:
            unjudged += 1
            continue
        if decision.hand != hand:
            hand = decision.hand
            out += ["", f"── hand {hand + 1} ──"]
        who = f"seat {decision.seat}" + (f" {visible(decision.bot)}" if decision.bot else "")
        verdict = f"{judged.mark} " if judged.mark else ""
        if judged.cost <= 1e-9:
            said = f"{verdict}a best move"
        else:
            said = (
                f"{verdict}cost {judged.cost:.2f} ± {judged.error:.2f}; better "
                f"{_move(judged.best)}"
            )
        out += textwrap.wrap(
            f"#{decision.number} {who}, {decision.phase}: {_move(judged.chosen)}: {said}",
            width,
            subsequent_indent="    ",
        )
        values = " · ".join(f"{_move(c.action)} {c.value:+.2f}" for c in judged.candidates)
        hindsight = f" (all cards open: {_move(judged.hindsight)})"
        out += textwrap.wrap(
            values + hindsight, width, initial_indent="    ", subsequent_indent="    "
        )
    judged_count = len(review.decisions) - unjudged
    out += ["", f"{judged_count} decisions judged, {unjudged} not (declaring, hidden frying)"]
    return out


def _move(action: object) -> str:
    """A move as the review prints it: the record's action text without ``play``."""
    text = str(action)
    return text.removeprefix("play ")


def quality_text(
    figures: dict[str, BotQuality], games: int, simulations: int, width: int = 80
) -> list[str]:
    """Each bot's decision quality as a table, then its hindsight agreement."""
    import io

    from rich.console import Console
    from rich.table import Table

    from chaodipi.records import visible
    from chaodipi.review import PHASES

    table = Table(title=f"Decision quality ({games} games, {simulations} playouts a decision)")
    for column in ("bot", "phase", "decisions", "cost/decision [95 %]", "??", "?", "best"):
        table.add_column(column, justify="left" if column in ("bot", "phase") else "right")
    for name in sorted(figures, key=lambda n: figures[n].all.mean_cost):
        bot = figures[name]
        for phase, figure in [("all", bot.all), *((p, bot.phases[p]) for p in PHASES)]:
            if not figure.count:
                continue
            table.add_row(
                visible(name) if phase == "all" else "",
                phase,
                str(figure.count),
                f"{figure.mean_cost:.3f} ± {figure.interval:.3f}",
                f"{figure.rate('??'):.1%}",
                f"{figure.rate('?'):.1%}",
                f"{figure.agreed / figure.count:.1%}",
            )
    buffer = io.StringIO()
    Console(file=buffer, width=width, force_terminal=False).print(table)
    out = buffer.getvalue().rstrip("\n").splitlines()
    out.append("hindsight agreement (a sign of seeing hidden cards, not a proof):")
    for name in sorted(figures):
        all_ = figures[name].all
        if all_.divergent:
            rate = f"{all_.fitted / all_.divergent:.1%}"
            out += textwrap.wrap(
                f"{visible(name)}: chose the all-cards-open move in {all_.fitted} of "
                f"{all_.divergent} decisions where it was not the reviewer's ({rate})",
                width,
                initial_indent="  ",
                subsequent_indent="    ",
            )
        else:
            out.append(f"  {visible(name)}: no decision where the two differed")
    unjudged = sum(f.unjudged for f in figures.values())
    out.append(f"{unjudged} decisions not judged (declaring, hidden frying)")
    return out


def _quality_json(bot: BotQuality) -> dict[str, Any]:
    from chaodipi.review import PHASES

    def figure(f: Any) -> dict[str, Any]:
        return {
            "decisions": f.count,
            "mean_cost": None if not f.count else round(f.mean_cost, 4),
            "interval": None if f.count < 2 else round(f.interval, 4),
            "marks": f.marks,
            "best": f.agreed,
            "divergent": f.divergent,
            "hindsight": f.fitted,
        }

    return {
        "all": figure(bot.all),
        "phases": {p: figure(bot.phases[p]) for p in PHASES},
        "unjudged": bot.unjudged,
    }
