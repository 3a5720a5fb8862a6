"""The review's judge: its name, its version, and the problem it weighs at each decision.

``arena review`` (:mod:`chaodipi.review`) judges a decision by weighing the candidates of
:func:`judge_problem` over worlds the seat could believe in. A review names the judge that made
it (:data:`JUDGE_NAME`, :data:`JUDGE_VERSION`), so that figures made by different judges are
never compared unawares.

:data:`JUDGE_VERSION` changes whenever a verdict could: the candidates, the worlds, the
playout policy, the heuristic policy the candidates come from, or the value of a hand.

>>> JUDGE_NAME
'chaodipi.search PIMC'
"""

from __future__ import annotations

from chaodipi.engine import SeatView
from chaodipi.search.pimc import Problem, problem

__all__ = ["JUDGE_NAME", "JUDGE_VERSION", "judge_problem"]

JUDGE_NAME = "chaodipi.search PIMC"
"""The judge's name, as a review's JSON and text give it."""
JUDGE_VERSION = "1"
"""The judge's version: a new one whenever a verdict on the same decision, seed and budget could
change."""


def judge_problem(view: SeatView) -> Problem | None:
    """The judge's problem at ``view``'s decision: the search's (:func:`~chaodipi.search.problem`);
    ``None`` where it weighs nothing (declaring, frying while bids are hidden)."""
    return problem(view)
