"""The review's judge: its name, its version, and the problem it weighs at each decision.

``arena review`` (:mod:`chaodipi.review`) judges a decision by weighing the candidates of
:func:`judge_problem` over worlds the seat could believe in: every decision of a hand, the
auction's (:mod:`chaodipi.search.auction`) as the card play's (:mod:`chaodipi.search.pimc`). A
review names the judge that made it (:data:`JUDGE_NAME`, :data:`JUDGE_VERSION`), so that figures
made by different judges are never compared unawares.

:data:`JUDGE_VERSION` changes whenever a verdict could: the candidates, the worlds, the
playout policy, the heuristic policy the candidates come from, or the value of a hand (git's
log of this line says what each version changed). This version judges every decision of a
hand with a choice: declaring, burying, frying and the card play.

>>> JUDGE_NAME
'chaodipi.search PIMC'
"""

from __future__ import annotations

from chaodipi.engine import SeatView
from chaodipi.search.auction import auction_problem
from chaodipi.search.pimc import Problem, problem

__all__ = ["JUDGE_NAME", "JUDGE_VERSION", "judge_problem"]

JUDGE_NAME = "chaodipi.search PIMC"
"""The judge's name, as a review's JSON and text give it."""
JUDGE_VERSION = "3"
"""The judge's version: a new one whenever a verdict on the same decision, seed and budget could
change."""


def judge_problem(view: SeatView) -> Problem | None:
    """The judge's problem at ``view``'s decision: the auction's
    (:func:`~chaodipi.search.auction_problem`: declaring, frying, burying, the rest of the
    auction played after the choice), else the search's (:func:`~chaodipi.search.problem`: the
    card play); ``None`` with nothing to weigh."""
    return auction_problem(view) or problem(view)
