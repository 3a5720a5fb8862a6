"""What ``arena review`` prints: a game's review a decision at a time, a line per game
reviewed, the bots' decision quality as a table (and as JSON), and the worst decisions."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chaodipi.review import BotQuality, GameReview, Judged, Reviewed

__all__ = [
    "GamePrinter",
    "game_line",
    "move_text",
    "quality_json",
    "quality_text",
    "verdict_text",
    "worst_text",
]


class GamePrinter:
    """A game's review for a terminal of ``width`` columns, a decision at a time: a title,
    then each decision judged, a line for its verdict and one for the candidates (with the
    move best with every card open when ``hindsight``: never in one seat's review, whose
    seat did not see the cards it is judged on), then a summary."""

    def __init__(self, width: int = 80, *, hindsight: bool = True) -> None:
        self.width = width
        self.hindsight = hindsight
        self._hand: int | None = None

    def title(self, header: Mapping[str, Any], simulations: int, seed: int, page: str) -> list[str]:
        """The review's title: the game, the judge and its budget, what the values mean, and
        where its steps are shown (``page``: the command that writes the game's page)."""
        from chaodipi.records import visible
        from chaodipi.review import JUDGE_NAME, JUDGE_VERSION

        game = visible(str(header.get("game") or "the game"))
        return [
            *textwrap.wrap(f"review of {game} · preset {header.get('preset')}", self.width),
            *textwrap.wrap(
                f"judge {JUDGE_NAME} {JUDGE_VERSION}: "
                f"{simulations} playouts a decision (more near a mark's line), seed {seed}; "
                "values in levels for the seat's team (points/80 a tie-break), ± one standard "
                "error; ?! inaccuracy, ? mistake, ?? blunder",
                self.width,
            ),
            *textwrap.wrap(
                f"steps as the game's page shows them (PAGE#hand=1&step=26): {page}",
                self.width,
                break_long_words=False,
                break_on_hyphens=False,
            ),
        ]

    def decision(self, decision: Reviewed) -> list[str]:
        """A decision judged, in two lines or more (none for one not judged)."""
        from chaodipi.records import visible

        judged = decision.judged
        if judged is None:
            return []
        out = []
        if decision.hand != self._hand:
            self._hand = decision.hand
            out += ["", f"── hand {decision.hand + 1} ──"]
        who = f"seat {decision.seat}" + (f" {visible(decision.bot)}" if decision.bot else "")
        out += textwrap.wrap(
            f"step {decision.step} · {who}, {decision.phase}: {move_text(judged.chosen)}: "
            f"{verdict_text(judged)}",
            self.width,
            subsequent_indent="    ",
        )
        values = " · ".join(f"{move_text(c.action)} {c.value:+.2f}" for c in judged.candidates)
        if self.hindsight:
            values += f" (all cards open: {move_text(judged.hindsight)})"
        out += textwrap.wrap(values, self.width, initial_indent="    ", subsequent_indent="    ")
        return out

    def summary(self, review: GameReview) -> list[str]:
        """How many decisions were judged, and how many not."""
        judged = len(review.judged)
        unjudged = len(review.decisions) - judged
        return ["", f"{judged} decisions judged, {unjudged} not (nothing to weigh them against)"]


def verdict_text(judged: Judged) -> str:
    """A verdict in words: "?? cost 0.62 ± 0.10; better ♠AA", "a best move"."""
    mark = f"{judged.mark} " if judged.mark else ""
    if judged.cost <= 1e-9:
        return f"{mark}a best move"
    return f"{mark}cost {judged.cost:.2f} ± {judged.error:.2f}; better {move_text(judged.best)}"


def game_line(label: str, review: GameReview, number: int, games: int) -> str:
    """One line for a game reviewed among ``games``: its decisions judged, its marks and
    its mean cost."""
    from chaodipi.review import MARKS

    judged = review.judged
    marks = " · ".join(f"{sum(j.mark == mark for j in judged)} {mark}" for mark, _, _ in MARKS)
    mean = sum(j.cost for j in judged) / len(judged) if judged else 0.0
    return (
        f"game {number}/{games} {label}: {len(judged)} decisions judged · {marks} · "
        f"cost/decision {mean:.3f}"
    )


def move_text(action: object) -> str:
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
    from chaodipi.review import JUDGE_NAME, JUDGE_VERSION, PHASES

    table = Table(
        title=f"Decision quality ({games} games, {simulations} playouts a decision, judge "
        f"{JUDGE_NAME} {JUDGE_VERSION})"
    )
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
    out.append(f"{unjudged} decisions not judged (nothing to weigh them against)")
    return out


def worst_text(
    found: list[tuple[str, Reviewed, str]], whose: str | None, phase: str | None, width: int
) -> list[str]:
    """The worst decisions (of bot ``whose``, in ``phase``), one by one: each ``(game,
    decision, page)`` with the verdict, and the command (``page``) that writes the game's page
    and the step to open in it."""
    from chaodipi.records import visible

    bot = f" of {visible(whose)}" if whose is not None else ""
    kind = f", {phase}" if phase is not None else ""
    out = ["", f"the {len(found)} worst decisions{bot}{kind} (marked first, then by cost):"]
    if not found:
        out.append("  none judged")
    for label, decision, page in found:
        judged = decision.judged
        assert judged is not None
        who = f"seat {decision.seat}" + (f" {visible(decision.bot)}" if decision.bot else "")
        name = page.rsplit(" ", 1)[1]
        out += textwrap.wrap(
            f"{visible(label)} hand {decision.hand + 1} step {decision.step} · {who}, "
            f"{decision.phase}: {move_text(judged.chosen)}: {verdict_text(judged)}",
            width,
            initial_indent="  ",
            subsequent_indent="      ",
        )
        for said in (page, f"then open {name}{decision.link}"):
            out += textwrap.wrap(
                said,
                width,
                initial_indent="      ",
                subsequent_indent="        ",
                break_long_words=False,
                break_on_hyphens=False,
            )
    return out


def quality_json(bot: BotQuality) -> dict[str, Any]:
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
