"""The search library: the heuristic policy, the playouts, the PIMC search and the review's judge.

One home for the policies the project's bots, its trainer and its reviewer share:

* the heuristic policy (:mod:`chaodipi.search.heuristic`): :func:`heuristic_move`
  (:class:`Heuristic` for a game: each seat's inference kept between its decisions), with its
  parts :func:`choose_bid`, :func:`bury_cards`, :func:`guess_trump` (:func:`trump_guessed`),
  :func:`play_candidates`, :func:`card_value`;
* the playouts (:mod:`chaodipi.search.playout`): a sampled world played to the end of the hand,
  each seat from its own cards (:func:`play_out`, :func:`play_move`, :func:`follow_move`,
  :data:`LEAD_NOISE`), and the hand's value for a seat (:func:`hand_value`,
  :data:`POINTS_PER_LEVEL`);
* the PIMC search (:mod:`chaodipi.search.pimc`): a decision's :class:`Problem` (its candidates,
  how one is judged in a world, how worlds are drawn: :func:`problem`), its :class:`Budget` and
  what it :class:`Spent`, and :func:`search_move` (:data:`DEFAULT_SIMULATIONS`,
  :data:`DEFAULT_CAP_MS`, :data:`CONFIDENCE`);
* the Monte-Carlo policy (:mod:`chaodipi.search.monte_carlo`): :func:`monte_carlo_move`
  (:data:`MARGIN`);
* the review's judge (:mod:`chaodipi.search.judge`): :func:`judge_problem`, named
  :data:`JUDGE_NAME` at :data:`JUDGE_VERSION`, which weighs the auction too
  (:mod:`chaodipi.search.auction`: :func:`auction_problem`, declaring, frying and burying
  with the rest of the auction played after the choice).

It imports the engine alone (``tests/test_layers.py``): the sample bots
(``chaodipi.sample_bots``) are thin programs over it, the review (``chaodipi.review``) and the
trainer (``chaodipi.rl``) import it.

>>> import random
>>> from chaodipi.engine import PRESETS, Match, observe
>>> match = Match(PRESETS["classic"], seed=1, max_hands=1)
>>> view = observe(match, match.to_play)
>>> heuristic_move(view)
Pass()
>>> search_move(view, random.Random(1), Budget(8, None)) == heuristic_move(view)  # declaring
True
"""

from chaodipi.search.auction import auction_problem as auction_problem
from chaodipi.search.heuristic import Heuristic as Heuristic
from chaodipi.search.heuristic import bury_cards as bury_cards
from chaodipi.search.heuristic import card_value as card_value
from chaodipi.search.heuristic import choose_bid as choose_bid
from chaodipi.search.heuristic import guess_trump as guess_trump
from chaodipi.search.heuristic import heuristic_move as heuristic_move
from chaodipi.search.heuristic import play_candidates as play_candidates
from chaodipi.search.heuristic import trump_guessed as trump_guessed
from chaodipi.search.judge import JUDGE_NAME as JUDGE_NAME
from chaodipi.search.judge import JUDGE_VERSION as JUDGE_VERSION
from chaodipi.search.judge import judge_problem as judge_problem
from chaodipi.search.monte_carlo import MARGIN as MARGIN
from chaodipi.search.monte_carlo import monte_carlo_move as monte_carlo_move
from chaodipi.search.pimc import CONFIDENCE as CONFIDENCE
from chaodipi.search.pimc import DEFAULT_CAP_MS as DEFAULT_CAP_MS
from chaodipi.search.pimc import DEFAULT_SIMULATIONS as DEFAULT_SIMULATIONS
from chaodipi.search.pimc import Budget as Budget
from chaodipi.search.pimc import Problem as Problem
from chaodipi.search.pimc import Spent as Spent
from chaodipi.search.pimc import problem as problem
from chaodipi.search.pimc import search_move as search_move
from chaodipi.search.playout import LEAD_NOISE as LEAD_NOISE
from chaodipi.search.playout import POINTS_PER_LEVEL as POINTS_PER_LEVEL
from chaodipi.search.playout import follow_move as follow_move
from chaodipi.search.playout import hand_value as hand_value
from chaodipi.search.playout import play_move as play_move
from chaodipi.search.playout import play_out as play_out

__all__ = [
    "CONFIDENCE",
    "DEFAULT_CAP_MS",
    "DEFAULT_SIMULATIONS",
    "JUDGE_NAME",
    "JUDGE_VERSION",
    "LEAD_NOISE",
    "MARGIN",
    "POINTS_PER_LEVEL",
    "Budget",
    "Heuristic",
    "Problem",
    "Spent",
    "auction_problem",
    "bury_cards",
    "card_value",
    "choose_bid",
    "follow_move",
    "guess_trump",
    "hand_value",
    "heuristic_move",
    "judge_problem",
    "monte_carlo_move",
    "play_candidates",
    "play_move",
    "play_out",
    "problem",
    "search_move",
    "trump_guessed",
]
