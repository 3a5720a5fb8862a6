"""Reviewing games: what each decision cost, judged from what its seat knew.

Its public vocabulary is this package's ``__all__``:

* a game: :func:`review_game` → :class:`GameReview` of :class:`Reviewed` decisions, each
  :class:`Judged` (its :class:`Candidate`\\ s, cost, mark) or not;
* one decision: :func:`judge`, with its :data:`MARKS` (:func:`mark_of`) and phases
  (:data:`PhaseName`, :func:`phase_of`, :data:`PHASES`);
* many games: :func:`quality` → :class:`BotQuality` per bot (:class:`Figure` per phase),
  :func:`worst` (a bot's worst decisions);
* as JSON: :func:`review_json`, :func:`decision_json`;
* the judge every verdict comes from: :data:`JUDGE_NAME` at :data:`JUDGE_VERSION` (stated in
  :mod:`chaodipi.search`, which judges).
"""

from chaodipi.review.game import DEFAULT_SIMULATIONS as DEFAULT_SIMULATIONS
from chaodipi.review.game import GameReview as GameReview
from chaodipi.review.game import Reviewed as Reviewed
from chaodipi.review.game import review_game as review_game
from chaodipi.review.judging import MARKS as MARKS
from chaodipi.review.judging import Candidate as Candidate
from chaodipi.review.judging import Judged as Judged
from chaodipi.review.judging import PhaseName as PhaseName
from chaodipi.review.judging import judge as judge
from chaodipi.review.judging import mark_of as mark_of
from chaodipi.review.judging import phase_of as phase_of
from chaodipi.review.quality import PHASES as PHASES
from chaodipi.review.quality import BotQuality as BotQuality
from chaodipi.review.quality import Figure as Figure
from chaodipi.review.quality import quality as quality
from chaodipi.review.quality import worst as worst
from chaodipi.review.serial import decision_json as decision_json
from chaodipi.review.serial import review_json as review_json
from chaodipi.search import JUDGE_NAME as JUDGE_NAME
from chaodipi.search import JUDGE_VERSION as JUDGE_VERSION

__all__ = [
    "DEFAULT_SIMULATIONS",
    "JUDGE_NAME",
    "JUDGE_VERSION",
    "MARKS",
    "PHASES",
    "BotQuality",
    "Candidate",
    "Figure",
    "GameReview",
    "Judged",
    "PhaseName",
    "Reviewed",
    "decision_json",
    "judge",
    "mark_of",
    "phase_of",
    "quality",
    "review_game",
    "review_json",
    "worst",
]
