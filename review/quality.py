"""A bot's decision quality over reviewed games: the mean cost per decision with its 95 %
interval, the marks, how often it chose the reviewer's move, split by phase; and how often its
choices fit the cards it could not see.

The cost is the reviewer's: worlds consistent with the seat's information, played out by the
playouts of chaodipi.search. It ranks decisions by that policy's judgement, which is not the
game's optimum (PIMC's limits: information given away or hidden is valued at nothing).

*Hindsight agreement*: over the decisions where the move best with every card open differs
from the move best on the seat's own information, how often the bot chose the former. An
honest bot has no reason to prefer it; one that keeps choosing the hindsight move over many
such decisions plays as if it saw hidden cards. It is a sign, not a proof: a bot with a good
read of the bidding chooses it more often too, and a few dozen decisions are noise.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from chaodipi.engine import Action
from chaodipi.review.game import GameReview, Reviewed
from chaodipi.review.judging import MARKS, Candidate, Judged, PhaseName

__all__ = ["PHASES", "BotQuality", "Figure", "quality", "worst"]

TIE = 1e-9
"""Values closer than this are equal."""
PHASES: tuple[PhaseName, ...] = ("bidding", "burying", "leading", "following")
"""The phases, in the order of a hand."""


@dataclass(slots=True)
class Figure:
    """Decisions judged in one phase (or all): their costs, marks, and agreements."""

    costs: list[float] = field(default_factory=list)
    marks: dict[str, int] = field(default_factory=dict)
    agreed: int = 0
    """Decisions where the bot chose a move of the best value (the reviewer's, or one as
    good)."""
    divergent: int = 0
    """Decisions where no move best with every card open was best on the seat's own
    information."""
    fitted: int = 0
    """Of those, the decisions where the bot chose a move best with every card open."""

    @property
    def count(self) -> int:
        """Decisions judged."""
        return len(self.costs)

    @property
    def mean_cost(self) -> float:
        """The mean cost per decision (levels); NaN with none."""
        return statistics.fmean(self.costs) if self.costs else math.nan

    @property
    def interval(self) -> float:
        """The half-width of the mean cost's 95 % interval (normal; inf under two)."""
        if len(self.costs) < 2:
            return math.inf
        return 1.96 * statistics.stdev(self.costs) / math.sqrt(len(self.costs))

    def rate(self, mark: str) -> float:
        """The share of decisions that earned ``mark``."""
        return self.marks.get(mark, 0) / self.count if self.count else math.nan


@dataclass(slots=True)
class BotQuality:
    """One bot's figures: over every decision (``all``) and per phase."""

    bot: str
    all: Figure = field(default_factory=Figure)
    phases: dict[PhaseName, Figure] = field(default_factory=lambda: {p: Figure() for p in PHASES})
    unjudged: int = 0
    """Decisions the reviewer does not judge (nothing to weigh the move against)."""


def quality(reviews: Iterable[GameReview]) -> dict[str, BotQuality]:
    """Each bot's figures over ``reviews``, by bot name ("seat N" where the record names
    none)."""
    bots: dict[str, BotQuality] = {}
    for review in reviews:
        for decision in review.decisions:
            name = decision.bot or f"seat {decision.seat}"
            figures = bots.setdefault(name, BotQuality(name))
            judged = decision.judged
            if judged is None:
                figures.unjudged += 1
                continue
            for figure in (figures.all, figures.phases[decision.phase]):
                figure.costs.append(judged.cost)
                if judged.mark:
                    figure.marks[judged.mark] = figure.marks.get(judged.mark, 0) + 1
                best = _tops(judged, lambda c: c.value)
                open_best = _tops(judged, lambda c: c.hindsight)
                figure.agreed += judged.chosen in best
                if not best & open_best:
                    figure.divergent += 1
                    figure.fitted += judged.chosen in open_best
    return bots


def _tops(judged: Judged, value: Callable[[Candidate], float]) -> set[Action]:
    """The candidates of the best ``value`` (ties all count: a decided hand values every
    move alike)."""
    top = max(value(c) for c in judged.candidates)
    return {c.action for c in judged.candidates if value(c) >= top - TIE}


def worst(
    reviews: Iterable[GameReview],
    k: int,
    *,
    bot: str | None = None,
    phase: PhaseName | None = None,
) -> list[tuple[GameReview, Reviewed]]:
    """The ``k`` worst decisions judged in ``reviews`` (of ``bot``, in ``phase``, when
    given; a bot named as :func:`quality` names it), each with its game's review: the marked
    first, ``??`` before ``?`` before ``?!``, each kind costliest first."""
    severity = {mark: rank for rank, (mark, _, _) in enumerate(MARKS)}
    found = [
        (review, decision)
        for review in reviews
        for decision in review.decisions
        if decision.judged is not None
        and bot in (None, decision.bot or f"seat {decision.seat}")
        and phase in (None, decision.phase)
    ]

    def badness(item: tuple[GameReview, Reviewed]) -> tuple[int, float]:
        judged = item[1].judged
        assert judged is not None
        return severity.get(judged.mark, len(MARKS)), -judged.cost

    return sorted(found, key=badness)[:k]
