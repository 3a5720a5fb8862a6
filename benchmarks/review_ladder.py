"""Does the review's decision quality order the ladder's rungs as their results do, and with
how many games against how many the results need?

    python3 benchmarks/review_ladder.py [--deals 8] [--simulations 120] [--workers 2]

Each rung of the reference ladder (random, heuristic, search40, search: the sample bots'
``decide`` in process, at the rungs' budgets without a clock) plays 1-hand classic games
against the heuristic bot on deals 1…N, each deal twice with the teams' seats swapped; every
decision of the rung's seats is reviewed (``review_game``, --simulations playouts a decision).
Prints per rung: its score against the heuristic, its mean cost per decision with the 95 %
interval (from the per-game means: a game's decisions are not independent), its mark rates;
then, for each pair of adjacent rungs, the difference of each figure with its standard error
and the games each figure would need for LOS ≥ 99 % at that difference (z = 2.326, the error
shrinking as 1/√games).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import statistics
from collections.abc import Callable
from typing import Any

from chaodipi.engine import PRESETS, Action, Match, SeatView, observe
from chaodipi.records import record_lines
from chaodipi.review import review_game
from chaodipi.search import Budget, heuristic_move, search_move

Z99 = 2.326


def _rungs(seed: int) -> dict[str, Callable[[SeatView], Action]]:
    rng = random.Random(seed)

    def random_bot(view: SeatView) -> Action:
        assert view.legal is not None
        return view.legal.sample(rng)

    def search(simulations: int) -> Callable[[SeatView], Action]:
        budget = Budget(simulations, None)
        return lambda view: search_move(view, rng, budget)

    return {
        "random": random_bot,
        "heuristic": heuristic_move,
        "search40": search(40),
        "search": search(120),
    }


def _play(bot: Callable[[SeatView], Action], deal: int, team: int) -> tuple[list[Any], float]:
    match = Match(PRESETS["classic"], seed=deal, max_hands=1)
    while not match.over:
        seat = match.to_play
        decide = bot if seat % 2 == team else heuristic_move
        match.apply(seat, decide(observe(match, seat)))
    score = 0.5 if match.winner is None else float(match.winner == team)
    return list(record_lines(match)), score


def _needed(difference: float, error: float, games: int) -> float:
    """Games for LOS ≥ 99 % at this difference, the error shrinking as 1/√games."""
    if difference <= 0 or not math.isfinite(error) or error == 0:
        return math.inf
    return games * (Z99 * error / difference) ** 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=8)
    parser.add_argument("--simulations", type=int, default=120)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    rows: dict[str, dict[str, Any]] = {}
    for name, bot in _rungs(1).items():
        scores, costs, marks, decisions = [], [], {"??": 0, "?": 0, "?!": 0}, 0
        for deal in range(1, args.deals + 1):
            for team in (0, 1):
                lines, score = _play(bot, deal, team)
                review = review_game(
                    lines, seats=(team, team + 2), simulations=args.simulations,
                    seed=deal, workers=args.workers,
                )  # fmt: skip
                judged = review.judged
                scores.append(score)
                costs.append(statistics.fmean(j.cost for j in judged))
                decisions += len(judged)
                for j in judged:
                    if j.mark:
                        marks[j.mark] += 1
        games = len(scores)
        row = {
            "rung": name, "games": games, "decisions": decisions,
            "score": statistics.fmean(scores),
            "score_se": statistics.stdev(scores) / math.sqrt(games),
            "cost": statistics.fmean(costs),
            "cost_se": statistics.stdev(costs) / math.sqrt(games),
            "marks_per_decision": {m: round(n / decisions, 4) for m, n in marks.items()},
        }  # fmt: skip
        rows[name] = row
        print(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()}))
    names = list(rows)
    for lower, upper in itertools.pairwise(names):
        a, b = rows[lower], rows[upper]
        games = a["games"]
        score_diff = b["score"] - a["score"]
        score_se = math.hypot(a["score_se"], b["score_se"])
        cost_diff = a["cost"] - b["cost"]  # the stronger rung should cost less
        cost_se = math.hypot(a["cost_se"], b["cost_se"])
        print(json.dumps({
            "pair": f"{upper} over {lower}",
            "score_difference": round(score_diff, 4), "score_se": round(score_se, 4),
            "games_for_los99_by_score": round(_needed(score_diff, score_se, games)),
            "cost_difference": round(cost_diff, 4), "cost_se": round(cost_se, 4),
            "games_for_los99_by_cost": round(_needed(cost_diff, cost_se, games)),
        }, allow_nan=True))  # fmt: skip


if __name__ == "__main__":
    main()
