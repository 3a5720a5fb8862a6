"""Judging one decision from what its seat knew: the candidates, their values, the cost.

A decision is judged by the judge of :mod:`chaodipi.search` (:func:`chaodipi.search.judge_problem`,
named :data:`~chaodipi.search.JUDGE_NAME` at :data:`~chaodipi.search.JUDGE_VERSION`): worlds
drawn uniformly among the deals consistent with the seat's view (never the real hidden hands),
each candidate played out in each world by a policy that sees only its own cards, the hand
scored for the seat's team in levels, with the points as a tie-break
(:func:`chaodipi.search.hand_value`).
Every candidate meets the same worlds and the same playout dice (common random numbers), so a
cost is a mean of paired differences and its standard error is that of the differences.

Separately, *hindsight*: each candidate played out on the real deal (the same dice), the best
move had every card been open. It never enters a cost; it says how often a bot's choices fit
cards it could not see (:mod:`chaodipi.review.quality`).
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from chaodipi.engine import Action, Bury, Deal, Phase, Play, SeatView
from chaodipi.search import judge_problem

__all__ = [
    "MARKS",
    "Candidate",
    "Judged",
    "PhaseName",
    "judge",
    "mark_of",
    "normal",
    "phase_of",
    "settled",
]

PhaseName = Literal["bidding", "burying", "leading", "following"]
"""The phases a review splits decisions by: bidding and frying, burying, leading a trick,
following to one."""

MARKS: tuple[tuple[str, str, float], ...] = (
    ("??", "blunder", 0.5),
    ("?", "mistake", 0.25),
    ("?!", "inaccuracy", 0.1),
)
"""A decision's mark, its name, and the least cost (in levels) that earns it; each needs the
cost to be more than :data:`NOISE` standard errors, so that noise never earns one."""
NOISE = 2.0
"""Standard errors a cost must exceed to be marked."""
GROWTH = 4
"""A decision whose verdict is near a mark's line (:func:`settled`) is given more worlds, twice
as many at a time, up to this many times its first budget."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """One move the reviewer weighed: its mean ``value`` for the seat's team over the worlds,
    the standard ``error`` of its difference from the best candidate's (0 for the best), and
    its value on the real deal (``hindsight``)."""

    action: Action
    value: float
    error: float
    hindsight: float


@dataclass(frozen=True, slots=True)
class Judged:
    """A decision judged: the ``candidates`` (best first), the move ``chosen``, its ``cost``
    (the best value less the chosen's, at least 0) with its standard ``error``, its
    :data:`MARKS` mark ('' for none), the ``worlds`` the best and the chosen met (the other
    candidates met the first of them, the first budget's), and the move best in
    ``hindsight``."""

    candidates: tuple[Candidate, ...]
    chosen: Action
    cost: float
    error: float
    mark: str
    worlds: int
    hindsight: Action

    @property
    def best(self) -> Action:
        """The reviewer's move: the candidate with the best value."""
        return self.candidates[0].action


def phase_of(view: SeatView) -> PhaseName:
    """The phase a decision belongs to, as a review splits them."""
    match view.phase:
        case Phase.DECLARE | Phase.FRY:
            return "bidding"
        case Phase.BURY:
            return "burying"
        case Phase.PLAY:
            return "leading" if view.trick is None or not view.trick.plays else "following"
        case Phase.OVER:
            raise ValueError("no decision is taken once the hand is over")


def mark_of(cost: float, error: float) -> str:
    """The mark a cost earns (``''``: none).

    >>> mark_of(0.6, 0.1), mark_of(0.6, 0.4), mark_of(0.3, 0.05), mark_of(0.05, 0.0)
    ('??', '', '?', '')
    """
    for mark, _, least in MARKS:
        if cost >= least and cost > NOISE * error:
            return mark
    return ""


def settled(cost: float, error: float) -> bool:
    """Whether more worlds could not change a cost's mark: no mark's least cost lies within
    :data:`NOISE` standard errors of it.

    >>> settled(0.02, 0.01), settled(0.6, 0.02), settled(0.31, 0.1), settled(0.0, 0.0)
    (True, True, False, True)
    """
    low, high = cost - NOISE * error, cost + NOISE * error
    return not any(low < least <= high for _, _, least in MARKS)


def judge(
    view: SeatView,
    chosen: Action,
    real: Deal,
    simulations: int,
    seed: str,
    *,
    most: int | None = None,
) -> Judged | None:
    """``chosen`` at ``view``'s decision, judged with about ``simulations`` playouts from the
    seat's own information (and as many on the ``real`` deal, for hindsight); while its mark is
    not :func:`settled`, the best candidate and the chosen meet more worlds, twice as many at a
    time, until ``most`` playouts of each candidate's share (:data:`GROWTH` times
    ``simulations`` by default). ``None`` when the reviewer has nothing to weigh it against
    (one candidate). The same ``seed`` gives the same verdict on any machine."""
    found = judge_problem(view)
    chosen = normal(chosen)
    choices: list[Action] = list(dict.fromkeys(normal(c) for c in found.choices)) if found else []
    if found is None or choices == [chosen]:
        return None
    if chosen not in choices:
        choices.append(chosen)
    weigh = found
    worlds = max(4, simulations // len(choices))
    cap = max(worlds, (GROWTH * simulations if most is None else most) // len(choices))
    rng = random.Random(seed)
    drawn: list[tuple[Deal, int]] = []  # the worlds and their playouts' dice, in order
    values: list[list[float]] = [[] for _ in choices]

    def meet(i: int, count: int) -> None:
        """Candidate ``i`` played out in the first ``count`` worlds."""
        while len(drawn) < count:
            drawn.append((weigh.draw(rng), rng.getrandbits(32)))
        for world, dice in drawn[len(values[i]) : count]:
            values[i].append(weigh.judge(choices[i], world, dice))

    for i in range(len(choices)):
        meet(i, worlds)
    seen = [[weigh.judge(choice, real, dice) for _, dice in drawn] for choice in choices]
    mine = choices.index(chosen)
    while True:  # more worlds for the best and the chosen while the mark is unsettled
        means = [statistics.fmean(v) for v in values]
        top = max(range(len(choices)), key=lambda i: (means[i], -i))
        if len(values[top]) < worlds or len(values[mine]) < worlds:
            meet(top, worlds)  # a new best meets the worlds the verdict is judged in
            meet(mine, worlds)
            continue
        cost = means[top] - means[mine]
        error = _error(values[top], values[mine])
        if worlds >= cap or settled(cost, error):
            break
        worlds = min(cap, 2 * worlds)
    order = sorted(range(len(choices)), key=lambda i: -means[i])
    candidates = tuple(
        Candidate(choices[i], means[i], _error(values[top], values[i]), statistics.fmean(seen[i]))
        for i in order
    )
    hindsight = max(range(len(choices)), key=lambda i: statistics.fmean(seen[i]))
    return Judged(candidates, chosen, cost, error, mark_of(cost, error), worlds, choices[hindsight])


def normal(action: Action) -> Action:
    """``action`` with its cards in code order, so that two spellings of one move are equal.

    >>> from chaodipi.engine import Card, Play
    >>> king, five = Card.parse("♠K"), Card.parse("♠5")
    >>> normal(Play((king, five))) == normal(Play((five, king)))
    True
    """
    match action:
        case Play(cards=cards):
            return Play(tuple(sorted(cards)))
        case Bury(cards=cards):
            return Bury(tuple(sorted(cards)))
        case _:
            return action


def _error(best: Sequence[float], other: Sequence[float]) -> float:
    """The standard error of the mean paired difference ``best - other``, over the worlds both
    met."""
    if best is other:
        return 0.0
    diffs = [a - b for a, b in zip(best, other, strict=False)]
    return statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else math.inf
